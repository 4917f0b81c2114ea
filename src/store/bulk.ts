// Bulk-load mode for the first import into an empty corpus (docs/ingest.md "Bulk first import"). While it is on,
// `cves`, `cve_product_keys` and `cve_ranges` have no secondary indexes and the list-key and facet-count triggers of `cves` are disabled; at the end of the same
// import run the indexes are rebuilt once and `cve_list_keys`, `cve_facet_counts` and `cve_stat_counts` are
// recomputed from `cves` by the triggers' own statements (SQL functions of migration 0501). The dropped index definitions are kept in
// `ingest_state` ('bulk_load'), so a run killed mid-load is finished (indexes and counts restored) by the next run.
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import { withTx } from './db.ts';

type Conn = Db | Tx;

const STATE_KEY = 'bulk_load';
/** The triggers that maintain the read-model side tables (migrations 0200–0202). */
const TRIGGERS = [
  'cves_counts_ins',
  'cves_counts_upd',
  'cves_counts_del',
  'cves_list_keys_ins',
  'cves_list_keys_upd',
  'cves_list_keys_del',
];
/** Tables whose secondary indexes are dropped during the load: the read model, its product ids and the structured ranges. */
const TABLES = ['cves', 'cve_product_keys', 'cve_ranges'];
/**
 * Indexes kept during the load: the primary keys (upserts, and a range set's replacement by CVE, need them) and
 * the small sage-pending partial index.
 */
const KEEP = ['cves_pkey', 'cves_sage_pending', 'cve_product_keys_pkey', 'cve_ranges_pkey'];

interface BulkState {
  indexes: { name: string; def: string }[];
}

/** Whether a parsed value is a bulk state: its indexes, each a name and a definition. */
function isBulkState(v: unknown): v is BulkState {
  if (typeof v !== 'object' || v === null || !('indexes' in v) || !Array.isArray(v.indexes)) return false;
  return v.indexes.every(
    (i: unknown) =>
      typeof i === 'object' &&
      i !== null &&
      'name' in i &&
      typeof i.name === 'string' &&
      'def' in i &&
      typeof i.def === 'string',
  );
}

async function readState(db: Conn): Promise<BulkState | null> {
  const r = await sql<{ value: string }>`SELECT value FROM ingest_state WHERE key = ${STATE_KEY}`.execute(db);
  if (!r.rows[0]) return null;
  const state: unknown = JSON.parse(r.rows[0].value);
  if (!isBulkState(state)) throw new Error(`ingest_state ${STATE_KEY} is not a bulk load's state`);
  return state;
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
    WHERE i.schemaname = current_schema() AND i.tablename = ANY(${TABLES}::text[]) AND NOT (i.indexname = ANY(${KEEP}::text[]))
    ORDER BY i.tablename, i.indexname`.execute(tx);
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

/** Runs the statement a read-model SQL function (migration 0501, shared with the triggers) returns. */
async function runShared(tx: Tx, statement: ReturnType<typeof sql<{ q: string }>>): Promise<void> {
  const r = await statement.execute(tx);
  await sql.raw(r.rows[0].q).execute(tx);
}

/** Rebuilds `cve_list_keys` from `cves` (the list-key trigger's own statement, over the whole table). */
async function recountListKeys(tx: Tx): Promise<void> {
  await sql`DELETE FROM cve_list_keys`.execute(tx);
  await runShared(tx, sql<{ q: string }>`SELECT cve_list_keys_sql('cves') AS q`);
}

/** Rebuilds `cve_facet_counts` from `cves` (the count trigger's own statement, every row counted once). */
async function recountFacets(tx: Tx): Promise<void> {
  await sql`DELETE FROM cve_facet_counts`.execute(tx);
  await runShared(tx, sql<{ q: string }>`SELECT cve_facet_counts_sql(cve_count_rows_sql('cves', 1)) AS q`);
}

/** Rebuilds `cve_stat_counts` from `cves`. */
async function recountStats(tx: Tx): Promise<void> {
  await sql`DELETE FROM cve_stat_counts`.execute(tx);
  await runShared(tx, sql<{ q: string }>`SELECT cve_stat_counts_sql(cve_count_rows_sql('cves', 1)) AS q`);
}

/** `CREATE [UNIQUE] INDEX name ...` as stored in the state, made idempotent (a resumed run skips built ones). */
function idempotent(def: string): string {
  return def.replace(/^CREATE (UNIQUE )?INDEX (?!IF NOT EXISTS )/, 'CREATE $1INDEX IF NOT EXISTS ');
}

/** One task of the end of a bulk load: its own transaction on a pooled connection; `weight` orders the tasks. */
export interface BulkTask {
  /** About its milliseconds in the 44,130-record import (docs/benchmarks.md): the pool takes the largest first. */
  weight: number;
  run: (tx: Tx) => Promise<void>;
}

/**
 * Leaves bulk-load mode: recreates the dropped indexes, recomputes the side tables and takes the planner statistics
 * of `cves` (it went from empty to full without them), then re-enables the triggers. These run as independent tasks
 * (each index, each side table, ANALYZE: one transaction each) on `parallel` pooled connections, largest first, so
 * PostgreSQL uses every core; `alongside` adds the caller's own tasks to the same pool (the import's vendor and
 * product catalogs, which read only `cves`), so no connection waits for the slowest index while another core idles.
 * Only the last transaction leaves bulk mode: a run killed before it is finished by the next run (built indexes are
 * skipped, the side tables are recomputed). Call it holding the import lock (no other writer of `cves`). No-op
 * when not in bulk mode (the `alongside` tasks are then not run).
 */
export async function endBulkLoad(db: Db, parallel = 2, alongside: BulkTask[] = []): Promise<boolean> {
  const state = await readState(db);
  if (!state) return false;
  const tasks: BulkTask[] = [
    { weight: 350, run: recountListKeys },
    { weight: 450, run: recountFacets },
    { weight: 50, run: recountStats },
    // No expression index is among the dropped ones, so the statistics need none of them built first.
    { weight: 500, run: async (tx: Tx) => void (await sql`ANALYZE cves`.execute(tx)) },
    ...state.indexes.map(({ def }) => ({
      // The full-text GIN takes longest by far; then the range lookups, the product ids (compact since migration 1280)
      // and the covering b-trees.
      weight: / USING gin \(search\)/.test(def)
        ? 1000
        : / USING gin \(keys\)/.test(def)
          ? 130
          : / ON \S*cve_ranges /.test(def)
            ? 150
            : / INCLUDE /.test(def)
              ? 70
              : 40,
      run: async (tx: Tx) => {
        await sql`SET LOCAL maintenance_work_mem = '256MB'`.execute(tx);
        await sql.raw(idempotent(def)).execute(tx);
      },
    })),
    ...alongside,
  ].sort((a, b) => b.weight - a.weight);
  let next = 0;
  // JIT off: the recounts and the catalog refreshes pass its cost threshold, and loading and running LLVM for them
  // took about 0.35 s of the 44k import's end (perf), more than it saves on statements run once.
  const worker = async () => {
    for (let t = tasks[next++]; t; t = tasks[next++]) {
      const task = t;
      await withTx(db, async (tx) => {
        await sql`SELECT set_config('jit', 'off', true)`.execute(tx);
        await task.run(tx);
      });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, parallel) }, worker));
  await withTx(db, async (tx) => {
    await sql`LOCK TABLE cves IN ACCESS EXCLUSIVE MODE`.execute(tx);
    for (const t of TRIGGERS) await sql`ALTER TABLE cves ENABLE TRIGGER ${sql.id(t)}`.execute(tx);
    await sql`DELETE FROM ingest_state WHERE key = ${STATE_KEY}`.execute(tx);
    await touchCorpus(tx);
  });
  return true;
}
