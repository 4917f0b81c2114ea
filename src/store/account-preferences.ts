// Notification preferences, plan-cap overrides and the usage counts of /account/usage (migration 0820). SQL only.
import { sql } from './kysely.ts';
import type { Selectable } from 'kysely';
import type { Db, Tx } from './db.ts';
import type { NotificationPreferences } from './db-schema/identity.ts';
import type { Member } from './training.ts';

const PREF_COLUMNS = ['email_enabled', 'min_severity', 'min_bcs', 'kev_only', 'delivery', 'updated_at'] as const;

/** min_bcs is numeric(3,1), read as a number (the numeric type parser in db.ts). */
export type NotificationPrefsRow = Pick<Selectable<NotificationPreferences>, (typeof PREF_COLUMNS)[number]>;

export async function getNotificationPrefs(db: Db, m: Member): Promise<NotificationPrefsRow | undefined> {
  return db
    .selectFrom('notification_preferences')
    .select(PREF_COLUMNS)
    .where('org_id', '=', m.orgId)
    .where('member_id', '=', m.memberId)
    .executeTakeFirst();
}

export async function putNotificationPrefs(
  db: Db,
  m: Member,
  p: Omit<NotificationPrefsRow, 'updated_at'>,
  now: Date,
): Promise<NotificationPrefsRow> {
  const values = { ...p, updated_at: now };
  return db
    .insertInto('notification_preferences')
    .values({ org_id: m.orgId, member_id: m.memberId, ...values })
    .onConflict((oc) => oc.columns(['org_id', 'member_id']).doUpdateSet(values))
    .returning(PREF_COLUMNS)
    .executeTakeFirstOrThrow();
}

/**
 * What the organization holds: environments, distinct stored asset ids (Windows results) and members, pending
 * invitations included (a pending invitation holds a seat: the count the team invite enforces).
 */
export async function usageCounts(
  db: Db,
  orgId: number,
  now: Date,
): Promise<{ environments: number; assets: number; members: number; webhooks: number }> {
  const r = await sql<{ environments: number; assets: number; members: number; webhooks: number }>`
    SELECT (SELECT count(*)::int FROM environments WHERE org_id = ${orgId}) AS environments,
           (SELECT count(*)::int FROM webhooks WHERE org_id = ${orgId}) AS webhooks,
           (SELECT count(*)::int FROM (${storedAssetIds(orgId)}) a) AS assets,
           (SELECT count(*)::int FROM members WHERE org_id = ${orgId})
             + (SELECT count(*)::int FROM invitations WHERE org_id = ${orgId} AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ${now}) AS members`.execute(
    db,
  );
  return r.rows[0];
}

/** The distinct asset_ids an organization has stored: v2 Windows hosts and v1 correlated assets, any environment. */
function storedAssetIds(orgId: number) {
  return sql`SELECT asset_id FROM windows_host_results WHERE org_id = ${orgId}
    UNION SELECT asset_id FROM asset_correlations WHERE org_id = ${orgId}`;
}

/** How many assets are stored, and how many of `assetIds` (distinct) would be new (the asset cap). */
export async function assetCounts(
  db: Db | Tx,
  orgId: number,
  assetIds: readonly string[],
): Promise<{ used: number; added: number }> {
  const r = await sql<{ used: number; added: number }>`
    WITH cur AS (${storedAssetIds(orgId)})
    SELECT (SELECT count(*)::int FROM cur) AS used,
           (SELECT count(DISTINCT x)::int FROM unnest(${[...assetIds]}::text[]) AS x WHERE x NOT IN (SELECT asset_id FROM cur)) AS added`.execute(
    db,
  );
  return r.rows[0];
}

export async function countEnvironments(db: Db | Tx, orgId: number): Promise<number> {
  const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM environments WHERE org_id = ${orgId}`.execute(db);
  return r.rows[0].n;
}
