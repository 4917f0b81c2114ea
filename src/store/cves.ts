// Write side of the CVE read model. One multi-row statement per batch (binary column arrays), and rows whose
// document is unchanged are left alone, so re-importing the same feeds changes nothing (not even enriched_at).
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import type { CveDocument } from '../domain/cve-document.ts';
import { parseCveId } from '../domain/cve-id.ts';
import type { FactSource } from '../domain/changes.ts';
import { FACT_SOURCE } from './changes.ts';
import { createHash } from 'node:crypto';
import { jsonbArray, textArray, textArrayLiteral } from './pg-arrays.ts';
import { cveProductKeys } from '../domain/watchlist.ts';
import { ANSWER_SHAPE, buildAnswer } from '../lib/cve-answer.ts';

/**
 * The two volatile timestamps (temporal.enriched_at, sage.generated_at) stand in the serialised document as these
 * markers: the document is serialised once, and both of its texts are cut from that one serialisation. A marker
 * cannot occur in real content: it holds a NUL character, which PostgreSQL's jsonb refuses anyway.
 */
const ENRICHED_MARK = '\u0000vulnintel:enriched_at';
const GENERATED_MARK = '\u0000vulnintel:generated_at';
const ENRICHED_JSON = JSON.stringify(ENRICHED_MARK);
const GENERATED_JSON = JSON.stringify(GENERATED_MARK);

/**
 * A document's stored text and the hash of its stable text (the stored text with both volatile timestamps null: the
 * hash decides whether a row changed, so re-importing the same feeds rewrites nothing), from one serialisation. The
 * stable text itself is never built: its pieces are hashed as they are cut.
 */
export function documentTexts(doc: CveDocument): { stored: string; hash: string } {
  const text = JSON.stringify({
    ...doc,
    temporal: { ...doc.temporal, enriched_at: ENRICHED_MARK },
    sage: { ...doc.sage, generated_at: GENERATED_MARK },
  });
  const e = text.indexOf(ENRICHED_JSON);
  const g = text.indexOf(GENERATED_JSON);
  if (e < 0 || g < 0) throw new Error(`document of ${doc.cve_id}: timestamp marker not found`);
  const marks = [
    { at: e, length: ENRICHED_JSON.length, value: JSON.stringify(doc.temporal.enriched_at) },
    { at: g, length: GENERATED_JSON.length, value: JSON.stringify(doc.sage.generated_at) },
  ].sort((a, b) => a.at - b.at);
  const h = createHash('sha256');
  let stored = '';
  let from = 0;
  for (const m of marks) {
    const piece = text.slice(from, m.at);
    h.update(piece).update('null');
    stored += piece + m.value;
    from = m.at + m.length;
  }
  const tail = text.slice(from);
  return { stored: stored + tail, hash: h.update(tail).digest('hex') };
}

const num = (n: number | null): string | null => (n === null ? null : String(n));
const bool = (b: boolean): string => (b ? 't' : 'f');

/**
 * The row of one document as the upsert sends it: its column values as text (cast in SQL), the catalog product ids
 * as an array literal, its stored text and the hash of its stable text (documentTexts). Made as soon as a document is
 * built, so that a batch holds strings, not documents, across its database round trips.
 */
export type DocRow = readonly (string | null)[];

/**
 * A DocRow has ROW_COLUMNS values, in the order of the upsert's columns; the stored text is the jsonb one. The last
 * five are the detail answer's pieces (lib/cve-answer.ts; all null when the document gets none).
 */
const ROW_COLUMNS = 38;
const STORED = 31;

const BIGINT_MAX = '9223372036854775807';

/**
 * The `cve_seq` column (bigint) of a CVE id's sequence digits. The id pattern and the CVE record schema allow
 * sequences past a bigint (the schema up to 19 digits); such a sequence is stored as the bigint maximum. The column
 * only records the number (no query orders or filters by it: rows are keyed and ordered by `cve_id`), so the id
 * stays exact while the row is written.
 */
export function seqColumn(seq: string): string {
  const digits = seq.replace(/^0+(?=\d)/, '');
  return digits.length > BIGINT_MAX.length || (digits.length === BIGINT_MAX.length && digits > BIGINT_MAX)
    ? BIGINT_MAX
    : digits;
}

export function docRow(d: CveDocument): DocRow {
  const m = parseCveId(d.cve_id);
  if (!m) throw new Error(`Invalid CVE id in document: ${d.cve_id}`);
  const t = documentTexts(d);
  const a = d.affected;
  return [
    d.cve_id,
    m.year,
    seqColumn(m.seq),
    d.bsid,
    d.title,
    d.severity,
    num(d.scoring.cvss.score),
    num(d.scoring.bcs.score),
    num(d.scoring.epss.score),
    num(d.scoring.epss.percentile),
    bool(d.exploitation.kev_flagged),
    d.exploitation.kev_added_at,
    d.exploitation.exploit_maturity,
    bool(d.exploitation.poc_available),
    bool(d.exploitation.has_public_exploit),
    d.patch.status,
    bool(a.ics_relevant),
    num(a.ics_relevance_score),
    a.primary_vendor,
    a.primary_product,
    String(a.vendor_count),
    textArrayLiteral(a.vendor_slugs),
    textArrayLiteral(a.protocols),
    textArrayLiteral(cveProductKeys(a.vendor_slugs, a.products)),
    textArrayLiteral(a.vendors),
    textArrayLiteral(a.products),
    d.temporal.published_at,
    d.temporal.modified_at,
    d.temporal.enriched_at,
    [d.cve_id, ...a.vendors, ...a.vendor_slugs, ...a.products].join(' '),
    d.description,
    t.stored,
    t.hash,
    ...answerColumns(t.stored),
  ];
}

/** The detail answer's columns of a row: made from the stored text, so they answer exactly what a read would shape. */
function answerColumns(stored: string): (string | null)[] {
  const x = buildAnswer(stored);
  return x ? [x.sageModel, x.head, x.sageFull, x.sageTruncated, x.tail] : [null, null, null, null, null];
}

/** Upserts a batch of enriched documents; returns how many rows were inserted or changed. */
export async function upsertCves(db: Db | Tx, docs: CveDocument[]): Promise<number> {
  return upsertDocRows(db, docs.map(docRow));
}

/** upsertCves of rows made by docRow. */
export async function upsertDocRows(db: Db | Tx, rows: readonly DocRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const r = await sql<{ n: number }>`${upsertStatement(rows, false)}`.execute(db);
  return r.rows[0]?.n ?? 0;
}

/** A written row, and for a row that existed, its change-relevant facts before the write (store/changes.ts). */
export interface WrittenCve {
  cve_id: string;
  inserted: boolean;
  previous: FactSource | null;
}

/**
 * upsertDocRows that also answers, per row it inserted or changed, the stored facts it replaced: read in the same
 * statement (a CTE sees the rows before the update), and only for rows whose document changed, so an unchanged
 * re-import reads nothing more (docs/watchlists.md "Change history").
 */
export async function upsertCvesWithPrevious(db: Db | Tx, rows: readonly DocRow[]): Promise<WrittenCve[]> {
  if (rows.length === 0) return [];
  const r = await sql<WrittenCve>`${upsertStatement(rows, true)}`.execute(db);
  return r.rows;
}

/**
 * The batch goes as one binary array per column (store/pg-arrays.ts), unnested side by side: each document text is
 * parsed once, straight into its row. Scalars travel as text and are cast to their column types in SQL.
 */
function upsertStatement(rows: readonly DocRow[], previous: boolean) {
  const col = (k: number) => rows.map((r) => r[k]);
  const texts = Array.from({ length: ROW_COLUMNS }, (_, k) => (k === STORED ? jsonbArray(col(k)) : textArray(col(k))));
  const cast = (k: number) => sql`${texts[k]}::${sql.raw(k === STORED ? 'jsonb[]' : 'text[]')}`;
  return sql`
    WITH input AS (
      SELECT cve_id, cve_year::int AS cve_year, cve_seq::bigint AS cve_seq, bsid, title, severity,
        cvss_score::real AS cvss_score, bcs_score::real AS bcs_score, epss_score::real AS epss_score,
        epss_percentile::real AS epss_percentile, kev_flagged::boolean AS kev_flagged,
        kev_added_at::timestamptz AS kev_added_at, exploit_maturity, poc_available::boolean AS poc_available,
        has_public_exploit::boolean AS has_public_exploit, patch_status, ics_relevant::boolean AS ics_relevant,
        ics_relevance::real AS ics_relevance, primary_vendor, primary_product, vendor_count::int AS vendor_count,
        vendor_slugs::text[] AS vendor_slugs, protocols::text[] AS protocols, product_keys::text[] AS product_keys,
        vendor_names::text[] AS vendor_names, product_names::text[] AS product_names,
        published_at::timestamptz AS published_at, modified_at::timestamptz AS modified_at,
        enriched_at::timestamptz AS enriched_at, search_ids, search_text, doc, doc_hash,
        a_sage_model, a_head, a_sage_full, a_sage_truncated, a_tail
      FROM unnest(${sql.join(Array.from({ length: ROW_COLUMNS }, (_, k) => cast(k)))}
      ) AS x(cve_id, cve_year, cve_seq, bsid, title, severity, cvss_score, bcs_score, epss_score, epss_percentile,
        kev_flagged, kev_added_at, exploit_maturity, poc_available, has_public_exploit, patch_status, ics_relevant,
        ics_relevance, primary_vendor, primary_product, vendor_count, vendor_slugs, protocols, product_keys, vendor_names,
        product_names, published_at, modified_at, enriched_at, search_ids, search_text, doc, doc_hash,
        a_sage_model, a_head, a_sage_full, a_sage_truncated, a_tail)
    ), up AS (
      INSERT INTO cves AS c (cve_id, cve_year, cve_seq, bsid, title, severity, cvss_score, bcs_score, epss_score,
        epss_percentile, kev_flagged, kev_added_at, exploit_maturity, poc_available, has_public_exploit,
        patch_status, ics_relevant, ics_relevance, primary_vendor, primary_product, vendor_count, vendor_slugs,
        protocols, vendor_names, product_names, published_at, modified_at, enriched_at, search, doc, doc_hash)
      SELECT cve_id, cve_year, cve_seq, bsid, title, severity, cvss_score, bcs_score, epss_score,
        epss_percentile, kev_flagged, kev_added_at, exploit_maturity, poc_available, has_public_exploit,
        patch_status, ics_relevant, ics_relevance, primary_vendor, primary_product, vendor_count,
        COALESCE(vendor_slugs, '{}'), COALESCE(protocols, '{}'), COALESCE(vendor_names, '{}'), COALESCE(product_names, '{}'),
        published_at, modified_at, enriched_at,
        setweight(to_tsvector('simple', coalesce(search_ids, '')), 'A') ||
        setweight(to_tsvector('english', coalesce(title, '')), 'B') ||
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
        vendor_names = EXCLUDED.vendor_names, product_names = EXCLUDED.product_names,
        published_at = EXCLUDED.published_at, modified_at = EXCLUDED.modified_at, enriched_at = EXCLUDED.enriched_at,
        search = EXCLUDED.search, doc = EXCLUDED.doc, doc_hash = EXCLUDED.doc_hash
      WHERE c.doc_hash IS DISTINCT FROM EXCLUDED.doc_hash
      RETURNING c.cve_id, (c.xmax = 0) AS inserted
    ),
    -- The catalog product ids of the written rows (cve_product_keys, migration 1180) are written with them: set
    -- where the document names a product, removed where it names none (two disjoint sets of rows).
    keys_set AS (INSERT INTO cve_product_keys AS k (cve_id, keys)
      SELECT i.cve_id, i.product_keys FROM input i JOIN up ON up.cve_id = i.cve_id WHERE cardinality(i.product_keys) > 0
      ON CONFLICT (cve_id) DO UPDATE SET keys = EXCLUDED.keys WHERE k.keys IS DISTINCT FROM EXCLUDED.keys),
    keys_gone AS (DELETE FROM cve_product_keys k USING input i, up
      WHERE up.cve_id = i.cve_id AND k.cve_id = i.cve_id AND cardinality(i.product_keys) = 0),
    -- The detail answers of the written rows (migration 1650): a row whose document got none keeps its old answer,
    -- which no longer matches its doc_hash and is never served.
    answers AS (INSERT INTO cve_answers AS x (cve_id, doc_hash, enriched_at, shape, sage_model, head, sage_full, sage_truncated, tail)
      SELECT i.cve_id, i.doc_hash, i.enriched_at, ${ANSWER_SHAPE}, i.a_sage_model, i.a_head, i.a_sage_full, i.a_sage_truncated, i.a_tail
      FROM input i JOIN up ON up.cve_id = i.cve_id WHERE i.a_head IS NOT NULL
      ON CONFLICT (cve_id) DO UPDATE SET doc_hash = EXCLUDED.doc_hash, enriched_at = EXCLUDED.enriched_at, shape = EXCLUDED.shape,
        sage_model = EXCLUDED.sage_model, head = EXCLUDED.head, sage_full = EXCLUDED.sage_full,
        sage_truncated = EXCLUDED.sage_truncated, tail = EXCLUDED.tail)${
          previous
            ? sql`, prev AS (
      SELECT c.cve_id, ${FACT_SOURCE} AS previous FROM cves c JOIN input i ON i.cve_id = c.cve_id WHERE c.doc_hash IS DISTINCT FROM i.doc_hash
    )
    SELECT up.cve_id, up.inserted, prev.previous FROM up LEFT JOIN prev ON prev.cve_id = up.cve_id`
            : sql`
    SELECT count(*)::int AS n FROM up`
        }`;
}

/**
 * Stores the detail answer (lib/cve-answer.ts) of every CVE that has none matching its document and the current
 * shape: rows written before migration 1650, or by code of another shape. Reads in primary-key order, `batch` rows a
 * statement; an answer is written only while its document is still the row's (a concurrent import wins). Returns how
 * many answers it stored. Reads keep working meanwhile: a CVE without an answer is shaped on read.
 */
export async function fillAnswers(db: Db, batch = 2000): Promise<number> {
  let stored = 0;
  for (let after = ''; ;) {
    const r = await sql<{ cve_id: string; doc: string; doc_hash: string; enriched_at: Date }>`
      SELECT c.cve_id, c.doc::text AS doc, c.doc_hash, c.enriched_at FROM cves c
      LEFT JOIN cve_answers a ON a.cve_id = c.cve_id AND a.doc_hash = c.doc_hash AND a.enriched_at = c.enriched_at AND a.shape = ${ANSWER_SHAPE}
      WHERE c.cve_id > ${after} AND a.cve_id IS NULL ORDER BY c.cve_id LIMIT ${batch}`.execute(db);
    if (r.rows.length === 0) return stored;
    after = r.rows[r.rows.length - 1].cve_id;
    const rows = r.rows.map((x) => ({ x, a: buildAnswer(x.doc) })).filter((y) => y.a !== null);
    const col = (f: (y: (typeof rows)[number]) => string) => textArray(rows.map(f));
    const w = await sql<{ n: number }>`
      WITH u AS (SELECT * FROM unnest(${col((y) => y.x.cve_id)}::text[], ${col((y) => y.x.doc_hash)}::text[],
        ${col((y) => y.a!.sageModel)}::text[], ${col((y) => y.a!.head)}::text[], ${col((y) => y.a!.sageFull)}::text[],
        ${col((y) => y.a!.sageTruncated)}::text[], ${col((y) => y.a!.tail)}::text[]) AS u(cve_id, doc_hash, sage_model, head, sage_full, sage_truncated, tail)),
      w AS (INSERT INTO cve_answers AS x (cve_id, doc_hash, enriched_at, shape, sage_model, head, sage_full, sage_truncated, tail)
        SELECT u.cve_id, u.doc_hash, c.enriched_at, ${ANSWER_SHAPE}, u.sage_model, u.head, u.sage_full, u.sage_truncated, u.tail
        FROM u JOIN cves c ON c.cve_id = u.cve_id AND c.doc_hash = u.doc_hash
        ON CONFLICT (cve_id) DO UPDATE SET doc_hash = EXCLUDED.doc_hash, enriched_at = EXCLUDED.enriched_at, shape = EXCLUDED.shape,
          sage_model = EXCLUDED.sage_model, head = EXCLUDED.head, sage_full = EXCLUDED.sage_full,
          sage_truncated = EXCLUDED.sage_truncated, tail = EXCLUDED.tail
        RETURNING 1)
      SELECT count(*)::int AS n FROM w`.execute(db);
    stored += w.rows[0].n;
  }
}
