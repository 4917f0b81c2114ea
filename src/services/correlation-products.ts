// The products part of a correlate-cves answer (docs/correlation.md §5 `matched_products`): the catalog products an
// asset matched, each with its strongest match, from the groups of range rows the match decided.
import { strongerMatch, type MatchConfidence, type ProductMatch } from '../domain/product-match.ts';
import type { StoredRange } from '../store/ranges.ts';

export interface MatchedProduct {
  vendor: string;
  product: string;
  confidence: MatchConfidence;
  basis: string;
}

/** Rows of one bucket with the same names and keys (what matchRow reads): one match decides them all. */
export interface NameGroup {
  key: string;
  rows: StoredRange[];
}

/** A group of rows that matched an asset, with the match. */
export interface MatchedGroup {
  group: NameGroup;
  match: ProductMatch;
}

/**
 * The products an asset matched: one per (vendor slug, product key), with its strongest match; of the groups with
 * that match, the one with the first names (vendor, product) names it. Only products with a CVE in the corpus.
 */
export function matchedProducts(
  groups: readonly MatchedGroup[],
  cards: ReadonlyMap<string, unknown>,
): MatchedProduct[] {
  const best = new Map<string, { vendor: string; product: string; match: ProductMatch }>();
  for (const { group, match } of groups) {
    if (!group.rows.some((r) => cards.has(r.cve_id))) continue;
    const row = group.rows[0];
    const key = `${row.vendor_slug}\u0000${row.product_key}`;
    const cand = { vendor: row.range.vendor, product: row.range.product, match };
    const prev = best.get(key);
    // strongerMatch keeps its first argument on a tie.
    const stronger = !prev || strongerMatch(prev.match, match) !== prev.match;
    const tie = prev && prev.match.confidence === match.confidence;
    if (
      stronger ||
      (tie && (cand.vendor < prev.vendor || (cand.vendor === prev.vendor && cand.product < prev.product)))
    )
      best.set(key, cand);
  }
  return [...best.values()]
    .map((p) => ({ vendor: p.vendor, product: p.product, confidence: p.match.confidence, basis: p.match.basis }))
    .sort((a, b) => (a.vendor + a.product < b.vendor + b.product ? -1 : 1));
}
