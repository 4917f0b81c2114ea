// The append-only trail of triage decisions (migration 1400, docs/triage.md): one row per change, with the
// decision's snapshot before and after it, written in the transaction of the change (store/triage-decisions.ts).
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import type { DecisionFields } from '../domain/triage.ts';

type Conn = Db | Tx;

export interface HistoryRow {
  id: number;
  cve_id: string;
  action: 'set' | 'clear' | 'bulk' | 'import' | 'review_flagged';
  at: Date;
  actor_member: number | null;
  actor_key: number | null;
  actor_label: string;
  before: Snapshot | null;
  after: Snapshot | null;
  comment: string | null;
}

/** What the trail keeps of a decision before and after a change. */
export type Snapshot = DecisionFields & { review_reasons: string[] };

export interface Actor {
  member: number | null;
  key: number | null;
  label: string;
}

export function snapshotOf(r: DecisionFields & { review_reasons?: string[] }): Snapshot {
  return {
    status: r.status,
    justification: r.justification,
    impact_statement: r.impact_statement,
    action_statement: r.action_statement,
    due_date: r.due_date,
    asset_ids: [...r.asset_ids],
    assignee_member_id: r.assignee_member_id,
    review_reasons: [...(r.review_reasons ?? [])],
  };
}

export async function appendHistory(
  trx: Conn,
  orgId: number,
  environmentId: number,
  actor: Actor,
  rows: readonly {
    cve_id: string;
    action: HistoryRow['action'];
    before: Snapshot | null;
    after: Snapshot | null;
    comment: string | null;
  }[],
): Promise<void> {
  if (!rows.length) return;
  await sql`INSERT INTO triage_decision_history (org_id, environment_id, cve_id, action, actor_member, actor_key, actor_label, before, after, comment)
    SELECT ${orgId}, ${environmentId}, x.cve_id, x.action, ${actor.member}, ${actor.key}, ${actor.label}, x.before, x.after, x.comment
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(cve_id text, action text, before jsonb, after jsonb, comment text)
    ORDER BY x.cve_id`.execute(trx);
}

/** The trail of one CVE's decision in an environment, oldest first. */
export async function decisionHistory(
  db: Conn,
  orgId: number,
  environmentId: number,
  cveId: string,
  limit: number,
  offset: number,
): Promise<{ total: number; rows: HistoryRow[] }> {
  const [total, rows] = await Promise.all([
    sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM triage_decision_history WHERE org_id = ${orgId} AND environment_id = ${environmentId} AND cve_id = ${cveId}`.execute(
      db,
    ),
    sql<HistoryRow>`SELECT id::float8 AS id, cve_id, action, at, actor_member::float8 AS actor_member, actor_key::float8 AS actor_key, actor_label, before, after, comment
      FROM triage_decision_history WHERE org_id = ${orgId} AND environment_id = ${environmentId} AND cve_id = ${cveId}
      ORDER BY id LIMIT ${limit} OFFSET ${offset}`.execute(db),
  ]);
  return { total: total.rows[0].n, rows: rows.rows };
}

/** The comments left on one CVE's decision in an environment (from its trail), oldest first. */
export async function decisionComments(
  db: Conn,
  orgId: number,
  environmentId: number,
  cveId: string,
): Promise<{ at: Date; actor_member: number | null; actor_label: string; comment: string }[]> {
  const r = await sql<{
    at: Date;
    actor_member: number | null;
    actor_label: string;
    comment: string;
  }>`SELECT at, actor_member::float8 AS actor_member, actor_label, comment
    FROM triage_decision_history WHERE org_id = ${orgId} AND environment_id = ${environmentId} AND cve_id = ${cveId} AND comment IS NOT NULL ORDER BY id`.execute(
    db,
  );
  return r.rows;
}
