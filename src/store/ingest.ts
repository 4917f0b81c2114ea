// Write and read side of the ingest pipeline: source records, EPSS, CWE/CAPEC catalogs, feed state, run
// records and the vendor catalog. Multi-row statements only (jsonb_to_recordset), one round trip per batch
// per table; rows whose content hash is unchanged are not written, so re-importing changes nothing.
import { createHash } from 'node:crypto';
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import type { CapecRecord, CveSourceName, CveSourceRecord, CweRecord, EpssRecord, FeedMeta } from '../ingest/types.ts';
import type { SourceText } from '../ingest/record-json.ts';
import { jsonArray, textArray } from './pg-arrays.ts';
import { VENDOR_ALIASES } from '../domain/vendors.ts';
import { capecSourceFor } from '../domain/capec.ts';
import type { CapecSource } from '../domain/cve-document.ts';

type Conn = Db | Tx;

const IMPORT_LOCK = 7_224_101; // pipeline single-flight (import and sync share it)

export const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** How often an import that waits for the pipeline lock asks for it again. */
const IMPORT_LOCK_POLL_MS = 500;

/**
 * Runs fn while holding the pipeline lock on one connection; `ran: false` when another import holds it. With
 * `wait`, asks again every IMPORT_LOCK_POLL_MS until it is free (or `signal` is aborted): each ask is a quick
 * pg_try_advisory_lock, so the wait is bounded by neither the server pool's statement_timeout nor its client-side
 * query deadline. A blocking pg_advisory_lock there would be cancelled after 15 s: a second API replica started next
 * to one importing the snapshot would die with "canceling statement due to statement timeout".
 */
export async function withImportLock<T>(
  db: Db,
  fn: (conn: Db) => Promise<T>,
  wait = false,
  signal?: AbortSignal,
): Promise<{ ran: true; value: T } | { ran: false }> {
  return db.connection().execute(async (conn) => {
    for (;;) {
      const r = await sql<{ ok: boolean }>`SELECT pg_try_advisory_lock(${IMPORT_LOCK}) AS ok`.execute(conn);
      if (r.rows[0]?.ok) break;
      if (!wait) return { ran: false as const };
      signal?.throwIfAborted();
      await new Promise((resolve) => setTimeout(resolve, IMPORT_LOCK_POLL_MS));
      signal?.throwIfAborted();
    }
    try {
      return { ran: true as const, value: await fn(conn) };
    } finally {
      await sql`SELECT pg_advisory_unlock(${IMPORT_LOCK})`.execute(conn).catch(() => undefined);
    }
  });
}

// ---- runs (spec §2.9 pipeline stages) ----

/** Runs left 'running' by a process that died: marked failed. Call only while holding the import lock. */
export async function failStaleRuns(db: Conn): Promise<number> {
  const r = await sql`UPDATE ingest_runs SET status = 'failed', finished_at = now(),
      error = coalesce(error, 'interrupted: the process ended while the run was in progress')
    WHERE status = 'running'`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

export async function startRun(db: Conn, stage: 'ingest' | 'enricher', source: string | null): Promise<number> {
  const r = await sql<{
    id: number;
  }>`INSERT INTO ingest_runs (stage, source, status) VALUES (${stage}, ${source}, 'running') RETURNING id`.execute(db);
  return r.rows[0].id;
}

export async function progressRun(db: Conn, id: number, rows: number): Promise<void> {
  await sql`UPDATE ingest_runs SET rows = ${rows} WHERE id = ${id} AND status = 'running'`.execute(db);
}

/** Status of the newest ingest run of a source ('snapshot', 'import', …), or null when it never ran. */
export async function lastRunStatus(db: Conn, source: string): Promise<string | null> {
  const r = await sql<{ status: string }>`SELECT status FROM ingest_runs WHERE stage = 'ingest' AND source = ${source}
    ORDER BY started_at DESC, id DESC LIMIT 1`.execute(db);
  return r.rows[0]?.status ?? null;
}

export async function finishRun(
  db: Conn,
  id: number,
  status: 'succeeded' | 'failed',
  rows: number,
  error: string | null = null,
): Promise<void> {
  await sql`UPDATE ingest_runs SET status = ${status}, rows = ${rows}, finished_at = now(), error = ${error} WHERE id = ${id}`.execute(
    db,
  );
}

// ---- source records ----

/** The sources whose records carry their revision (`modified`), compared by replacesSource. */
const REVISED_SOURCES: ReadonlySet<string> = new Set(['nvd', 'msrc', 'cve5', 'csaf']);

/**
 * Whether `next` replaces `prev` under the same key. NVD, MSRC, CVE Record 5 and CSAF records carry their revision:
 * MSRC lists a CVE again in later monthly documents, two NVD files can hold two versions of one record, a cvelistV5
 * baseline read after one of its later deltas holds an older version of each record the delta changed, and a stale
 * CSAF mirror serves an advisory's older revision, all under one key. An older revision (`modified`: NVD
 * `lastModified`, CVE Record 5 `dateUpdated`, CSAF `tracking.current_release_date`; for MSRC then the
 * document's release date) never replaces a newer one, so the newest is kept whatever order the files are read in
 * and a re-import of the same files changes nothing; the same revision replaces (a reader that now extracts more
 * still updates the stored record). Other sources: the later record wins.
 */
export function replacesSource(prev: SourceRevision, next: SourceRevision): boolean {
  if (!REVISED_SOURCES.has(next.source)) return true;
  const [a, b] = [prev.modified ?? '', next.modified ?? ''];
  return b > a || (b === a && (next.document_date ?? '') >= (prev.document_date ?? ''));
}
type SourceRevision = Pick<CveSourceRecord, 'source' | 'modified' | 'document_date'>;

/**
 * Settings of an import transaction (until it ends). work_mem: a batch's documents (about 6 kB each) pass through a
 * set-returning function, and the catalog refreshes sort every CVE's names; with the default 4 MB both spill to
 * temporary files. jit: the batch statements' estimated costs pass the JIT threshold, and compiling them again for
 * every batch costs about 0.4 s of the database's 14 s of CPU in the 44,130-record import (the import's wall time
 * does not move measurably).
 */
export async function batchSettings(tx: Tx): Promise<void> {
  await sql`SELECT set_config('work_mem', '64MB', true), set_config('jit', 'off', true)`.execute(tx);
}

/**
 * Upserts source records (as their texts: ingest/record-json.ts); returns the CVE ids whose records were inserted or
 * changed, and those records (the ones now stored: a record refused as an older revision (replacesSource), or equal to the
 * stored one, is not among them).
 */
export async function upsertSourceRecords(
  db: Conn,
  recs: SourceText[],
): Promise<{ ids: string[]; written: SourceText[] }> {
  if (!recs.length) return { ids: [], written: [] };
  // One record per key in a batch: the later one, or for a revised source the newest revision (replacesSource).
  const kept = new Map<string, SourceText>();
  const keyOf = (r: { cve_id: string; source: string; source_key: string }) =>
    `${r.cve_id}\u0000${r.source}\u0000${r.source_key}`;
  for (const r of recs) {
    const key = keyOf(r);
    const prev = kept.get(key);
    if (!prev || replacesSource(prev, r)) kept.set(key, r);
  }
  // The serialised records go as binary column arrays (store/pg-arrays.ts): each record text is checked as JSON and
  // stored as sent (a json column, migration 1100).
  const rows = [...kept.values()];
  const res = await sql<{ cve_id: string; source: string; source_key: string }>`
    INSERT INTO cve_sources AS s (cve_id, source, source_key, record, record_hash)
    SELECT cve_id, source, source_key, record, record_hash
    FROM unnest(${textArray(rows.map((r) => r.cve_id))}::text[], ${textArray(rows.map((r) => r.source))}::text[],
      ${textArray(rows.map((r) => r.source_key))}::text[], ${jsonArray(rows.map((r) => r.json))}::json[],
      ${textArray(rows.map((r) => r.hash))}::text[]) AS x(cve_id, source, source_key, record, record_hash)
    ON CONFLICT (cve_id, source, source_key) DO UPDATE
      SET record = EXCLUDED.record, record_hash = EXCLUDED.record_hash, updated_at = now()
      WHERE s.record_hash IS DISTINCT FROM EXCLUDED.record_hash
        -- replacesSource: a record of a revised source never replaces a newer revision.
        AND (s.source NOT IN (${sql.join([...REVISED_SOURCES].map((x) => sql.lit(x)))})
          OR (coalesce(EXCLUDED.record->>'modified', '') COLLATE "C", coalesce(EXCLUDED.record->>'document_date', '') COLLATE "C")
            >= (coalesce(s.record->>'modified', '') COLLATE "C", coalesce(s.record->>'document_date', '') COLLATE "C"))
    RETURNING s.cve_id, s.source, s.source_key`.execute(db);
  return { ids: [...new Set(res.rows.map((r) => r.cve_id))], written: res.rows.map((r) => kept.get(keyOf(r))!) };
}

/** Upserts EPSS rows; returns the CVE ids whose score changed and that have source records. */
export async function upsertEpss(db: Conn, rows: EpssRecord[]): Promise<string[]> {
  if (!rows.length) return [];
  const byId = new Map(rows.map((r) => [r.cve_id, r]));
  const uniq = [...byId.values()];
  // Binary text arrays (store/pg-arrays.ts), numbers in JavaScript's shortest round-trip form, which float8in
  // reads back to the same double.
  const res = await sql<{ cve_id: string }>`
    WITH up AS (
      INSERT INTO epss_scores AS e (cve_id, epss, percentile)
      SELECT cve_id, epss::double precision, percentile::double precision
      FROM unnest(${textArray(uniq.map((r) => r.cve_id))}::text[], ${textArray(uniq.map((r) => String(r.epss)))}::text[],
        ${textArray(uniq.map((r) => String(r.percentile)))}::text[]) AS x(cve_id, epss, percentile)
      ON CONFLICT (cve_id) DO UPDATE SET epss = EXCLUDED.epss, percentile = EXCLUDED.percentile
        WHERE e.epss IS DISTINCT FROM EXCLUDED.epss OR e.percentile IS DISTINCT FROM EXCLUDED.percentile
      RETURNING cve_id
    )
    SELECT DISTINCT up.cve_id FROM up JOIN cve_sources s ON s.cve_id = up.cve_id`.execute(db);
  return res.rows.map((r) => r.cve_id);
}

export interface LoadedSources {
  /** Each CVE's source records as their texts (ingest/record-json.ts recordOf parses one), in stored order. */
  records: Map<string, SourceText[]>;
  epss: Map<string, EpssRecord>;
}

const sourceKey = (r: { cve_id: string; source: string; source_key: string }) =>
  `${r.cve_id}|${r.source}|${r.source_key}`;

/**
 * Every source record and the EPSS score of the given CVEs. Records the caller already holds (`known`, e.g. the batch
 * just written) are not sent back by the database: they take their stored rows' places.
 */
export async function loadSources(db: Conn, ids: string[], known: SourceText[] = []): Promise<LoadedSources> {
  const records = new Map<string, SourceText[]>();
  const epss = new Map<string, EpssRecord>();
  if (!ids.length) return { records, epss };
  const have = new Map(known.map((r) => [sourceKey(r), r]));
  const [src, ep] = await Promise.all([
    sql<{ k: string; cve_id: string; source: CveSourceName; source_key: string; json: string | null; hash: string }>`
      SELECT s.k, s.cve_id, s.source, s.source_key, s.record_hash AS hash, CASE WHEN h.k IS NULL THEN s.record::text END AS json
      FROM (SELECT cve_id || '|' || source || '|' || source_key AS k, * FROM cve_sources WHERE cve_id = ANY(${ids}::text[])) s
        -- A hash join: '= ANY(array)' compared every row with every known key (1,000 x 1,000 per batch: 0.48 s of
        -- the 44k import's PostgreSQL time).
        LEFT JOIN (SELECT DISTINCT unnest(${[...have.keys()]}::text[]) AS k) h ON h.k = s.k`.execute(db),
    sql<EpssRecord>`SELECT cve_id, epss, percentile FROM epss_scores WHERE cve_id = ANY(${ids}::text[])`.execute(db),
  ]);
  for (const row of src.rows) {
    const { k, json, ...fields } = row;
    // A stored record is read to be enriched, never compared again: its revision fields are not read out of it.
    const text = json === null ? have.get(k) : { ...fields, json, modified: null, document_date: null };
    if (!text) continue;
    const list = records.get(row.cve_id) ?? [];
    list.push(text);
    records.set(row.cve_id, list);
  }
  for (const e of ep.rows)
    epss.set(e.cve_id, { cve_id: e.cve_id, epss: Number(e.epss), percentile: Number(e.percentile) });
  return { records, epss };
}

/** Deletes a whole-catalog source's records for CVEs the new catalog no longer lists; returns those CVE ids. */
export async function deleteSourcesNotIn(db: Conn, source: 'kev', keep: string[]): Promise<string[]> {
  const r = await sql<{
    cve_id: string;
  }>`DELETE FROM cve_sources WHERE source = ${source} AND NOT (cve_id = ANY(${keep}::text[])) RETURNING cve_id`.execute(
    db,
  );
  return [...new Set(r.rows.map((x) => x.cve_id))].sort();
}

/** CVE ids that have source records, in id order, after `after` (keyset pagination). */
export async function sourceCveIds(db: Conn, after: string, limit: number): Promise<string[]> {
  const r = await sql<{
    cve_id: string;
  }>`SELECT DISTINCT cve_id FROM cve_sources WHERE cve_id > ${after} ORDER BY cve_id LIMIT ${limit}`.execute(db);
  return r.rows.map((x) => x.cve_id);
}

export async function countSourceRows(db: Conn): Promise<number> {
  const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM (SELECT 1 FROM cve_sources LIMIT 1) x`.execute(db);
  return r.rows[0].n;
}

export async function countCves(db: Conn): Promise<number> {
  const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM cves`.execute(db);
  return r.rows[0].n;
}

export async function deleteCves(db: Conn, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  await sql`DELETE FROM cve_product_keys WHERE cve_id = ANY(${ids}::text[])`.execute(db);
  const r = await sql`DELETE FROM cves WHERE cve_id = ANY(${ids}::text[])`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

export async function previousSages(db: Conn, ids: string[]): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  if (!ids.length) return out;
  const r = await sql<{
    cve_id: string;
    sage: unknown;
  }>`SELECT cve_id, doc->'sage' AS sage FROM cves WHERE cve_id = ANY(${ids}::text[])`.execute(db);
  for (const row of r.rows) out.set(row.cve_id, row.sage);
  return out;
}

// ---- catalogs ----

/** Replaces the CWE catalog when its content changed; returns whether it changed. */
export async function replaceCweCatalog(db: Conn, recs: CweRecord[]): Promise<boolean> {
  const rows = [...new Map(recs.map((r) => [r.id, r])).values()].sort((a, b) => a.id - b.id);
  const hash = sha(JSON.stringify(rows));
  if ((await getState(db, 'cwe_catalog_hash')) === hash) return false;
  await sql`DELETE FROM cwe_catalog`.execute(db);
  await sql`INSERT INTO cwe_catalog (id, name, abstraction, kind, status, capec_ids)
    SELECT id, name, abstraction, kind, status, ARRAY(SELECT jsonb_array_elements_text(capec_ids)::int)
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(id int, name text, abstraction text, kind text, status text, capec_ids jsonb)`.execute(
    db,
  );
  await setState(db, 'cwe_catalog_hash', hash);
  return true;
}

export async function replaceCapecCatalog(db: Conn, recs: CapecRecord[]): Promise<boolean> {
  const rows = [...new Map(recs.map((r) => [r.capec_id, r])).values()].sort((a, b) => a.capec_id - b.capec_id);
  const hash = sha(JSON.stringify(rows));
  if ((await getState(db, 'capec_catalog_hash')) === hash) return false;
  await sql`DELETE FROM capec_catalog`.execute(db);
  await sql`INSERT INTO capec_catalog (capec_id, name, typical_severity, status, cwes, deprecated)
    SELECT capec_id, name, typical_severity, status, ARRAY(SELECT jsonb_array_elements_text(cwes)::int), deprecated
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(capec_id int, name text, typical_severity text, status text, cwes jsonb, deprecated boolean)`.execute(
    db,
  );
  await setState(db, 'capec_catalog_hash', hash);
  return true;
}

export async function loadCatalogRows(
  db: Conn,
): Promise<{ cwe: { id: number; name: string }[]; capec: CapecRecord[]; capecVersion: string | null }> {
  const [cwe, capec, ver] = await Promise.all([
    sql<{ id: number; name: string }>`SELECT id, name FROM cwe_catalog`.execute(db),
    sql<CapecRecord>`SELECT capec_id, name, typical_severity, status, cwes, deprecated FROM capec_catalog ORDER BY capec_id`.execute(
      db,
    ),
    sql<{ version: string | null }>`SELECT version FROM feed_state WHERE feed = 'capec-stix'`.execute(db),
  ]);
  return { cwe: cwe.rows, capec: capec.rows, capecVersion: ver.rows[0]?.version ?? null };
}

// ---- feed and pipeline state ----

/** meta.capec_source of the detail response: the CAPEC catalog version the corpus was enriched with. */
export async function loadCapecSource(db: Conn): Promise<CapecSource> {
  const r = await sql<{ version: string | null }>`SELECT version FROM feed_state WHERE feed = 'capec-stix'`.execute(db);
  return capecSourceFor(r.rows[0]?.version ?? null);
}

export async function setFeedState(db: Conn, meta: FeedMeta): Promise<void> {
  await sql`INSERT INTO feed_state (feed, version, date, declared_count) VALUES (${meta.feed}, ${meta.version}, ${meta.date}, ${meta.declared_count})
    ON CONFLICT (feed) DO UPDATE SET version = EXCLUDED.version, date = EXCLUDED.date, declared_count = EXCLUDED.declared_count, updated_at = now()
    WHERE (feed_state.version, feed_state.date, feed_state.declared_count) IS DISTINCT FROM (EXCLUDED.version, EXCLUDED.date, EXCLUDED.declared_count)`.execute(
    db,
  );
}

export async function getState(db: Conn, key: string): Promise<string | null> {
  const r = await sql<{ value: string }>`SELECT value FROM ingest_state WHERE key = ${key}`.execute(db);
  return r.rows[0]?.value ?? null;
}

export async function setState(db: Conn, key: string, value: string): Promise<void> {
  await sql`INSERT INTO ingest_state (key, value) VALUES (${key}, ${value})
    ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value WHERE ingest_state.value IS DISTINCT FROM EXCLUDED.value`.execute(
    db,
  );
}

// ---- vendor catalog (/api/v1/catalog/vendors) ----

/** Rebuilds the vendors table from the corpus: slug, most common display name, alias spellings, CVE count. */
export async function refreshVendors(db: Conn): Promise<number> {
  const aliases = VENDOR_ALIASES.map((v) => ({ slug: v.slug, name: v.name, aliases: v.aliases }));
  await sql`
    WITH counted AS (
      SELECT s.slug, mode() WITHIN GROUP (ORDER BY c.vendor_names[s.i::int]) AS name, count(*)::int AS n
      FROM cves c, unnest(c.vendor_slugs) WITH ORDINALITY AS s(slug, i)
      GROUP BY s.slug
    ), known AS (
      SELECT slug, name, ARRAY(SELECT jsonb_array_elements_text(aliases)) AS aliases
      FROM jsonb_to_recordset(${JSON.stringify(aliases)}::jsonb) AS x(slug text, name text, aliases jsonb)
    ), fresh AS (
      SELECT c.slug, coalesce(k.name, c.name, c.slug) AS name, coalesce(k.aliases, '{}') AS aliases, c.n
      FROM counted c LEFT JOIN known k ON k.slug = c.slug
    ), gone AS (
      DELETE FROM vendors v WHERE NOT EXISTS (SELECT 1 FROM fresh f WHERE f.slug = v.slug)
    )
    INSERT INTO vendors (slug, name, aliases, cve_count)
    SELECT slug, name, aliases, n FROM fresh
    ON CONFLICT (slug) DO UPDATE SET name = EXCLUDED.name, aliases = EXCLUDED.aliases, cve_count = EXCLUDED.cve_count
      WHERE (vendors.name, vendors.aliases, vendors.cve_count) IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.aliases, EXCLUDED.cve_count)`.execute(
    db,
  );
  const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM vendors`.execute(db);
  return r.rows[0].n;
}
