// Asset × CVE verdicts from structured ranges (docs/correlation.md §4–5). Pure.
//
// rangeRows(), describe(), matchRow(): range-rows.ts; one range's answer (rangeAnswer): range-outcome.ts (re-exported here);
// the order and tiers of matched rows: matched-rows.ts; entries whose default status is affected: default-status.ts.
// verdict(): for one asset and the ranges of one CVE whose product matched, the status:
//   affected      a range whose status is affected covers the asset's version with certainty (or covers every
//                 version), and no range says the same version is unaffected;
//   not_affected  ranges matched the product, none covers the version, or a range says unaffected for it;
//   needs_review  the version is unknown (and no range covers every version), a comparison cannot be made with
//                 certainty, the range is not machine-readable (CSAF free text), the range applies only when running
//                 on a platform the asset does not name, or two sources disagree.
import type { AffectedRange } from './ranges.ts';
import { comparatorOf, schemeOf } from './version-schemes.ts';
import type { ProductMatch } from './product-match.ts';
import { describe, sourceLabel, type RangeRow } from './range-rows.ts';
import {
  answerOf,
  boundedOut,
  everyVersion,
  matchedOutcome,
  IN_AFFECTED,
  IN_UNAFFECTED,
  OUT,
  REVIEW_BROAD,
  REVIEW_CONDITION,
  REVIEW_DEFAULT,
  REVIEW_MEMBER,
  REVIEW_STATUS_UNKNOWN,
  REVIEW_VARIANT,
  type Asset,
  type CorrelationStatus,
  type CveVerdict,
} from './range-outcome.ts';
import { agreed, before, lowestTier, tier, variantsAgree } from './matched-rows.ts';
import { defaultOut, listsByDefault, noteDefault, type DefaultGroups } from './default-status.ts';

export { canonicalRange, describe, matchRow, rangeRows, sourceLabel, type RangeRow } from './range-rows.ts';
export { rangeAnswer, type Asset, type CorrelationStatus, type CveVerdict } from './range-outcome.ts';

/**
 * Source precedence by statement date (docs/correlation.md §5 "Source precedence"): when only a CISA advisory says
 * every version is affected and a CVE record's range with bounds leaves the version out, the record's range wins when
 * the record was stated after every such advisory (CVE 5 dateUpdated against CSAF current_release_date). `every`: the
 * newest statement date of the rows saying every version (undefined: a row that is no CISA advisory's, or undated).
 */
function recordWins(every: string | null | undefined, out: { row: RangeRow }): boolean {
  const at = out.row.stated_at;
  // An entry whose default status is affected states the versions it leaves out affected: no range of it can win so.
  return (
    typeof every === 'string' &&
    out.row.source === 'cve5' &&
    out.row.range.defaultStatus !== 'affected' &&
    typeof at === 'string' &&
    Date.parse(at) > Date.parse(every)
  );
}

/** Folds a row saying every version into the newest date of such rows (undefined once one is no dated advisory's). */
function everyStated(acc: string | null | undefined, row: RangeRow): string | undefined {
  if (acc === undefined || row.source !== 'csaf' || !row.stated_at) return undefined;
  return acc === null || Date.parse(row.stated_at) > Date.parse(acc) ? row.stated_at : acc;
}

/** Where a range comes from, as the reasons name it ("CISA advisory ICSA-24-289-02"). */
function at(d: { row: RangeRow }): string {
  return `${sourceLabel(d.row.source)}${d.row.source_key ? ` ${d.row.source_key}` : ''}`;
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
  // The newest date of the CISA advisories whose rows say every version (undefined: another source's row says so).
  let every: string | null | undefined = null;
  // Rows of products of the family the asset names, and of a bare line name, count only when no row names the asset's
  // product itself; git ranges only when no other row does (tier).
  const lowest = lowestTier(matched);
  const agree = variantsAgree(asset, matched, lowest);
  let defaults: DefaultGroups | null = null;
  for (const m of matched) {
    if (tier(m) > lowest) continue;
    const code = agreed(matchedOutcome(asset, m), agree);
    if (listsByDefault(m)) defaults = noteDefault(defaults, asset, m, code);
    if (!firstM || before(m, firstM)) {
      firstM = m;
      firstCode = code;
    }
    if (code >= REVIEW_STATUS_UNKNOWN) {
      if (!reviewM || before(m, reviewM)) {
        reviewM = m;
        reviewCode = code;
      }
    } else if (code === IN_AFFECTED) {
      if (!affectedM || before(m, affectedM)) affectedM = m;
      if (!everyVersion(m.row.range)) statesVersions = true;
      every = everyStated(every, m.row);
    } else if (code === IN_UNAFFECTED) {
      if (!unaffectedM || before(m, unaffectedM)) unaffectedM = m;
    } else if (code === OUT && boundedOut(m)) {
      if (!outM || before(m, outM)) outM = m;
    }
    const fixedIn = m.row.range.fixedIn;
    if (fixedIn && m.row.range.status === 'affected') {
      if (!fixedM || before(m, fixedM)) fixedM = m;
      if (
        (code === IN_AFFECTED ||
          code === REVIEW_CONDITION ||
          code === REVIEW_VARIANT ||
          code === REVIEW_MEMBER ||
          code === REVIEW_BROAD) &&
        (!fixedHoldM || before(m, fixedHoldM))
      )
        fixedHoldM = m;
      if ((!fixedAheadM || before(m, fixedAheadM)) && fixAhead(fixedIn, asset.version, m.row.range)) fixedAheadM = m;
    }
  }
  if (!firstM) throw new Error('verdict needs at least one matched range');
  // A CVE record entry whose default status is affected and whose listed versions all leave the version out.
  const byDefault = defaults ? defaultOut(defaults) : null;
  const affectedByDefault = byDefault?.affected ?? null;
  const reviewByDefault = byDefault?.review ?? null;
  if (reviewByDefault && (!reviewM || before(reviewByDefault.first, reviewM))) {
    reviewM = reviewByDefault.first;
    reviewCode = REVIEW_DEFAULT;
  }
  // Only the rows that decide become RangeVerdicts (the review one with its sentence), from the code computed above.
  // No closures here: this runs once per CVE and asset.
  const match = firstM.match;
  const fixedAny = fixedM?.row.range.fixedIn ?? null;
  const fixedNeeded = (fixedHoldM ?? fixedAheadM)?.row.range.fixedIn ?? null;
  if (affectedM && unaffectedM) {
    const d = answerOf(asset, affectedM.row, affectedM.match, IN_AFFECTED);
    const u = unaffectedM;
    return {
      status: 'needs_review',
      reason: `sources disagree: ${at(d)} states ${describe(d.row.range)} affected, ${at(u)} states ${describe(u.row.range)} not affected`,
      deciding: d,
      match,
      fixed_version: d.row.range.fixedIn ?? fixedNeeded,
    };
  }
  if (affectedM && !statesVersions && outM && recordWins(every, outM)) {
    // The CVE record's range, stated after the advisory's "every version", wins (source precedence by date).
    const d = answerOf(asset, outM.row, outM.match, OUT);
    const a = affectedM;
    return {
      status: 'not_affected',
      reason: `version ${asset.version} is outside ${describe(outM.row.range)} (${at(outM)}, stated ${outM.row.stated_at!.slice(0, 10)}), which is newer than ${at(a)} (${a.row.stated_at!.slice(0, 10)}) stating every version affected: the CVE record's range wins`,
      deciding: d,
      match,
      fixed_version: outM.row.range.fixedIn ?? fixedAny,
    };
  }
  if (affectedM && !statesVersions && outM) {
    // Only "every version" says affected (an NVD CPE with no version, "vers:all/*"), and a range with versions leaves
    // this version out (Windows Server 2019 build 17763.4974 against the CVE record's "< 10.0.17763.4252").
    const d = answerOf(asset, affectedM.row, affectedM.match, IN_AFFECTED);
    const o = outM.row.range;
    return {
      status: 'needs_review',
      reason: `sources disagree: ${at(d)} states every version affected, ${at(outM)} states ${describe(o)} affected and version ${asset.version} is outside it`,
      deciding: d,
      match,
      fixed_version: d.row.range.fixedIn ?? o.fixedIn ?? fixedAny,
    };
  }
  if (affectedM) {
    const d = answerOf(asset, affectedM.row, affectedM.match, IN_AFFECTED);
    const how = asset.version ? `version ${asset.version} is in ${describe(d.row.range)}` : `every version is affected`;
    if (d.match.confidence === 'variant') {
      return {
        status: 'affected',
        reason: `${how} for "${d.row.range.product}" (${at(d)}), and every variant the sources list for "${asset.product}" is affected at this version: the asset names no variant, and whichever it is, it is affected`,
        deciding: d,
        match,
        fixed_version: d.row.range.fixedIn ?? fixedNeeded,
      };
    }
    return {
      status: 'affected',
      reason: `${how} (${at(d)})`,
      deciding: d,
      match,
      fixed_version: d.row.range.fixedIn ?? fixedNeeded,
    };
  }
  if (affectedByDefault) {
    const { row, match: m } = affectedByDefault.first;
    const fix = affectedByDefault.fix;
    const reason = unaffectedM
      ? `sources disagree: the ${sourceLabel(row.source)} lists version ${asset.version} in none of its unaffected ranges for "${row.range.product}" and states every other version affected, ${at(unaffectedM)} states ${describe(unaffectedM.row.range)} not affected`
      : `version ${asset.version} is outside every range the ${sourceLabel(row.source)} lists as not affected for "${row.range.product}"${fix ? ` (the next fix: ${fix})` : ''}, and it states every other version affected (its default status)`;
    return {
      status: unaffectedM ? 'needs_review' : 'affected',
      reason,
      deciding: { row, match: m, answer: 'out', status: 'affected', note: null },
      match,
      fixed_version: fix ?? row.range.fixedIn ?? fixedNeeded,
    };
  }
  if (reviewM) {
    const d = answerOf(asset, reviewM.row, reviewM.match, reviewCode);
    return {
      status: 'needs_review',
      // Stryker disable next-line StringLiteral: every review decision carries a note; the fallback text is never shown
      reason: d.note ?? 'cannot be decided with certainty',
      deciding: d,
      match,
      fixed_version: d.row.range.fixedIn ?? fixedNeeded,
    };
  }
  const d = unaffectedM
    ? answerOf(asset, unaffectedM.row, unaffectedM.match, IN_UNAFFECTED)
    : answerOf(asset, firstM.row, firstM.match, firstCode);
  const reason = unaffectedM
    ? `${at(d)} states ${describe(d.row.range)} not affected`
    : `version ${asset.version} is outside every stated range (closest: ${describe(d.row.range)}, ${at(d)})`;
  return { status: 'not_affected', reason, deciding: d, match, fixed_version: d.row.range.fixedIn ?? fixedAny };
}

/** Whether a stated fix can be the one an asset at `version` needs: above it, or not ordered against it (or no version). */
function fixAhead(fixedIn: string, version: string | null, r: AffectedRange): boolean {
  if (!version) return true;
  const c = comparatorOf(schemeOf(r.vendor, r.product, r.versionType))(fixedIn, version);
  return c === 'needs_review' || c > 0;
}

/**
 * verdict(asset, matched).status, without the sentences, the deciding range or the match (what /check counts).
 * The same rule: a range affected and another unaffected for the version → needs_review; affected; a range that
 * cannot be decided → needs_review; else not_affected.
 */
export function verdictStatus(
  asset: Asset,
  matched: readonly { row: RangeRow; match: ProductMatch }[],
): CorrelationStatus {
  let affected = false;
  let unaffected = false;
  let review = false;
  let statesVersions = false;
  let out: { row: RangeRow; match: ProductMatch } | null = null;
  let every: string | null | undefined = null;
  const lowest = lowestTier(matched);
  const agree = variantsAgree(asset, matched, lowest);
  let defaults: DefaultGroups | null = null;
  for (const m of matched) {
    if (tier(m) > lowest) continue;
    const code = agreed(matchedOutcome(asset, m), agree);
    if (listsByDefault(m)) defaults = noteDefault(defaults, asset, m, code);
    if (code >= REVIEW_STATUS_UNKNOWN) review = true;
    else if (code === IN_AFFECTED) {
      affected = true;
      if (!everyVersion(m.row.range)) statesVersions = true;
      every = everyStated(every, m.row);
    } else if (code === IN_UNAFFECTED) unaffected = true;
    // The first such row in `before` order, as verdict() takes it.
    else if (code === OUT && boundedOut(m) && (!out || before(m, out))) out = m;
  }
  if (affected && !unaffected && !statesVersions && out && recordWins(every, out)) return 'not_affected';
  if (affected) return unaffected || (!statesVersions && out) ? 'needs_review' : 'affected';
  const byDefault = defaults !== null ? defaultOut(defaults) : null;
  if (byDefault?.affected) return unaffected ? 'needs_review' : 'affected';
  return review || byDefault?.review ? 'needs_review' : 'not_affected';
}
