// One range's answer for one asset (docs/correlation.md §5): in, out or a review with its reason, as a code the verdict
// (correlate.ts) reads per row, and as a RangeVerdict with its sentence. Pure.
import type { AffectedRange, RangeStatus } from './ranges.ts';
import { inRange, sameVersion, type RangeAnswer } from './versions.ts';
import { comparatorOf, distinctIn, explainUnordered, schemeOf } from './version-schemes.ts';
import { matchProduct, type AssetName, type ProductMatch } from './product-match.ts';
import { parseCpe } from './cpe-name.ts';
import { describe, sourceLabel, type RangeRow } from './range-rows.ts';

export type CorrelationStatus = 'affected' | 'not_affected' | 'needs_review';

export interface Asset extends AssetName {
  version: string | null;
}

export interface RangeVerdict {
  row: RangeRow;
  match: ProductMatch;
  /** in: the range covers the asset; out: it does not; review: cannot be said with certainty. */
  answer: 'in' | 'out' | 'review';
  /** The status the range states for the versions it covers (changes[] applied). */
  status: RangeStatus;
  note: string | null;
}

export interface CveVerdict {
  status: CorrelationStatus;
  /** Why, in plain words. */
  reason: string;
  /** The range that decided it. */
  deciding: RangeVerdict;
  /** The best product match among the ranges considered. */
  match: ProductMatch;
  /**
   * A fixed version a source states for this product: the deciding range's; else, for an asset in an affected range
   * (affected or needs_review), the fix of a matched range that holds its version, else a stated fix above its
   * version; for a not-affected asset, any matched range's.
   */
  fixed_version: string | null;
}

/**
 * A range's answer for the asset as a code (no allocation: correlation asks it tens of thousands of times per
 * call). `in` codes carry the status the range states for the version (changes[] applied); review codes say why.
 */
export const OUT = 1;
export const IN_AFFECTED = 2;
export const IN_UNAFFECTED = 3;
export const IN_UNKNOWN = 4;
export const REVIEW_STATUS_UNKNOWN = 10;
export const REVIEW_TEXT = 11;
export const REVIEW_NO_VERSION = 12;
export const REVIEW_UNORDERABLE = 13;
export const REVIEW_CHANGE = 14;
export const REVIEW_RUNNING_ON = 15;
export const REVIEW_VARIANT = 16;
export const REVIEW_MEMBER = 17;
export const REVIEW_DEFAULT = 18;
export const REVIEW_BROAD = 19;
export const REVIEW_CONDITION = 20;
export const REVIEW_PACKAGE = 21;
const IN_CODE: Record<RangeStatus, number> = { affected: IN_AFFECTED, unaffected: IN_UNAFFECTED, unknown: IN_UNKNOWN };

/** The status a range states for the asset's version, its changes[] applied (null: a change cannot be ordered). */
export function statusAt(asset: Asset, r: AffectedRange): RangeStatus | null {
  let status: RangeStatus = r.status;
  // Stryker disable next-line ConditionalExpression,LogicalOperator: statusAt runs only for an asset with a version (rangeOutcome answers REVIEW_NO_VERSION first), and with no changes the loop does nothing
  if (asset.version && r.changes.length) {
    // CVE 5 changes[]: from version `at` on, the status becomes `status`.
    const cmp = comparatorOf(schemeOf(r.vendor, r.product, r.versionType));
    for (const ch of r.changes) {
      const c = cmp(asset.version, ch.at);
      if (c === 'needs_review') return null;
      if (c >= 0) status = ch.status;
    }
  }
  return status;
}

/** A range that names no version: every version of the product (an NVD CPE with `*` or `-`, "vers:all/*"). */
export function everyVersion(r: AffectedRange): boolean {
  return !r.version && !r.start && !r.end && r.changes.length === 0 && !r.text;
}

/**
 * A row that left the asset's version out (code OUT) and counts against "every version": an affected range with
 * versions, matched as the asset's product itself (a variant's or a family member's range says nothing of it).
 */
export function boundedOut(m: { row: RangeRow; match: ProductMatch }): boolean {
  return m.row.range.status === 'affected' && !indirect(m.match);
}

/**
 * A match through which a range says nothing certain of the asset's own product: a variant of it, a product of the
 * family the asset names, or a bare product line name the asset's product may or may not belong to (`broad`).
 */
export function indirect(match: ProductMatch): boolean {
  return match.confidence === 'variant' || match.confidence === 'member' || match.broad === true;
}

/** A match that counts only when no row of the CVE names the asset's product more closely: member or broad line. */
export function weak(match: ProductMatch): boolean {
  return match.confidence === 'member' || match.broad === true;
}

export function rangeOutcome(asset: Asset, r: AffectedRange): number {
  if (r.status === 'unknown') return REVIEW_STATUS_UNKNOWN;
  if (r.text) return REVIEW_TEXT;
  let answer: RangeAnswer;
  // Stryker disable next-line StringLiteral: an every-version range has no changes[], so statusAt would return its own status: '' and 'in' end alike
  if (everyVersion(r)) answer = 'in';
  else if (!asset.version) return REVIEW_NO_VERSION;
  // The builds of a package the product carries: the asset's version is the product's, not that package's.
  else if (r.package) return REVIEW_PACKAGE;
  else if (r.version) {
    const scheme = schemeOf(r.vendor, r.product, r.versionType);
    answer = sameVersion(asset.version, r.version, comparatorOf(scheme));
    // Two trains' releases are not ordered, but are certainly not the same version.
    if (answer === 'needs_review' && distinctIn(scheme, asset.version, r.version)) answer = 'out';
  } else answer = inRange(asset.version, r.start, r.end, comparatorOf(schemeOf(r.vendor, r.product, r.versionType)));
  if (answer === 'needs_review') return REVIEW_UNORDERABLE;
  let status: RangeStatus | null = r.status;
  if (answer === 'in') {
    status = statusAt(asset, r);
    if (status === null) return REVIEW_CHANGE;
  }
  if (answer === 'out') return OUT;
  if (r.runningOn && r.runningOn.length) {
    const on = r.runningOn.some((p) => {
      const c = parseCpe(p);
      return c !== null && matchProduct(asset, { vendor: c.vendor, product: c.product, cpe: p }) !== null;
    });
    if (!on) return REVIEW_RUNNING_ON;
  }
  // A condition in words ("if VP6E5000 is installed") on the range: whether it holds decides.
  // Not affected under a condition is no more certain than affected under one.
  if (r.condition) return REVIEW_CONDITION;
  return IN_CODE[status];
}

/**
 * A range's answer through its match: a range of a variant of the asset's product (match `variant`), of one
 * product of the family the asset names (match `member`), or of a bare product line name (`broad`) says nothing
 * certain about this asset. Its "affected" becomes a review (the asset may be that variant, product or model); its
 * "not affected" is no claim (the asset may be another one), so it counts as outside the range.
 */
export function matchedOutcome(asset: Asset, m: { row: RangeRow; match: ProductMatch }): number {
  const code = rangeOutcome(asset, m.row.range);
  if (!indirect(m.match)) return code;
  if (code === IN_AFFECTED)
    return m.match.confidence === 'variant'
      ? REVIEW_VARIANT
      : m.match.confidence === 'member'
        ? REVIEW_MEMBER
        : REVIEW_BROAD;
  return code === IN_UNAFFECTED ? OUT : code;
}

/** Why the asset's version and a stated version of the range cannot be ordered, when a mix of schemes is the reason. */
function unorderedWhy(version: string, r: AffectedRange): string | null {
  const scheme = schemeOf(r.vendor, r.product, r.versionType);
  const cmp = comparatorOf(scheme);
  for (const v of [r.version, r.start?.version, r.end?.version]) {
    if (v && cmp(version, v) === 'needs_review') return explainUnordered(scheme, version, v);
  }
  return null;
}

/** The sentence of a review code. */
function reviewNote(code: number, asset: Asset, r: AffectedRange): string {
  switch (code) {
    case REVIEW_VARIANT:
      return `version ${asset.version ?? '(unknown)'} is in ${describe(r)} for the variant "${r.product}"; the asset names no variant`;
    case REVIEW_BROAD:
      return `version ${asset.version ?? '(unknown)'} is in ${describe(r)} for "${r.product}", a product line name the ${sourceLabel(r.source)} gives without a model or edition; whether "${asset.product}" is one of the products it means decides`;
    case REVIEW_MEMBER:
      return `version ${asset.version ?? '(unknown)'} is in ${describe(r)} for "${r.product}", one product of the family "${asset.product}" the asset names; which product the asset is decides`;
    case REVIEW_CONDITION:
      return `version ${asset.version ?? '(unknown)'} is in ${describe(r)}, which the ${sourceLabel(r.source)} states ${r.status === 'unaffected' ? 'not affected' : 'affected'} only under a condition: "${r.condition}"`;
    case REVIEW_STATUS_UNKNOWN:
      return `the ${sourceLabel(r.source)} states the status of ${describe(r)} as unknown`;
    case REVIEW_PACKAGE:
      return `the ${sourceLabel(r.source)} states ${describe(r)} for the package "${r.package}" of "${r.product}", not for the product's own version ${asset.version}; the asset names no package build`;
    case REVIEW_TEXT:
      return /\S <=? ?publication$/i.test(r.text ?? '')
        ? // Microsoft's records: `lessThan: "publication"`.
          `version range not machine-readable: "${r.text}": the ${sourceLabel(r.source)} ends the range at the update published with the CVE, and names no version for it`
        : r.text === '0' && r.source === 'cve5'
          ? `version range not machine-readable: "0": the CVE record states version "0" alone (by the CVE schema's convention the earliest version) with no end, so which versions it means is not stated`
          : `version range not machine-readable: "${r.text}"`;
    case REVIEW_NO_VERSION:
      return `version unknown; the ${sourceLabel(r.source)} names ${describe(r)}`;
    case REVIEW_DEFAULT:
      return `version ${asset.version} is outside every version the ${sourceLabel(r.source)} lists for "${r.product}" (closest: ${describe(r)}), and its default status for versions it does not list is affected`;
    case REVIEW_UNORDERABLE: {
      const why = unorderedWhy(asset.version!, r);
      return `version ${asset.version} cannot be ordered with certainty against ${describe(r)}${why ? `: ${why}` : ''}`;
    }
    case REVIEW_CHANGE: {
      const cmp = comparatorOf(schemeOf(r.vendor, r.product, r.versionType));
      const ch = r.changes.find((x) => cmp(asset.version!, x.at) === 'needs_review')!;
      return `version ${asset.version} cannot be ordered with certainty against the change at ${ch.at}`;
    }
    default:
      // Stryker disable next-line ArrayDeclaration: a running-on review always has runningOn set; the fallback is there for the type
      return `affected only when running on ${(r.runningOn ?? []).join(' or ')}; the asset does not name that platform`;
  }
}

/**
 * The range's own answer for the asset's version. `notes: false` leaves `note` null (the sentences are made only
 * where they are read).
 */
export function rangeAnswer(asset: Asset, row: RangeRow, match: ProductMatch, notes = true): RangeVerdict {
  return answerOf(asset, row, match, matchedOutcome(asset, { row, match }), notes);
}

/** rangeAnswer with the row's code already known (verdict computes it once per row). */
export function answerOf(asset: Asset, row: RangeRow, match: ProductMatch, code: number, notes = true): RangeVerdict {
  const r = row.range;
  if (code === OUT) return { row, match, answer: 'out', status: r.status, note: null };
  if (code < REVIEW_STATUS_UNKNOWN)
    return {
      row,
      match,
      answer: 'in',
      status: code === IN_AFFECTED ? 'affected' : code === IN_UNAFFECTED ? 'unaffected' : 'unknown',
      note: null,
    };
  const status =
    code === REVIEW_DEFAULT
      ? 'affected'
      : code === REVIEW_RUNNING_ON ||
          code === REVIEW_CONDITION ||
          code === REVIEW_VARIANT ||
          code === REVIEW_MEMBER ||
          code === REVIEW_BROAD
        ? (statusAt(asset, r) ?? r.status)
        : r.status;
  return { row, match, answer: 'review', status, note: notes ? reviewNote(code, asset, r) : null };
}
