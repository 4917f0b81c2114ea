// The exposure history and plant report jobs (docs/reports.md): the daily snapshot of every environment, and the
// scheduled plant report email, both over the same services as the API (services/exposure-history.ts,
// services/plant-reports.ts), built on the store alone.
import type { JobContext, JobDefinition } from './queue.ts';
import type { Config } from '../config.ts';
import type { Db } from '../store/db.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import { createExposureHistory, exposureServicesFor } from '../services/exposure-history.ts';
import { createPlantReports, type PlantReports } from '../services/plant-reports.ts';
import { createMailer } from '../services/mailer.ts';
import { renderReportPdf } from '../services/plant-report-pdf.ts';

/** Daily at 00:30 UTC: the snapshot of the day that just began (after the midnight sync slot has started). */
export const EXPOSURE_SNAPSHOT_CRON = '30 0 * * *';
/** Daily at 06:00 UTC: the plant reports due (a weekly one on Monday, a monthly one on the 1st; any not sent yet). */
export const PLANT_REPORT_CRON = '0 6 * * *';

export function exposureHistoryFor(db: Db, config: Readonly<Config>, clock: Clock = systemClock) {
  return createExposureHistory(exposureServicesFor(db, config, clock));
}

export function plantReportsFor(db: Db, config: Readonly<Config>, clock: Clock = systemClock): PlantReports {
  const deps = exposureServicesFor(db, config, clock);
  return createPlantReports({ db, clock, environments: deps.environments, exposure: createExposureHistory(deps) });
}

/** Emails the due plant reports over SMTP_URL, each with its PDF (without SMTP the claims are taken and each send is logged). */
export async function emailPlantReports(
  config: Readonly<Config>,
  reports: PlantReports,
  log: { info: (o: Record<string, unknown>, m: string) => void; warn: (m: string, e: Error) => void },
) {
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, info: log.info, warn: log.warn });
  try {
    return await reports.sendScheduled(mailer, config.publicUrl, renderReportPdf, (e) =>
      log.warn('plant report not sent; retried on the next run', e),
    );
  } finally {
    mailer.close();
  }
}

export const exposureSnapshotJob: JobDefinition = {
  name: 'exposure-snapshot',
  summary:
    'Snapshot the exposure of every environment of the active organizations and prune what is older than 400 days (daily, 00:30 UTC)',
  // Single-flight. A run rewrites the day's rows, so a retry after a crash or a failure repeats nothing.
  policy: { retryLimit: 2, retryDelaySeconds: 600, expireInSeconds: 3 * 3600, singleFlight: true },
  schedule: () => EXPOSURE_SNAPSHOT_CRON,
  async run(ctx: JobContext) {
    const r = await exposureHistoryFor(ctx.store.db, ctx.config).snapshotAll((orgId, environmentId, err) =>
      ctx.log.warn(
        { org_id: orgId, environment_id: environmentId, err: err.message },
        'exposure snapshot of an environment failed',
      ),
    );
    ctx.log.info(r, 'exposure snapshot taken');
  },
};

export const plantReportJob: JobDefinition = {
  name: 'plant-report',
  summary:
    'Email the weekly and monthly plant reports each member asked for; a report not sent is retried on the next run (daily, 06:00 UTC)',
  // Each (member, environment, period) is claimed before it is sent: a retry or an overlapping run sends nothing twice.
  policy: { retryLimit: 1, retryDelaySeconds: 600, expireInSeconds: 3600, singleFlight: true },
  schedule: () => PLANT_REPORT_CRON,
  async run(ctx: JobContext) {
    const r = await emailPlantReports(ctx.config, plantReportsFor(ctx.store.db, ctx.config), {
      info: (o, m) => ctx.log.info(o, m),
      warn: (m, e) => ctx.log.warn({ err: e.message }, m),
    });
    ctx.log.info(r, 'plant reports sent');
  },
};
