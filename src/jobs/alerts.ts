// The alert run on the job queue (issue 13, spec §6 "alert runs occur every 15 minutes"; docs/alerts.md), and
// `vulnintel alerts run` for operators and tests. Both run services/alerts.ts under its advisory lock, so a shell
// run and a scheduled one never overlap; pg-boss's singleton policy keeps two workers off the same slot.
import type { Command } from '../cli.ts';
import type { JobDefinition } from './queue.ts';
import { systemClock } from '../lib/clock.ts';
import type { Config } from '../config.ts';
import type { Db } from '../store/db.ts';
import { createAlertService, type AlertService, type DeliveryReport } from '../services/alerts.ts';
import { createWebhookService } from '../services/webhooks.ts';

/**
 * Delivers the pending alerts to the organizations' webhooks (docs/alerts.md "Delivery"), after a run. A webhook
 * disabled by its 5th failure is reported through `onDisabled` (ids only).
 */
export async function deliverPendingAlerts(db: Db, config: Readonly<Config>, svc: AlertService, onDisabled: (e: { orgId: number; webhookId: number }) => void): Promise<DeliveryReport> {
  const hooks = createWebhookService({ db, clock: systemClock, config, onDisabled });
  try {
    return await svc.deliverPending((orgId, payload) => hooks.deliverAlert(orgId, payload));
  } finally {
    await hooks.close();
  }
}

/** Every 15 minutes (UTC), spec §6. */
export const ALERT_RUN_CRON = '*/15 * * * *';

export const alertRunJob: JobDefinition = {
  name: 'alert-run',
  summary: 'Match the CVE changes since the last completed run against every active organization\'s watchlist (every 15 minutes)',
  // A run killed midway is resumed by the next one over the same window (nothing stored twice); one retry
  // shortens the wait when a worker dies. A run over a normal window takes seconds: 10 minutes is generous and
  // still ends before the next slot.
  policy: { retryLimit: 1, retryDelaySeconds: 60, expireInSeconds: 600, singleFlight: true },
  schedule: () => ALERT_RUN_CRON,
  async run(ctx) {
    const svc = createAlertService(ctx.store.db, { publicUrl: ctx.config.publicUrl, now: () => systemClock.now() });
    const r = await svc.run('schedule');
    if (r === 'busy') ctx.log.info('alert run skipped: another run holds the lock');
    else ctx.log.info({ run: r.run_id, resumed: r.resumed, cves: r.cves, alerts: r.alerts_stored }, 'alert run finished');
    if (r === 'busy') return;
    const d = await deliverPendingAlerts(ctx.store.db, ctx.config, svc, (e) => ctx.log.warn({ org_id: e.orgId, webhook_id: e.webhookId }, 'webhook disabled after 5 consecutive failed deliveries'));
    ctx.log.info(d, 'alert deliveries');
  },
};

const alertsCommand: Command = {
  summary: 'Run the alert run now: the CVE changes since the last completed run against every watchlist',
  usage: 'vulnintel alerts run [--json]',
  options: {},
  async run(ctx) {
    const rt = await ctx.runtime();
    const svc = createAlertService(rt.store.db, { publicUrl: ctx.config.publicUrl, now: () => systemClock.now() });
    const r = await svc.run('cli');
    if (r === 'busy') {
      ctx.err('Another alert run is in progress; nothing done.');
      return 75;
    }
    const d = await deliverPendingAlerts(rt.store.db, ctx.config, svc, (e) => ctx.err(`Webhook ${e.webhookId} of organization ${e.orgId} disabled after 5 consecutive failed deliveries.`));
    if (ctx.json) ctx.out(JSON.stringify({ ...r, delivery: d }));
    else {
      ctx.out(`Alert run ${r.run_id}${r.resumed ? ' (resumed)' : ''}: changes ${r.from_seq + 1}..${r.to_seq}, ${r.cves} CVEs, ${r.alerts_stored} alerts stored (${r.alerts_total} in the run).`);
      ctx.out(`Delivered ${d.alerts} pending alerts: ${d.delivered} delivered, ${d.failed} failed, ${d.no_webhooks} without webhooks, ${d.skipped} already claimed.`);
    }
    return 0;
  },
};

/** `vulnintel alerts run` (table read by src/cli-commands.ts). */
export const ALERT_COMMANDS: Readonly<Record<string, Command>> = { 'alerts run': alertsCommand };
