// The delivery of stored alerts (docs/alerts.md "Delivery" and "Email"): the pending alerts, each delivered holding
// its row lock, and the email claims of each member.
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import type { DeliveryStatus } from '../domain/alerts.ts';

type Conn = Db | Tx;

export interface PendingAlert {
  id: number;
  org_id: number;
  cve_id: string;
  payload: Record<string, unknown>;
}

/**
 * The oldest pending alerts (served by the alerts_pending partial index), leaving out `passed`: the ids this
 * delivery already found taken by another one (deliverHeld), so it does not read them again.
 */
export async function pendingAlerts(
  db: Conn,
  limit: number,
  passed: readonly number[] = [],
  orgId: number | null = null,
): Promise<PendingAlert[]> {
  const r = await sql<PendingAlert>`SELECT id, org_id, cve_id, payload FROM alert_view WHERE delivery_status = 'pending'
    ${passed.length ? sql`AND id <> ALL(${sql.val([...passed])}::bigint[])` : sql``}
    ${orgId !== null ? sql`AND org_id = ${orgId}` : sql``}
    ORDER BY created_at, id LIMIT ${limit}`.execute(db);
  return r.rows.map((x) => ({ ...x, id: Number(x.id), org_id: Number(x.org_id) }));
}

/** The organizations with pending alerts (other than `passed`), the one waiting longest first. */
export async function pendingAlertOrgs(db: Conn, passed: readonly number[] = []): Promise<number[]> {
  const r = await sql<{ org_id: number }>`SELECT org_id FROM alerts WHERE delivery_status = 'pending'
    ${passed.length ? sql`AND id <> ALL(${sql.val([...passed])}::bigint[])` : sql``}
    GROUP BY org_id ORDER BY min(created_at), org_id`.execute(db);
  return r.rows.map((x) => Number(x.org_id));
}

/**
 * Delivers a pending alert holding its row lock, and records the outcome `send` returns in the same transaction.
 * Null, and `send` is not called, when the alert is no longer pending or another delivery (a second worker, a
 * shell run, a retried job) holds it: two deliveries at once never both work on one alert, so the one that
 * sent is the one that records the outcome (a `skipped` of the other one never overwrites it). A process that
 * dies while holding it releases the lock with its connection; the alert stays pending.
 */
export async function deliverHeld(
  db: Db,
  id: number,
  send: () => Promise<Exclude<DeliveryStatus, 'pending'>>,
): Promise<Exclude<DeliveryStatus, 'pending'> | null> {
  return db.transaction().execute(async (tx) => {
    const held =
      await sql`SELECT id FROM alerts WHERE id = ${id} AND delivery_status = 'pending' FOR UPDATE SKIP LOCKED`.execute(
        tx,
      );
    if (!held.rows.length) return null;
    const status = await send();
    await sql`UPDATE alerts SET delivery_status = ${status} WHERE id = ${id}`.execute(tx);
    return status;
  });
}

// ---- email (docs/alerts.md "Email") ----

export interface EmailClaim {
  member_id: number;
  email: string;
  alert_id: number;
  cve_id: string;
  payload: Record<string, unknown>;
}

/**
 * Claims, for every member whose preferences ask for `kind` and match, each alert created since `since` not yet
 * emailed to them, and returns the claims (one row per member and alert). Preferences: the member's row, else the
 * defaults (email on, HIGH and above, any BCS, not KEV-only, daily digest). Severity is the CVSS v3 band of the
 * alert's score; BCS is the CVE's current score. A claim is taken once: the same pair is never returned again.
 */
export async function claimAlertEmails(
  db: Conn,
  kind: 'instant' | 'daily_digest',
  since: Date,
  now: Date,
): Promise<EmailClaim[]> {
  const r = await sql<EmailClaim>`
    WITH due AS (
      SELECT a.id AS alert_id, m.id AS member_id
      FROM alert_view a
      JOIN organizations o ON o.id = a.org_id AND o.status = 'active'
      JOIN members m ON m.org_id = a.org_id
      LEFT JOIN notification_preferences p ON p.org_id = m.org_id AND p.member_id = m.id
      LEFT JOIN cves c ON c.cve_id = a.cve_id
      WHERE a.created_at >= ${since}
        AND coalesce(p.email_enabled, true)
        AND coalesce(p.delivery, 'daily_digest') = ${kind}
        AND (coalesce(p.kev_only, false) = false OR (a.payload->'data'->>'kev_flagged')::boolean)
        AND (p.min_bcs IS NULL OR (c.doc->'scoring'->'bcs'->>'score')::numeric >= p.min_bcs)
        AND ((CASE WHEN p.member_id IS NULL THEN 'HIGH' ELSE p.min_severity END) IS NULL
          OR (CASE WHEN (a.payload->'data'->>'cvss_score')::numeric >= 9 THEN 4 WHEN (a.payload->'data'->>'cvss_score')::numeric >= 7 THEN 3
                   WHEN (a.payload->'data'->>'cvss_score')::numeric >= 4 THEN 2 WHEN (a.payload->'data'->>'cvss_score')::numeric > 0 THEN 1 ELSE 0 END)
             >= array_position(ARRAY['LOW','MEDIUM','HIGH','CRITICAL'], CASE WHEN p.member_id IS NULL THEN 'HIGH' ELSE p.min_severity END))
    ), claimed AS (
      INSERT INTO alert_emails (alert_id, member_id, kind, claimed_at)
      SELECT alert_id, member_id, ${kind}, ${now} FROM due
      ON CONFLICT (alert_id, member_id) DO NOTHING
      RETURNING alert_id, member_id
    )
    SELECT cl.member_id, m.email, cl.alert_id, a.cve_id, a.payload
    FROM claimed cl JOIN members m ON m.id = cl.member_id JOIN alert_view a ON a.id = cl.alert_id
    ORDER BY cl.member_id, a.created_at, a.id`.execute(db);
  return r.rows.map((x) => ({ ...x, member_id: Number(x.member_id), alert_id: Number(x.alert_id) }));
}
