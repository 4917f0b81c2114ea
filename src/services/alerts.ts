// The alerts service (spec §6; docs/alerts.md): the alert run (alert-run.ts), the delivery of its alerts to webhooks
// and by email (alert-delivery.ts), and the organization's stored alerts: the list and the read marks.
import type { Db } from '../store/db.ts';
import { alertPayloadFor } from '../domain/alerts.ts';
import type { Mailer } from './mailer.ts';
import { pageArgs, type PageRequest, type Reader } from './cve-reader.ts';
import { listAlerts, setAlertsRead, type AlertFilter } from '../store/alert-reads.ts';
import { createAlertRun, type AlertRunOptions } from './alert-run.ts';
import { deliverPending, emailAlerts, type DeliverAlert } from './alert-delivery.ts';

/** A stored payload with its `data` object, as alert_view composes every payload the run stores. */
function hasData(payload: Record<string, unknown>): payload is Record<string, unknown> & { data: object } {
  return typeof payload.data === 'object' && payload.data !== null;
}

export function createAlertService(db: Db, opts: AlertRunOptions) {
  const runner = createAlertRun(db, opts);
  return {
    /** The run's warm start (alert-run.ts). */
    warm: () => runner.warm(),

    /** The Windows data the run evaluates hosts with (tests). */
    get windowsData() {
      return runner.windowsData;
    },

    /** One run now; 'busy' when another holds the lock (alert-run.ts). */
    run: (trigger: 'schedule' | 'cli') => runner.run(trigger),

    /** Delivers every pending alert to the webhooks (alert-delivery.ts deliverPending). */
    deliverPending: (deliver: DeliverAlert, batch?: number, lanes?: number) =>
      deliverPending(db, deliver, batch, lanes),

    /** Alert email per member preferences (alert-delivery.ts emailAlerts). */
    emailAlerts: (kind: 'instant' | 'daily_digest', mailer: Mailer, onError?: (err: Error) => void) =>
      emailAlerts(db, opts.now(), kind, mailer, onError),

    /** A page of the organization's alerts; `per_page` is clamped to the reader's tier cap, as every collection's. */
    async list(
      who: Reader & { orgId: number },
      q: PageRequest & {
        sage_priority?: string;
        cve_id?: string;
        since?: string;
        delivery_status?: string;
        match_type?: string;
      } & Pick<AlertFilter, 'until' | 'environment' | 'change_kind' | 'member_id' | 'unread' | 'ids'> = {},
    ) {
      const orgId = who.orgId;
      const { page, perPage, offset } = pageArgs(who, q);
      const f: AlertFilter = {
        sage_priority: q.sage_priority?.split(','),
        cve_id: q.cve_id?.toUpperCase(),
        since: q.since ? new Date(q.since) : undefined,
        delivery_status: q.delivery_status,
        match_type: q.match_type,
        until: q.until,
        environment: q.environment,
        change_kind: q.change_kind,
        member_id: q.member_id,
        unread: q.unread,
        ids: q.ids,
      };
      const { total, rows } = await listAlerts(db, orgId, f, perPage, offset);
      const items = rows.map((r) => ({
        id: r.id,
        cve_id: r.cve_id,
        sage_priority: r.sage_priority,
        reasons: r.reasons,
        change_kinds: r.change_kinds,
        watchlist_match: { entity_type: r.match_type, entity_name: r.match_name },
        delivery_status: r.delivery_status,
        created_at: r.created_at,
        // A payload without `data` holds none of the texts a plan may not see: shown as stored.
        payload: hasData(r.payload) ? alertPayloadFor(r.payload, who.tier) : r.payload,
        ...(q.member_id !== undefined ? { read: r.read === true } : {}),
      }));
      return { items, total, page, perPage };
    },

    /** Marks alerts read or unread for one member of the organization (`all`: every alert of the organization). */
    markRead(orgId: number, memberId: number, ids: number[] | 'all', read: boolean): Promise<number> {
      return setAlertsRead(db, orgId, memberId, ids, read);
    },
  };
}

export type AlertService = ReturnType<typeof createAlertService>;
