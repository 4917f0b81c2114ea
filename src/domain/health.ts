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

/** The latest alert run (docs/alerts.md), as health reads it. */
export interface AlertRunFact {
  status: 'running' | 'completed';
  started_at: Date;
  finished_at: Date | null;
}

/** A completed run older than three 15-minute slots means the schedule is not running. */
export const ALERTS_STALE_MINUTES = 45;
/** A run in progress longer than its job's expiry (10 minutes) has died; the next run resumes it. */
export const ALERTS_STALLED_MINUTES = 10;

/**
 * services.alerts: `never_run` (no run recorded), `operational` (the latest run completed within
 * ALERTS_STALE_MINUTES, or one is in progress for less than ALERTS_STALLED_MINUTES), `stale` (older),
 * `stalled` (a run in progress for longer: its process died; the next run resumes it).
 */
export function alertsStatus(run: AlertRunFact | null, now: Date): string {
  if (!run) return 'never_run';
  const minutes = (d: Date) => (now.getTime() - d.getTime()) / 60_000;
  if (run.status === 'running') return minutes(run.started_at) < ALERTS_STALLED_MINUTES ? 'operational' : 'stalled';
  return minutes(run.finished_at ?? run.started_at) <= ALERTS_STALE_MINUTES ? 'operational' : 'stale';
}

/**
 * The feeds the sync fetches, in its run order (src/services/sync/sync.ts SYNC_SOURCES; test/unit/health.test.ts holds the two
 * equal). Health shows each one's age, so a machine without network shows how old its corpus is.
 */
export const FEED_NAMES = ['cwe', 'capec', 'nvd', 'cve5', 'csaf', 'kev', 'epss', 'msrc'] as const;
export type FeedName = (typeof FEED_NAMES)[number];

/** A feed's sync history, as health reads it (ingest_runs rows `sync:<feed>`). */
export interface FeedRunFact {
  feed: string;
  /** End of the latest successful sync of the feed, null if none. */
  last_success: Date | null;
  /** End (or start, while running) of the latest sync attempt, and its status. */
  last_attempt: Date;
  last_status: 'running' | 'succeeded' | 'failed';
}

export interface FeedView {
  /** `fresh` (a success within 48 hours), `stale` (older), `never_synced`. */
  status: 'fresh' | 'stale' | 'never_synced';
  last_success: string | null;
  /** Hours since last_success, 1 decimal: the age of what the corpus holds of this feed. */
  age_hours: number | null;
  last_attempt: string | null;
  last_attempt_status: 'running' | 'succeeded' | 'failed' | null;
}

/** A feed synced daily is stale once its last success is older than two days (one missed slot and some slack). */
export const FEED_STALE_HOURS = 48;

export function feedView(fact: FeedRunFact | undefined, now: Date): FeedView {
  if (!fact)
    return {
      status: 'never_synced',
      last_success: null,
      age_hours: null,
      last_attempt: null,
      last_attempt_status: null,
    };
  const age = fact.last_success ? round1(Math.max(0, now.getTime() - fact.last_success.getTime()) / 3_600_000) : null;
  return {
    status: age === null ? 'never_synced' : age <= FEED_STALE_HOURS ? 'fresh' : 'stale',
    last_success: fact.last_success ? fact.last_success.toISOString() : null,
    age_hours: age,
    last_attempt: fact.last_attempt.toISOString(),
    last_attempt_status: fact.last_status,
  };
}

export interface HealthInput {
  now: Date;
  /** null when the database could not be reached. */
  db: null | {
    sizeBytes: number;
    runs: StageRun[];
    totalCves: number;
    pendingEnrichment: number;
    lastAlertRun?: AlertRunFact | null;
    feeds?: FeedRunFact[];
  };
  diskFreeBytes: number | null;
  /** The read replicas (DATABASE_REPLICA_URL) when configured: one down or too far behind makes health degraded. */
  replicas?: { degraded: boolean; replicas: ReplicaView[] };
}

export interface ReplicaView {
  name: string;
  state: 'streaming' | 'behind' | 'down' | 'starting';
  lag_ms: number | null;
  corpus_version: number | null;
}

export interface HealthData {
  status: 'healthy' | 'degraded';
  database: 'connected' | 'unavailable';
  pipeline: Record<StageName, StageView>;
  /** Each synced feed's age (null without the database). A stale feed does not make the answer degraded. */
  feeds: Record<FeedName, FeedView> | null;
  services: { api: string; enricher: string; renderer: string; alerts: string };
  counts: {
    total_cves: number | null;
    alert_ready: number | null;
    pending_enrichment: number | null;
    rendered: number | null;
  };
  db_size_mb: number | null;
  disk_free_gb: number | null;
  /** Present when read replicas are configured. */
  replicas?: ReplicaView[];
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

/** Every feed's view, in FEED_NAMES order. */
function feedViews(feeds: FeedRunFact[] | undefined, now: Date): Record<FeedName, FeedView> {
  const f = (name: FeedName) =>
    feedView(
      feeds?.find((x) => x.feed === name),
      now,
    );
  return {
    cwe: f('cwe'),
    capec: f('capec'),
    nvd: f('nvd'),
    cve5: f('cve5'),
    csaf: f('csaf'),
    kev: f('kev'),
    epss: f('epss'),
    msrc: f('msrc'),
  };
}

export function buildHealth(input: HealthInput): HealthData {
  const runs = input.db?.runs ?? [];
  const stage = (s: StageName) =>
    stageView(
      runs.find((r) => r.stage === s),
      input.now,
    );
  const pipeline: Record<StageName, StageView> = { ingest: stage('ingest'), enricher: stage('enricher') };
  const db = input.db;
  // Degraded: the database is unreachable, or the latest run of a pipeline stage failed.
  // Or a read replica is down or further behind than VULNINTEL_REPLICA_MAX_LAG_MS (reads then go to the primary).
  const degraded =
    db === null || STAGES.some((s) => pipeline[s].status === 'failed') || input.replicas?.degraded === true;
  return {
    status: degraded ? 'degraded' : 'healthy',
    database: db ? 'connected' : 'unavailable',
    pipeline,
    feeds: db ? feedViews(db.feeds, input.now) : null,
    services: {
      // This process answered, so the API is up.
      api: 'operational',
      // The enricher runs as a pipeline stage: its badge is its latest run's status.
      enricher: db ? pipeline.enricher.status : 'unknown',
      // CVE pages and this status page are rendered by the API process on request from the stored documents.
      renderer: db ? 'operational' : 'unavailable',
      // The alert run's latest record (docs/alerts.md); unknown without the database.
      alerts: db ? alertsStatus(db.lastAlertRun ?? null, input.now) : 'unknown',
    },
    counts: {
      total_cves: db ? db.totalCves : null,
      alert_ready: db ? db.totalCves - db.pendingEnrichment : null,
      pending_enrichment: db ? db.pendingEnrichment : null,
      rendered: db ? db.totalCves : null,
    },
    db_size_mb: db ? round1(db.sizeBytes / (1024 * 1024)) : null,
    disk_free_gb: input.diskFreeBytes === null ? null : round1(input.diskFreeBytes / 1024 ** 3),
    ...(input.replicas ? { replicas: input.replicas.replicas } : {}),
  };
}
