// The bulk decision (docs/triage.md "Bulk"): which CVEs of an environment a bulk filter selects, and the one
// statement that decides them all with their trail rows.
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import type { DecisionFields, DecisionStatus } from '../domain/triage.ts';
import { UPSERT_SET } from './triage-decisions.ts';
import { snapshotOf, type Actor } from './triage-history.ts';

type Conn = Db | Tx;

/** A decision's fields as the trail's snapshot (snapshotOf), in SQL: `d` a triage_decisions row. */
const SNAPSHOT_SQL = sql`jsonb_build_object('status', d.status, 'justification', d.justification, 'impact_statement', d.impact_statement,
  'action_statement', d.action_statement, 'due_date', to_char(d.due_date, 'YYYY-MM-DD'), 'asset_ids', to_jsonb(d.asset_ids),
  'assignee_member_id', d.assignee_member_id, 'review_reasons', to_jsonb(d.review_reasons))`;

/**
 * Applies one decision to many CVEs (the bulk call) in one statement, in the caller's transaction: the current rows
 * are locked and compared in SQL, each CVE whose decision would change (none yet, other fields, or flagged for
 * review) is written with its history row (before: the current row's snapshot; after: the fields), the others are
 * left as they are. What writeDecisions does row by row, without sending the rows and their snapshots back and forth.
 */
export async function bulkWriteDecisions(
  trx: Tx,
  orgId: number,
  environmentId: number,
  cveIds: readonly string[],
  f: DecisionFields,
  comment: string | null,
  actor: Actor,
): Promise<{ created: number; updated: number; unchanged: number }> {
  if (!cveIds.length) return { created: 0, updated: 0, unchanged: 0 };
  const after = JSON.stringify(snapshotOf({ ...f, review_reasons: [] }));
  const r = await sql<{ created: number; updated: number; unchanged: number }>`WITH
    cur AS (SELECT d.cve_id, d.status, d.justification, d.impact_statement, d.action_statement, d.due_date, d.asset_ids, d.assignee_member_id,
        d.review_reasons, ${SNAPSHOT_SQL} AS snapshot
      FROM unnest(${cveIds}::text[]) AS t(cve_id) JOIN triage_decisions d ON d.org_id = ${orgId} AND d.environment_id = ${environmentId} AND d.cve_id = t.cve_id
      FOR UPDATE OF d),
    w AS (SELECT t.cve_id, c.snapshot AS before FROM unnest(${cveIds}::text[]) AS t(cve_id) LEFT JOIN cur c ON c.cve_id = t.cve_id
      WHERE c.cve_id IS NULL OR cardinality(c.review_reasons) > 0 OR NOT (c.status = ${f.status}
        AND c.justification IS NOT DISTINCT FROM ${f.justification}::text AND c.impact_statement IS NOT DISTINCT FROM ${f.impact_statement}::text
        AND c.action_statement IS NOT DISTINCT FROM ${f.action_statement}::text AND c.due_date IS NOT DISTINCT FROM ${f.due_date}::date
        AND c.asset_ids = ${f.asset_ids}::text[] AND c.assignee_member_id IS NOT DISTINCT FROM ${f.assignee_member_id}::bigint)),
    up AS (INSERT INTO triage_decisions AS d (org_id, environment_id, cve_id, status, justification, impact_statement, action_statement, due_date,
        asset_ids, assignee_member_id, updated_by_member, updated_by_key, source)
      SELECT ${orgId}, ${environmentId}, w.cve_id, ${f.status}, ${f.justification}::text, ${f.impact_statement}::text, ${f.action_statement}::text,
        ${f.due_date}::date, ${f.asset_ids}::text[], ${f.assignee_member_id}::bigint, ${actor.member}::bigint, ${actor.key}::bigint, 'bulk'
      FROM w
      ON CONFLICT (org_id, environment_id, cve_id) DO UPDATE SET ${UPSERT_SET}
      RETURNING 1),
    h AS (INSERT INTO triage_decision_history (org_id, environment_id, cve_id, action, actor_member, actor_key, actor_label, before, after, comment)
      SELECT ${orgId}, ${environmentId}, w.cve_id, 'bulk', ${actor.member}::bigint, ${actor.key}::bigint, ${actor.label}, w.before, ${after}::jsonb, ${comment}::text
      FROM w ORDER BY w.cve_id COLLATE "C")
    SELECT count(*) FILTER (WHERE before IS NULL)::int AS created, count(*) FILTER (WHERE before IS NOT NULL)::int AS updated,
      (${cveIds.length}::int - count(*))::int AS unchanged FROM w`.execute(trx);
  return r.rows[0];
}

export interface BulkFilter {
  cve_ids?: string[];
  asset_ids?: string[];
  vendor?: string;
  product?: string;
  attack_vector?: 'N' | 'A' | 'L' | 'P';
  severity?: string[];
  correlation_status?: string[];
  known_exploited?: boolean;
  decision?: (DecisionStatus | 'none')[];
}

const like = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The CVEs of an environment's stored correlation results that a bulk filter selects (each CVE once, in id order):
 * by asset, by vendor or product (the asset's nameplate or the deciding range's names, case-insensitive substring),
 * by the CVSS vector's attack vector, severity, correlation status, KEV, and the current decision ('none': undecided).
 */
export async function bulkTargets(
  db: Conn,
  orgId: number,
  environmentId: number,
  f: BulkFilter,
  max: number,
): Promise<string[]> {
  const where = [sql`a.org_id = ${orgId}`, sql`a.environment_id = ${environmentId}`];
  if (f.cve_ids?.length) where.push(sql`c->>'cve_id' = ANY(${f.cve_ids}::text[])`);
  if (f.asset_ids?.length) where.push(sql`a.asset_id = ANY(${f.asset_ids}::text[])`);
  if (f.vendor)
    where.push(sql`(a.asset->>'vendor' ILIKE ${like(f.vendor)} OR c->'range'->>'vendor' ILIKE ${like(f.vendor)})`);
  if (f.product)
    where.push(sql`(a.asset->>'product' ILIKE ${like(f.product)} OR c->'range'->>'product' ILIKE ${like(f.product)})`);
  if (f.attack_vector) where.push(sql`(c->'cvss'->>'vector') ~ ${`(^|/)AV:${f.attack_vector}(/|$)`}`);
  if (f.severity?.length)
    where.push(sql`lower(coalesce(c->>'severity', 'none')) = ANY(${f.severity.map((s) => s.toLowerCase())}::text[])`);
  if (f.correlation_status?.length) where.push(sql`c->>'status' = ANY(${f.correlation_status}::text[])`);
  if (f.known_exploited !== undefined) where.push(sql`(c->>'known_exploited')::boolean = ${f.known_exploited}`);
  let decided = sql``;
  if (f.decision?.length) {
    const statuses = f.decision.filter((s) => s !== 'none');
    const none = f.decision.includes('none');
    decided = sql`AND (${none ? sql`d.status IS NULL` : sql`false`} OR d.status = ANY(${statuses}::text[]))`;
  }
  const r = await sql<{ cve_id: string }>`SELECT t.cve_id FROM (
      SELECT DISTINCT c->>'cve_id' AS cve_id FROM asset_correlations a, jsonb_array_elements(a.result->'cves') c
      WHERE ${sql.join(where, sql` AND `)}) t
    LEFT JOIN triage_decisions d ON d.org_id = ${orgId} AND d.environment_id = ${environmentId} AND d.cve_id = t.cve_id
    WHERE true ${decided}
    ORDER BY t.cve_id COLLATE "C" LIMIT ${max}`.execute(db);
  return r.rows.map((x) => x.cve_id);
}
