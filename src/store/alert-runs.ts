// The alert run's runs and windows (migration 0922; docs/alerts.md): the lock one run holds, a run opened over the
// changes since the last completed one and closed with its count, and the window's changed CVEs.
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import type { ChangeKind } from '../domain/changes.ts';

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
