// The alert run on the job queue (spec §6 "alert runs occur every 15 minutes"; docs/alerts.md), and what
// `vulnintel alerts run` (src/cli/alerts-command.ts) runs for operators and tests. Both run services/alerts.ts under its advisory lock, so a shell
// run and a scheduled one never overlap; pg-boss's singleton policy keeps two workers off the same slot.
import type { JobContext, JobDefinition } from './queue.ts';
import { systemClock } from '../lib/clock.ts';
import type { Config } from '../config.ts';
import type { Db } from '../store/db.ts';
import { createAlertService, type AlertService } from '../services/alerts.ts';
import type { DeliveryReport } from '../services/alert-delivery.ts';
import { createWebhookService } from '../services/webhooks.ts';
import { createMailer } from '../services/mailer.ts';

/**
 * The alert service of the jobs and the command. The Windows engine's index it evaluates hosts with is the
 * process's one for the database (windows-data.ts windowsDataFor): kept between runs, rebuilt only when the MSRC
 * data changes.
 */
export function alertServiceFor(db: Db, config: Readonly<Config>): AlertService {
  return createAlertService(db, { publicUrl: config.publicUrl, now: () => systemClock.now() });
}

/** Sends alert email of `kind` (docs/alerts.md "Email") over SMTP_URL; without SMTP the claims are taken and the send is logged. */
export async function emailAlerts(
  config: Readonly<Config>,
  svc: AlertService,
  kind: 'instant' | 'daily_digest',
  log: { info: (o: Record<string, unknown>, m: string) => void; warn: (m: string, e: Error) => void },
) {
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, info: log.info, warn: log.warn });
  try {
    return await svc.emailAlerts(kind, mailer, (e) => log.warn('alert email not sent', e));
  } finally {
    mailer.close();
  }
}

/** The mail log of a job: the mailer's no-SMTP line and failed sends (error message only, never a body). */
const mailLog = (ctx: JobContext) => ({
  info: (o: Record<string, unknown>, m: string) => ctx.log.info(o, m),
  warn: (m: string, e: Error) => ctx.log.warn({ err: e.message }, m),
});

/** Daily at 07:00 UTC: the digest for members on daily_digest. */
export const ALERT_DIGEST_CRON = '0 7 * * *';

export const alertDigestJob: JobDefinition = {
  name: 'alert-digest',
  summary:
    'Email each member on daily_digest the alerts of the last 48 hours not yet emailed to them (daily, 07:00 UTC)',
  // Single-flight; each (alert, member) is claimed before sending, so a retry or an overlapping run sends nothing twice.
  policy: { retryLimit: 1, retryDelaySeconds: 300, expireInSeconds: 1800, singleFlight: true },
  schedule: () => ALERT_DIGEST_CRON,
  async run(ctx) {
    const svc = alertServiceFor(ctx.store.db, ctx.config);
    const r = await emailAlerts(ctx.config, svc, 'daily_digest', mailLog(ctx));
    ctx.log.info(r, 'alert digest sent');
  },
};

/**
 * Delivers the pending alerts to the organizations' webhooks (docs/alerts.md "Delivery"), after a run. A webhook
 * disabled by its 5th failure is reported through `onDisabled` (ids only).
 */
export async function deliverPendingAlerts(
  db: Db,
  config: Readonly<Config>,
  svc: AlertService,
  onDisabled: (e: { orgId: number; webhookId: number }) => void,
): Promise<DeliveryReport> {
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
  summary:
    "Match the CVE changes since the last completed run against every active organization's watchlist (every 15 minutes)",
  // A run killed midway is resumed by the next one over the same window (nothing stored twice); one retry
  // shortens the wait when a worker dies. A run over a normal window takes seconds: 10 minutes is generous and
  // still ends before the next slot.
  policy: { retryLimit: 1, retryDelaySeconds: 60, expireInSeconds: 600, singleFlight: true },
  schedule: () => ALERT_RUN_CRON,
  async warm(ctx) {
    if (await alertServiceFor(ctx.store.db, ctx.config).warm()) ctx.log.info('alert run: Windows index loaded');
  },
  async run(ctx) {
    const svc = alertServiceFor(ctx.store.db, ctx.config);
    const r = await svc.run('schedule');
    if (r === 'busy') ctx.log.info('alert run skipped: another run holds the lock');
    else
      ctx.log.info({ run: r.run_id, resumed: r.resumed, cves: r.cves, alerts: r.alerts_stored }, 'alert run finished');
    if (r === 'busy') return;
    const d = await deliverPendingAlerts(ctx.store.db, ctx.config, svc, (e) =>
      ctx.log.warn(
        { org_id: e.orgId, webhook_id: e.webhookId },
        'webhook disabled after 5 consecutive failed deliveries',
      ),
    );
    ctx.log.info(d, 'alert deliveries');
    const m = await emailAlerts(ctx.config, svc, 'instant', mailLog(ctx));
    ctx.log.info(m, 'instant alert email');
  },
};
