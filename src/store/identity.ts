// Organizations, members, API keys and sessions: SQL only (the rules are in services/identity.ts).
// Tenant-scoped functions take orgId first.
import type { NotNull } from 'kysely';
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import type { KeyKind, Role, Scope, Tier } from '../domain/tiers.ts';

export interface KeyPrincipalRow {
  key_id: number;
  key_start: string;
  kind: KeyKind;
  scopes: Scope[];
  expires_at: Date | null;
  revoked_at: Date | null;
  org_id: number;
  org_name: string;
  org_status: string;
  tier: Tier;
  member_id: number;
  email: string;
  member_name: string;
  member_created_at: Date;
  role: Role;
  /** The organization's trial end (trial keys only; null when running or never started). */
  trial_ended_at: Date | null;
}

export async function findKeyByHash(db: Db, hash: string): Promise<KeyPrincipalRow | undefined> {
  const r = await sql<KeyPrincipalRow>`
    SELECT k.id AS key_id, k.key_start, k.kind, k.scopes, k.expires_at, k.revoked_at,
           o.id AS org_id, o.name AS org_name, o.status AS org_status, o.tier,
           m.id AS member_id, m.email, m.name AS member_name, m.created_at AS member_created_at, m.role, t.ended_at AS trial_ended_at
    FROM api_keys k JOIN organizations o ON o.id = k.org_id JOIN members m ON m.id = k.member_id
    LEFT JOIN trial_usage t ON t.org_id = k.org_id AND k.kind = 'trial'
    WHERE k.key_hash = ${hash}`.execute(db);
  return r.rows[0];
}

export async function createOrganization(db: Db | Tx, name: string, tier: Tier) {
  return db
    .insertInto('organizations')
    .values({ name, tier })
    .returning(['id', 'name', 'tier', 'created_at'])
    .executeTakeFirstOrThrow();
}

export async function createMember(db: Db | Tx, orgId: number, email: string, role: Role, name = '') {
  return db
    .insertInto('members')
    .values({ org_id: orgId, email: email.toLowerCase(), role, name })
    .returning(['id', 'org_id', 'email', 'role', 'name', 'created_at'])
    .executeTakeFirstOrThrow();
}

export async function findMemberByEmail(db: Db | Tx, orgId: number, email: string) {
  return db
    .selectFrom('members')
    .selectAll()
    .where('org_id', '=', orgId)
    .where('email', '=', email.toLowerCase())
    .executeTakeFirst();
}

export async function insertApiKey(
  db: Db | Tx,
  orgId: number,
  v: {
    member_id: number;
    key_hash: string;
    key_start: string;
    kind: KeyKind;
    scopes: Scope[];
    label?: string | null;
    expires_at?: Date | null;
  },
) {
  return db
    .insertInto('api_keys')
    .values({
      org_id: orgId,
      member_id: v.member_id,
      key_hash: v.key_hash,
      key_start: v.key_start,
      kind: v.kind,
      scopes: v.scopes,
      label: v.label ?? null,
      expires_at: v.expires_at ?? null,
    })
    .returning(['id', 'key_start', 'kind', 'scopes', 'expires_at', 'created_at'])
    .executeTakeFirstOrThrow();
}

export async function insertSession(db: Db | Tx, orgId: number, memberId: number, tokenHash: string, expiresAt: Date) {
  return db
    .insertInto('sessions')
    .values({ org_id: orgId, member_id: memberId, token_hash: tokenHash, expires_at: expiresAt })
    .returning(['id'])
    .executeTakeFirstOrThrow();
}

// ---- Operator and account operations: SQL only; the rules live in services/identity.ts ----

export async function getOrganization(db: Db | Tx, orgId: number) {
  return db.selectFrom('organizations').selectAll().where('id', '=', orgId).executeTakeFirst();
}

/** Locks the organization's row for the rest of the transaction (concurrent key issuance sees one state; FOR NO KEY UPDATE as lockOrg in store/accounts.ts). */
export async function lockOrganization(trx: Tx, orgId: number) {
  return trx
    .selectFrom('organizations')
    .select(['id', 'tier', 'status'])
    .where('id', '=', orgId)
    .forNoKeyUpdate()
    .executeTakeFirst();
}

/** The organization's trial record, row-locked: two concurrent trial issuances see one record. */
/** The organization's trial usage row (undefined: the trial never started), read without a lock. */
export async function trialUsageOf(db: Db, orgId: number) {
  return db
    .selectFrom('trial_usage')
    .select(['started_at', 'ended_at', 'used'])
    .where('org_id', '=', orgId)
    .executeTakeFirst();
}

export async function lockTrialUsage(trx: Tx, orgId: number) {
  return trx
    .selectFrom('trial_usage')
    .select(['started_at', 'ended_at', 'used'])
    .where('org_id', '=', orgId)
    .forUpdate()
    .executeTakeFirst();
}

/** Marks the organization's trial ended at `at` (the caller holds lockTrialUsage); returns the end time. */
export async function endTrialUsage(trx: Tx, orgId: number, at: Date): Promise<Date> {
  await trx.updateTable('trial_usage').set({ ended_at: at }).where('org_id', '=', orgId).execute();
  return at;
}

export async function insertTrialUsage(trx: Tx, orgId: number, startedAt: Date) {
  await trx.insertInto('trial_usage').values({ org_id: orgId, started_at: startedAt }).execute();
}

export async function listApiKeys(db: Db, orgId: number) {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('members as m', 'm.id', 'k.member_id')
    .select([
      'k.id',
      'k.key_start',
      'k.kind',
      'k.scopes',
      'k.label',
      'k.created_at',
      'k.expires_at',
      'k.revoked_at',
      'k.last_used_at',
      'm.id as member_id',
      'm.email',
      'm.role',
    ])
    .where('k.org_id', '=', orgId)
    .orderBy('k.created_at')
    .orderBy('k.id')
    .execute();
}

/** Keys of the organization matching one reference (id, whole-key hash or display prefix), row-locked. */
export async function lockKeysByRef(
  trx: Tx,
  orgId: number,
  ref: { id: number } | { hash: string } | { start: string },
) {
  let q = trx.selectFrom('api_keys').select(['id', 'key_start']).where('org_id', '=', orgId);
  if ('id' in ref) q = q.where('id', '=', ref.id);
  else if ('hash' in ref) q = q.where('key_hash', '=', ref.hash);
  else q = q.where('key_start', '=', ref.start);
  return q.forUpdate().execute();
}

/** What the rotation of a key copies and checks (the key is locked by lockKeysByRef first). */
export async function keyToRotate(trx: Tx, keyId: number) {
  return trx
    .selectFrom('api_keys')
    .select(['kind', 'scopes', 'label', 'revoked_at', 'member_id'])
    .where('id', '=', keyId)
    .executeTakeFirstOrThrow();
}

/** Sets revoked_at once: a revoked key keeps its first revocation time. */
export async function revokeKey(trx: Tx, orgId: number, keyId: number, now: Date) {
  const r = await trx
    .updateTable('api_keys')
    .set({ revoked_at: sql<Date>`COALESCE(revoked_at, ${now})` })
    .where('org_id', '=', orgId)
    .where('id', '=', keyId)
    .returning(['id', 'key_start', 'revoked_at'])
    // COALESCE with the time given: the returned revocation time is never null.
    .$narrowType<{ revoked_at: NotNull }>()
    .executeTakeFirstOrThrow();
  return r;
}

/**
 * Counts one API call of a key against its organization's monthly allowance (spec §8) and records the key's
 * last use; returns the organization's calls in that month so far.
 */
export async function recordApiCall(db: Db, orgId: number, keyId: number, month: string, now: Date): Promise<number> {
  const r = await sql<{ calls: number }>`
    WITH touched AS (UPDATE api_keys SET last_used_at = ${now} WHERE id = ${keyId} AND org_id = ${orgId})
    INSERT INTO api_usage_monthly AS u (org_id, month, calls) VALUES (${orgId}, ${month}::date, 1)
    ON CONFLICT (org_id, month) DO UPDATE SET calls = u.calls + 1
    RETURNING calls`.execute(db);
  return r.rows[0].calls;
}

export async function setOrganizationTier(db: Db, orgId: number, tier: Tier): Promise<boolean> {
  const r = await db.updateTable('organizations').set({ tier }).where('id', '=', orgId).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
