// Triage decisions (migration 1400, docs/triage.md): the current decision of each CVE in an environment, read and
// written. Every write goes through writeDecisions / clearDecision / flagForReview inside the caller's transaction:
// the decision rows and their trail rows (store/triage-history.ts) are written together, so no change is ever stored
// without its trail.
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import type { DecisionFields, DecisionStatus } from '../domain/triage.ts';
import { appendHistory, snapshotOf, type Actor } from './triage-history.ts';

type Conn = Db | Tx;

export interface DecisionRow extends DecisionFields {
  environment_id: number;
  cve_id: string;
  assignee_email: string | null;
  assignee_name: string | null;
  review_reasons: string[];
  review_since: Date | null;
  version: number;
  source: 'api' | 'bulk' | 'import';
  created_at: Date;
  updated_at: Date;
  updated_by_member: number | null;
  updated_by_key: number | null;
}

const SELECT_DECISION = sql`d.environment_id::float8 AS environment_id, d.cve_id, d.status, d.justification, d.impact_statement,
  d.action_statement, to_char(d.due_date, 'YYYY-MM-DD') AS due_date, d.asset_ids, d.assignee_member_id::float8 AS assignee_member_id,
  m.email AS assignee_email, m.name AS assignee_name, d.review_reasons, d.review_since, d.version, d.source, d.created_at, d.updated_at,
  d.updated_by_member::float8 AS updated_by_member, d.updated_by_key::float8 AS updated_by_key`;

export async function getDecisions(
  db: Conn,
  orgId: number,
  environmentId: number,
  cveIds: readonly string[],
  lock = false,
): Promise<Map<string, DecisionRow>> {
  if (!cveIds.length) return new Map();
  // Joined to the ids rather than `= ANY(ids)`: on rows written moments before (no statistics yet) the latter may be
  // planned as a scan comparing each row with every id.
  const r = await sql<DecisionRow>`SELECT ${SELECT_DECISION} FROM unnest(${cveIds}::text[]) AS t(cve_id)
    JOIN triage_decisions d ON d.org_id = ${orgId} AND d.environment_id = ${environmentId} AND d.cve_id = t.cve_id
    LEFT JOIN members m ON m.id = d.assignee_member_id
    ${lock ? sql`FOR UPDATE OF d` : sql``}`.execute(db);
  return new Map(r.rows.map((x) => [x.cve_id, x]));
}

export interface DecisionFilter {
  status?: DecisionStatus[];
  review?: boolean;
  assignee_member_id?: number;
  cve_id?: string;
  asset_id?: string;
  due_before?: string;
}

/** A page of an environment's decisions, most recently changed first. */
export async function listDecisions(
  db: Conn,
  orgId: number,
  environmentId: number,
  f: DecisionFilter,
  limit: number,
  offset: number,
): Promise<{ total: number; rows: DecisionRow[] }> {
  const where = [sql`d.org_id = ${orgId}`, sql`d.environment_id = ${environmentId}`];
  if (f.status?.length) where.push(sql`d.status = ANY(${f.status}::text[])`);
  if (f.review !== undefined)
    where.push(f.review ? sql`cardinality(d.review_reasons) > 0` : sql`cardinality(d.review_reasons) = 0`);
  if (f.assignee_member_id !== undefined) where.push(sql`d.assignee_member_id = ${f.assignee_member_id}`);
  if (f.cve_id) where.push(sql`d.cve_id = ${f.cve_id}`);
  if (f.asset_id) where.push(sql`(cardinality(d.asset_ids) = 0 OR ${f.asset_id} = ANY(d.asset_ids))`);
  if (f.due_before) where.push(sql`d.due_date < ${f.due_before}::date`);
  const cond = sql.join(where, sql` AND `);
  const [total, rows] = await Promise.all([
    sql<{ n: number }>`SELECT count(*)::int AS n FROM triage_decisions d WHERE ${cond}`.execute(db),
    sql<DecisionRow>`SELECT ${SELECT_DECISION} FROM triage_decisions d LEFT JOIN members m ON m.id = d.assignee_member_id
      WHERE ${cond} ORDER BY d.updated_at DESC, d.cve_id COLLATE "C" LIMIT ${limit} OFFSET ${offset}`.execute(db),
  ]);
  return { total: total.rows[0].n, rows: rows.rows };
}

/** Every decision of the environment (streamed exports read them in pages of this function). */
export async function decisionsAfter(
  db: Conn,
  orgId: number,
  environmentId: number,
  afterCve: string,
  limit: number,
): Promise<DecisionRow[]> {
  const r =
    await sql<DecisionRow>`SELECT ${SELECT_DECISION} FROM triage_decisions d LEFT JOIN members m ON m.id = d.assignee_member_id
    WHERE d.org_id = ${orgId} AND d.environment_id = ${environmentId} AND (d.cve_id COLLATE "C") > (${afterCve}::text COLLATE "C")
    ORDER BY d.cve_id COLLATE "C" LIMIT ${limit}::int`.execute(db);
  return r.rows;
}

/** Decision statuses by CVE for one environment (what correlation answers show), the review flag with them. */
export async function decisionStatuses(
  db: Conn,
  orgId: number,
  environmentId: number,
): Promise<Map<string, { status: DecisionStatus; asset_ids: string[]; review: boolean }>> {
  const r = await sql<{
    cve_id: string;
    status: DecisionStatus;
    asset_ids: string[];
    review: boolean;
  }>`SELECT cve_id, status, asset_ids,
    cardinality(review_reasons) > 0 AS review FROM triage_decisions WHERE org_id = ${orgId} AND environment_id = ${environmentId}`.execute(
    db,
  );
  return new Map(r.rows.map((x) => [x.cve_id, { status: x.status, asset_ids: x.asset_ids, review: x.review }]));
}

/** What replacing a decision sets: the new fields, the review flag cleared, the version raised. */
export const UPSERT_SET = sql`status = EXCLUDED.status, justification = EXCLUDED.justification,
  impact_statement = EXCLUDED.impact_statement, action_statement = EXCLUDED.action_statement, due_date = EXCLUDED.due_date,
  asset_ids = EXCLUDED.asset_ids, assignee_member_id = EXCLUDED.assignee_member_id, review_reasons = '{}', review_since = NULL,
  version = d.version + 1, updated_at = now(), updated_by_member = EXCLUDED.updated_by_member, updated_by_key = EXCLUDED.updated_by_key,
  source = EXCLUDED.source`;

export interface DecisionWrite {
  cve_id: string;
  fields: DecisionFields;
  comment: string | null;
}

/**
 * Writes decisions (new or replacing the current one) and one history row each, in the caller's transaction.
 * `before` holds the current rows (read FOR UPDATE by the caller). Replacing a decision clears its review flag and
 * raises its version.
 */
export async function writeDecisions(
  trx: Tx,
  orgId: number,
  environmentId: number,
  writes: readonly DecisionWrite[],
  before: ReadonlyMap<string, DecisionRow>,
  actor: Actor,
  action: 'set' | 'bulk' | 'import',
): Promise<void> {
  if (!writes.length) return;
  const source = action === 'set' ? 'api' : action;
  const rows = JSON.stringify(
    writes.map((w) => ({
      cve_id: w.cve_id,
      status: w.fields.status,
      justification: w.fields.justification,
      impact_statement: w.fields.impact_statement,
      action_statement: w.fields.action_statement,
      due_date: w.fields.due_date,
      asset_ids: w.fields.asset_ids,
      assignee_member_id: w.fields.assignee_member_id,
    })),
  );
  await sql`INSERT INTO triage_decisions AS d (org_id, environment_id, cve_id, status, justification, impact_statement, action_statement, due_date,
      asset_ids, assignee_member_id, updated_by_member, updated_by_key, source)
    SELECT ${orgId}, ${environmentId}, x.cve_id, x.status, x.justification, x.impact_statement, x.action_statement, x.due_date::date,
      ARRAY(SELECT jsonb_array_elements_text(x.asset_ids)), x.assignee_member_id, ${actor.member}, ${actor.key}, ${source}
    FROM jsonb_to_recordset(${rows}::jsonb) AS x(cve_id text, status text, justification text, impact_statement text, action_statement text,
      due_date text, asset_ids jsonb, assignee_member_id bigint)
    ON CONFLICT (org_id, environment_id, cve_id) DO UPDATE SET ${UPSERT_SET}`.execute(trx);
  await appendHistory(
    trx,
    orgId,
    environmentId,
    actor,
    writes.map((w) => {
      const b = before.get(w.cve_id);
      return {
        cve_id: w.cve_id,
        action,
        before: b ? snapshotOf(b) : null,
        after: snapshotOf({ ...w.fields, review_reasons: [] }),
        comment: w.comment,
      };
    }),
  );
}

/** Removes the current decision (its history stays, with a 'clear' row). The removed row, or null when none. */
export async function clearDecision(
  trx: Tx,
  orgId: number,
  environmentId: number,
  cveId: string,
  actor: Actor,
  comment: string | null,
): Promise<DecisionRow | null> {
  const cur = (await getDecisions(trx, orgId, environmentId, [cveId], true)).get(cveId);
  if (!cur) return null;
  await sql`DELETE FROM triage_decisions WHERE org_id = ${orgId} AND environment_id = ${environmentId} AND cve_id = ${cveId}`.execute(
    trx,
  );
  await appendHistory(trx, orgId, environmentId, actor, [
    { cve_id: cveId, action: 'clear', before: snapshotOf(cur), after: null, comment },
  ]);
  return cur;
}

/** Flags decisions for review (the alert run): appends to their reasons, one history row each. The rows flagged. */
export async function flagForReview(
  trx: Tx,
  flags: readonly { org_id: number; environment_id: number; cve_id: string; reasons: string[] }[],
  actor: Actor,
): Promise<number> {
  let n = 0;
  for (const f of flags) {
    const cur = (await getDecisions(trx, f.org_id, f.environment_id, [f.cve_id], true)).get(f.cve_id);
    if (!cur) continue;
    const reasons = [...new Set([...cur.review_reasons, ...f.reasons])];
    if (reasons.length === cur.review_reasons.length) continue;
    await sql`UPDATE triage_decisions SET review_reasons = ${reasons}::text[], review_since = coalesce(review_since, now())
      WHERE org_id = ${f.org_id} AND environment_id = ${f.environment_id} AND cve_id = ${f.cve_id}`.execute(trx);
    await appendHistory(trx, f.org_id, f.environment_id, actor, [
      {
        cve_id: f.cve_id,
        action: 'review_flagged',
        before: snapshotOf(cur),
        after: snapshotOf({ ...cur, review_reasons: reasons }),
        comment: null,
      },
    ]);
    n++;
  }
  return n;
}

export interface RunDecision {
  org_id: number;
  environment_id: number;
  environment: string;
  cve_id: string;
  status: DecisionStatus;
  asset_ids: string[];
  review_reasons: string[];
  updated_at: Date;
}

/** Every active organization's decisions on the given CVEs, with their environment's name (the alert run). */
export async function decisionsForCves(db: Conn, ids: readonly string[]): Promise<RunDecision[]> {
  if (!ids.length) return [];
  const r =
    await sql<RunDecision>`SELECT d.org_id::float8 AS org_id, d.environment_id::float8 AS environment_id, e.name AS environment, d.cve_id, d.status,
      d.asset_ids, d.review_reasons, d.updated_at
    FROM triage_decisions d JOIN environments e ON e.id = d.environment_id JOIN organizations o ON o.id = d.org_id AND o.status = 'active'
    WHERE d.cve_id = ANY(${ids}::text[])`.execute(db);
  return r.rows;
}
