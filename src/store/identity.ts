// Organizations, members, API keys and sessions. Tenant-scoped functions take orgId first.
import { sql } from 'kysely';
import { withTx, type Db, type Tx } from './db.ts';
import { TIER_PERMISSIONS, type KeyKind, type Role, type Scope, type Tier } from '../domain/tiers.ts';
import { planKey, type KeyRefusal, type TrialState } from '../domain/keys.ts';
import { generateApiKey, isWellFormedApiKey, KEY_START_LENGTH, sha256Hex } from '../lib/crypto.ts';

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
  role: Role;
  /** The organization's trial end (trial keys only; null when running or never started). */
  trial_ended_at: Date | null;
}

export async function findKeyByHash(db: Db, hash: string): Promise<KeyPrincipalRow | undefined> {
  const r = await sql<KeyPrincipalRow>`
    SELECT k.id AS key_id, k.key_start, k.kind, k.scopes, k.expires_at, k.revoked_at,
           o.id AS org_id, o.name AS org_name, o.status AS org_status, o.tier,
           m.id AS member_id, m.email, m.role, t.ended_at AS trial_ended_at
    FROM api_keys k JOIN organizations o ON o.id = k.org_id JOIN members m ON m.id = k.member_id
    LEFT JOIN trial_usage t ON t.org_id = k.org_id AND k.kind = 'trial'
    WHERE k.key_hash = ${hash}`.execute(db);
  return r.rows[0];
}

export async function findSessionByHash(db: Db, hash: string, now: Date) {
  const r = await sql<Omit<KeyPrincipalRow, 'key_id' | 'key_start' | 'kind' | 'scopes' | 'expires_at' | 'revoked_at' | 'trial_ended_at'> & { session_id: number }>`
    SELECT s.id AS session_id, o.id AS org_id, o.name AS org_name, o.status AS org_status, o.tier,
           m.id AS member_id, m.email, m.role
    FROM sessions s JOIN organizations o ON o.id = s.org_id JOIN members m ON m.id = s.member_id
    WHERE s.token_hash = ${hash} AND s.revoked_at IS NULL AND s.expires_at > ${now}`.execute(db);
  return r.rows[0];
}

export async function createOrganization(db: Db | Tx, name: string, tier: Tier) {
  return db.insertInto('organizations').values({ name, tier }).returning(['id', 'name', 'tier', 'created_at']).executeTakeFirstOrThrow();
}

export async function createMember(db: Db | Tx, orgId: number, email: string, role: Role, name = '') {
  return db.insertInto('members').values({ org_id: orgId, email: email.toLowerCase(), role, name })
    .returning(['id', 'org_id', 'email', 'role', 'name', 'created_at']).executeTakeFirstOrThrow();
}

export async function findMemberByEmail(db: Db | Tx, orgId: number, email: string) {
  return db.selectFrom('members').selectAll().where('org_id', '=', orgId).where('email', '=', email.toLowerCase()).executeTakeFirst();
}

export async function getMember(db: Db, orgId: number, memberId: number) {
  return db.selectFrom('members as m').innerJoin('organizations as o', 'o.id', 'm.org_id')
    .select(['m.id', 'm.email', 'm.name', 'm.role', 'm.created_at', 'o.id as org_id', 'o.name as org_name', 'o.tier'])
    .where('m.org_id', '=', orgId).where('m.id', '=', memberId).executeTakeFirst();
}

export async function insertApiKey(db: Db | Tx, orgId: number, v: {
  member_id: number; key_hash: string; key_start: string; kind: KeyKind; scopes: Scope[]; label?: string | null; expires_at?: Date | null;
}) {
  return db.insertInto('api_keys').values({
    org_id: orgId, member_id: v.member_id, key_hash: v.key_hash, key_start: v.key_start, kind: v.kind,
    scopes: v.scopes, label: v.label ?? null, expires_at: v.expires_at ?? null,
  }).returning(['id', 'key_start', 'kind', 'scopes', 'expires_at', 'created_at']).executeTakeFirstOrThrow();
}

export async function insertSession(db: Db | Tx, orgId: number, memberId: number, tokenHash: string, expiresAt: Date) {
  return db.insertInto('sessions').values({ org_id: orgId, member_id: memberId, token_hash: tokenHash, expires_at: expiresAt })
    .returning(['id']).executeTakeFirstOrThrow();
}

// ---- Operator and account operations (CLI now, key-management endpoints later) ----

/** A refused identity operation; `code` is the spec's detail.error where the spec names one. */
export class IdentityError extends Error {
  constructor(readonly code: 'org_not_found' | 'key_not_found' | 'ambiguous_key' | 'role_required' | 'role_mismatch' | 'owner_exists' | KeyRefusal, message: string) {
    super(message);
  }
}

export async function getOrganization(db: Db | Tx, orgId: number) {
  return db.selectFrom('organizations').selectAll().where('id', '=', orgId).executeTakeFirst();
}

export interface IssuedKey {
  id: number;
  key: string;
  key_start: string;
  kind: KeyKind;
  scopes: Scope[];
  expires_at: Date | null;
  created_at: Date;
  member: { id: number; email: string; role: Role; created: boolean };
}

async function issueInTx(trx: Tx, orgId: number, tier: Tier, input: {
  email: string; role?: Role; name?: string; kind: KeyKind; scopes?: Scope[]; label?: string | null;
}, now: Date): Promise<IssuedKey> {
  let trial: TrialState | null = null;
  if (input.kind === 'trial') {
    // Row lock: two concurrent trial issuances see one trial record.
    const t = await trx.selectFrom('trial_usage').select(['started_at', 'ended_at', 'used']).where('org_id', '=', orgId).forUpdate().executeTakeFirst();
    trial = t ?? null;
  }
  const plan = planKey({ tier, kind: input.kind, scopes: input.scopes, trial }, now);
  if (!plan.ok) throw new IdentityError(plan.error, plan.message);
  const email = input.email.toLowerCase();
  let member = await findMemberByEmail(trx, orgId, email);
  let created = false;
  if (member) {
    if (input.role && input.role !== member.role) {
      throw new IdentityError('role_mismatch', `${email} is already a member with role ${member.role}; a key inherits its member's role`);
    }
  } else {
    if (!input.role) throw new IdentityError('role_required', `${email} is not a member of organization ${orgId}; give the new member's role`);
    if (input.role === 'owner') throw new IdentityError('owner_exists', `Organization ${orgId} already has an owner`);
    member = await trx.insertInto('members').values({ org_id: orgId, email, role: input.role, name: input.name ?? '' }).returningAll().executeTakeFirstOrThrow();
    created = true;
  }
  if (plan.startsTrial) {
    await trx.insertInto('trial_usage').values({ org_id: orgId, started_at: now }).execute();
  }
  const g = generateApiKey();
  const row = await insertApiKey(trx, orgId, {
    member_id: member.id, key_hash: g.hash, key_start: g.start, kind: input.kind, scopes: plan.scopes,
    label: input.label ?? null, expires_at: plan.expiresAt,
  });
  return {
    id: row.id, key: g.key, key_start: row.key_start, kind: row.kind as KeyKind, scopes: row.scopes as Scope[],
    expires_at: row.expires_at, created_at: row.created_at,
    member: { id: member.id, email: member.email, role: member.role as Role, created },
  };
}

/**
 * Issues an API key for a member of the organization (created with `role` if the email is new). The plaintext
 * key is in the result only; the database keeps its SHA-256 and display prefix.
 */
export async function issueApiKey(db: Db, orgId: number, input: {
  email: string; role?: Role; name?: string; kind: KeyKind; scopes?: Scope[]; label?: string | null;
}, now: Date): Promise<IssuedKey> {
  return withTx(db, async (trx) => {
    const org = await trx.selectFrom('organizations').select(['id', 'tier', 'status']).where('id', '=', orgId).forUpdate().executeTakeFirst();
    if (!org || org.status !== 'active') throw new IdentityError('org_not_found', `No active organization with id ${orgId}`);
    return issueInTx(trx, orgId, org.tier as Tier, input, now);
  });
}

/** Creates an organization and its owner; the owner's first key when the tier allows API keys. */
export async function createOrganizationWithOwner(db: Db, input: { name: string; tier: Tier; ownerEmail: string; ownerName?: string }, now: Date) {
  return withTx(db, async (trx) => {
    const org = await createOrganization(trx, input.name, input.tier);
    const owner = await createMember(trx, org.id, input.ownerEmail, 'owner', input.ownerName ?? '');
    const key = TIER_PERMISSIONS[input.tier].api_keys
      ? await issueInTx(trx, org.id, input.tier, { email: owner.email, kind: 'standard' }, now)
      : null;
    return { org, owner, key };
  });
}

export async function listApiKeys(db: Db, orgId: number) {
  return db.selectFrom('api_keys as k').innerJoin('members as m', 'm.id', 'k.member_id')
    .select(['k.id', 'k.key_start', 'k.kind', 'k.scopes', 'k.label', 'k.created_at', 'k.expires_at', 'k.revoked_at', 'k.last_used_at',
      'm.id as member_id', 'm.email', 'm.role'])
    .where('k.org_id', '=', orgId).orderBy('k.id').execute();
}

/**
 * Revokes one key of the organization, by id or by its display prefix (key_start, or any longer start of the
 * key). Idempotent: a revoked key keeps its first revocation time. A key of another organization is not found.
 */
export async function revokeApiKeyRef(db: Db, orgId: number, ref: { id?: number; prefix?: string }, now: Date) {
  return withTx(db, async (trx) => {
    let q = trx.selectFrom('api_keys').select(['id', 'key_start']).where('org_id', '=', orgId);
    if (ref.id !== undefined) q = q.where('id', '=', ref.id);
    else if (ref.prefix !== undefined) {
      const p = ref.prefix;
      if (isWellFormedApiKey(p)) q = q.where('key_hash', '=', sha256Hex(p)); // the whole key was given
      // Only the display prefix is stored: anything else than exactly that prefix cannot be checked.
      else if (p.length === KEY_START_LENGTH) q = q.where('key_start', '=', p);
      else throw new IdentityError('key_not_found', `Give the key id, its ${KEY_START_LENGTH}-character prefix as shown by \`vulnintel key list\`, or the whole key`);
    } else throw new IdentityError('key_not_found', 'Give a key id or a key prefix');
    const rows = await q.forUpdate().execute();
    if (rows.length === 0) throw new IdentityError('key_not_found', `No such API key in organization ${orgId}`);
    if (rows.length > 1) throw new IdentityError('ambiguous_key', `The prefix matches ${rows.length} keys; revoke by id`);
    const r = await trx.updateTable('api_keys').set({ revoked_at: sql`COALESCE(revoked_at, ${now})` as unknown as Date })
      .where('org_id', '=', orgId).where('id', '=', rows[0].id)
      .returning(['id', 'key_start', 'revoked_at']).executeTakeFirstOrThrow();
    return r as { id: number; key_start: string; revoked_at: Date };
  });
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
