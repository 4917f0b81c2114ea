// Atom feeds (docs/feeds.md): the CVEs whose changes a feed shows, their recent changes, and the feed tokens.
// SQL only.
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import { interestOf } from './watchlists.ts';
import type { ChangeRow } from './changes.ts';

export interface FeedCve {
  cve_id: string;
  title: string;
  severity: string | null;
  cvss_score: number | null;
  kev_flagged: boolean;
  /** Feed position and time of its newest recorded change. */
  seq: number;
  changed_at: string;
}

const AT = (col: string) => sql.raw(`to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

/** The vendor's CVEs by their newest recorded change, newest first (the GIN index on vendor_slugs finds them). */
export async function vendorFeedCves(db: Db, slug: string, limit: number): Promise<FeedCve[]> {
  const r = await sql<FeedCve>`
    SELECT c.cve_id, c.title, c.severity, c.cvss_score, c.kev_flagged, l.seq, ${AT('l.changed_at')} AS changed_at
    FROM cves c
    CROSS JOIN LATERAL (SELECT seq, changed_at FROM cve_changes ch WHERE ch.cve_id = c.cve_id ORDER BY seq DESC LIMIT 1) l
    WHERE c.vendor_slugs @> ARRAY[${slug}]::text[]
    ORDER BY l.seq DESC LIMIT ${limit}`.execute(db);
  return r.rows.map((x) => ({ ...x, seq: Number(x.seq) }));
}

/**
 * The organization's CVEs of interest (watch entries and stored assets, `interestOf`) among the newest `window`
 * recorded changes, by their newest change, newest first. The window bounds the cost of one feed read.
 */
export async function watchlistFeedCves(db: Db, orgId: number, window: number, limit: number): Promise<FeedCve[]> {
  const r = await sql<FeedCve>`
    WITH recent AS (SELECT cve_id, max(seq) AS seq, max(changed_at) AS changed_at
                    FROM (SELECT cve_id, seq, changed_at FROM cve_changes ORDER BY seq DESC LIMIT ${window}) w GROUP BY cve_id)
    SELECT c.cve_id, c.title, c.severity, c.cvss_score, c.kev_flagged, r.seq, ${AT('r.changed_at')} AS changed_at
    FROM recent r JOIN cves c ON c.cve_id = r.cve_id
    WHERE ${interestOf(orgId)}
    ORDER BY r.seq DESC LIMIT ${limit}`.execute(db);
  return r.rows.map((x) => ({ ...x, seq: Number(x.seq) }));
}

/** The newest `perCve` changes of each CVE, newest first. */
export async function recentChangesOf(db: Db, cveIds: string[], perCve: number): Promise<ChangeRow[]> {
  if (cveIds.length === 0) return [];
  const r = await sql<ChangeRow>`
    SELECT seq, cve_id, kind, before, after, ${AT('changed_at')} AS changed_at FROM (
      SELECT ch.*, row_number() OVER (PARTITION BY cve_id ORDER BY seq DESC) AS n
      FROM cve_changes ch WHERE cve_id = ANY(${cveIds}::text[])) x
    WHERE n <= ${perCve} ORDER BY seq DESC`.execute(db);
  return r.rows.map((x) => ({ ...x, seq: Number(x.seq) }));
}

// ---- tokens ----

export interface FeedTokenRow {
  id: number;
  label: string | null;
  token_start: string;
  created_at: Date;
  revoked_at: Date | null;
}

export async function insertFeedToken(
  db: Db | Tx,
  orgId: number,
  memberId: number | null,
  v: { label: string | null; hash: string; start: string },
): Promise<FeedTokenRow> {
  const r = await sql<FeedTokenRow>`INSERT INTO feed_tokens (org_id, created_by, label, token_hash, token_start)
    VALUES (${orgId}, ${memberId}, ${v.label}, ${v.hash}, ${v.start})
    RETURNING id, label, token_start, created_at, revoked_at`.execute(db);
  return { ...r.rows[0], id: Number(r.rows[0].id) };
}

export async function listFeedTokens(db: Db | Tx, orgId: number): Promise<FeedTokenRow[]> {
  const r = await sql<FeedTokenRow>`SELECT id, label, token_start, created_at, revoked_at FROM feed_tokens
    WHERE org_id = ${orgId} ORDER BY created_at, id`.execute(db);
  return r.rows.map((x) => ({ ...x, id: Number(x.id) }));
}

/** Revokes one of the organization's tokens (idempotent); undefined when it has no such token. */
export async function revokeFeedToken(db: Db, orgId: number, id: number, now: Date): Promise<FeedTokenRow | undefined> {
  const r = await sql<FeedTokenRow>`UPDATE feed_tokens SET revoked_at = coalesce(revoked_at, ${now})
    WHERE org_id = ${orgId} AND id = ${id} RETURNING id, label, token_start, created_at, revoked_at`.execute(db);
  return r.rows[0] ? { ...r.rows[0], id: Number(r.rows[0].id) } : undefined;
}

/** The organization of a live token: unrevoked, organization active. */
export async function orgOfFeedToken(db: Db, hash: string): Promise<{ org_id: number; org_name: string } | undefined> {
  const r = await sql<{ org_id: number; org_name: string }>`
    SELECT o.id AS org_id, o.name AS org_name FROM feed_tokens t JOIN organizations o ON o.id = t.org_id
    WHERE t.token_hash = ${hash} AND t.revoked_at IS NULL AND o.status = 'active'`.execute(db);
  return r.rows[0] ? { ...r.rows[0], org_id: Number(r.rows[0].org_id) } : undefined;
}
