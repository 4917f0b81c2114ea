// Single-use links (sign-in, email change) and sessions: SQL only (the rules are in services/accounts/sessions.ts,
// services/identity.ts and domain/accounts.ts).
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import type { Role, Tier } from '../domain/tiers.ts';

type Q = Db | Tx;

// ---- Single-use links (sign-in, email change) ----

export async function insertAuthToken(
  db: Q,
  v: {
    tokenHash: string;
    purpose: 'login' | 'email_change';
    personId: number;
    newEmail?: string | null;
    nextPath?: string | null;
    expiresAt: Date;
  },
) {
  await sql`INSERT INTO auth_tokens (token_hash, purpose, person_id, new_email, next_path, expires_at)
    VALUES (${v.tokenHash}, ${v.purpose}, ${v.personId}, ${v.newEmail ?? null}, ${v.nextPath ?? null}, ${v.expiresAt})`.execute(
    db,
  );
}

/** Marks a link used, once: the row when it was unused and unexpired, else nothing. */
export async function consumeAuthToken(db: Q, tokenHash: string, purpose: 'login' | 'email_change', now: Date) {
  const r = await sql<{ person_id: number; new_email: string | null; next_path: string | null }>`
    UPDATE auth_tokens SET used_at = ${now}
    WHERE token_hash = ${tokenHash} AND purpose = ${purpose} AND used_at IS NULL AND expires_at > ${now}
    RETURNING person_id, new_email, next_path`.execute(db);
  return r.rows[0];
}

/** Ends a person's unused email-change links (a newer request, or a return to the current address, replaces them). */
export async function revokeEmailChanges(db: Q, personId: number, now: Date): Promise<number> {
  const r =
    await sql`UPDATE auth_tokens SET used_at = ${now} WHERE person_id = ${personId} AND purpose = 'email_change' AND used_at IS NULL`.execute(
      db,
    );
  return Number(r.numAffectedRows ?? 0);
}

/** Ends a person's unused sign-in links (its address changed: links mailed to the former one must not sign in). */
export async function revokeLoginLinks(db: Q, personId: number, now: Date): Promise<number> {
  const r =
    await sql`UPDATE auth_tokens SET used_at = ${now} WHERE person_id = ${personId} AND purpose = 'login' AND used_at IS NULL`.execute(
      db,
    );
  return Number(r.numAffectedRows ?? 0);
}

// ---- Sessions ----

export interface SessionRow {
  session_id: number;
  org_id: number;
  org_name: string;
  org_status: string;
  tier: Tier;
  member_id: number;
  person_id: number;
  email: string;
  member_name: string;
  member_created_at: Date;
  role: Role;
  expires_at: Date;
  last_seen_at: Date;
}

/** An unrevoked session by the hash of its token, with its member and organization (expiry is the caller's rule). */
export async function findSession(db: Q, tokenHash: string): Promise<SessionRow | undefined> {
  const r = await sql<SessionRow>`
    SELECT s.id AS session_id, o.id AS org_id, o.name AS org_name, o.status AS org_status, o.tier,
           m.id AS member_id, m.person_id, m.email, m.name AS member_name, m.created_at AS member_created_at, m.role,
           s.expires_at, s.last_seen_at
    FROM sessions s JOIN organizations o ON o.id = s.org_id JOIN members m ON m.id = s.member_id
    WHERE s.token_hash = ${tokenHash} AND s.revoked_at IS NULL`.execute(db);
  return r.rows[0];
}

export async function touchSession(db: Q, sessionId: number, now: Date) {
  await sql`UPDATE sessions SET last_seen_at = ${now} WHERE id = ${sessionId}`.execute(db);
}

export async function createSession(
  db: Q,
  orgId: number,
  memberId: number,
  tokenHash: string,
  now: Date,
  expiresAt: Date,
) {
  await sql`INSERT INTO sessions (org_id, member_id, token_hash, created_at, last_seen_at, expires_at)
    VALUES (${orgId}, ${memberId}, ${tokenHash}, ${now}, ${now}, ${expiresAt})`.execute(db);
}

export async function revokeSessionByHash(db: Q, tokenHash: string, now: Date): Promise<number> {
  const r =
    await sql`UPDATE sessions SET revoked_at = ${now} WHERE token_hash = ${tokenHash} AND revoked_at IS NULL`.execute(
      db,
    );
  return Number(r.numAffectedRows ?? 0);
}

/** Ends every session of a person, in every organization. */
export async function revokePersonSessions(db: Q, personId: number, now: Date): Promise<number> {
  const r = await sql`UPDATE sessions SET revoked_at = ${now}
    WHERE revoked_at IS NULL AND member_id IN (SELECT id FROM members WHERE person_id = ${personId})`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

export async function revokeOrgSessions(db: Q, orgId: number, now: Date) {
  await sql`UPDATE sessions SET revoked_at = ${now} WHERE org_id = ${orgId} AND revoked_at IS NULL`.execute(db);
}
