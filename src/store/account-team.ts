// The team of an organization: members, invitations, the owner, and the keys of a removed member. SQL only (the
// rules are in services/accounts/team.ts and domain/accounts.ts). Tenant-scoped functions take orgId first.
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import type { Role } from '../domain/tiers.ts';
import type { PersonRow } from './accounts.ts';

type Q = Db | Tx;

// ---- Team ----

export interface TeamRow {
  id: number;
  email: string;
  name: string;
  role: Role;
  created_at: Date;
}

export async function listTeam(db: Q, orgId: number): Promise<TeamRow[]> {
  const r = await sql<TeamRow>`SELECT m.id, m.email, m.name, m.role, m.created_at FROM members m
    WHERE m.org_id = ${orgId} ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END, m.created_at, m.id`.execute(
    db,
  );
  return r.rows;
}

export interface InvitationRow {
  id: number;
  email: string;
  role: 'admin' | 'viewer';
  created_at: Date;
  expires_at: Date;
}

export async function pendingInvitations(db: Q, orgId: number, now: Date): Promise<InvitationRow[]> {
  const r = await sql<InvitationRow>`SELECT id, email, role, created_at, expires_at FROM invitations
    WHERE org_id = ${orgId} AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ${now} ORDER BY created_at, id`.execute(
    db,
  );
  return r.rows;
}

export async function countMembers(db: Q, orgId: number): Promise<number> {
  const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM members WHERE org_id = ${orgId}`.execute(db);
  return r.rows[0].n;
}

export async function insertInvitation(
  db: Q,
  orgId: number,
  v: { email: string; role: 'admin' | 'viewer'; tokenHash: string; invitedBy: number; expiresAt: Date; now: Date },
) {
  const r =
    await sql<InvitationRow>`INSERT INTO invitations (org_id, email, role, token_hash, invited_by, created_at, expires_at)
    VALUES (${orgId}, ${v.email}, ${v.role}, ${v.tokenHash}, ${v.invitedBy}, ${v.now}, ${v.expiresAt})
    RETURNING id, email, role, created_at, expires_at`.execute(db);
  return r.rows[0];
}

/** Withdraws the pending invitations of an address (a new invitation replaces them). */
export async function revokeInvitationsOf(db: Q, orgId: number, email: string, now: Date) {
  await sql`UPDATE invitations SET revoked_at = ${now} WHERE org_id = ${orgId} AND email = ${email} AND accepted_at IS NULL AND revoked_at IS NULL`.execute(
    db,
  );
}

/** Accepts an invitation, once: the invitation when it was pending and unexpired in an active organization. */
export async function consumeInvitation(db: Tx, tokenHash: string, now: Date) {
  const r = await sql<{ id: number; org_id: number; email: string; role: Role }>`
    UPDATE invitations i SET accepted_at = ${now}
    FROM organizations o
    WHERE i.token_hash = ${tokenHash} AND o.id = i.org_id AND o.status = 'active'
      AND i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > ${now}
    RETURNING i.id, i.org_id, i.email, i.role`.execute(db);
  return r.rows[0];
}

export async function findMemberOfPerson(db: Q, orgId: number, personId: number) {
  const r = await sql<{
    id: number;
    role: Role;
  }>`SELECT id, role FROM members WHERE org_id = ${orgId} AND person_id = ${personId}`.execute(db);
  return r.rows[0];
}

export async function insertMembership(db: Q, orgId: number, person: PersonRow, role: Role) {
  const r = await sql<{ id: number }>`INSERT INTO members (org_id, person_id, email, name, role)
    VALUES (${orgId}, ${person.id}, ${person.email}, ${person.name}, ${role}) RETURNING id`.execute(db);
  return r.rows[0].id;
}

export async function getTeamMember(
  db: Q,
  orgId: number,
  memberId: number,
): Promise<(TeamRow & { person_id: number }) | undefined> {
  const r = await sql<TeamRow & { person_id: number }>`SELECT id, email, name, role, created_at, person_id FROM members
    WHERE org_id = ${orgId} AND id = ${memberId} FOR UPDATE`.execute(db);
  return r.rows[0];
}

/** Withdraws one pending invitation; the withdrawn row, or undefined when the organization has no such pending one. */
export async function revokeInvitation(db: Q, orgId: number, id: number, now: Date) {
  const r = await sql<InvitationRow>`UPDATE invitations SET revoked_at = ${now}
    WHERE org_id = ${orgId} AND id = ${id} AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ${now}
    RETURNING id, email, role, created_at, expires_at`.execute(db);
  return r.rows[0];
}

/**
 * Removes a membership: its sessions end, its API keys are revoked and kept (for the record) under the owner
 * (api_keys.member_id cascades, so the keys are moved to the owner and revoked before the member row goes), the
 * invitations it sent that are still pending are withdrawn (a removed admin must not come back through one), and its
 * watchlist feed tokens are revoked.
 */
export async function deleteMembership(db: Tx, orgId: number, memberId: number, ownerId: number, now: Date) {
  await sql`UPDATE invitations SET revoked_at = ${now}
    WHERE org_id = ${orgId} AND invited_by = ${memberId} AND accepted_at IS NULL AND revoked_at IS NULL`.execute(db);
  await sql`UPDATE feed_tokens SET revoked_at = ${now} WHERE org_id = ${orgId} AND created_by = ${memberId} AND revoked_at IS NULL`.execute(
    db,
  );
  await sql`WITH locked AS (SELECT id FROM api_keys WHERE org_id = ${orgId} AND member_id = ${memberId} ORDER BY id FOR NO KEY UPDATE)
    UPDATE api_keys k SET revoked_at = COALESCE(k.revoked_at, ${now}), member_id = ${ownerId},
    label = left(coalesce(k.label || ' ', '') || '(of a removed member)', 200)
    FROM locked WHERE k.id = locked.id`.execute(db);
  await sql`DELETE FROM members WHERE org_id = ${orgId} AND id = ${memberId}`.execute(db);
}

export async function ownerOf(db: Q, orgId: number) {
  const r = await sql<{
    id: number;
    email: string;
    name: string;
  }>`SELECT id, email, name FROM members WHERE org_id = ${orgId} AND role = 'owner'`.execute(db);
  return r.rows[0];
}

/**
 * Revokes every key of the organization. The rows are locked in key-id order first, as every statement that updates
 * several keys does (the usage meter's flush of last_used_at, a removed member's keys): locked in the table's
 * physical order instead, a deletion and a flush of another replica could each hold a key the other waited for.
 */
export async function revokeOrgKeys(db: Q, orgId: number, now: Date) {
  await sql`WITH locked AS (SELECT id FROM api_keys WHERE org_id = ${orgId} ORDER BY id FOR NO KEY UPDATE)
    UPDATE api_keys k SET revoked_at = COALESCE(k.revoked_at, ${now}) FROM locked WHERE k.id = locked.id`.execute(db);
}
