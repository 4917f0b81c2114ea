// Alert delivery (docs/alerts.md "Delivery" and "Email"): the pending alerts sent to each organization's webhooks,
// each outcome recorded, and the alert email per member preferences, each (alert, member) claimed before it is sent.
import type { Db } from '../store/db.ts';
import { alertEmail, deliveryStatusOf, type EmailAlertLine } from '../domain/alerts.ts';
import type { AlertPayload } from '../domain/webhooks.ts';
import type { Mailer } from './mailer.ts';
import { claimAlertEmails, deliverHeld, pendingAlertOrgs, pendingAlerts } from '../store/alert-deliveries.ts';

/** Sends one stored cve.alert to an organization's webhooks (services/webhook-delivery.ts deliverAlert): one outcome per active webhook. */
export type DeliverAlert = (
  orgId: number,
  payload: AlertPayload,
) => Promise<readonly { outcome: 'delivered' | 'failed' | 'skipped' }[]>;

/**
 * Organizations whose alerts are delivered at once (deliverPending). Each lane holds one database connection for the
 * alert it is sending (deliverHeld), far below the pool's 20, and at most this many slow receivers are waited on together.
 */
export const DELIVERY_LANES = 4;

export interface DeliveryReport {
  alerts: number;
  delivered: number;
  failed: number;
  no_webhooks: number;
  skipped: number;
}

/**
 * Delivers every pending alert, oldest first, and records each outcome (docs/alerts.md "Delivery"). Safe to
 * repeat, to run after a crash, and to run twice at once: each alert is delivered holding its row lock (an alert
 * another delivery holds is passed over, and the one that sends records the outcome), the webhook claim per
 * (webhook, CVE) forbids a second send, and an alert is moved only from 'pending'. An error (database down)
 * leaves the alert pending for the next run.
 */
export async function deliverPending(
  db: Db,
  deliver: DeliverAlert,
  batch = 200,
  lanes = DELIVERY_LANES,
): Promise<DeliveryReport> {
  const rep: DeliveryReport = { alerts: 0, delivered: 0, failed: 0, no_webhooks: 0, skipped: 0 };
  const passed: number[] = [];
  // The first error (the database down) stops every lane after the alert it is on, and is thrown once all stopped.
  const stop: { failed: boolean; error?: unknown } = { failed: false };
  // One organization's alerts in order, until it has none pending.
  const deliverOrg = async (orgId: number) => {
    for (;;) {
      const rows = await pendingAlerts(db, batch, passed, orgId);
      if (!rows.length) return;
      for (const a of rows) {
        if (stop.failed) return;
        const status = await deliverHeld(db, a.id, async () =>
          deliveryStatusOf((await deliver(a.org_id, a.payload as unknown as AlertPayload)).map((r) => r.outcome)),
        );
        if (status === null) {
          passed.push(a.id);
          continue;
        }
        rep.alerts++;
        rep[status]++;
      }
    }
  };
  // Organizations side by side, up to `lanes` at once (the one waiting longest first): a receiver that takes its
  // full timeout on every alert holds up only its own organization's alerts. Then again, for the organizations
  // whose alerts arrived meanwhile, until a round finds none.
  for (;;) {
    const orgs = await pendingAlertOrgs(db, passed);
    if (!orgs.length) return rep;
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(lanes, orgs.length) }, async () => {
        while (!stop.failed && next < orgs.length) {
          try {
            await deliverOrg(orgs[next++]);
          } catch (error) {
            if (!stop.failed) Object.assign(stop, { failed: true, error });
          }
        }
      }),
    );
    if (stop.failed) throw stop.error;
  }
}

/**
 * Alert email per member preferences (docs/alerts.md "Email"): `instant`, one message per alert for the members
 * who chose instant delivery (alerts of the last 24 hours); `daily_digest`, one message per member with every
 * alert of the last 48 hours not yet emailed to them. Each (alert, member) is claimed before sending: at most
 * once, across runs, retries and replicas (a send that fails after its claim is not retried; it is logged).
 */
export async function emailAlerts(
  db: Db,
  now: Date,
  kind: 'instant' | 'daily_digest',
  mailer: Mailer,
  onError: (err: Error) => void = () => {},
): Promise<{ messages: number; alerts: number; failed: number }> {
  const since = new Date(now.getTime() - (kind === 'instant' ? 24 : 48) * 3600_000);
  const claims = await claimAlertEmails(db, kind, since, now);
  const byMember = new Map<number, typeof claims>();
  for (const c of claims) byMember.set(c.member_id, [...(byMember.get(c.member_id) ?? []), c]);
  const messages: { to: string; lines: EmailAlertLine[] }[] = [];
  for (const cs of byMember.values()) {
    const lines = cs.map((c) => (c.payload as { data: EmailAlertLine }).data);
    if (kind === 'instant') for (const l of lines) messages.push({ to: cs[0].email, lines: [l] });
    else messages.push({ to: cs[0].email, lines });
  }
  let failed = 0;
  for (const m of messages) {
    try {
      await mailer.send({
        to: m.to,
        kind: kind === 'instant' ? 'alert' : 'alert_digest',
        ...alertEmail(kind, m.lines),
      });
    } catch (e) {
      failed++;
      onError(e instanceof Error ? e : new Error(String(e)));
    }
  }
  return { messages: messages.length - failed, alerts: claims.length, failed };
}
