// The stored alerts as an organization reads them (GET /api/v1/alerts; docs/alerts.md): the filtered list, and each
// member's read marks.
import type { RawBuilder } from 'kysely';
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import type { DeliveryStatus, SagePriority } from '../domain/alerts.ts';

type Conn = Db | Tx;

export interface AlertRow {
  id: number;
  cve_id: string;
  sage_priority: SagePriority;
  reasons: string[];
  change_kinds: string[];
  match_type: string;
  match_name: string;
  payload: Record<string, unknown>;
  delivery_status: DeliveryStatus;
  created_at: string;
  run_id: number;
  /** Whether the reader (AlertFilter.member_id) has read it; null without a reader. */
  read: boolean | null;
}

export interface AlertFilter {
  sage_priority?: string[];
  cve_id?: string;
  since?: Date;
  delivery_status?: string;
  match_type?: string;
  /** Created before this instant. */
  until?: Date;
  /** An alert naming this environment among its matches (the environment's name, as the payload names it). */
  environment?: string;
  /** An alert with this change kind (new_cve, kev_added, ...). */
  change_kind?: string;
  /** The reader: each row says whether this member has read it; `unread` keeps the unread ones only. */
  member_id?: number;
  unread?: boolean;
  /** These alerts only. */
  ids?: number[];
}

export async function listAlerts(
  db: Conn,
  orgId: number,
  f: AlertFilter,
  limit: number,
  offset: number,
): Promise<{ total: number; rows: AlertRow[] }> {
  const parts: RawBuilder<unknown>[] = [sql`org_id = ${orgId}`];
  if (f.sage_priority) parts.push(sql`sage_priority = ANY(${f.sage_priority}::text[])`);
  if (f.cve_id) parts.push(sql`cve_id = ${f.cve_id}`);
  if (f.since) parts.push(sql`created_at >= ${f.since}`);
  if (f.delivery_status) parts.push(sql`delivery_status = ${f.delivery_status}`);
  if (f.match_type) parts.push(sql`match_type = ${f.match_type}`);
  if (f.until) parts.push(sql`created_at < ${f.until}`);
  if (f.ids) parts.push(sql`id = ANY(${sql.val(f.ids)}::bigint[])`);
  const isRead =
    f.member_id === undefined
      ? sql`NULL::boolean`
      : sql`EXISTS (SELECT 1 FROM alert_reads r WHERE r.member_id = ${f.member_id} AND r.alert_id = a.id)`;
  if (f.unread && f.member_id !== undefined) parts.push(sql`NOT ${isRead}`);
  // The view's columns (the payload's matches, the run's change kinds): these filters read alert_view.
  const viewParts = [...parts];
  if (f.environment)
    viewParts.push(
      sql`payload->'data'->'matches' @> ${JSON.stringify([{ entity_type: 'environment', entity_name: f.environment }])}::jsonb`,
    );
  if (f.change_kind) viewParts.push(sql`${f.change_kind} = ANY(change_kinds)`);
  const onView = viewParts.length > parts.length;
  const where = sql.join(onView ? viewParts : parts, sql` AND `);
  const [n, rows] = await Promise.all([
    sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM ${onView ? sql`alert_view` : sql`alerts`} a WHERE ${where}`.execute(db),
    sql<AlertRow>`SELECT id, cve_id, sage_priority, reasons, change_kinds, match_type, match_name, payload, delivery_status, run_id, ${isRead} AS read,
        to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
      FROM alert_view a WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`.execute(db),
  ]);
  return { total: n.rows[0].n, rows: rows.rows.map((x) => ({ ...x, id: Number(x.id), run_id: Number(x.run_id) })) };
}

/** Marks alerts of the organization read (`read`) or unread for one member; ids of another organization change nothing. */
export async function setAlertsRead(
  db: Conn,
  orgId: number,
  memberId: number,
  ids: number[] | 'all',
  read: boolean,
): Promise<number> {
  if (read) {
    const r = await sql`INSERT INTO alert_reads (org_id, member_id, alert_id)
      SELECT ${orgId}, ${memberId}, id FROM alerts WHERE org_id = ${orgId} ${ids === 'all' ? sql`` : sql`AND id = ANY(${sql.val(ids)}::bigint[])`}
      ON CONFLICT DO NOTHING`.execute(db);
    return Number(r.numAffectedRows ?? 0);
  }
  const r =
    await sql`DELETE FROM alert_reads WHERE org_id = ${orgId} AND member_id = ${memberId} ${ids === 'all' ? sql`` : sql`AND alert_id = ANY(${sql.val(ids)}::bigint[])`}`.execute(
      db,
    );
  return Number(r.numAffectedRows ?? 0);
}
