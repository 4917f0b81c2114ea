// cve_ranges (migration 0700): the structured ranges of every CVE, rebuilt per CVE from its source records by the
// import (ingest/pipeline.ts, in the batch's transaction), and looked up by asset correlation. SQL only; the rows
// come from domain/correlate.ts rangeRows().
import { sql } from 'kysely';
import type { Db, Tx } from './db.ts';
import { sha } from './ingest.ts';
import type { CveSourceRecord } from '../domain/records.ts';
import { rangeRows, type RangeRow } from '../domain/correlate.ts';
import type { AffectedRange } from '../domain/ranges.ts';

type Conn = Db | Tx;

/**
 * Rebuilds the ranges of the given CVEs from their source records. A CVE whose range set hashes as stored is not
 * touched (a re-import with nothing changed writes nothing); a changed set replaces the CVE's rows and counts as a
 * corpus change (cve_corpus_state is bumped, so cached answers are dropped). Returns the CVEs whose ranges changed,
 * with their ranges after and, when `withBefore` (the change history is recorded), before (read only for those: the
 * digest decides first).
 */
export async function rebuildRanges(tx: Conn, ids: string[], records: Map<string, CveSourceRecord[]>, withBefore = false): Promise<RangeSetChange[]> {
  if (!ids.length) return [];
  // Each CVE's rows are serialised once: the same text is hashed and spliced into the insert's payload.
  const fresh = new Map<string, { rows: RangeRow[]; json: string; hash: string }>();
  for (const id of ids) {
    const rows = rangeRows(records.get(id) ?? []);
    const json = rows.length ? JSON.stringify(rows) : '';
    fresh.set(id, { rows, json, hash: json ? sha(json) : '' });
  }
  const stored = await sql<{ cve_id: string; hash: string }>`SELECT cve_id, hash FROM cve_range_state WHERE cve_id = ANY(${ids}::text[])`.execute(tx);
  const before = new Map(stored.rows.map((r) => [r.cve_id, r.hash]));
  const changed = ids.filter((id) => (before.get(id) ?? '') !== fresh.get(id)!.hash).sort();
  if (!changed.length) return [];
  // A CVE has range rows only if it has a state row (both are written together below): CVEs without one (all of
  // them in a first import) have nothing to read or delete.
  const had = changed.filter((id) => before.has(id));
  const old = withBefore && had.length ? (await sql<{ cve_id: string; range: AffectedRange }>`SELECT cve_id, range FROM cve_ranges WHERE cve_id = ANY(${had}::text[]) ORDER BY cve_id, ord`.execute(tx)).rows : [];
  const oldBy = new Map<string, AffectedRange[]>();
  for (const r of old) oldBy.set(r.cve_id, [...(oldBy.get(r.cve_id) ?? []), r.range]);
  if (had.length) {
    await sql`DELETE FROM cve_ranges WHERE cve_id = ANY(${had}::text[])`.execute(tx);
    await sql`DELETE FROM cve_range_state WHERE cve_id = ANY(${had}::text[])`.execute(tx);
  }
  const withRows = changed.filter((id) => fresh.get(id)!.json);
  // About 2,000 rows per statement: one payload of {cve_id, rows} objects, unnested in SQL.
  for (let i = 0; i < withRows.length; ) {
    const part: string[] = [];
    for (let n = 0; i < withRows.length && n < 2000; i++) {
      const f = fresh.get(withRows[i])!;
      n += f.rows.length;
      part.push(`{"cve_id":${JSON.stringify(withRows[i])},"hash":"${f.hash}","rows":${f.json}}`);
    }
    const payload = `[${part.join(',')}]`;
    // One parse of the payload (a CTE), two inserts: the rows and the CVEs' states.
    await sql`WITH c AS (SELECT * FROM jsonb_to_recordset(${payload}::jsonb) AS c(cve_id text, hash text, rows jsonb)),
        s AS (INSERT INTO cve_range_state (cve_id, hash) SELECT cve_id, hash FROM c)
      INSERT INTO cve_ranges (cve_id, ord, source, source_key, vendor_slug, product_key, cpe_vendor, cpe_product, range)
      SELECT c.cve_id, r.ord, r.source, r.source_key, r.vendor_slug, r.product_key, r.cpe_vendor, r.cpe_product, r.range
      FROM c, jsonb_to_recordset(c.rows) AS r(ord int, source text, source_key text, vendor_slug text, product_key text, cpe_vendor text, cpe_product text, range jsonb)`.execute(tx);
  }
  await sql`UPDATE cve_corpus_state SET version = version + 1, changed_at = now() WHERE id = 1`.execute(tx);
  await sql`SELECT pg_notify('cve_corpus_changed', '')`.execute(tx);
  return changed.map((id) => ({ cve_id: id, before: oldBy.get(id) ?? [], after: fresh.get(id)!.rows.map((r) => r.range) }));
}

/** A CVE whose stored range set changed: its ranges before and after. */
export interface RangeSetChange { cve_id: string; before: AffectedRange[]; after: AffectedRange[] }

export interface StoredRange extends RangeRow {
  cve_id: string;
}

/**
 * Ranges whose (vendor slug, product key) is one of `keys`, or whose CPE (vendor, product) is one of `cpes`, and
 * whose CVE is in the corpus. One round trip for a whole batch of assets.
 */
export async function findRanges(db: Conn, keys: { vendor_slug: string; product_key: string }[], cpes: { vendor: string; product: string }[]): Promise<StoredRange[]> {
  if (!keys.length && !cpes.length) return [];
  const r = await sql<StoredRange>`
    WITH k AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(keys)}::jsonb) AS x(vendor_slug text, product_key text)),
         c AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(cpes)}::jsonb) AS x(vendor text, product text))
    SELECT r.cve_id, r.ord, r.source, r.source_key, r.vendor_slug, r.product_key, r.cpe_vendor, r.cpe_product, r.range
    FROM cve_ranges r JOIN k ON r.vendor_slug = k.vendor_slug AND r.product_key = k.product_key
    UNION
    SELECT r.cve_id, r.ord, r.source, r.source_key, r.vendor_slug, r.product_key, r.cpe_vendor, r.cpe_product, r.range
    FROM cve_ranges r JOIN c ON r.cpe_vendor = c.vendor AND r.cpe_product = c.product`.execute(db);
  return r.rows;
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
export interface CveFlags { cve_id: string; severity: string | null; kev_flagged: boolean }

/** The severity and KEV flag of the given CVEs (only CVEs in the corpus). */
export async function cveFlags(db: Conn, ids: string[]): Promise<Map<string, CveFlags>> {
  if (!ids.length) return new Map();
  const r = await sql<CveFlags>`SELECT cve_id, severity, kev_flagged FROM cves WHERE cve_id = ANY(${ids}::text[])`.execute(db);
  return new Map(r.rows.map((c) => [c.cve_id, c]));
}

/** The card fields correlation reports per CVE (only CVEs in the corpus). */
export async function cveCards(db: Conn, ids: string[]): Promise<Map<string, CveCard>> {
  const out = new Map<string, CveCard>();
  if (!ids.length) return out;
  const r = await sql<CveCard>`SELECT cve_id, title, severity, cvss_score, doc->'scoring'->'cvss'->>'version' AS cvss_version,
      doc->'scoring'->'cvss'->>'vector' AS cvss_vector, bcs_score, epss_score, epss_percentile, kev_flagged, exploit_maturity,
      poc_available, has_public_exploit, published_at
    FROM cves WHERE cve_id = ANY(${ids}::text[])`.execute(db);
  for (const c of r.rows) out.set(c.cve_id, { ...c, cvss_score: c.cvss_score === null ? null : Number(c.cvss_score), bcs_score: Number(c.bcs_score), epss_score: c.epss_score === null ? null : Number(c.epss_score), epss_percentile: c.epss_percentile === null ? null : Number(c.epss_percentile) });
  return out;
}
