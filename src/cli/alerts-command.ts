// `vulnintel alerts run` (docs/alerts.md): the alert run, its deliveries and instant email, now, from a shell; the
// same run as the `alert-run` job (src/jobs/alerts.ts), under the same advisory lock.
import type { Command } from './types.ts';
import { alertServiceFor, deliverPendingAlerts, emailAlerts } from '../jobs/alerts.ts';

const alertsCommand: Command = {
  summary: 'Run the alert run now: the CVE changes since the last completed run against every watchlist',
  usage: 'vulnintel alerts run [--json]',
  options: {},
  async run(ctx) {
    const rt = await ctx.runtime();
    const svc = alertServiceFor(rt.store.db, ctx.config);
    const r = await svc.run('cli');
    if (r === 'busy') {
      ctx.err('Another alert run is in progress; nothing done.');
      return 75;
    }
    const d = await deliverPendingAlerts(rt.store.db, ctx.config, svc, (e) =>
      ctx.err(`Webhook ${e.webhookId} of organization ${e.orgId} disabled after 5 consecutive failed deliveries.`),
    );
    const m = await emailAlerts(ctx.config, svc, 'instant', {
      info: () => {},
      warn: (msg, e) => ctx.err(`${msg}: ${e.message}`),
    });
    if (ctx.json) ctx.out(JSON.stringify({ ...r, delivery: d, email: m }));
    else {
      ctx.out(
        `Alert run ${r.run_id}${r.resumed ? ' (resumed)' : ''}: changes ${r.from_seq + 1}..${r.to_seq}, ${r.cves} CVEs, ${r.alerts_stored} alerts stored (${r.alerts_total} in the run).`,
      );
      ctx.out(
        `Delivered ${d.alerts} pending alerts: ${d.delivered} delivered, ${d.failed} failed, ${d.no_webhooks} without webhooks, ${d.skipped} already claimed.`,
      );
      ctx.out(
        `Instant alert email: ${m.messages} messages (${m.alerts} alerts)${m.failed ? `, ${m.failed} failed` : ''}.`,
      );
    }
    return 0;
  },
};

/** `vulnintel alerts run` (table read by src/cli-commands.ts). */
export const ALERT_COMMANDS: Readonly<Record<string, Command>> = { 'alerts run': alertsCommand };
