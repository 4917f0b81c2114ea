// The alert run's SQL (migration 0922; docs/alerts.md): runs and their windows, the matching of a window's changed
// CVEs against every active organization's watchlist, and the stored alerts.
import type { RawBuilder } from 'kysely';
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import type { ChangeKind } from '../domain/changes.ts';
import type { WatchEntityType } from '../domain/watchlist.ts';
import type { ExploitMaturity } from '../domain/cve-document.ts';
import type { DeliveryStatus, SagePriority } from '../domain/alerts.ts';
import type { EnvAsset, EnvHost } from '../domain/asset-alerts.ts';
import type { AssetRecord } from '../domain/assets.ts';
import type { RangeRow } from '../domain/correlate.ts';
import { expandGroup, type StoredGroup } from '../domain/range-groups.ts';
import type { WindowsHost } from '../domain/windows/host-record.ts';

type Conn = Db | Tx;

const ALERT_LOCK = 0x76694152; // 'viAR'

/** Runs fn holding the alert-run lock on one connection; `ran: false` when another run holds it. */
export async function withAlertLock<T>(
  db: Db,
  fn: (conn: Db) => Promise<T>,
): Promise<{ ran: true; value: T } | { ran: false }> {
  return db.connection().execute(async (conn) => {
    const r = await sql<{ ok: boolean }>`SELECT pg_try_advisory_lock(${ALERT_LOCK}) AS ok`.execute(conn);
    if (!r.rows[0]?.ok) return { ran: false as const };
    try {
      return { ran: true as const, value: await fn(conn) };
    } finally {
      await sql`SELECT pg_advisory_unlock(${ALERT_LOCK})`.execute(conn).catch(() => undefined);
    }
  });
}

export interface RunRow {
  id: number;
  from_seq: number;
  to_seq: number;
  status: string;
}

const runRow = (r: RunRow): RunRow => ({
  ...r,
  id: Number(r.id),
  from_seq: Number(r.from_seq),
  to_seq: Number(r.to_seq),
});

/** The run left in progress by a process that died, if any (call holding the lock). */
export async function unfinishedRun(db: Conn): Promise<RunRow | null> {
  const r = await sql<RunRow>`SELECT id, from_seq, to_seq, status FROM alert_runs WHERE status = 'running'`.execute(db);
  return r.rows[0] ? runRow(r.rows[0]) : null;
}

/** Opens a run over (end of the last completed run, newest change]. */
export async function openRun(db: Conn, trigger: 'schedule' | 'cli'): Promise<RunRow> {
  const r = await sql<RunRow>`
    INSERT INTO alert_runs (from_seq, to_seq, trigger)
    SELECT f.s, greatest(f.s, coalesce((SELECT max(seq) FROM cve_changes), 0)), ${trigger}
    FROM (SELECT coalesce(max(to_seq), 0) AS s FROM alert_runs WHERE status = 'completed') f
    RETURNING id, from_seq, to_seq, status`.execute(db);
  return runRow(r.rows[0]);
}

/** Closes a run; its alert count is what it stored, across resumptions. */
export async function completeRun(db: Conn, id: number, changes: number): Promise<number> {
  const r = await sql<{
    alerts: number;
  }>`UPDATE alert_runs SET status = 'completed', finished_at = now(), changes = ${changes},
    alerts = (SELECT count(*) FROM alerts WHERE run_id = ${id}) WHERE id = ${id} RETURNING alerts`.execute(db);
  return r.rows[0].alerts;
}

/** CVE ids with changes in the window that can alert (a CVE that left the corpus cannot), in order. */
export async function windowCves(db: Conn, run: RunRow): Promise<string[]> {
  const r = await sql<{
    cve_id: string;
  }>`SELECT DISTINCT ch.cve_id FROM cve_changes ch JOIN cves c ON c.cve_id = ch.cve_id
    WHERE ch.seq > ${run.from_seq} AND ch.seq <= ${run.to_seq} AND ch.kind <> 'cve_removed' ORDER BY ch.cve_id`.execute(
    db,
  );
  return r.rows.map((x) => x.cve_id);
}

export interface WindowChange {
  cve_id: string;
  seq: number;
  kind: ChangeKind;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  changed_at: Date;
}

export async function windowChanges(db: Conn, run: RunRow, ids: string[]): Promise<WindowChange[]> {
  const r = await sql<WindowChange>`SELECT cve_id, seq, kind, before, after, changed_at FROM cve_changes
    WHERE seq > ${run.from_seq} AND seq <= ${run.to_seq} AND cve_id = ANY(${ids}::text[]) AND kind <> 'cve_removed' ORDER BY seq`.execute(
    db,
  );
  return r.rows.map((x) => ({ ...x, seq: Number(x.seq) }));
}

export interface WatchHit {
  org_id: number;
  cve_id: string;
  entity_type: WatchEntityType;
  entity_key: string;
  entity_name: string | null;
}

/**
 * Every active organization's watch entries that match the given CVEs, by equality on keys the CVE yields (its
 * vendor slugs, its catalog product ids from `cve_product_keys`, its protocols and its own id), through the
 * (entity_type, entity_key) index: the cost follows the hits, not organizations × entries.
 */
export async function watchHits(db: Conn, ids: string[]): Promise<WatchHit[]> {
  const r = await sql<WatchHit>`
    WITH t AS (
      SELECT c.cve_id, c.vendor_slugs, c.protocols FROM cves c WHERE c.cve_id = ANY(${ids}::text[])
    ), keys AS (
      SELECT cve_id, 'vendor' AS kind, unnest(vendor_slugs) AS k FROM t
      UNION ALL SELECT cve_id, 'protocol', unnest(protocols) FROM t
      UNION ALL SELECT cve_id, 'cve', cve_id FROM t
      -- Catalog product ids (domain/watchlist.ts cveProductKeys): an id stands for itself, a key stored alone (the
      -- compact form) for itself under each of the CVE's vendors. (A vendor alone, '<slug>/', names no watchable id.)
      UNION ALL SELECT t.cve_id, 'product', CASE WHEN strpos(x, '/') > 0 THEN x ELSE v || '/' || x END
        FROM t JOIN cve_product_keys pk ON pk.cve_id = t.cve_id CROSS JOIN LATERAL unnest(pk.keys) x
        CROSS JOIN LATERAL (SELECT v FROM unnest(t.vendor_slugs) v WHERE strpos(x, '/') = 0 UNION ALL SELECT NULL WHERE strpos(x, '/') > 0) vs
    )
    SELECT w.org_id, k.cve_id, w.entity_type, w.entity_key,
      CASE w.entity_type
        WHEN 'vendor' THEN (SELECT v.name FROM vendors v WHERE v.slug = w.entity_key)
        WHEN 'product' THEN (SELECT vi_product_phrase(coalesce(v.name, p.vendor_slug), p.name) FROM products p LEFT JOIN vendors v ON v.slug = p.vendor_slug
          WHERE p.vendor_slug = split_part(w.entity_key, '/', 1) AND p.product_key = split_part(w.entity_key, '/', 2))
        ELSE NULL
      END AS entity_name
    FROM (SELECT DISTINCT cve_id, kind, k FROM keys) k
    JOIN watchlist_entries w ON w.entity_type = k.kind AND w.entity_key = k.k
    JOIN organizations o ON o.id = w.org_id AND o.status = 'active'
    ORDER BY w.org_id, k.cve_id`.execute(db);
  return r.rows.map((x) => ({ ...x, org_id: Number(x.org_id) }));
}

/** The current facts and payload fields of the given CVEs. */
export interface AlertCve {
  cve_id: string;
  title: string;
  cvss_score: number | null;
  cvss_vector: string | null;
  patch_status: string;
  kev_flagged: boolean;
  epss_score: number | null;
  epss_percentile: number | null;
  bcs_score: number;
  exploit_maturity: ExploitMaturity;
  patch_available: boolean;
  published_at: string | null;
  executive_summary: string | null;
  mitigation: string | null;
}

export async function alertCves(db: Conn, ids: string[]): Promise<Map<string, AlertCve>> {
  const r = await sql<AlertCve>`SELECT c.cve_id, c.title, (c.doc->'scoring'->'cvss'->>'score')::float8 AS cvss_score,
      c.doc->'scoring'->'cvss'->>'vector' AS cvss_vector, c.patch_status, c.kev_flagged,
      (c.doc->'scoring'->'epss'->>'score')::float8 AS epss_score, (c.doc->'scoring'->'epss'->>'percentile')::float8 AS epss_percentile,
      (c.doc->'scoring'->'bcs'->>'score')::float8 AS bcs_score, c.exploit_maturity, (c.doc->'patch'->>'patch_available')::boolean AS patch_available,
      c.doc->'temporal'->>'published_at' AS published_at, c.doc->'sage'->>'executive_summary' AS executive_summary,
      c.doc->'sage'->>'remediation_guidance' AS mitigation
    FROM cves c WHERE c.cve_id = ANY(${ids}::text[])`.execute(db);
  return new Map(r.rows.map((x) => [x.cve_id, x]));
}

/** The part of a run's alerts for one CVE that is the same for every organization (alert_cves, migration 1060). */
export interface AlertCveInsert {
  cve_id: string;
  reasons: string[];
  change_kinds: string[];
  stamp: string;
  data: Record<string, unknown>;
}

/** What one alert stores of its own; the rest of its payload is its CVE's row (alert_view composes them). */
export interface AlertInsert {
  org_id: number;
  cve_id: string;
  sage_priority: string;
  match_type: string;
  match_name: string;
  /** NULL when the list is the best match alone (alert_view rebuilds it). */
  matches: unknown[] | null;
  assets_affected: number;
  assets_review: number;
}

/** Alerts per INSERT statement: the JSON of one statement stays about a megabyte. */
const INSERT_BATCH = 2500;

/**
 * Stores the shared rows of a chunk's alerted CVEs; a row the run already stored (a resumed run) is left as it is.
 * Call before storing the chunk's alerts, and let it commit first: an alert is never visible without its CVE row.
 */
export async function insertAlertCves(db: Conn, runId: number, cves: AlertCveInsert[]): Promise<void> {
  if (!cves.length) return;
  await sql`INSERT INTO alert_cves (run_id, cve_id, reasons, change_kinds, stamp, data)
    SELECT ${runId}::bigint, e.cve_id, e.reasons, e.change_kinds, e.stamp, e.data
    FROM jsonb_to_recordset(${JSON.stringify(cves)}::jsonb) AS e(cve_id text, reasons text[], change_kinds text[], stamp text, data jsonb)
    ON CONFLICT (run_id, cve_id) DO NOTHING`.execute(db);
}

/**
 * Stores alerts of a run, a statement per INSERT_BATCH; an alert the run already stored (a resumed run) is left as
 * it is. Each statement commits on its own unless db is a transaction: a run that dies midway leaves a prefix of a
 * chunk, which its resumption completes. Returns how many were new.
 */
export async function insertAlerts(db: Conn, runId: number, rows: AlertInsert[]): Promise<number> {
  let n = 0;
  for (let i = 0; i < rows.length; i += INSERT_BATCH) {
    const r = await sql`
      INSERT INTO alerts (org_id, run_id, cve_id, sage_priority, match_type, match_name, matches, assets_affected, assets_review)
      SELECT e.org_id, ${runId}::bigint, e.cve_id, e.sage_priority, e.match_type, e.match_name, e.matches, e.assets_affected, e.assets_review
      FROM jsonb_to_recordset(${JSON.stringify(rows.slice(i, i + INSERT_BATCH))}::jsonb) AS e(org_id bigint, cve_id text, sage_priority text,
        match_type text, match_name text, matches jsonb, assets_affected int, assets_review int)
      ON CONFLICT (run_id, org_id, cve_id) DO NOTHING`.execute(db);
    n += Number(r.numAffectedRows ?? 0);
  }
  return n;
}

// ---- reads (GET /api/v1/alerts) ----

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

// ---- delivery (docs/alerts.md "Delivery") ----

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

// ---- environment assets (docs/alerts.md "Asset matches") ----

/**
 * Every active organization's stored environment assets: the v1 assets of correlate-cves with environment_id, and
 * the v2 Windows hosts stored with an environment. Read once per run.
 */
export async function environmentAssets(db: Conn): Promise<{ assets: EnvAsset[]; hosts: EnvHost[] }> {
  const [a, h] = await Promise.all([
    sql<{ org_id: string; environment: string } & AssetRecord>`SELECT ac.org_id, e.name AS environment, ac.asset_id,
        ac.asset->>'vendor' AS vendor, ac.asset->>'product' AS product, ac.asset->>'version' AS version, ac.asset->>'cpe' AS cpe
      FROM asset_correlations ac JOIN environments e ON e.id = ac.environment_id JOIN organizations o ON o.id = ac.org_id AND o.status = 'active'`.execute(
      db,
    ),
    sql<{
      org_id: string;
      environment: string;
      asset_id: string;
      host: WindowsHost;
    }>`SELECT w.org_id, e.name AS environment, w.asset_id, w.host
      FROM windows_host_results w JOIN environments e ON e.id = w.environment_id JOIN organizations o ON o.id = w.org_id AND o.status = 'active'`.execute(
      db,
    ),
  ]);
  return {
    assets: a.rows.map((r) => ({
      org_id: Number(r.org_id),
      environment: r.environment,
      asset_id: r.asset_id,
      vendor: r.vendor,
      product: r.product,
      version: r.version,
      cpe: r.cpe,
    })),
    hosts: h.rows.map((r) => ({
      org_id: Number(r.org_id),
      environment: r.environment,
      asset_id: r.asset_id,
      host: r.host,
    })),
  };
}

/** Whether an active organization has a Windows host stored in an environment (the run would evaluate it). */
export async function hasEnvironmentHosts(db: Conn): Promise<boolean> {
  const r = await sql<{
    x: boolean;
  }>`SELECT EXISTS (SELECT 1 FROM windows_host_results w JOIN organizations o ON o.id = w.org_id AND o.status = 'active'
    WHERE w.environment_id IS NOT NULL) AS x`.execute(db);
  return r.rows[0].x;
}

/** The stored ranges of the given CVEs, and those of them in Microsoft's data (msrc_fixes). */
export async function cveProducts(
  db: Conn,
  ids: string[],
): Promise<{ ranges: (RangeRow & { cve_id: string })[]; msrc: string[] }> {
  const [r, m] = await Promise.all([
    sql<
      StoredGroup & { cve_id: string }
    >`SELECT cve_id, ord, source, source_key, vendor_slug, product_key, cpe_vendor, cpe_product, base_key, ranges
      FROM cve_ranges WHERE cve_id = ANY(${ids}::text[])`.execute(db),
    sql<{ cve_id: string }>`SELECT DISTINCT cve_id FROM msrc_fixes WHERE cve_id = ANY(${ids}::text[])`.execute(db),
  ]);
  return { ranges: r.rows.flatMap((g) => expandGroup(g)), msrc: m.rows.map((x) => x.cve_id) };
}
