// CVE change history (migration 0921; docs/watchlists.md "Change history"): the stored facts the import compares
// against, the recorded changes, and the two reads (per CVE, and the corpus feed by position).
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import { factsOf, type ChangeFacts, type ChangeKind, type FactSource } from '../domain/changes.ts';

type Conn = Db | Tx;

/** Advisory lock key of the feed positions (see migration 0921). */
const FEED_LOCK = 0x76694348; // 'viCH'

/** The five sub-objects of a stored document (row `c`) the change rules read (domain/changes.ts FactSource). */
export const FACT_SOURCE = sql<FactSource>`jsonb_build_object('severity', c.doc->'severity', 'scoring', c.doc->'scoring',
  'exploitation', c.doc->'exploitation', 'patch', c.doc->'patch', 'references', jsonb_build_object(
    'vendor_advisories', c.doc->'references'->'vendor_advisories', 'cisa_ics_advisories', c.doc->'references'->'cisa_ics_advisories'))`;

/**
 * The change-relevant facts of the stored documents of `ids` (absent ids are not in the corpus). Reads only the
 * five sub-objects the rules look at, not the whole document.
 */
export async function storedFacts(db: Conn, ids: string[]): Promise<Map<string, ChangeFacts>> {
  const out = new Map<string, ChangeFacts>();
  if (!ids.length) return out;
  const r = await sql<{
    cve_id: string;
    s: FactSource;
  }>`SELECT c.cve_id, ${FACT_SOURCE} AS s FROM cves c WHERE c.cve_id = ANY(${ids}::text[])`.execute(db);
  for (const row of r.rows) out.set(row.cve_id, factsOf(row.s));
  return out;
}

export interface ChangeInput {
  cve_id: string;
  kind: ChangeKind;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/**
 * Records changes inside the caller's transaction. Call it LAST before commit: it takes the feed lock (held to
 * commit), so feed positions become visible in order; anything slow after it would hold up the other writer.
 */
export async function recordChanges(tx: Tx, rows: ChangeInput[], runId: number | null): Promise<number> {
  if (!rows.length) return 0;
  await sql`SELECT pg_advisory_xact_lock(${FEED_LOCK})`.execute(tx);
  const r = await sql`
    INSERT INTO cve_changes (seq, cve_id, kind, before, after, run_id)
    SELECT nextval('cve_changes_seq'), e.v->>'cve_id', e.v->>'kind', nullif(e.v->'before', 'null'), nullif(e.v->'after', 'null'), ${runId}::bigint
    FROM (SELECT v, n FROM jsonb_array_elements(${JSON.stringify(rows)}::jsonb) WITH ORDINALITY AS x(v, n) ORDER BY n) e`.execute(
    tx,
  );
  return Number(r.numAffectedRows ?? rows.length);
}

export interface ChangeRow {
  seq: number;
  cve_id: string;
  kind: ChangeKind;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  changed_at: string;
}

const ROW = sql`seq, cve_id, kind, before, after, to_char(changed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS changed_at`;

function rows(r: { rows: ChangeRow[] }): ChangeRow[] {
  return r.rows.map((x) => ({ ...x, seq: Number(x.seq) }));
}

/** One CVE's changes, newest first. */
export async function cveHistory(
  db: Conn,
  cveId: string,
  limit: number,
  offset: number,
): Promise<{ total: number; items: ChangeRow[] }> {
  const [items, n] = await Promise.all([
    sql<ChangeRow>`SELECT ${ROW} FROM cve_changes WHERE cve_id = ${cveId} ORDER BY seq DESC LIMIT ${limit} OFFSET ${offset}`.execute(
      db,
    ),
    sql<{ n: number }>`SELECT count(*)::int AS n FROM cve_changes WHERE cve_id = ${cveId}`.execute(db),
  ]);
  return { total: n.rows[0].n, items: rows(items) };
}

/**
 * The corpus feed: changes after position `after` (exclusive), recorded at or after `since`, oldest first, at most
 * `limit` (one more is read to learn whether more follow).
 */
export async function changeFeed(
  db: Conn,
  q: { since: Date | null; after: string; kinds: string[] | null; limit: number },
): Promise<{ items: ChangeRow[]; more: boolean }> {
  // The position as given (decimal digits): a number would round one beyond 2^53 (999999999999999999 → 1e18).
  const where = [sql`seq > ${q.after}::bigint`];
  if (q.since) {
    // Positions follow commit order and times follow transaction start: close, not equal. The start position
    // comes from the time index, so a recent `since` does not walk the feed from its beginning.
    where.push(
      sql`seq >= (SELECT coalesce(min(seq), 0) FROM cve_changes WHERE changed_at >= ${q.since})`,
      sql`changed_at >= ${q.since}`,
    );
  }
  if (q.kinds) where.push(sql`kind = ANY(${q.kinds}::text[])`);
  const r = await sql<ChangeRow>`SELECT ${ROW} FROM cve_changes WHERE ${sql.join(where, sql` AND `)}
    ORDER BY seq LIMIT ${q.limit + 1}`.execute(db);
  const all = rows(r);
  return { items: all.slice(0, q.limit), more: all.length > q.limit };
}

export async function cveInCorpus(db: Conn, cveId: string): Promise<boolean> {
  const r = await sql<{ x: number }>`SELECT 1 AS x FROM cves WHERE cve_id = ${cveId}`.execute(db);
  return r.rows.length > 0;
}
