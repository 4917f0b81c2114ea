// CVE Record 5 `defaultStatus` (docs/correlation.md §5): the entries whose default is affected, gathered from a CVE's
// matched rows, and the one that speaks for an asset whose version all of an entry's listed versions leave out. Pure.
import { comparatorOf, schemeOf } from './version-schemes.ts';
import type { ProductMatch } from './product-match.ts';
import type { RangeRow } from './range-rows.ts';
import { indirect, OUT, type Asset } from './range-outcome.ts';
import { before } from './matched-rows.ts';

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
export type DefaultEntry = {
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
export type DefaultGroups = Map<string, DefaultEntry>;

export function listsByDefault(m: { row: RangeRow; match: ProductMatch }): boolean {
  return m.row.range.defaultStatus === 'affected' && m.row.source === 'cve5' && !indirect(m.match);
}

/** Records a row of an entry whose default is affected (the map is made on the first such row: they are rare). */
export function noteDefault(
  groups: DefaultGroups | null,
  asset: Asset,
  m: { row: RangeRow; match: ProductMatch },
  code: number,
): DefaultGroups {
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
    const cmp = comparatorOf(schemeOf(r.vendor, r.product, r.versionType));
    if (start && asset.version && cmp(start, asset.version) === 1 && (e.fix === null || cmp(start, e.fix) === -1))
      e.fix = start;
  }
  return g;
}

/**
 * Of the entries whose listed versions all leave the asset's version out, the first (in `before` order of their first
 * rows) whose default decides "affected" (unaffected ranges only, above), and the first whose default is a review.
 */
export function defaultOut(groups: DefaultGroups): { affected: DefaultEntry | null; review: DefaultEntry | null } {
  let affected: DefaultEntry | null = null;
  let review: DefaultEntry | null = null;
  for (const e of groups.values()) {
    if (!e.out) continue;
    if (e.ranges && !e.lone) {
      if (!affected || before(e.first, affected.first)) affected = e;
    } else if (!review || before(e.first, review.first)) review = e;
  }
  return { affected, review };
}
