// Every background job, in one explicit table (no registration by import side effect). A new job (the alert run,
// webhook deliveries, the account purge) is one more entry here with its policy; docs/architecture.md "Jobs".
import type { Config } from '../config.ts';
import type { JobDefinition } from './queue.ts';
import { alertRunJob } from './alerts.ts';

/**
 * The cron slot (UTC) for VULNINTEL_SYNC_INTERVAL_HOURS: every N hours on the hour, for N dividing 24, or weekly
 * (168, Sunday 00:00). Other values are refused when the configuration loads.
 */
export function syncCron(hours: number): string | null {
  if (hours <= 0) return null;
  if (hours === 168) return '0 0 * * 0';
  if (hours === 24) return '0 0 * * *';
  if (24 % hours === 0) return hours === 1 ? '0 * * * *' : `0 */${hours} * * *`;
  throw new Error(`VULNINTEL_SYNC_INTERVAL_HOURS=${hours} has no schedule (use a divisor of 24, or 168)`);
}

export const syncJob: JobDefinition = {
  name: 'sync',
  summary: 'Fetch the live feeds (vulnintel sync) on the VULNINTEL_SYNC_INTERVAL_HOURS schedule',
  // One sync at a time (also guarded by the sync's advisory lock against a `vulnintel sync` from the shell).
  // A full first sync can take hours; a worker killed mid-sync leaves the job active until it expires, then it
  // is retried once (the sync resumes from its checkpoints). A sync whose sources fail records those failures
  // in ingest_runs and completes: a retry would not fix an upstream outage before the next slot.
  policy: { retryLimit: 1, retryDelaySeconds: 300, expireInSeconds: 6 * 3600, singleFlight: true },
  schedule: (config: Readonly<Config>) => syncCron(config.syncIntervalHours),
  async run(ctx) {
    const { syncOnce } = await import('./sync-schedule.ts');
    const r = await syncOnce(ctx.config, ctx.store, ctx.log);
    if (r === 'busy') ctx.log.info('scheduled sync skipped: another sync holds the lock');
    else ctx.log.info({ ok: r.ok, sources: r.sources.map((s) => `${s.source}:${s.status}`) }, 'scheduled sync finished');
  },
};

/** The jobs every worker runs. */
export const JOBS: readonly JobDefinition[] = [syncJob, alertRunJob];
