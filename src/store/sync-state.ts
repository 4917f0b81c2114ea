// Checkpoints and single-flight for `vulnintel sync` (docs/sync.md), and the ingest-run rows it records.
import { sql } from './kysely.ts';
import type pg from 'pg';
import type { Db } from './db.ts';

/** Advisory lock key of `vulnintel sync` (migrations use 7_224_001). */
export const SYNC_LOCK_KEY = 7_224_400;

/** Every source's checkpoint row, by source name (`vulnintel sync --status`). */
export async function syncCursors(db: Db) {
  return db.selectFrom('sync_state').selectAll().orderBy('source').execute();
}

export async function getCursor<T extends object>(db: Db, source: string): Promise<T | null> {
  const row = await db.selectFrom('sync_state').select('cursor').where('source', '=', source).executeTakeFirst();
  return (row?.cursor as T | undefined) ?? null;
}

export async function setCursor(db: Db, source: string, cursor: object, at: Date): Promise<void> {
  await db
    .insertInto('sync_state')
    .values({ source, cursor: JSON.stringify(cursor), updated_at: at })
    .onConflict((oc) => oc.column('source').doUpdateSet({ cursor: JSON.stringify(cursor), updated_at: at }))
    .execute();
}

export async function getDocumentVersions(db: Db, source: string): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('sync_documents')
    .select(['doc_id', 'version'])
    .where('source', '=', source)
    .execute();
  return new Map(rows.map((r) => [r.doc_id, r.version]));
}

export async function setDocumentVersion(
  db: Db,
  source: string,
  docId: string,
  version: string,
  at: Date,
): Promise<void> {
  await db
    .insertInto('sync_documents')
    .values({ source, doc_id: docId, version, fetched_at: at })
    .onConflict((oc) => oc.columns(['source', 'doc_id']).doUpdateSet({ version, fetched_at: at }))
    .execute();
}

/**
 * Records one finished sync of a source as an ingest run (stage `ingest`, source `sync:<name>`). Written once,
 * when the source is done, never left 'running': the import pipeline marks every 'running' row failed when it
 * starts (its crash recovery), and it is called while the sync is in progress.
 */
export async function recordIngestRun(
  db: Db,
  run: {
    source: string;
    status: 'succeeded' | 'failed';
    rows: number;
    error: string | null;
    startedAt: Date;
    finishedAt: Date;
  },
): Promise<number> {
  const r = await db
    .insertInto('ingest_runs')
    .values({
      stage: 'ingest',
      source: run.source,
      status: run.status,
      started_at: run.startedAt,
      finished_at: run.finishedAt,
      rows: run.rows,
      error: run.error,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}

export interface SyncLock {
  release(): Promise<void>;
}

/**
 * Takes the sync's session-level advisory lock on a dedicated connection held for the whole run; null when
 * another process holds it (`holderPid` then names that backend, for the message).
 */
export async function tryAcquireSyncLock(pool: pg.Pool): Promise<SyncLock | { held: true; holderPid: number | null }> {
  const client = await pool.connect();
  try {
    const r = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [SYNC_LOCK_KEY]);
    if (!r.rows[0].ok) {
      const h = await client.query<{ pid: number }>(
        `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND classid = 0 AND objid = $1 LIMIT 1`,
        [SYNC_LOCK_KEY],
      );
      client.release();
      return { held: true, holderPid: h.rows[0]?.pid ?? null };
    }
  } catch (e) {
    client.release();
    throw e;
  }
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      try {
        await client.query('SELECT pg_advisory_unlock($1)', [SYNC_LOCK_KEY]);
        client.release();
      } catch {
        // A broken connection already dropped the session lock; discard the client rather than pool it.
        client.release(true);
      }
    },
  };
}

/** The ingest_runs source of a sync source's own run. */
export function syncRunLabel(name: string): string {
  return `sync:${name}`;
}

/** The ingest_runs source of the pipeline runs a sync source starts (its own run is syncRunLabel). */
export function syncPipelineLabel(name: string): string {
  return `${syncRunLabel(name)}:pipeline`;
}

/**
 * The newest run of each sync source (running, succeeded or failed: its own syncRunLabel row, never one of the
 * pipeline runs it started), whatever the number of rows written since.
 */
export async function lastSyncRuns(db: Db, names: readonly string[]) {
  if (!names.length) return [];
  const r = await sql<{
    source: string;
    status: string;
    started_at: Date;
    finished_at: Date | null;
    rows: number;
    error: string | null;
  }>`
    SELECT DISTINCT ON (source) source, status, started_at, finished_at, rows, error
      FROM ingest_runs
     WHERE stage = 'ingest' AND source = ANY(${names.map(syncRunLabel)}::text[])
     ORDER BY source, id DESC`.execute(db);
  return r.rows;
}

/** The database backend holding the sync lock (a sync running now, from the shell or the job), or null. */
export async function syncLockHolder(db: Db): Promise<number | null> {
  const r = await sql<{ pid: number }>`
    SELECT pid FROM pg_locks
     WHERE locktype = 'advisory' AND granted AND classid = 0 AND objid = ${SYNC_LOCK_KEY}
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
     LIMIT 1`.execute(db);
  return r.rows[0]?.pid ?? null;
}
