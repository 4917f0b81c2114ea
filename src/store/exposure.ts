// Exposure snapshots, report schedules and report deliveries (migration 1450, docs/reports.md). SQL only.
import { sql } from './kysely.ts';
import type { Db } from './db.ts';
import type { Cadence, ExposureFigures } from '../domain/exposure.ts';
import type { Snapshot } from './triage-history.ts';

export interface SnapshotRow {
  day: string;
  taken_at: Date;
  figures: ExposureFigures;
  open_cve_ids: string[];
}

/** Organizations whose environments are snapshotted and whose members get reports: active, not deleted. */
export async function activeOrgIds(db: Db): Promise<number[]> {
  const r = await sql<{
    id: number;
  }>`SELECT id::float8 AS id FROM organizations WHERE status = 'active' AND deleted_at IS NULL ORDER BY id`.execute(db);
  return r.rows.map((x) => x.id);
}

/** Stores the snapshots of one day (a second run of the day replaces its rows). */
export async function putSnapshots(
  db: Db,
  day: string,
  takenAt: Date,
  rows: readonly { orgId: number; environmentId: number; figures: ExposureFigures; open_cve_ids: string[] }[],
): Promise<void> {
  if (!rows.length) return;
  const json = JSON.stringify(
    rows.map((x) => ({
      org_id: x.orgId,
      environment_id: x.environmentId,
      figures: x.figures,
      open_cve_ids: x.open_cve_ids,
    })),
  );
  await sql`INSERT INTO exposure_snapshots (org_id, environment_id, day, taken_at, figures, open_cve_ids)
    SELECT x.org_id, x.environment_id, ${day}::date, ${takenAt}, x.figures, ARRAY(SELECT jsonb_array_elements_text(x.open_cve_ids))
    FROM jsonb_to_recordset(${json}::jsonb) AS x(org_id bigint, environment_id bigint, figures jsonb, open_cve_ids jsonb)
    -- An environment deleted while the job ran has nothing to keep.
    WHERE EXISTS (SELECT 1 FROM environments e WHERE e.id = x.environment_id AND e.org_id = x.org_id)
    ON CONFLICT (org_id, environment_id, day) DO UPDATE SET taken_at = EXCLUDED.taken_at, figures = EXCLUDED.figures, open_cve_ids = EXCLUDED.open_cve_ids`.execute(
    db,
  );
}

/** Deletes the snapshots of days before `oldest`; returns how many. */
export async function pruneSnapshots(db: Db, oldest: string): Promise<number> {
  const r = await sql`DELETE FROM exposure_snapshots WHERE day < ${oldest}::date`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

/** One environment's snapshots from `from` to `to` (both included), oldest first. */
export async function snapshotsBetween(
  db: Db,
  orgId: number,
  environmentId: number,
  from: string,
  to: string,
): Promise<SnapshotRow[]> {
  const r =
    await sql<SnapshotRow>`SELECT to_char(day, 'YYYY-MM-DD') AS day, taken_at, figures, open_cve_ids FROM exposure_snapshots
    WHERE org_id = ${orgId} AND environment_id = ${environmentId} AND day BETWEEN ${from}::date AND ${to}::date ORDER BY day`.execute(
      db,
    );
  return r.rows;
}

// ---- Report schedules ----

export async function getCadence(
  db: Db,
  orgId: number,
  memberId: number,
): Promise<{ cadence: Cadence | 'none'; updated_at: Date } | undefined> {
  const r = await sql<{
    cadence: Cadence | 'none';
    updated_at: Date;
  }>`SELECT cadence, updated_at FROM report_preferences WHERE org_id = ${orgId} AND member_id = ${memberId}`.execute(
    db,
  );
  return r.rows[0];
}

export async function putCadence(
  db: Db,
  orgId: number,
  memberId: number,
  cadence: Cadence | 'none',
  now: Date,
): Promise<void> {
  await sql`INSERT INTO report_preferences (org_id, member_id, cadence, updated_at) VALUES (${orgId}, ${memberId}, ${cadence}, ${now})
    ON CONFLICT (org_id, member_id) DO UPDATE SET cadence = EXCLUDED.cadence, updated_at = EXCLUDED.updated_at`.execute(
    db,
  );
}

export interface Subscriber {
  org_id: number;
  org_name: string;
  member_id: number;
  email: string;
  cadence: Cadence;
}

/** Members of active organizations who asked for a weekly or monthly report, by organization then member. */
export async function subscribers(db: Db): Promise<Subscriber[]> {
  const r =
    await sql<Subscriber>`SELECT p.org_id::float8 AS org_id, o.name AS org_name, p.member_id::float8 AS member_id, m.email, p.cadence
    FROM report_preferences p JOIN members m ON m.id = p.member_id AND m.org_id = p.org_id JOIN organizations o ON o.id = p.org_id
    WHERE p.cadence <> 'none' AND o.status = 'active' AND o.deleted_at IS NULL ORDER BY p.org_id, p.member_id`.execute(
      db,
    );
  return r.rows;
}

// ---- Report deliveries ----

export interface DeliveryKey {
  orgId: number;
  memberId: number;
  environmentId: number;
  cadence: Cadence;
  start: string;
  end: string;
}

/** Claims one scheduled report before it is sent; false when it is claimed already (sent, or being sent). */
export async function claimDelivery(db: Db, k: DeliveryKey, now: Date): Promise<boolean> {
  const r =
    await sql`INSERT INTO report_deliveries (org_id, member_id, environment_id, cadence, period_start, period_end, state, claimed_at)
    VALUES (${k.orgId}, ${k.memberId}, ${k.environmentId}, ${k.cadence}, ${k.start}::date, ${k.end}::date, 'sending', ${now})
    ON CONFLICT DO NOTHING`.execute(db);
  return Number(r.numAffectedRows ?? 0) === 1;
}

const keyWhere = (
  k: DeliveryKey,
) => sql`org_id = ${k.orgId} AND member_id = ${k.memberId} AND environment_id = ${k.environmentId}
  AND cadence = ${k.cadence} AND period_start = ${k.start}::date`;

export async function markSent(
  db: Db,
  k: DeliveryKey,
  now: Date,
  shown: { figures: ExposureFigures; open_cve_ids: string[] },
): Promise<void> {
  await sql`UPDATE report_deliveries SET state = 'sent', sent_at = ${now}, figures = ${JSON.stringify(shown.figures)}::jsonb, open_cve_ids = ${shown.open_cve_ids}::text[]
    WHERE ${keyWhere(k)} AND state = 'sending'`.execute(db);
}

/** A send that failed gives its claim back: the next run retries it. */
export async function releaseClaim(db: Db, k: DeliveryKey): Promise<void> {
  await sql`DELETE FROM report_deliveries WHERE ${keyWhere(k)} AND state = 'sending'`.execute(db);
}

export interface SentReport {
  period_start: string;
  period_end: string;
  sent_at: Date;
  figures: ExposureFigures;
  open_cve_ids: string[];
}

/** The newest report sent for the environment (any member, any cadence) whose period ended on or before `end`. */
export async function lastSentReport(
  db: Db,
  orgId: number,
  environmentId: number,
  end: string,
  cadence: 'weekly' | 'monthly' | null,
): Promise<SentReport | undefined> {
  const r =
    await sql<SentReport>`SELECT to_char(period_start, 'YYYY-MM-DD') AS period_start, to_char(period_end, 'YYYY-MM-DD') AS period_end, sent_at, figures, open_cve_ids
    FROM report_deliveries WHERE org_id = ${orgId} AND environment_id = ${environmentId} AND state = 'sent' AND period_end <= ${end}::date
      AND (${cadence}::text IS NULL OR cadence = ${cadence})
    ORDER BY period_end DESC, sent_at DESC LIMIT 1`.execute(db);
  return r.rows[0];
}

export interface DecisionTaken {
  cve_id: string;
  action: string;
  at: Date;
  actor_label: string;
  after: Snapshot | null;
  comment: string | null;
}

/** The decisions set, bulk-set, imported or cleared in the environment from `from` to `to` (excluded), in time order. */
export async function decisionsTaken(
  db: Db,
  orgId: number,
  environmentId: number,
  from: string,
  to: string,
  limit: number,
): Promise<{ total: number; rows: DecisionTaken[] }> {
  const cond = sql`org_id = ${orgId} AND environment_id = ${environmentId} AND action <> 'review_flagged'
    AND at >= (${from}::date)::timestamp AT TIME ZONE 'UTC' AND at < (${to}::date)::timestamp AT TIME ZONE 'UTC'`;
  const [n, rows] = await Promise.all([
    sql<{ n: number }>`SELECT count(*)::int AS n FROM triage_decision_history WHERE ${cond}`.execute(db),
    sql<DecisionTaken>`SELECT cve_id, action, at, actor_label, after, comment FROM triage_decision_history WHERE ${cond} ORDER BY at, id LIMIT ${limit}`.execute(
      db,
    ),
  ]);
  return { total: n.rows[0].n, rows: rows.rows };
}
