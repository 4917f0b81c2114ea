// The alert run on the job queue (issue 13, spec §6 "alert runs occur every 15 minutes"; docs/alerts.md), and
// `vulnintel alerts run` for operators and tests. Both run services/alerts.ts under its advisory lock, so a shell
// run and a scheduled one never overlap; pg-boss's singleton policy keeps two workers off the same slot.
import type { Command } from '../cli.ts';
import type { JobDefinition } from './queue.ts';
import { systemClock } from '../lib/clock.ts';
import { createAlertService } from '../services/alerts.ts';

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
    if (ctx.json) ctx.out(JSON.stringify(r));
    else ctx.out(`Alert run ${r.run_id}${r.resumed ? ' (resumed)' : ''}: changes ${r.from_seq + 1}..${r.to_seq}, ${r.cves} CVEs, ${r.alerts_stored} alerts stored (${r.alerts_total} in the run).`);
    return 0;
  },
};

/** `vulnintel alerts run` (table read by src/cli-commands.ts). */
export const ALERT_COMMANDS: Readonly<Record<string, Command>> = { 'alerts run': alertsCommand };
