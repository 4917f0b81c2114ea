// The asset checks of trial and partner keys (spec §7/§8; docs/correlation.md §7): a trial organization's checks in
// trial_usage, a partner key's per calendar month (UTC) in partner_usage. Each charge is one conditional statement,
// so parallel calls never pass the limit together; a refused charge counts nothing.
import { sql } from './kysely.ts';
import type { Db } from './db.ts';

/**
 * Adds `n` checks to the organization's trial unless that passes `limit` or the trial has ended; a trial key
 * issued without its record (the operator CLI always writes one) starts a fresh record. Refused: the checks used
 * (null when there is no record).
 */
export async function chargeTrialChecks(
  db: Db,
  orgId: number,
  n: number,
  limit: number,
): Promise<{ charged: true } | { charged: false; used: number | null }> {
  const r = await sql<{ used: number }>`
    INSERT INTO trial_usage AS t (org_id, used) SELECT ${orgId}, ${n}::int WHERE ${n}::int <= ${limit}
    ON CONFLICT (org_id) DO UPDATE SET used = t.used + EXCLUDED.used WHERE t.ended_at IS NULL AND t.used + EXCLUDED.used <= ${limit}
    RETURNING used`.execute(db);
  if (r.rows.length) return { charged: true };
  const cur = await sql<{ used: number }>`SELECT used FROM trial_usage WHERE org_id = ${orgId}`.execute(db);
  return { charged: false, used: cur.rows[0]?.used ?? null };
}

/** Gives `n` trial checks back (never below zero). */
export async function refundTrialChecks(db: Db, orgId: number, n: number): Promise<void> {
  await sql`UPDATE trial_usage SET used = greatest(0, used - ${n}) WHERE org_id = ${orgId}`.execute(db);
}

/** The partner key's own monthly limit (api_keys.monthly_asset_limit), or null when it has none. */
export async function partnerMonthlyLimit(db: Db, keyId: number): Promise<number | null> {
  const r = await sql<{ l: number | null }>`SELECT monthly_asset_limit AS l FROM api_keys WHERE id = ${keyId}`.execute(
    db,
  );
  return r.rows[0]?.l ?? null;
}

/** Adds `n` checks to the key's month (`month`: its first day) unless that passes `limit`. Refused: the checks used. */
export async function chargePartnerChecks(
  db: Db,
  keyId: number,
  month: string,
  n: number,
  limit: number,
): Promise<{ charged: true } | { charged: false; used: number }> {
  const r = await sql<{ used: number }>`
    INSERT INTO partner_usage AS u (key_id, month, used) SELECT ${keyId}, ${month}::date, ${n}::int WHERE ${n}::int <= ${limit}::int
    ON CONFLICT (key_id, month) DO UPDATE SET used = u.used + EXCLUDED.used WHERE u.used + EXCLUDED.used <= ${limit}::int
    RETURNING used`.execute(db);
  if (r.rows.length) return { charged: true };
  const cur = await sql<{
    used: number;
  }>`SELECT used FROM partner_usage WHERE key_id = ${keyId} AND month = ${month}::date`.execute(db);
  return { charged: false, used: cur.rows[0]?.used ?? 0 };
}

/** Gives `n` of the key's checks of `month` back (never below zero). */
export async function refundPartnerChecks(db: Db, keyId: number, month: string, n: number): Promise<void> {
  await sql`UPDATE partner_usage SET used = greatest(0, used - ${n}) WHERE key_id = ${keyId} AND month = ${month}::date`.execute(
    db,
  );
}
