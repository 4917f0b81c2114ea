// Organizations, members, API keys and sessions. Tenant-scoped functions take orgId first.
import { sql } from 'kysely';
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
  role: Role;
}

export async function findKeyByHash(db: Db, hash: string): Promise<KeyPrincipalRow | undefined> {
  const r = await sql<KeyPrincipalRow>`
    SELECT k.id AS key_id, k.key_start, k.kind, k.scopes, k.expires_at, k.revoked_at,
           o.id AS org_id, o.name AS org_name, o.status AS org_status, o.tier,
           m.id AS member_id, m.email, m.role
    FROM api_keys k JOIN organizations o ON o.id = k.org_id JOIN members m ON m.id = k.member_id
    WHERE k.key_hash = ${hash}`.execute(db);
  return r.rows[0];
}

export async function findSessionByHash(db: Db, hash: string, now: Date) {
  const r = await sql<Omit<KeyPrincipalRow, 'key_id' | 'key_start' | 'kind' | 'scopes' | 'expires_at' | 'revoked_at'> & { session_id: number }>`
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

/** Idempotent: revoking a revoked key keeps its first revocation time. */
export async function revokeApiKey(db: Db, orgId: number, keyId: number, now: Date): Promise<boolean> {
  const r = await db.updateTable('api_keys').set({ revoked_at: sql`COALESCE(revoked_at, ${now})` as unknown as Date })
    .where('org_id', '=', orgId).where('id', '=', keyId).executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function insertSession(db: Db | Tx, orgId: number, memberId: number, tokenHash: string, expiresAt: Date) {
  return db.insertInto('sessions').values({ org_id: orgId, member_id: memberId, token_hash: tokenHash, expires_at: expiresAt })
    .returning(['id']).executeTakeFirstOrThrow();
}
