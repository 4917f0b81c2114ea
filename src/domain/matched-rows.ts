// Which of a CVE's matched rows speak for an asset, and in what order (docs/correlation.md §5): the `before` order of
// rows (match, source, row), the tiers (a row naming the asset's product before a family member or a bare line name,
// release versions before git ranges) and the variants of the asset's product that agree. Pure.
import type { RangeSource } from './ranges.ts';
import type { ProductMatch } from './product-match.ts';
import type { RangeRow } from './range-rows.ts';
import { rangeOutcome, weak, IN_AFFECTED, OUT, REVIEW_VARIANT, type Asset } from './range-outcome.ts';

const CONF_RANK = { exact: 0, normalised: 1, family: 2, variant: 3, member: 4 } as const;
const SRC_RANK: Record<RangeSource, number> = { cve5: 0, csaf: 1, nvd: 2 };
/** Whether a ranks before b: stronger match, then source (CVE record, CISA advisory, NVD), then the row's order. */
export function before(a: { match: ProductMatch; row: RangeRow }, b: { match: ProductMatch; row: RangeRow }): boolean {
  return (
    // Stryker disable next-line EqualityOperator: only the sign is read, and equal keys never reach here (row ord is unique within a CVE)
    (CONF_RANK[a.match.confidence] - CONF_RANK[b.match.confidence] ||
      SRC_RANK[a.row.source] - SRC_RANK[b.row.source] ||
      a.row.ord - b.row.ord) < 0
  );
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
export function tier(m: { row: RangeRow; match: ProductMatch }): number {
  const vt = m.row.range.versionType;
  // Runs for every matched row of every CVE: no lower-cased copy of the text.
  return vt !== null && vt.length === 3 && GIT.test(vt) ? 2 : weak(m.match) ? 1 : 0;
}
const GIT = /^git$/i;

export function lowestTier(matched: readonly { row: RangeRow; match: ProductMatch }[]): number {
  let t = 2;
  for (const m of matched) {
    const x = tier(m);
    if (x < t && (t = x) === 0) break;
  }
  return t;
}

/**
 * Variants (order numbers in brackets: "… CPU 1511-1 PN (6ES7511-1AK02-0AB0)") of the asset's product, the asset naming
 * none: when every variant the rows name is affected at the asset's version (an affected range holds it, no range of that
 * variant states it unaffected or cannot be decided), which variant the asset is changes nothing, and their rows count as
 * affected. When their verdicts differ (one affected, another fixed at that version), or only one variant is named (the
 * asset may be another), it stays needs_review.
 */
export function variantsAgree(
  asset: Asset,
  matched: readonly { row: RangeRow; match: ProductMatch }[],
  lowest: number,
): boolean {
  let byVariant: Map<string, number> | null = null;
  for (const m of matched) {
    if (m.match.confidence !== 'variant' || tier(m) > lowest) continue;
    byVariant ??= new Map();
    // 1: an affected range holds the version; 2: a range of the variant says otherwise or cannot say.
    const code = rangeOutcome(asset, m.row.range);
    const prev = byVariant.get(m.row.product_key) ?? 0;
    const mark = code === IN_AFFECTED ? 1 : code === OUT ? 0 : 2;
    byVariant.set(m.row.product_key, Math.max(prev, mark));
  }
  // One variant alone is no agreement: the asset may be another variant the source does not list.
  if (!byVariant || byVariant.size < 2) return false;
  for (const v of byVariant.values()) if (v !== 1) return false;
  return true;
}

/** A row's code once the variants agree: a variant's "affected" is the asset's. */
export function agreed(code: number, agree: boolean): number {
  return agree && code === REVIEW_VARIANT ? IN_AFFECTED : code;
}
