// The health payload of spec §2.9, built from facts (pure; the route gathers the facts). Definitions are in
// docs/operations.md: nothing here is invented when a fact is missing, it is null or `never_run`.
export type StageName = 'ingest' | 'enricher';
export const STAGES: readonly StageName[] = ['ingest', 'enricher'];

export interface StageRun {
  stage: StageName;
  status: 'running' | 'succeeded' | 'failed';
  started_at: Date;
  finished_at: Date | null;
  rows: number;
}

export interface StageView {
  /** success | failed | running, or never_run when the stage has no run record. */
  status: 'success' | 'failed' | 'running' | 'never_run';
  last_run: string | null;
  rows: number | null;
  hours_since: number | null;
  duration_sec: number | null;
}

export interface HealthInput {
  now: Date;
  /** null when the database could not be reached. */
  db: null | { sizeBytes: number; runs: StageRun[]; totalCves: number; pendingEnrichment: number };
  diskFreeBytes: number | null;
}

export interface HealthData {
  status: 'healthy' | 'degraded';
  database: 'connected' | 'unavailable';
  pipeline: Record<StageName, StageView>;
  services: { api: string; enricher: string; renderer: string; alerts: string };
  counts: { total_cves: number | null; alert_ready: number | null; pending_enrichment: number | null; rendered: number | null };
  db_size_mb: number | null;
  disk_free_gb: number | null;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

export function stageView(run: StageRun | undefined, now: Date): StageView {
  if (!run) return { status: 'never_run', last_run: null, rows: null, hours_since: null, duration_sec: null };
  return {
    status: run.status === 'succeeded' ? 'success' : run.status,
    last_run: run.started_at.toISOString(),
    rows: run.rows,
    hours_since: round1(Math.max(0, now.getTime() - run.started_at.getTime()) / 3_600_000),
    duration_sec: run.finished_at ? round1((run.finished_at.getTime() - run.started_at.getTime()) / 1000) : null,
  };
}

export function buildHealth(input: HealthInput): HealthData {
  const runs = input.db?.runs ?? [];
  const pipeline = Object.fromEntries(STAGES.map((s) => [s, stageView(runs.find((r) => r.stage === s), input.now)])) as Record<StageName, StageView>;
  const db = input.db;
  // Degraded: the database is unreachable, or the latest run of a pipeline stage failed.
  const degraded = db === null || STAGES.some((s) => pipeline[s].status === 'failed');
  return {
    status: degraded ? 'degraded' : 'healthy',
    database: db ? 'connected' : 'unavailable',
    pipeline,
    services: {
      // This process answered, so the API is up.
      api: 'operational',
      // The enricher runs as a pipeline stage: its badge is its latest run's status.
      enricher: db ? pipeline.enricher.status : 'unknown',
      // CVE pages and this status page are rendered by the API process on request from the stored documents.
      renderer: db ? 'operational' : 'unavailable',
      // No alert engine runs in this build yet; reported as such, never as a made-up success.
      alerts: 'not_configured',
    },
    counts: {
      total_cves: db ? db.totalCves : null,
      alert_ready: db ? db.totalCves - db.pendingEnrichment : null,
      pending_enrichment: db ? db.pendingEnrichment : null,
      rendered: db ? db.totalCves : null,
    },
    db_size_mb: db ? round1(db.sizeBytes / (1024 * 1024)) : null,
    disk_free_gb: input.diskFreeBytes === null ? null : round1(input.diskFreeBytes / (1024 ** 3)),
  };
}
