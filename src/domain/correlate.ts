// Asset × CVE verdicts from structured ranges (docs/correlation.md §4–5). Pure.
//
// rangeRows(), describe(), matchRow(): range-rows.ts (re-exported here).
// verdict(): for one asset and the ranges of one CVE whose product matched, the status:
//   affected      a range whose status is affected covers the asset's version with certainty (or covers every
//                 version), and no range says the same version is unaffected;
//   not_affected  ranges matched the product, none covers the version, or a range says unaffected for it;
//   needs_review  the version is unknown (and no range covers every version), a comparison cannot be made with
//                 certainty, the range is not machine-readable (CSAF free text), the range applies only when running
//                 on a platform the asset does not name, or two sources disagree.
import type { AffectedRange, RangeSource, RangeStatus } from './ranges.ts';
import { inRange, sameVersion, type RangeAnswer } from './versions.ts';
import { comparatorOf, explainUnordered, schemeOf } from './version-schemes.ts';
import { matchProduct, parseCpe, strongerMatch, type AssetName, type ProductMatch } from './product-match.ts';
import { describe, sourceLabel, type RangeRow } from './range-rows.ts';

export { canonicalRange, describe, matchRow, rangeRows, sourceLabel, type RangeRow } from './range-rows.ts';

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
const OUT = 1;
const IN_AFFECTED = 2;
const IN_UNAFFECTED = 3;
const IN_UNKNOWN = 4;
const REVIEW_STATUS_UNKNOWN = 10;
const REVIEW_TEXT = 11;
const REVIEW_NO_VERSION = 12;
const REVIEW_UNORDERABLE = 13;
const REVIEW_CHANGE = 14;
const REVIEW_RUNNING_ON = 15;
const REVIEW_VARIANT = 16;
const REVIEW_MEMBER = 17;
const REVIEW_DEFAULT = 18;
const REVIEW_BROAD = 19;
const REVIEW_CONDITION = 20;
const IN_CODE: Record<RangeStatus, number> = { affected: IN_AFFECTED, unaffected: IN_UNAFFECTED, unknown: IN_UNKNOWN };

/** The status a range states for the asset's version, its changes[] applied (null: a change cannot be ordered). */
function statusAt(asset: Asset, r: AffectedRange): RangeStatus | null {
  let status: RangeStatus = r.status;
  // Stryker disable next-line ConditionalExpression,LogicalOperator: statusAt runs only for an asset with a version (rangeOutcome answers REVIEW_NO_VERSION first), and with no changes the loop does nothing
  if (asset.version && r.changes.length) {
    // CVE 5 changes[]: from version `at` on, the status becomes `status`.
    const cmp = comparatorOf(schemeOf(r.vendor, r.product));
    for (const ch of r.changes) {
      const c = cmp(asset.version, ch.at);
      if (c === 'needs_review') return null;
      if (c >= 0) status = ch.status;
    }
  }
  return status;
}

/** A range that names no version: every version of the product (an NVD CPE with `*` or `-`, "vers:all/*"). */
function everyVersion(r: AffectedRange): boolean {
  return !r.version && !r.start && !r.end && r.changes.length === 0 && !r.text;
}

/**
 * A row that left the asset's version out (code OUT) and counts against "every version": an affected range with
 * versions, matched as the asset's product itself (a variant's or a family member's range says nothing of it).
 */
function boundedOut(m: { row: RangeRow; match: ProductMatch }): boolean {
  return m.row.range.status === 'affected' && !indirect(m.match);
}

/**
 * A match through which a range says nothing certain of the asset's own product: a variant of it, a product of the
 * family the asset names, or a bare product line name the asset's product may or may not belong to (`broad`).
 */
function indirect(match: ProductMatch): boolean {
  return match.confidence === 'variant' || match.confidence === 'member' || match.broad === true;
}

/** A match that counts only when no row of the CVE names the asset's product more closely: member or broad line. */
function weak(match: ProductMatch): boolean {
  return match.confidence === 'member' || match.broad === true;
}

function rangeOutcome(asset: Asset, r: AffectedRange): number {
  if (r.status === 'unknown') return REVIEW_STATUS_UNKNOWN;
  if (r.text) return REVIEW_TEXT;
  let answer: RangeAnswer;
  // Stryker disable next-line StringLiteral: an every-version range has no changes[], so statusAt would return its own status: '' and 'in' end alike
  if (everyVersion(r)) answer = 'in';
  else if (!asset.version) return REVIEW_NO_VERSION;
  else if (r.version) answer = sameVersion(asset.version, r.version, comparatorOf(schemeOf(r.vendor, r.product)));
  else answer = inRange(asset.version, r.start, r.end, comparatorOf(schemeOf(r.vendor, r.product)));
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
  // A condition in words ("if VP6E5000 is installed") on an affected range: whether it holds decides.
  if (status === 'affected' && r.condition) return REVIEW_CONDITION;
  return IN_CODE[status];
}

/**
 * A range's answer through its match: a range of a variant of the asset's product (match `variant`), of one
 * product of the family the asset names (match `member`), or of a bare product line name (`broad`) says nothing
 * certain about this asset. Its "affected" becomes a review (the asset may be that variant, product or model); its
 * "not affected" is no claim (the asset may be another one), so it counts as outside the range.
 */
function matchedOutcome(asset: Asset, m: { row: RangeRow; match: ProductMatch }): number {
  const code = rangeOutcome(asset, m.row.range);
  if (!indirect(m.match)) return code;
  if (code === IN_AFFECTED) return m.match.confidence === 'variant' ? REVIEW_VARIANT : m.match.confidence === 'member' ? REVIEW_MEMBER : REVIEW_BROAD;
  return code === IN_UNAFFECTED ? OUT : code;
}

/** Why the asset's version and a stated version of the range cannot be ordered, when a mix of schemes is the reason. */
function unorderedWhy(version: string, r: AffectedRange): string | null {
  const scheme = schemeOf(r.vendor, r.product);
  const cmp = comparatorOf(scheme);
  for (const v of [r.version, r.start?.version, r.end?.version]) {
    if (v && cmp(version, v) === 'needs_review') return explainUnordered(scheme, version, v);
  }
  return null;
}

/** The sentence of a review code. */
function reviewNote(code: number, asset: Asset, r: AffectedRange): string {
  switch (code) {
    case REVIEW_VARIANT: return `version ${asset.version ?? '(unknown)'} is in ${describe(r)} for the variant "${r.product}"; the asset names no variant`;
    case REVIEW_BROAD: return `version ${asset.version ?? '(unknown)'} is in ${describe(r)} for "${r.product}", a product line name the ${sourceLabel(r.source)} gives without a model or edition; whether "${asset.product}" is one of the products it means decides`;
    case REVIEW_MEMBER: return `version ${asset.version ?? '(unknown)'} is in ${describe(r)} for "${r.product}", one product of the family "${asset.product}" the asset names; which product the asset is decides`;
    case REVIEW_CONDITION: return `version ${asset.version ?? '(unknown)'} is in ${describe(r)}, which the ${sourceLabel(r.source)} states affected only under a condition: "${r.condition}"`;
    case REVIEW_STATUS_UNKNOWN: return `the ${sourceLabel(r.source)} states the status of ${describe(r)} as unknown`;
    case REVIEW_TEXT: return `version range not machine-readable: "${r.text}"`;
    case REVIEW_NO_VERSION: return `version unknown; the ${sourceLabel(r.source)} names ${describe(r)}`;
    case REVIEW_DEFAULT: return `version ${asset.version} is outside every version the ${sourceLabel(r.source)} lists for "${r.product}" (closest: ${describe(r)}), and its default status for versions it does not list is affected`;
    case REVIEW_UNORDERABLE: {
      const why = unorderedWhy(asset.version!, r);
      return `version ${asset.version} cannot be ordered with certainty against ${describe(r)}${why ? `: ${why}` : ''}`;
    }
    case REVIEW_CHANGE: {
      const cmp = comparatorOf(schemeOf(r.vendor, r.product));
      const ch = r.changes.find((x) => cmp(asset.version!, x.at) === 'needs_review')!;
      return `version ${asset.version} cannot be ordered with certainty against the change at ${ch.at}`;
    }
    // Stryker disable next-line ArrayDeclaration: a running-on review always has runningOn set; the fallback is there for the type
    default: return `affected only when running on ${(r.runningOn ?? []).join(' or ')}; the asset does not name that platform`;
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
function answerOf(asset: Asset, row: RangeRow, match: ProductMatch, code: number, notes = true): RangeVerdict {
  const r = row.range;
  if (code === OUT) return { row, match, answer: 'out', status: r.status, note: null };
  if (code < REVIEW_STATUS_UNKNOWN) return { row, match, answer: 'in', status: code === IN_AFFECTED ? 'affected' : code === IN_UNAFFECTED ? 'unaffected' : 'unknown', note: null };
  const status = code === REVIEW_DEFAULT ? 'affected' : code === REVIEW_RUNNING_ON || code === REVIEW_CONDITION || code === REVIEW_VARIANT || code === REVIEW_MEMBER || code === REVIEW_BROAD ? statusAt(asset, r) ?? r.status : r.status;
  return { row, match, answer: 'review', status, note: notes ? reviewNote(code, asset, r) : null };
}

const CONF_RANK = { exact: 0, normalised: 1, family: 2, variant: 3, member: 4 } as const;
const SRC_RANK: Record<RangeSource, number> = { cve5: 0, csaf: 1, nvd: 2 };
/** Whether a ranks before b: stronger match, then source (CVE record, CISA advisory, NVD), then the row's order. */
function before(a: { match: ProductMatch; row: RangeRow }, b: { match: ProductMatch; row: RangeRow }): boolean {
  // Stryker disable next-line EqualityOperator: only the sign is read, and equal keys never reach here (row ord is unique within a CVE)
  return (CONF_RANK[a.match.confidence] - CONF_RANK[b.match.confidence] || SRC_RANK[a.row.source] - SRC_RANK[b.row.source] || a.row.ord - b.row.ord) < 0;
}

/** Where a range comes from, as the reasons name it ("CISA advisory ICSA-24-289-02"). */
function at(d: { row: RangeRow }): string {
  return `${sourceLabel(d.row.source)}${d.row.source_key ? ` ${d.row.source_key}` : ''}`;
}

/**
 * Which rows of a CVE speak for the asset, in tiers; only the rows of the lowest tier present count:
 *   0  a row that names the asset's product (exactly, normalised, as a family of it, or a variant of it) in release
 *      versions;
 *   1  a weak match (weak): a product of the family the asset names (member), or a bare product line name (broad).
 *      When a row names the asset's product itself, the rows of the family's other products, or of a line name that
 *      may mean other models, say nothing about the asset ("Firefox ESR" is decided by the ESR's rows, not by
 *      Firefox's);
 *   2  a range of git commits (CVE 5 `versionType: "git"`): commit hashes cannot be ordered against a release
 *      version, and the record states its releases in other rows (the Linux kernel's records give each CVE both:
 *      git ranges per stable branch, then "6.1.64" to "6.1.*" unaffected). Alone they are a review.
 */
function tier(m: { row: RangeRow; match: ProductMatch }): number {
  const vt = m.row.range.versionType;
  // Runs for every matched row of every CVE: no lower-cased copy of the text.
  return vt !== null && vt.length === 3 && GIT.test(vt) ? 2 : weak(m.match) ? 1 : 0;
}
const GIT = /^git$/i;

function lowestTier(matched: readonly { row: RangeRow; match: ProductMatch }[]): number {
  let t = 2;
  for (const m of matched) {
    const x = tier(m);
    if (x < t && (t = x) === 0) break;
  }
  return t;
}

/**
 * CVE Record 5 `defaultStatus` (the status of the versions an `affected[]` entry does not list): an entry whose default
 * is affected states every version it does not list affected. Its rows (one per `versions[]` item, grouped by the
 * entry's vendor, product and CPE) answer each for its own versions; when all of them leave the asset's version out
 * (OUT), the entry's default speaks for it, never "not affected" (CVE-2024-23897, KEV: Jenkins lists only its
 * unaffected versions, so a Jenkins 2.426.2 was "outside every stated range"):
 *   - affected (defaultAffected), when the entry states what is unaffected as ranges only ("2.426.3" to "2.426.*",
 *     "6.1.64" to "6.1.*", "0" to "1.606"): the list is the record's whole account of the fixed versions. The fix is
 *     the lowest start of an unaffected range above the version (2.426.3 for 2.426.2; 6.1.64 for a kernel 6.1.50);
 *   - needs_review (REVIEW_DEFAULT) otherwise: records list a fix as one unaffected version ("5.0.2") and mean the
 *     later ones too, and an entry without unaffected ranges may state its default carelessly.
 * Rows of a variant or a family member say nothing of the asset (left out).
 */
type DefaultEntry = {
  first: { row: RangeRow; match: ProductMatch };
  /** Every row of the entry leaves the asset's version out. */
  out: boolean;
  /** The entry states an unaffected range (with a bound); its default decides "affected" unless `lone`. */
  ranges: boolean;
  /** The entry states an unaffected single version or text ("5.0.2": that version and, meant, the later ones). */
  lone: boolean;
  /** The lowest start of an unaffected range above the asset's version. */
  fix: string | null;
};
type DefaultGroups = Map<string, DefaultEntry>;

function listsByDefault(m: { row: RangeRow; match: ProductMatch }): boolean {
  return m.row.range.defaultStatus === 'affected' && m.row.source === 'cve5' && !indirect(m.match);
}

/** Records a row of an entry whose default is affected (the map is made on the first such row: they are rare). */
function noteDefault(groups: DefaultGroups | null, asset: Asset, m: { row: RangeRow; match: ProductMatch }, code: number): DefaultGroups {
  const g = groups ?? new Map<string, DefaultEntry>();
  const r = m.row.range;
  const key = `${r.vendor}\u0000${r.product}\u0000${r.cpe ?? ''}`;
  let e = g.get(key);
  if (!e) g.set(key, (e = { first: m, out: code === OUT, ranges: false, lone: false, fix: null }));
  else {
    if (before(m, e.first)) e.first = m;
    if (code !== OUT) e.out = false;
  }
  if (r.status === 'unaffected') {
    if (r.start || r.end) e.ranges = true;
    else e.lone = true;
    const start = r.start?.version;
    const cmp = comparatorOf(schemeOf(r.vendor, r.product));
    if (start && asset.version && cmp(start, asset.version) === 1 && (e.fix === null || cmp(start, e.fix) === -1)) e.fix = start;
  }
  return g;
}

/**
 * Of the entries whose listed versions all leave the asset's version out, the first (in `before` order of their first
 * rows) whose default decides "affected" (unaffected ranges only, above), and the first whose default is a review.
 */
function defaultOut(groups: DefaultGroups): { affected: DefaultEntry | null; review: DefaultEntry | null } {
  let affected: DefaultEntry | null = null;
  let review: DefaultEntry | null = null;
  for (const e of groups.values()) {
    if (!e.out) continue;
    if (e.ranges && !e.lone) { if (!affected || before(e.first, affected.first)) affected = e; }
    else if (!review || before(e.first, review.first)) review = e;
  }
  return { affected, review };
}

/**
 * The verdict for one CVE from the ranges whose product matched the asset (at least one). Only the rows of the lowest
 * tier present count (tier: member and broad-line rows only when no row names the asset's product; git ranges only
 * when nothing else is stated).
 */
export function verdict(asset: Asset, matched: { row: RangeRow; match: ProductMatch }[]): CveVerdict {
  // One pass, no sort, one code per row (no object): the first of each kind in `before` order (rows of one CVE never
  // tie: `ord` differs). The first overall has the strongest match (`before` orders by match confidence first).
  type M = { row: RangeRow; match: ProductMatch };
  let firstM: M | null = null;
  let firstCode = OUT;
  let affectedM: M | null = null;
  let unaffectedM: M | null = null;
  let reviewM: M | null = null;
  let reviewCode = OUT;
  let fixedM: M | null = null;
  // The fix of a range holding the asset's version, and a fix above the version (or any, the version unknown): a fix
  // at or below the version is not one an affected asset needs (CVE-2024-21762: 6.2.16 for a FortiOS 7.2.4).
  let fixedHoldM: M | null = null;
  let fixedAheadM: M | null = null;
  // An affected range that states versions (not every version), and an affected range with bounds that leaves the
  // asset's version out (boundedOut): "every version" against such a range is a disagreement.
  let statesVersions = false;
  let outM: M | null = null;
  // Rows of products of the family the asset names, and of a bare line name, count only when no row names the asset's
  // product itself; git ranges only when no other row does (tier).
  const lowest = lowestTier(matched);
  let defaults: DefaultGroups | null = null;
  for (const m of matched) {
    if (tier(m) > lowest) continue;
    const code = matchedOutcome(asset, m);
    if (listsByDefault(m)) defaults = noteDefault(defaults, asset, m, code);
    if (!firstM || before(m, firstM)) { firstM = m; firstCode = code; }
    if (code >= REVIEW_STATUS_UNKNOWN) { if (!reviewM || before(m, reviewM)) { reviewM = m; reviewCode = code; } }
    else if (code === IN_AFFECTED) {
      if (!affectedM || before(m, affectedM)) affectedM = m;
      if (!everyVersion(m.row.range)) statesVersions = true;
    } else if (code === IN_UNAFFECTED) { if (!unaffectedM || before(m, unaffectedM)) unaffectedM = m; }
    else if (code === OUT && boundedOut(m)) { if (!outM || before(m, outM)) outM = m; }
    const fixedIn = m.row.range.fixedIn;
    if (fixedIn && m.row.range.status === 'affected') {
      if (!fixedM || before(m, fixedM)) fixedM = m;
      if ((code === IN_AFFECTED || code === REVIEW_CONDITION || code === REVIEW_VARIANT || code === REVIEW_MEMBER || code === REVIEW_BROAD) && (!fixedHoldM || before(m, fixedHoldM))) fixedHoldM = m;
      if ((!fixedAheadM || before(m, fixedAheadM)) && fixAhead(fixedIn, asset.version, m.row.range)) fixedAheadM = m;
    }
  }
  if (!firstM) throw new Error('verdict needs at least one matched range');
  // A CVE record entry whose default status is affected and whose listed versions all leave the version out.
  const byDefault = defaults ? defaultOut(defaults) : null;
  const affectedByDefault = byDefault?.affected ?? null;
  const reviewByDefault = byDefault?.review ?? null;
  if (reviewByDefault && (!reviewM || before(reviewByDefault.first, reviewM))) { reviewM = reviewByDefault.first; reviewCode = REVIEW_DEFAULT; }
  // Only the rows that decide become RangeVerdicts (the review one with its sentence), from the code computed above.
  // No closures here: this runs once per CVE and asset.
  const match = firstM.match;
  const fixedAny = fixedM?.row.range.fixedIn ?? null;
  const fixedNeeded = (fixedHoldM ?? fixedAheadM)?.row.range.fixedIn ?? null;
  if (affectedM && unaffectedM) {
    const d = answerOf(asset, affectedM.row, affectedM.match, IN_AFFECTED);
    const u = unaffectedM;
    return { status: 'needs_review', reason: `sources disagree: ${at(d)} states ${describe(d.row.range)} affected, ${at(u)} states ${describe(u.row.range)} not affected`, deciding: d, match, fixed_version: d.row.range.fixedIn ?? fixedNeeded };
  }
  if (affectedM && !statesVersions && outM) {
    // Only "every version" says affected (an NVD CPE with no version, "vers:all/*"), and a range with versions leaves
    // this version out (Windows Server 2019 build 17763.4974 against the CVE record's "< 10.0.17763.4252").
    const d = answerOf(asset, affectedM.row, affectedM.match, IN_AFFECTED);
    const o = outM.row.range;
    return { status: 'needs_review', reason: `sources disagree: ${at(d)} states every version affected, ${at(outM)} states ${describe(o)} affected and version ${asset.version} is outside it`, deciding: d, match, fixed_version: d.row.range.fixedIn ?? o.fixedIn ?? fixedAny };
  }
  if (affectedM) {
    const d = answerOf(asset, affectedM.row, affectedM.match, IN_AFFECTED);
    const how = asset.version ? `version ${asset.version} is in ${describe(d.row.range)}` : `every version is affected`;
    return { status: 'affected', reason: `${how} (${at(d)})`, deciding: d, match, fixed_version: d.row.range.fixedIn ?? fixedNeeded };
  }
  if (affectedByDefault) {
    const { row, match: m } = affectedByDefault.first;
    const fix = affectedByDefault.fix;
    const reason = unaffectedM
      ? `sources disagree: the ${sourceLabel(row.source)} lists version ${asset.version} in none of its unaffected ranges for "${row.range.product}" and states every other version affected, ${at(unaffectedM)} states ${describe(unaffectedM.row.range)} not affected`
      : `version ${asset.version} is outside every range the ${sourceLabel(row.source)} lists as not affected for "${row.range.product}"${fix ? ` (the next fix: ${fix})` : ''}, and it states every other version affected (its default status)`;
    return { status: unaffectedM ? 'needs_review' : 'affected', reason, deciding: { row, match: m, answer: 'out', status: 'affected', note: null }, match, fixed_version: fix ?? row.range.fixedIn ?? fixedNeeded };
  }
  if (reviewM) {
    const d = answerOf(asset, reviewM.row, reviewM.match, reviewCode);
    // Stryker disable next-line StringLiteral: every review decision carries a note; the fallback text is never shown
    return { status: 'needs_review', reason: d.note ?? 'cannot be decided with certainty', deciding: d, match, fixed_version: d.row.range.fixedIn ?? fixedNeeded };
  }
  const d = unaffectedM ? answerOf(asset, unaffectedM.row, unaffectedM.match, IN_UNAFFECTED) : answerOf(asset, firstM.row, firstM.match, firstCode);
  const reason = unaffectedM
    ? `${at(d)} states ${describe(d.row.range)} not affected`
    : `version ${asset.version} is outside every stated range (closest: ${describe(d.row.range)}, ${at(d)})`;
  return { status: 'not_affected', reason, deciding: d, match, fixed_version: d.row.range.fixedIn ?? fixedAny };
}

/** Whether a stated fix can be the one an asset at `version` needs: above it, or not ordered against it (or no version). */
function fixAhead(fixedIn: string, version: string | null, r: AffectedRange): boolean {
  if (!version) return true;
  const c = comparatorOf(schemeOf(r.vendor, r.product))(fixedIn, version);
  return c === 'needs_review' || c > 0;
}

/**
 * verdict(asset, matched).status, without the sentences, the deciding range or the match (what /check counts).
 * The same rule: a range affected and another unaffected for the version → needs_review; affected; a range that
 * cannot be decided → needs_review; else not_affected.
 */
export function verdictStatus(asset: Asset, matched: readonly { row: RangeRow; match: ProductMatch }[]): CorrelationStatus {
  let affected = false;
  let unaffected = false;
  let review = false;
  let statesVersions = false;
  let out = false;
  const lowest = lowestTier(matched);
  let defaults: DefaultGroups | null = null;
  for (const m of matched) {
    if (tier(m) > lowest) continue;
    const code = matchedOutcome(asset, m);
    if (listsByDefault(m)) defaults = noteDefault(defaults, asset, m, code);
    if (code >= REVIEW_STATUS_UNKNOWN) review = true;
    else if (code === IN_AFFECTED) {
      affected = true;
      if (!everyVersion(m.row.range)) statesVersions = true;
    } else if (code === IN_UNAFFECTED) unaffected = true;
    else if (code === OUT && boundedOut(m)) out = true;
  }
  if (affected) return unaffected || (!statesVersions && out) ? 'needs_review' : 'affected';
  const byDefault = defaults !== null ? defaultOut(defaults) : null;
  if (byDefault?.affected) return unaffected ? 'needs_review' : 'affected';
  return review || byDefault?.review ? 'needs_review' : 'not_affected';
}

export { strongerMatch };
