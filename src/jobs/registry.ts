// Every background job, in one explicit table (no registration by import side effect). A new job (the alert run,
// webhook deliveries, the account purge) is one more entry here with its policy; docs/architecture.md "Jobs".
import type { Config } from '../config.ts';
import type { JobDefinition } from './queue.ts';
import { alertDigestJob, alertRunJob } from './alerts.ts';
import { exposureSnapshotJob, plantReportJob } from './reports.ts';

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
    else
      ctx.log.info({ ok: r.ok, sources: r.sources.map((s) => `${s.source}:${s.status}`) }, 'scheduled sync finished');
  },
};

/** Data of a `webhook-deliver` job: one cve.alert for one organization (docs/webhooks.md "Delivery"). */
export interface WebhookDeliverData {
  org_id: number;
  alert: import('../domain/webhooks.ts').AlertPayload;
}

export const webhookDeliverJob: JobDefinition<WebhookDeliverData> = {
  name: 'webhook-deliver',
  summary: 'Deliver one cve.alert to every active webhook of an organization (queued by the alert run)',
  // Deliveries are claimed per (webhook, CVE) before sending, so a retry after a crash reaches only the webhooks
  // not yet claimed: nothing is sent twice. Each request has 10 s; a few dozen webhooks fit well in 5 minutes.
  policy: { retryLimit: 2, retryDelaySeconds: 30, expireInSeconds: 300, singleFlight: false },
  schedule: () => null,
  async run(ctx, data) {
    const { createWebhookService } = await import('../services/webhooks.ts');
    const { systemClock } = await import('../lib/clock.ts');
    const svc = createWebhookService({
      db: ctx.store.db,
      clock: systemClock,
      config: ctx.config,
      onDisabled: (e) =>
        ctx.log.warn(
          { org_id: e.orgId, webhook_id: e.webhookId },
          'webhook disabled after 5 consecutive failed deliveries',
        ),
    });
    try {
      const results = await svc.deliverAlert(data.org_id, data.alert);
      ctx.log.info(
        { org_id: data.org_id, cve_id: data.alert.data.cve_id, outcomes: results.map((r) => r.outcome) },
        'webhook deliveries',
      );
    } finally {
      await svc.close();
    }
  },
};

export const purgeJob: JobDefinition = {
  name: 'account-purge',
  summary: 'Purge every organization its owner deleted more than 20 hours ago (hourly; spec §3.2, docs/accounts.md)',
  // Hourly, so data is gone within 20–21 hours of the deletion, inside the spec's 24. One purge at a time; a
  // failed run is retried, and the next hour's run picks up anything left (each organization is one transaction).
  policy: { retryLimit: 2, retryDelaySeconds: 300, expireInSeconds: 3000, singleFlight: true },
  schedule: () => '0 * * * *',
  async run(ctx) {
    const { operatorAccounts } = await import('../services/accounts.ts');
    const purged = await operatorAccounts(ctx.store, ctx.config).purgeDeleted();
    if (purged.length > 0) ctx.log.info({ organizations: purged }, 'deleted organizations purged');
  },
};

export const readModelVacuumJob: JobDefinition = {
  name: 'read-model-vacuum',
  summary:
    'VACUUM (ANALYZE) the read-model tables when the database runs no autovacuum (at start and hourly; docs/operations.md)',
  // With autovacuum on (the embedded cluster, most servers) it finds nothing to do: one catalog query. Single-flight;
  // a failed run is not retried (the next hour's run does it).
  policy: { retryLimit: 0, retryDelaySeconds: 60, expireInSeconds: 3600, singleFlight: true },
  schedule: () => '30 * * * *',
  atStart: true,
  async run(ctx) {
    const { readModelNeedingVacuum, vacuumTables } = await import('../store/maintenance.ts');
    const tables = await readModelNeedingVacuum(ctx.store.db);
    if (!tables.length) return;
    const started = Date.now();
    await vacuumTables(ctx.store.db, tables);
    ctx.log.info({ tables, ms: Date.now() - started }, 'read model vacuumed (autovacuum is off)');
  },
};

/** The jobs every worker runs. */
export const JOBS: readonly JobDefinition[] = [
  syncJob,
  webhookDeliverJob,
  purgeJob,
  alertRunJob,
  alertDigestJob,
  readModelVacuumJob,
  exposureSnapshotJob,
  plantReportJob,
];
