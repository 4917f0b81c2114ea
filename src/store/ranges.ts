// cve_ranges (migrations 0700, 1260): the structured ranges of every CVE, rebuilt per CVE from its source records by
// the import (services/import/pipeline.ts, in the batch's transaction), and looked up by asset correlation. SQL only; the rows
// come from domain/correlate.ts rangeRows() and are stored in groups (domain/range-groups.ts): one table row per
// group, expanded back into its rows when read.
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import { sha256Hex } from '../lib/crypto.ts';
import { jsonArray, textArray } from './pg-arrays.ts';
import type { CveSourceRecord } from '../domain/records.ts';
import { rangeRows, type RangeRow } from '../domain/correlate.ts';
import { expandGroup, groupRows, groupsDigestText, type RangeGroup, type StoredGroup } from '../domain/range-groups.ts';
import type { AffectedRange } from '../domain/ranges.ts';

type Conn = Db | Tx;

/** A CVE's range set as stored: its groups (domain/range-groups.ts), their hash, and its ranges when kept. */
export interface RangeSet {
  groups: RangeGroup[];
  /** SHA-256 of groupsDigestText; '' for no ranges. */
  hash: string;
  /** The set's ranges (for the change history), or null when not kept. */
  ranges: AffectedRange[] | null;
}

/** The range set of a CVE's source records (no database work); `keepRanges` keeps the ranges themselves. */
export function rangeSet(records: readonly CveSourceRecord[], keepRanges: boolean): RangeSet {
  const rows = rangeRows(records);
  if (!rows.length) return { groups: [], hash: '', ranges: keepRanges ? [] : null };
  const groups = groupRows(rows);
  return { groups, hash: sha256Hex(groupsDigestText(groups)), ranges: keepRanges ? rows.map((r) => r.range) : null };
}

/**
 * Rebuilds the ranges of the given CVEs from their source records (rangeSet, then storeRanges).
 */
export async function rebuildRanges(
  tx: Conn,
  ids: string[],
  records: Map<string, CveSourceRecord[]>,
  withBefore = false,
): Promise<RangeSetChange[]> {
  return storeRanges(tx, new Map(ids.map((id) => [id, rangeSet(records.get(id) ?? [], true)])), withBefore);
}

/**
 * Stores the range sets of CVEs. A CVE whose set hashes as stored is not touched (a re-import with nothing changed
 * writes nothing); a changed set replaces the CVE's rows and counts as a corpus change: the caller bumps
 * cve_corpus_state (store/bulk.ts touchCorpus, so cached answers are dropped) after its writes, at the end of its
 * transaction, since the row lock it takes serialises concurrent batch writers until commit. Returns the CVEs whose
 * ranges changed, with their ranges after (when their sets kept them, else empty) and, when `withBefore` (the change
 * history is recorded), before (read only for those: the digest decides first).
 */
export async function storeRanges(
  tx: Conn,
  fresh: ReadonlyMap<string, RangeSet>,
  withBefore = false,
): Promise<RangeSetChange[]> {
  const ids = [...fresh.keys()];
  if (!ids.length) return [];
  const stored = await sql<{
    cve_id: string;
    hash: string;
  }>`SELECT cve_id, hash FROM cve_range_state WHERE cve_id = ANY(${ids}::text[])`.execute(tx);
  const before = new Map(stored.rows.map((r) => [r.cve_id, r.hash]));
  const changed = ids.filter((id) => (before.get(id) ?? '') !== fresh.get(id)!.hash).sort();
  if (!changed.length) return [];
  // A CVE has range rows only if it has a state row (both are written together below): CVEs without one (all of
  // them in a first import) have nothing to read or delete.
  const had = changed.filter((id) => before.has(id));
  const oldBy = new Map<string, AffectedRange[]>();
  if (withBefore && had.length) {
    const old = await sql<
      StoredGroup & { cve_id: string }
    >`SELECT cve_id, ord, source, source_key, vendor_slug, product_key, cpe_vendor,
        cpe_product, base_key, ranges FROM cve_ranges WHERE cve_id = ANY(${had}::text[]) ORDER BY cve_id, ord`.execute(
      tx,
    );
    for (const g of old.rows) {
      const list = oldBy.get(g.cve_id) ?? [];
      for (const r of expandGroup(g)) list.push(r.range);
      oldBy.set(g.cve_id, list);
    }
  }
  if (had.length) {
    await sql`DELETE FROM cve_ranges WHERE cve_id = ANY(${had}::text[])`.execute(tx);
    await sql`DELETE FROM cve_range_state WHERE cve_id = ANY(${had}::text[])`.execute(tx);
  }
  const withRows = changed.filter((id) => fresh.get(id)!.groups.length);
  // Up to about 20,000 groups per statement, as binary column arrays (store/pg-arrays.ts): the groups and the CVEs'
  // states in one statement, each group's text parsed once, straight into its row.
  for (let i = 0; i < withRows.length;) {
    const states: { cve_id: string; hash: string }[] = [];
    const groups: { cve_id: string; g: RangeGroup }[] = [];
    while (i < withRows.length && groups.length < 20000) {
      const id = withRows[i++];
      const f = fresh.get(id)!;
      states.push({ cve_id: id, hash: f.hash });
      for (const g of f.groups) groups.push({ cve_id: id, g });
    }
    await sql`WITH s AS (INSERT INTO cve_range_state (cve_id, hash)
        SELECT * FROM unnest(${textArray(states.map((s) => s.cve_id))}::text[], ${textArray(states.map((s) => s.hash))}::text[]))
      INSERT INTO cve_ranges (cve_id, ord, source, source_key, vendor_slug, product_key, cpe_vendor, cpe_product, base_key, ranges)
      SELECT cve_id, ord::int, source, source_key, vendor_slug, product_key, cpe_vendor, cpe_product, base_key, ranges
      FROM unnest(${textArray(groups.map((r) => r.cve_id))}::text[], ${textArray(groups.map((r) => String(r.g.ord)))}::text[],
        ${textArray(groups.map((r) => r.g.source))}::text[], ${textArray(groups.map((r) => r.g.source_key))}::text[],
        ${textArray(groups.map((r) => r.g.vendor_slug))}::text[], ${textArray(groups.map((r) => r.g.product_key))}::text[],
        ${textArray(groups.map((r) => r.g.cpe_vendor))}::text[], ${textArray(groups.map((r) => r.g.cpe_product))}::text[],
        ${textArray(groups.map((r) => r.g.base_key))}::text[],
        ${jsonArray(groups.map((r) => r.g.text))}::json[]) AS x(cve_id, ord, source, source_key, vendor_slug, product_key, cpe_vendor, cpe_product, base_key, ranges)`.execute(
      tx,
    );
  }
  return changed.map((id) => ({ cve_id: id, before: oldBy.get(id) ?? [], after: fresh.get(id)!.ranges ?? [] }));
}

/** A CVE whose stored range set changed: its ranges before and after. */
export interface RangeSetChange {
  cve_id: string;
  before: AffectedRange[];
  after: AffectedRange[];
}

export interface StoredRange extends RangeRow {
  cve_id: string;
}

/**
 * Ranges whose (vendor slug, product key) is one of `keys`, whose (vendor slug, variant base key) is one of
 * `variants`, or whose CPE (vendor, product) is one of `cpes`, and whose CVE is in the corpus. One round trip for a
 * whole batch of assets.
 */
export async function findRanges(
  db: Conn,
  keys: { vendor_slug: string; product_key: string }[],
  cpes: { vendor: string; product: string }[],
  variants: { vendor_slug: string; product_key: string }[] = [],
  families: { vendor_slug: string; product_key: string }[] = [],
): Promise<StoredRange[]> {
  if (!keys.length && !cpes.length && !variants.length && !families.length) return [];
  // A family's products: keys that start with the family's key and a space, as a byte range the lookup index
  // (text_pattern_ops, migration 1160) serves ('!' is the byte after the space).
  const members = families.map((f) => ({
    vendor_slug: f.vendor_slug,
    lo: `${f.product_key} `,
    hi: `${f.product_key}!`,
  }));
  const r = await sql<StoredGroup & { cve_id: string }>`
    WITH k AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(keys)}::jsonb) AS x(vendor_slug text, product_key text)),
         v AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(variants)}::jsonb) AS x(vendor_slug text, product_key text)),
         c AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(cpes)}::jsonb) AS x(vendor text, product text)),
         m AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(members)}::jsonb) AS x(vendor_slug text, lo text, hi text)),
         -- A group found more than one way is returned once (json has no equality, so the keys are united, not the rows).
         hit AS (SELECT r.cve_id, r.ord FROM cve_ranges r JOIN k ON r.vendor_slug = k.vendor_slug AND r.product_key = k.product_key
           UNION
           SELECT r.cve_id, r.ord FROM cve_ranges r JOIN v ON r.vendor_slug = v.vendor_slug AND r.base_key = v.product_key
           UNION
           SELECT r.cve_id, r.ord FROM cve_ranges r JOIN c ON r.cpe_vendor = c.vendor AND r.cpe_product = c.product
           UNION
           SELECT r.cve_id, r.ord FROM cve_ranges r JOIN m ON r.vendor_slug = m.vendor_slug AND r.product_key ~>=~ m.lo AND r.product_key ~<~ m.hi)
    SELECT r.cve_id, r.ord, r.source, r.source_key, r.vendor_slug, r.product_key, r.cpe_vendor, r.cpe_product, r.base_key, r.ranges
    FROM hit JOIN cve_ranges r ON r.cve_id = hit.cve_id AND r.ord = hit.ord`.execute(db);
  return r.rows.flatMap((g) => expandGroup(g));
}

/**
 * Of the given (vendor slug, product key) pairs, those the corpus names as a product: a range with that key, or
 * naming a variant of it (base_key). Returned as `<slug>\0<key>`. The alert run's counterpart of the correlation
 * service's namedBy (member matches apply only to names no source gives a product).
 */
export async function namedProducts(db: Conn, pairs: { slug: string; key: string }[]): Promise<Set<string>> {
  if (!pairs.length) return new Set();
  const r = await sql<{ slug: string; key: string }>`
    SELECT x.slug, x.key FROM jsonb_to_recordset(${JSON.stringify(pairs)}::jsonb) AS x(slug text, key text)
    WHERE EXISTS (SELECT 1 FROM cve_ranges r WHERE r.vendor_slug = x.slug AND r.product_key = x.key)
       OR EXISTS (SELECT 1 FROM cve_ranges r WHERE r.vendor_slug = x.slug AND r.base_key = x.key)`.execute(db);
  return new Set(r.rows.map((x) => `${x.slug}\u0000${x.key}`));
}

export interface CveCard {
  cve_id: string;
  title: string;
  severity: string | null;
  cvss_score: number | null;
  cvss_version: string | null;
  cvss_vector: string | null;
  bcs_score: number;
  epss_score: number | null;
  epss_percentile: number | null;
  kev_flagged: boolean;
  exploit_maturity: string;
  poc_available: boolean;
  has_public_exploit: boolean;
  published_at: Date | null;
}

/** What /check needs per CVE: its severity and KEV flag (plain columns: the CVE document is not read). */
export interface CveFlags {
  cve_id: string;
  severity: string | null;
  kev_flagged: boolean;
}

/** The severity and KEV flag of the given CVEs (only CVEs in the corpus). */
export async function cveFlags(db: Conn, ids: string[]): Promise<Map<string, CveFlags>> {
  if (!ids.length) return new Map();
  const r =
    await sql<CveFlags>`SELECT cve_id, severity, kev_flagged FROM cves WHERE cve_id = ANY(${ids}::text[])`.execute(db);
  return new Map(r.rows.map((c) => [c.cve_id, c]));
}

/** The card fields correlation reports per CVE (only CVEs in the corpus). */
export async function cveCards(db: Conn, ids: string[]): Promise<Map<string, CveCard>> {
  const out = new Map<string, CveCard>();
  if (!ids.length) return out;
  const r =
    await sql<CveCard>`SELECT cve_id, title, severity, cvss_score, doc->'scoring'->'cvss'->>'version' AS cvss_version,
      doc->'scoring'->'cvss'->>'vector' AS cvss_vector, bcs_score, epss_score, epss_percentile, kev_flagged, exploit_maturity,
      poc_available, has_public_exploit, published_at
    FROM cves WHERE cve_id = ANY(${ids}::text[])`.execute(db);
  for (const c of r.rows)
    out.set(c.cve_id, {
      ...c,
      cvss_score: c.cvss_score === null ? null : Number(c.cvss_score),
      bcs_score: Number(c.bcs_score),
      epss_score: c.epss_score === null ? null : Number(c.epss_score),
      epss_percentile: c.epss_percentile === null ? null : Number(c.epss_percentile),
    });
  return out;
}

/**
 * Every vendor slug of the vendor catalog (rebuilt with the corpus: the slugs of the CVE documents, which the range
 * rows share). Correlation groups them by organisation (vendorStem).
 */
export async function vendorSlugs(db: Conn): Promise<string[]> {
  const r = await sql<{ slug: string }>`SELECT slug FROM vendors`.execute(db);
  return r.rows.map((x) => x.slug);
}
