// The stored alerts of a run (migrations 0922, 1060; docs/alerts.md): the rows shared by a CVE's alerts, then the
// alerts of each organization, written so that a resumed run completes what a dead one left.
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';

type Conn = Db | Tx;

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
