// Facts behind GET /api/v1/health (spec §2.9): database size, latest pipeline run per stage, corpus counts.
// The latest run per stage is the one that ended last: a sync writes its per-source row when the source
// finishes, after the pipeline runs it started, so ordering by start time would show an older outcome.
// Read-only and cheap: counts use the primary key and the partial index cves_sage_pending.
import { sql } from './kysely.ts';
import type { Db } from './db.ts';

export interface StageRunRow {
  stage: 'ingest' | 'enricher';
  status: 'running' | 'succeeded' | 'failed';
  started_at: Date;
  finished_at: Date | null;
  rows: number;
}

export interface HealthFacts {
  dbSizeBytes: number;
  runs: StageRunRow[];
  totalCves: number;
  pendingEnrichment: number;
  lastAlertRun: { status: 'running' | 'completed'; started_at: Date; finished_at: Date | null } | null;
  /** Per synced feed (ingest_runs source `sync:<feed>`): its latest success and latest attempt. */
  feeds: {
    feed: string;
    last_success: Date | null;
    last_attempt: Date;
    last_status: 'running' | 'succeeded' | 'failed';
  }[];
}

export async function healthFacts(db: Db): Promise<HealthFacts> {
  const [size, runs, counts, alertRun, feeds] = await Promise.all([
    sql<{ bytes: number }>`SELECT pg_database_size(current_database()) AS bytes`.execute(db),
    sql<StageRunRow>`
      SELECT DISTINCT ON (stage) stage, status, started_at, finished_at, rows
      FROM ingest_runs ORDER BY stage, coalesce(finished_at, started_at) DESC, id DESC`.execute(db),
    sql<{ total: number; pending: number }>`
      SELECT (SELECT count(*) FROM cves) AS total,
             (SELECT count(*) FROM cves WHERE (doc->'sage'->>'status') = 'pending') AS pending`.execute(db),
    sql<{ status: 'running' | 'completed'; started_at: Date; finished_at: Date | null }>`
      SELECT status, started_at, finished_at FROM alert_runs ORDER BY id DESC LIMIT 1`.execute(db),
    sql<HealthFacts['feeds'][number]>`
      SELECT substr(source, 6) AS feed,
             max(finished_at) FILTER (WHERE status = 'succeeded') AS last_success,
             (array_agg(coalesce(finished_at, started_at) ORDER BY coalesce(finished_at, started_at) DESC, id DESC))[1] AS last_attempt,
             (array_agg(status ORDER BY coalesce(finished_at, started_at) DESC, id DESC))[1] AS last_status
      FROM ingest_runs WHERE source LIKE 'sync:%' AND source NOT LIKE 'sync:%:%' GROUP BY source`.execute(db),
  ]);
  return {
    dbSizeBytes: size.rows[0].bytes,
    runs: runs.rows,
    totalCves: counts.rows[0].total,
    pendingEnrichment: counts.rows[0].pending,
    lastAlertRun: alertRun.rows[0] ?? null,
    feeds: feeds.rows,
  };
}
