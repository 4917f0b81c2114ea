// The background job queue: pg-boss 10 in its own schema (`pgboss`) on the service's PostgreSQL (embedded or
// DATABASE_URL). Jobs come from an explicit table (src/jobs/registry.ts), each with its policy: retries,
// expiry (how long a job may stay active before it counts as lost, e.g. its worker was killed) and whether it
// is single-flight. `npm start` runs the workers inside the server; `vulnintel worker` runs them alone, so API
// replicas and workers scale apart on one database (docs/operations.md "Background jobs").
//
// Scheduled jobs use pg-boss cron schedules: every worker process runs the clock, and pg-boss inserts one job
// per slot whatever the number of workers (a database-side lock plus a per-slot singleton key).
import PgBoss from 'pg-boss';
import plans from 'pg-boss/src/plans.js';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { openStore, type Store } from '../store/db.ts';

/** What a handler gets: the configuration, the service's store and a logger. */
export interface JobContext {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
}

export interface JobPolicy {
  /** Further attempts after a failure or an expiry (0 = a failed run stays failed). */
  retryLimit: number;
  /** Seconds before a retry. */
  retryDelaySeconds: number;
  /**
   * Longest time a job may stay active. A job still active after this (its worker died, or it hangs) expires
   * and is retried or failed by `retryLimit`, never lost silently. pg-boss allows at most 24 h.
   */
  expireInSeconds: number;
  /** At most one job of this name active at a time, whatever the number of workers (pg-boss `singleton` policy). */
  singleFlight: boolean;
}

export interface JobDefinition<T extends object = object> {
  name: string;
  summary: string;
  policy: JobPolicy;
  /** Cron expression (UTC) when this job runs on a schedule under `config`; null = not scheduled. */
  schedule(config: Readonly<Config>): string | null;
  run(ctx: JobContext, data: T, job: { id: string; retryCount: number }): Promise<void>;
  /**
   * Called once when this process starts working the job, not awaited: loads what the job keeps in memory (the
   * alert run's Windows index) before its first run. A failure is logged; the run then loads it itself.
   */
  warm?(ctx: JobContext): Promise<void>;
  /**
   * Queued once when a process starts working the jobs (besides its schedule): work that should not wait for the
   * first slot after a start. A single-flight job's slot keeps it to one run across processes.
   */
  atStart?: boolean;
}

export interface JobQueueOptions {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
  jobs: readonly JobDefinition[];
  /** Run workers and the schedule clock (false: this process only sends jobs). */
  workers: boolean;
  /** pg-boss timings, for tests (seconds; pg-boss minimums apply). */
  timings?: Partial<
    Pick<
      PgBoss.ConstructorOptions,
      | 'maintenanceIntervalSeconds'
      | 'cronMonitorIntervalSeconds'
      | 'cronWorkerIntervalSeconds'
      | 'clockMonitorIntervalSeconds'
    >
  > & { pollingIntervalSeconds?: number };
}

export interface JobQueue {
  /** Queues one run of a registered job now; returns its id (null when a singleton slot already holds one). */
  send(name: string, data?: object): Promise<string | null>;
  /** Stops fetching; waits up to `timeoutMs` for running jobs, then fails them (their policy retries them). */
  stop(timeoutMs?: number): Promise<void>;
}

/** pg-boss's schema: apart from ours, created and migrated by pg-boss itself. */
export const JOB_SCHEMA = 'pgboss';
/** How long a stopping process waits for running jobs. */
export const STOP_TIMEOUT_MS = 30_000;
/**
 * The advisory lock that serializes the queue's setup (pg-boss's schema install and migrations, our queues'
 * creation) across processes: two workers starting at once on an empty database otherwise deadlock in DDL.
 */
export const JOB_SETUP_LOCK = 0x76695f6a; // "vi_j"

/**
 * pg-boss stores a job's outcome (completed, failed) without awaiting it: a failure there (the database gone
 * mid-job, a stop racing the last job) would be an unhandled rejection and end the process. These two statements'
 * failures are logged and answered with "nothing changed"; the job stays active until it expires, and its policy
 * retries it (the same as a worker killed mid-job).
 */
const OUTCOME_STATEMENTS = new Set([plans.completeJobs(JOB_SCHEMA), plans.failJobsById(JOB_SCHEMA)]);

export async function startJobQueue(o: JobQueueOptions): Promise<JobQueue> {
  const names = new Set<string>();
  for (const j of o.jobs) {
    if (names.has(j.name)) throw new Error(`job ${j.name} is registered twice`);
    names.add(j.name);
  }
  // The queue's own small pool, opened through openStore: a connection that dies mid-query is handled there
  // (pg's checked-out clients emit 'error', which would crash the process without a listener), and every query
  // has a deadline, so a half-open database fails the poll instead of hanging the worker.
  const jobStore = openStore(o.store.url, {
    max: 4,
    applicationName: 'vulnintel-jobs',
    queryDeadlineMs: 60_000,
    onPoolError: (err) => o.log.warn({ err: err.message }, 'job queue: database connection lost'),
  });
  // Every statement pg-boss runs, counted: a stop waits until none is in flight (a fetch answered after the stop
  // still runs its job, whose outcome must reach the database before the pool closes).
  const activity = new Activity();
  const executeSql = (text: string, values?: unknown[]) => {
    const done = activity.begin();
    const q = jobStore.pool.query(text, values).finally(done);
    if (!OUTCOME_STATEMENTS.has(text)) return q;
    return q.catch((err: Error) => {
      o.log.warn(
        { err: err.message },
        'job queue: a job outcome was not stored; the job expires and its policy retries it',
      );
      return { rows: [{ count: '0' }] };
    });
  };
  const boss = new PgBoss({
    db: { executeSql },
    schema: JOB_SCHEMA,
    supervise: o.workers,
    schedule: o.workers,
    migrate: true,
    ...(o.timings ?? {}),
  });
  // pg-boss reports its failures (a poll during an outage, maintenance) as events; unheard, they would throw.
  boss.on('error', (err: Error & { queue?: string }) =>
    o.log.warn({ err: err.message, queue: err.queue }, 'job queue error'),
  );
  try {
    await withSetupLock(jobStore, () => setUpQueues(boss, o.jobs));
    if (o.workers) {
      for (const j of o.jobs) {
        const cron = j.schedule(o.config);
        if (cron) await boss.schedule(j.name, cron, {}, { tz: 'UTC' });
        else await boss.unschedule(j.name);
        await boss.work<object>(
          j.name,
          { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: o.timings?.pollingIntervalSeconds ?? 2 },
          async ([job]) => {
            const done = activity.begin();
            const started = Date.now();
            o.log.info({ job: j.name, id: job.id, attempt: job.retryCount + 1 }, 'job started');
            try {
              await j.run({ config: o.config, store: o.store, log: o.log }, job.data, {
                id: job.id,
                retryCount: job.retryCount,
              });
            } catch (e) {
              o.log.warn({ job: j.name, id: job.id, err: e instanceof Error ? e.message : String(e) }, 'job failed');
              throw e;
            } finally {
              done();
            }
            o.log.info({ job: j.name, id: job.id, ms: Date.now() - started }, 'job finished');
          },
        );
      }
      o.log.info(
        {
          jobs: o.jobs.map((j) => j.name),
          scheduled: o.jobs.filter((j) => j.schedule(o.config)).map((j) => `${j.name} ${j.schedule(o.config)}`),
        },
        'job workers started',
      );
      for (const j of o.jobs) {
        j.warm?.({ config: o.config, store: o.store, log: o.log }).catch((e: unknown) =>
          o.log.warn({ job: j.name, err: e instanceof Error ? e.message : String(e) }, 'job warm-up failed'),
        );
        if (j.atStart) await boss.send(j.name, {});
      }
    }
  } catch (e) {
    await boss.stop({ graceful: false, close: false }).catch(() => {});
    await jobStore.close();
    throw e;
  }
  let stopped = false;
  return {
    async send(name, data = {}) {
      if (!names.has(name)) throw new Error(`unknown job ${name}`);
      return boss.send(name, data);
    },
    async stop(timeoutMs = STOP_TIMEOUT_MS) {
      if (stopped) return;
      stopped = true;
      const deadline = Date.now() + timeoutMs;
      try {
        await boss.stop({ graceful: true, timeout: timeoutMs, close: false, wait: true });
      } catch (e) {
        o.log.warn({ err: e instanceof Error ? e.message : String(e) }, 'job queue: stop failed');
      }
      // pg-boss's stop returns once no fetched job is running, but a fetch still in flight may yet answer a job:
      // wait (within the same budget) until no statement and no handler is running before the pool closes.
      await activity.idle(deadline);
      await jobStore.close();
    },
  };
}

/** pg-boss's schema and our queues, created or updated under the setup lock. */
async function setUpQueues(boss: PgBoss, jobs: readonly JobDefinition[]): Promise<void> {
  await boss.start();
  for (const j of jobs) {
    const settings = {
      policy: j.policy.singleFlight ? ('singleton' as const) : ('standard' as const),
      retryLimit: j.policy.retryLimit,
      retryDelay: j.policy.retryDelaySeconds,
      expireInSeconds: j.policy.expireInSeconds,
    };
    if (await boss.getQueue(j.name)) {
      const { policy: _unchangeable, ...rest } = settings;
      await boss.updateQueue(j.name, { name: j.name, ...rest });
    } else {
      await boss.createQueue(j.name, { name: j.name, ...settings });
    }
  }
}

/** Runs `fn` holding the session advisory lock JOB_SETUP_LOCK on one connection of `store`. */
async function withSetupLock<T>(store: Store, fn: () => Promise<T>): Promise<T> {
  const c = await store.pool.connect();
  try {
    await c.query('SELECT pg_advisory_lock($1)', [JOB_SETUP_LOCK]);
    try {
      return await fn();
    } finally {
      await c.query('SELECT pg_advisory_unlock($1)', [JOB_SETUP_LOCK]);
    }
  } finally {
    c.release();
  }
}

/** Counts running statements and handlers; `idle` resolves when none has run for one turn of the event loop. */
class Activity {
  private running = 0;

  begin(): () => void {
    this.running++;
    let ended = false;
    return () => {
      if (!ended) this.running--;
      ended = true;
    };
  }

  /** Waits until nothing runs across two event-loop turns (a fetch's answer starts its handler in between), or `deadline`. */
  async idle(deadline: number): Promise<void> {
    while (Date.now() < deadline) {
      if (this.running === 0) {
        await new Promise((r) => setTimeout(r, 20));
        if (this.running === 0) return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
