// Triage decisions and their append-only trail (migration 1400, docs/triage.md). Every write goes through
// writeDecisions / clearDecision inside the caller's transaction: the decision rows and their history rows are
// written together, so no change is ever stored without its trail.
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import type { DecisionFields, DecisionStatus } from '../domain/triage.ts';
import type { VendorStatement } from '../domain/records.ts';
import type { StatedAdvisory } from '../domain/vendor-statements.ts';

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

const SELECT_DECISION = sql`d.environment_id::float8 AS environment_id, d.cve_id, d.status, d.justification, d.impact_statement,
  d.action_statement, to_char(d.due_date, 'YYYY-MM-DD') AS due_date, d.asset_ids, d.assignee_member_id::float8 AS assignee_member_id,
  m.email AS assignee_email, m.name AS assignee_name, d.review_reasons, d.review_since, d.version, d.source, d.created_at, d.updated_at,
  d.updated_by_member::float8 AS updated_by_member, d.updated_by_key::float8 AS updated_by_key`;

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
const UPSERT_SET = sql`status = EXCLUDED.status, justification = EXCLUDED.justification,
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

/** Which of the ids are members of the organization. */
export async function membersOf(db: Conn, orgId: number, ids: readonly number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const r = await sql<{
    id: number;
  }>`SELECT id::float8 AS id FROM members WHERE org_id = ${orgId} AND id = ANY(${ids}::bigint[])`.execute(db);
  return new Set(r.rows.map((x) => x.id));
}

/** Which of the asset ids are stored in the environment (v1 correlated assets or v2 Windows hosts). */
export async function storedAssetIds(
  db: Conn,
  orgId: number,
  environmentId: number,
  ids: readonly string[],
): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const r = await sql<{
    asset_id: string;
  }>`SELECT asset_id FROM asset_correlations WHERE org_id = ${orgId} AND environment_id = ${environmentId} AND asset_id = ANY(${ids}::text[])
    UNION SELECT asset_id FROM windows_host_results WHERE org_id = ${orgId} AND environment_id = ${environmentId} AND asset_id = ANY(${ids}::text[])`.execute(
    db,
  );
  return new Set(r.rows.map((x) => x.asset_id));
}

/** Which of the CVE ids the corpus holds. */
export async function knownCves(db: Conn, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const r = await sql<{ cve_id: string }>`SELECT cve_id FROM cves WHERE cve_id = ANY(${ids}::text[])`.execute(db);
  return new Set(r.rows.map((x) => x.cve_id));
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

/** The environment's assets with what VEX products are made of (exports). */
export async function environmentProducts(
  db: Conn,
  orgId: number,
  environmentId: number,
): Promise<
  {
    asset_id: string;
    vendor: string | null;
    product: string | null;
    version: string | null;
    cpe: string | null;
    kind: 'asset' | 'windows_host';
  }[]
> {
  const r = await sql<{
    asset_id: string;
    vendor: string | null;
    product: string | null;
    version: string | null;
    cpe: string | null;
    kind: 'asset' | 'windows_host';
  }>`
    SELECT * FROM (SELECT asset_id, asset->>'vendor' AS vendor, asset->>'product' AS product, asset->>'version' AS version, asset->>'cpe' AS cpe, 'asset' AS kind
      FROM asset_correlations WHERE org_id = ${orgId} AND environment_id = ${environmentId}
    UNION ALL
    SELECT asset_id, 'Microsoft', host->>'os_product', host->>'os_build', NULL, 'windows_host'
      FROM windows_host_results WHERE org_id = ${orgId} AND environment_id = ${environmentId}) p
    ORDER BY asset_id COLLATE "C"`.execute(db);
  return r.rows;
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

/** The name of the organization's environment, or null when it has none of this id. */
export async function environmentName(db: Conn, orgId: number, id: number): Promise<string | null> {
  const r = await db
    .selectFrom('environments')
    .select('name')
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
  return r?.name ?? null;
}

/** The vendor statements CSAF advisories make about these CVEs (cve_sources), by CVE, oldest advisory first. */
export async function vendorStatementsOf(db: Conn, cveIds: readonly string[]): Promise<Map<string, StatedAdvisory[]>> {
  const out = new Map<string, StatedAdvisory[]>();
  if (!cveIds.length) return out;
  const r = await sql<{
    cve_id: string;
    advisory_id: string;
    title: string | null;
    url: string | null;
    statements: VendorStatement[];
  }>`
    SELECT cve_id, source_key AS advisory_id, record->'advisory'->>'title' AS title, record->'advisory'->>'url' AS url,
      record->'vendor_statements' AS statements
    FROM cve_sources WHERE source = 'csaf' AND cve_id = ANY(${cveIds}::text[]) AND record->'vendor_statements' IS NOT NULL
    ORDER BY cve_id, record->'advisory'->>'published' NULLS LAST, source_key`.execute(db);
  for (const x of r.rows) {
    const list = out.get(x.cve_id) ?? [];
    list.push({ advisory_id: x.advisory_id, title: x.title ?? x.advisory_id, url: x.url, statements: x.statements });
    out.set(x.cve_id, list);
  }
  return out;
}
