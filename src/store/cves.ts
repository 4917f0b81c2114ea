// Write side of the CVE read model. One multi-row statement per batch (jsonb_to_recordset), and rows whose
// document is unchanged are left alone, so re-importing the same feeds changes nothing (not even enriched_at).
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db, Tx } from './db.ts';
import type { CveDocument } from '../domain/cve-document.ts';
import { parseCveId } from '../domain/cve-id.ts';
import type { FactSource } from '../domain/changes.ts';
import { FACT_SOURCE } from './changes.ts';

/**
 * The document serialised once, with the volatile timestamps (temporal.enriched_at, sage.generated_at) set to
 * null: its hash decides whether a row changed, and the same text is sent to the database, where the two
 * timestamps are put back (one JSON serialisation per document instead of two).
 */
function stableJson(doc: CveDocument): string {
  return JSON.stringify({ ...doc, temporal: { ...doc.temporal, enriched_at: null }, sage: { ...doc.sage, generated_at: null } });
}

/** Hash of the stable document text (volatile timestamps nulled): unchanged documents are not rewritten. */
function hashOf(stable: string): string {
  return createHash('sha256').update(stable).digest('hex');
}

function row(doc: CveDocument) {
  const m = parseCveId(doc.cve_id);
  if (!m) throw new Error(`Invalid CVE id in document: ${doc.cve_id}`);
  const a = doc.affected;
  return {
    cve_id: doc.cve_id,
    cve_year: Number(m.year),
    cve_seq: Number(m.seq),
    bsid: doc.bsid,
    title: doc.title,
    severity: doc.severity,
    cvss_score: doc.scoring.cvss.score,
    bcs_score: doc.scoring.bcs.score,
    epss_score: doc.scoring.epss.score,
    epss_percentile: doc.scoring.epss.percentile,
    kev_flagged: doc.exploitation.kev_flagged,
    kev_added_at: doc.exploitation.kev_added_at,
    exploit_maturity: doc.exploitation.exploit_maturity,
    poc_available: doc.exploitation.poc_available,
    has_public_exploit: doc.exploitation.has_public_exploit,
    patch_status: doc.patch.status,
    ics_relevant: a.ics_relevant,
    ics_relevance: a.ics_relevance_score,
    primary_vendor: a.primary_vendor,
    primary_product: a.primary_product,
    vendor_count: a.vendor_count,
    vendor_slugs: a.vendor_slugs,
    protocols: a.protocols,
    published_at: doc.temporal.published_at,
    modified_at: doc.temporal.modified_at,
    enriched_at: doc.temporal.enriched_at,
    search_ids: [doc.cve_id, ...a.vendors, ...a.vendor_slugs, ...a.products].join(' '),
    search_title: doc.title,
    search_text: doc.description,
    generated_at: doc.sage.generated_at,
  };
}

/** Upserts a batch of enriched documents; returns how many rows were inserted or changed. */
export async function upsertCves(db: Db | Tx, docs: CveDocument[]): Promise<number> {
  if (docs.length === 0) return 0;
  const r = await sql<{ n: number }>`${upsertStatement(docs, false)}`.execute(db);
  return r.rows[0]?.n ?? 0;
}

/** A written row, and for a row that existed, its change-relevant facts before the write (store/changes.ts). */
export interface WrittenCve { cve_id: string; inserted: boolean; previous: FactSource | null }

/**
 * upsertCves that also answers, per row it inserted or changed, the stored facts it replaced: read in the same
 * statement (a CTE sees the rows before the update), and only for rows whose document changed, so an unchanged
 * re-import reads nothing more (docs/watchlists.md "Change history").
 */
export async function upsertCvesWithPrevious(db: Db | Tx, docs: CveDocument[]): Promise<WrittenCve[]> {
  if (docs.length === 0) return [];
  const r = await sql<WrittenCve>`${upsertStatement(docs, true)}`.execute(db);
  return r.rows;
}

function upsertStatement(docs: CveDocument[], previous: boolean) {
  // Each row: the slim columns as JSON plus the stable document text spliced in (not re-serialised).
  const payload = `[${docs
    .map((doc) => {
      const slim = JSON.stringify(row(doc));
      const json = stableJson(doc);
      return `${slim.slice(0, -1)},"doc_hash":"${hashOf(json)}","doc":${json}}`;
    })
    .join(',')}]`;
  return sql`
    WITH input AS (
      SELECT cve_id, cve_year, cve_seq, bsid, title, severity, cvss_score, bcs_score, epss_score, epss_percentile,
        kev_flagged, kev_added_at, exploit_maturity, poc_available, has_public_exploit, patch_status, ics_relevant,
        ics_relevance, primary_vendor, primary_product, vendor_count, vendor_slugs, protocols, published_at,
        modified_at, enriched_at::timestamptz AS enriched_at, search_ids, search_title, search_text,
        jsonb_set(jsonb_set(doc, '{temporal,enriched_at}', to_jsonb(enriched_at)), '{sage,generated_at}', coalesce(to_jsonb(generated_at), 'null'::jsonb)) AS doc,
        doc_hash
      FROM jsonb_to_recordset(${payload}::jsonb) AS x(
        cve_id text, cve_year int, cve_seq bigint, bsid text, title text, severity text, cvss_score real,
        bcs_score real, epss_score real, epss_percentile real, kev_flagged boolean, kev_added_at timestamptz,
        exploit_maturity text, poc_available boolean, has_public_exploit boolean, patch_status text,
        ics_relevant boolean, ics_relevance real, primary_vendor text, primary_product text, vendor_count int,
        vendor_slugs text[], protocols text[], published_at timestamptz, modified_at timestamptz,
        enriched_at text, search_ids text, search_title text, search_text text, generated_at text, doc jsonb, doc_hash text)
    ), up AS (
      INSERT INTO cves AS c (cve_id, cve_year, cve_seq, bsid, title, severity, cvss_score, bcs_score, epss_score,
        epss_percentile, kev_flagged, kev_added_at, exploit_maturity, poc_available, has_public_exploit,
        patch_status, ics_relevant, ics_relevance, primary_vendor, primary_product, vendor_count, vendor_slugs,
        protocols, published_at, modified_at, enriched_at, search, doc, doc_hash)
      SELECT cve_id, cve_year, cve_seq, bsid, title, severity, cvss_score, bcs_score, epss_score,
        epss_percentile, kev_flagged, kev_added_at, exploit_maturity, poc_available, has_public_exploit,
        patch_status, ics_relevant, ics_relevance, primary_vendor, primary_product, vendor_count,
        COALESCE(vendor_slugs, '{}'), COALESCE(protocols, '{}'), published_at, modified_at, enriched_at,
        setweight(to_tsvector('simple', coalesce(search_ids, '')), 'A') ||
        setweight(to_tsvector('english', coalesce(search_title, '')), 'B') ||
        setweight(to_tsvector('english', coalesce(search_text, '')), 'C'),
        doc, doc_hash
      FROM input
      ON CONFLICT (cve_id) DO UPDATE SET
        cve_year = EXCLUDED.cve_year, cve_seq = EXCLUDED.cve_seq, bsid = EXCLUDED.bsid, title = EXCLUDED.title,
        severity = EXCLUDED.severity, cvss_score = EXCLUDED.cvss_score, bcs_score = EXCLUDED.bcs_score,
        epss_score = EXCLUDED.epss_score, epss_percentile = EXCLUDED.epss_percentile,
        kev_flagged = EXCLUDED.kev_flagged, kev_added_at = EXCLUDED.kev_added_at,
        exploit_maturity = EXCLUDED.exploit_maturity, poc_available = EXCLUDED.poc_available,
        has_public_exploit = EXCLUDED.has_public_exploit, patch_status = EXCLUDED.patch_status,
        ics_relevant = EXCLUDED.ics_relevant, ics_relevance = EXCLUDED.ics_relevance,
        primary_vendor = EXCLUDED.primary_vendor, primary_product = EXCLUDED.primary_product,
        vendor_count = EXCLUDED.vendor_count, vendor_slugs = EXCLUDED.vendor_slugs, protocols = EXCLUDED.protocols,
        published_at = EXCLUDED.published_at, modified_at = EXCLUDED.modified_at, enriched_at = EXCLUDED.enriched_at,
        search = EXCLUDED.search, doc = EXCLUDED.doc, doc_hash = EXCLUDED.doc_hash
      WHERE c.doc_hash IS DISTINCT FROM EXCLUDED.doc_hash
      RETURNING c.cve_id, (c.xmax = 0) AS inserted
    )${previous ? sql`, prev AS (
      SELECT c.cve_id, ${FACT_SOURCE} AS previous FROM cves c JOIN input i ON i.cve_id = c.cve_id WHERE c.doc_hash IS DISTINCT FROM i.doc_hash
    )
    SELECT up.cve_id, up.inserted, prev.previous FROM up LEFT JOIN prev ON prev.cve_id = up.cve_id` : sql`
    SELECT count(*)::int AS n FROM up`}`;
}
