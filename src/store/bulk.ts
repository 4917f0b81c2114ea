// Bulk-load mode for the first import into an empty corpus (docs/ingest.md "Bulk first import"). While it is on,
// `cves` has no secondary indexes and its list-key and facet-count triggers are disabled; at the end of the same
// import run the indexes are rebuilt once and `cve_list_keys`, `cve_facet_counts` and `cve_stat_counts` are
// recomputed from `cves` (the same rows the triggers produce). The dropped index definitions are kept in
// `ingest_state` ('bulk_load'), so a run killed mid-load is finished (indexes and counts restored) by the next run.
import { sql } from 'kysely';
import type { Db, Tx } from './db.ts';

type Conn = Db | Tx;

const STATE_KEY = 'bulk_load';
/** The triggers that maintain the read-model side tables (migrations 0200–0202). */
const TRIGGERS = [
  'cves_counts_ins', 'cves_counts_upd', 'cves_counts_del',
  'cves_list_keys_ins', 'cves_list_keys_upd', 'cves_list_keys_del',
];
/** Indexes kept during the load: the primary key (upserts need it) and the small sage-pending partial index. */
const KEEP = ['cves_pkey', 'cves_sage_pending'];

interface BulkState {
  indexes: { name: string; def: string }[];
}

async function readState(db: Conn): Promise<BulkState | null> {
  const r = await sql<{ value: string }>`SELECT value FROM ingest_state WHERE key = ${STATE_KEY}`.execute(db);
  return r.rows[0] ? (JSON.parse(r.rows[0].value) as BulkState) : null;
}

/** Whether a bulk load was left unfinished (by a killed run). */
export async function bulkLoadPending(db: Conn): Promise<boolean> {
  return (await readState(db)) !== null;
}

/**
 * Switches to bulk-load mode when the corpus is empty (no `cves` rows); returns whether it did. Runs in the
 * caller's transaction; the ACCESS EXCLUSIVE lock on `cves` is held only until that transaction commits.
 */
export async function beginBulkLoad(tx: Tx): Promise<boolean> {
  await sql`LOCK TABLE cves IN ACCESS EXCLUSIVE MODE`.execute(tx);
  const empty = await sql<{ e: boolean }>`SELECT NOT EXISTS (SELECT 1 FROM cves) AS e`.execute(tx);
  if (!empty.rows[0].e || (await readState(tx))) return false;
  const idx = await sql<{ name: string; def: string }>`
    SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
    WHERE i.schemaname = current_schema() AND i.tablename = 'cves' AND NOT (i.indexname = ANY(${KEEP}::text[]))
    ORDER BY i.indexname`.execute(tx);
  const state: BulkState = { indexes: idx.rows };
  await sql`INSERT INTO ingest_state (key, value) VALUES (${STATE_KEY}, ${JSON.stringify(state)})`.execute(tx);
  for (const { name } of state.indexes) await sql`DROP INDEX ${sql.id(name)}`.execute(tx);
  for (const t of TRIGGERS) await sql`ALTER TABLE cves DISABLE TRIGGER ${sql.id(t)}`.execute(tx);
  return true;
}

/** Tells API processes the corpus changed (the disabled triggers did it per statement). */
export async function touchCorpus(tx: Conn): Promise<void> {
  await sql`UPDATE cve_corpus_state SET version = version + 1, changed_at = now() WHERE id = 1`.execute(tx);
  await sql`SELECT pg_notify('cve_corpus_changed', '')`.execute(tx);
}

/** Rebuilds the list keys and the facet and stat counts from `cves` (what the triggers would have left). */
export async function recountReadModel(tx: Tx): Promise<void> {
  await sql`DELETE FROM cve_list_keys`.execute(tx);
  await sql`INSERT INTO cve_list_keys (kind, key, cve_id, published_at, severity, kev, exploit, patch_status)
    SELECT 'vendor', v.k, c.cve_id, c.published_at, c.severity, c.kev_flagged, c.has_public_exploit OR c.poc_available, c.patch_status
    FROM cves c CROSS JOIN LATERAL (SELECT DISTINCT unnest(c.vendor_slugs)) v(k)
    UNION ALL
    SELECT 'protocol', p.k, c.cve_id, c.published_at, c.severity, c.kev_flagged, c.has_public_exploit OR c.poc_available, c.patch_status
    FROM cves c CROSS JOIN LATERAL (SELECT DISTINCT unnest(c.protocols)) p(k)`.execute(tx);
  await sql`DELETE FROM cve_facet_counts`.execute(tx);
  await sql`DELETE FROM cve_stat_counts`.execute(tx);
  await sql`
    WITH d AS (
      SELECT coalesce(severity, '') AS severity, kev_flagged AS kev, has_public_exploit OR poc_available AS exploit,
        patch_status, exploit_maturity AS maturity, ics_relevant, vendor_slugs, protocols
      FROM cves
    )
    INSERT INTO cve_facet_counts (scope, key, severity, kev, exploit, patch_status, maturity, ics_relevant, n)
    SELECT scope, key, severity, kev, exploit, patch_status, maturity, ics_relevant, count(*)
    FROM (
      SELECT 'all' AS scope, '' AS key, d.* FROM d
      UNION ALL
      SELECT 'vendor', v.k, d.* FROM d CROSS JOIN LATERAL (SELECT DISTINCT unnest(d.vendor_slugs)) v(k)
      UNION ALL
      SELECT 'protocol', p.k, d.* FROM d CROSS JOIN LATERAL (SELECT DISTINCT unnest(d.protocols)) p(k)
    ) x
    GROUP BY scope, key, severity, kev, exploit, patch_status, maturity, ics_relevant`.execute(tx);
  await sql`
    INSERT INTO cve_stat_counts (dim, key, n)
    SELECT dim, key, count(*) FROM (
      SELECT 'month' AS dim, coalesce(to_char(published_at AT TIME ZONE 'UTC', 'YYYY-MM'), '') AS key FROM cves
      UNION ALL
      SELECT 'epss_bucket', CASE WHEN epss_score IS NULL THEN 'none' ELSE least(9, floor(epss_score * 10))::int::text END FROM cves
    ) x
    GROUP BY dim, key`.execute(tx);
}

/**
 * Leaves bulk-load mode: recreates the dropped indexes, recomputes the side tables, re-enables the triggers.
 * One transaction: readers see either the loading state or the finished read model. No-op when not in bulk mode.
 */
export async function endBulkLoad(tx: Tx): Promise<boolean> {
  await sql`LOCK TABLE cves IN ACCESS EXCLUSIVE MODE`.execute(tx);
  const state = await readState(tx);
  if (!state) return false;
  await sql`SET LOCAL maintenance_work_mem = '256MB'`.execute(tx);
  for (const { def } of state.indexes) await sql.raw(def).execute(tx);
  await recountReadModel(tx);
  for (const t of TRIGGERS) await sql`ALTER TABLE cves ENABLE TRIGGER ${sql.id(t)}`.execute(tx);
  await sql`DELETE FROM ingest_state WHERE key = ${STATE_KEY}`.execute(tx);
  await sql`ANALYZE cves`.execute(tx);
  await touchCorpus(tx);
  return true;
}
