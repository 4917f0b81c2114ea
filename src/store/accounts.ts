// Persons, sign-in links, sessions, invitations, organization settings, deletion and purge: SQL only (the rules
// are in services/accounts.ts and domain/accounts.ts). Tenant-scoped functions take orgId first.
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import type { Role, Tier } from '../domain/tiers.ts';
import type { CapOverrides } from '../domain/plan-caps.ts';

type Q = Db | Tx;

export interface PersonRow {
  id: number;
  email: string;
  name: string;
  preferences: Record<string, string | number | boolean | null>;
  last_org_id: number | null;
}

export async function findPersonByEmail(db: Q, email: string): Promise<PersonRow | undefined> {
  const r = await sql<PersonRow>`SELECT id, email, name, preferences, last_org_id FROM persons WHERE email = ${email}`.execute(db);
  return r.rows[0];
}

export async function getPerson(db: Q, personId: number): Promise<PersonRow | undefined> {
  const r = await sql<PersonRow>`SELECT id, email, name, preferences, last_org_id FROM persons WHERE id = ${personId}`.execute(db);
  return r.rows[0];
}

/** The person of an email, created (with `name`) if new. */
export async function upsertPerson(db: Q, email: string, name: string): Promise<PersonRow> {
  const r = await sql<PersonRow>`
    INSERT INTO persons (email, name) VALUES (${email}, ${name})
    ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email
    RETURNING id, email, name, preferences, last_org_id`.execute(db);
  return r.rows[0];
}

/**
 * Name and preferences of a person; the copies on its memberships follow. `preferences` is merged into the stored
 * object as a JSON merge patch (RFC 7396: a null value removes the key). Returns how many keys the stored
 * preferences hold afterwards (null when they were not changed): the caller refuses, and rolls back, a patch that
 * leaves too many.
 */
export async function updatePerson(db: Tx, personId: number, v: { name?: string; preferences?: Record<string, unknown> }): Promise<number | null> {
  if (v.name !== undefined) {
    await sql`UPDATE persons SET name = ${v.name} WHERE id = ${personId}`.execute(db);
    await sql`UPDATE members SET name = ${v.name} WHERE person_id = ${personId}`.execute(db);
  }
  if (v.preferences === undefined) return null;
  const r = await sql<{ n: number }>`UPDATE persons SET preferences = jsonb_strip_nulls(preferences || ${JSON.stringify(v.preferences)}::jsonb)
    WHERE id = ${personId} RETURNING (SELECT count(*)::int FROM jsonb_object_keys(preferences)) AS n`.execute(db);
  return r.rows[0]?.n ?? null;
}

/** Moves a person (and its memberships' copies) to a new email address. */
export async function setPersonEmail(db: Tx, personId: number, email: string) {
  await sql`UPDATE persons SET email = ${email} WHERE id = ${personId}`.execute(db);
  await sql`UPDATE members SET email = ${email} WHERE person_id = ${personId}`.execute(db);
}

export async function personIdOfMember(db: Q, orgId: number, memberId: number): Promise<number | undefined> {
  const r = await sql<{ person_id: number }>`SELECT person_id FROM members WHERE org_id = ${orgId} AND id = ${memberId}`.execute(db);
  return r.rows[0]?.person_id;
}

/** GET /account/me in one statement: the member's person, organization and membership date (org-scoped). */
export async function memberProfile(db: Q, orgId: number, memberId: number): Promise<{
  email: string; name: string; preferences: PersonRow['preferences']; org_id: number; org_name: string; tier: Tier; created_at: Date;
} | undefined> {
  const r = await sql<{ email: string; name: string; preferences: PersonRow['preferences']; org_id: number; org_name: string; tier: Tier; created_at: Date }>`
    SELECT p.email, p.name, p.preferences, o.id AS org_id, o.name AS org_name, o.tier, m.created_at
    FROM members m JOIN persons p ON p.id = m.person_id JOIN organizations o ON o.id = m.org_id
    WHERE m.org_id = ${orgId} AND m.id = ${memberId}`.execute(db);
  return r.rows[0];
}

export async function setLastOrg(db: Q, personId: number, orgId: number) {
  await sql`UPDATE persons SET last_org_id = ${orgId} WHERE id = ${personId}`.execute(db);
}

export interface MembershipRow {
  member_id: number;
  org_id: number;
  org_name: string;
  role: Role;
  tier: Tier;
  status: string;
}

/** Every membership of a person, active organizations first, then by organization id. */
export async function membershipsOf(db: Q, personId: number): Promise<MembershipRow[]> {
  const r = await sql<MembershipRow>`
    SELECT m.id AS member_id, o.id AS org_id, o.name AS org_name, m.role, o.tier, o.status
    FROM members m JOIN organizations o ON o.id = m.org_id
    WHERE m.person_id = ${personId}
    ORDER BY (o.status = 'active') DESC, m.created_at, m.id`.execute(db);
  return r.rows;
}

// ---- Single-use links (sign-in, email change) ----

export async function insertAuthToken(db: Q, v: { tokenHash: string; purpose: 'login' | 'email_change'; personId: number; newEmail?: string | null; nextPath?: string | null; expiresAt: Date }) {
  await sql`INSERT INTO auth_tokens (token_hash, purpose, person_id, new_email, next_path, expires_at)
    VALUES (${v.tokenHash}, ${v.purpose}, ${v.personId}, ${v.newEmail ?? null}, ${v.nextPath ?? null}, ${v.expiresAt})`.execute(db);
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
  const r = await sql`UPDATE auth_tokens SET used_at = ${now} WHERE person_id = ${personId} AND purpose = 'email_change' AND used_at IS NULL`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

/** Ends a person's unused sign-in links (its address changed: links mailed to the former one must not sign in). */
export async function revokeLoginLinks(db: Q, personId: number, now: Date): Promise<number> {
  const r = await sql`UPDATE auth_tokens SET used_at = ${now} WHERE person_id = ${personId} AND purpose = 'login' AND used_at IS NULL`.execute(db);
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

export async function createSession(db: Q, orgId: number, memberId: number, tokenHash: string, now: Date, expiresAt: Date) {
  await sql`INSERT INTO sessions (org_id, member_id, token_hash, created_at, last_seen_at, expires_at)
    VALUES (${orgId}, ${memberId}, ${tokenHash}, ${now}, ${now}, ${expiresAt})`.execute(db);
}

export async function revokeSessionByHash(db: Q, tokenHash: string, now: Date): Promise<number> {
  const r = await sql`UPDATE sessions SET revoked_at = ${now} WHERE token_hash = ${tokenHash} AND revoked_at IS NULL`.execute(db);
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

// ---- Organization ----

export interface OrgRow {
  id: number;
  name: string;
  tier: Tier;
  status: string;
  created_at: Date;
  cap_overrides: CapOverrides;
  provider_org_id: number | null;
  deactivated_at: Date | null;
  deleted_at: Date | null;
}

export async function getOrg(db: Q, orgId: number): Promise<OrgRow | undefined> {
  const r = await sql<OrgRow>`SELECT id, name, tier, status, created_at, cap_overrides, provider_org_id, deactivated_at, deleted_at
    FROM organizations WHERE id = ${orgId}`.execute(db);
  return r.rows[0];
}

/**
 * The organization's row, locked until the transaction ends: the writes that check a count of the organization (plan
 * caps, the watchlist bound, invitations, the trial, deletion) take their turns on it. FOR NO KEY UPDATE, not FOR
 * UPDATE: it excludes the other lockOrg callers just the same, but not the key-share lock every insert of a row that
 * refers to the organization takes (its foreign key). With FOR UPDATE, DELETE /account (this lock, then the
 * organization's keys) deadlocked against a keyed request counting its call (the key's row, then an insert
 * referring to the organization): one of the two got a 500.
 */
export async function lockOrg(db: Tx, orgId: number): Promise<OrgRow | undefined> {
  const r = await sql<OrgRow>`SELECT id, name, tier, status, created_at, cap_overrides, provider_org_id, deactivated_at, deleted_at
    FROM organizations WHERE id = ${orgId} FOR NO KEY UPDATE`.execute(db);
  return r.rows[0];
}

export async function renameOrg(db: Q, orgId: number, name: string) {
  await sql`UPDATE organizations SET name = ${name} WHERE id = ${orgId}`.execute(db);
}

/** Sets the given overrides (null clears one); the others stay. Returns the stored overrides, undefined when no such organization. */
export async function setCapOverrides(db: Q, orgId: number, set: Partial<Record<keyof CapOverrides, number | null>>): Promise<CapOverrides | undefined> {
  const keep = Object.fromEntries(Object.entries(set).filter(([, v]) => v !== null));
  const clear = Object.keys(set).filter((k) => set[k as keyof CapOverrides] === null);
  const r = await sql<{ cap_overrides: CapOverrides }>`UPDATE organizations SET cap_overrides = (cap_overrides - ${clear}::text[]) || ${JSON.stringify(keep)}::jsonb
    WHERE id = ${orgId} RETURNING cap_overrides`.execute(db);
  return r.rows[0]?.cap_overrides;
}

export async function setProvider(db: Q, clientOrgId: number, providerOrgId: number | null) {
  await sql`UPDATE organizations SET provider_org_id = ${providerOrgId} WHERE id = ${clientOrgId}`.execute(db);
}

/** Deactivates an organization; `deleted` also schedules its purge (an owner's deletion). */
export async function deactivateOrg(db: Q, orgId: number, now: Date, deleted: boolean) {
  await sql`UPDATE organizations SET status = 'deactivated', deactivated_at = ${now},
    deleted_at = CASE WHEN ${deleted} THEN ${now}::timestamptz ELSE deleted_at END
    WHERE id = ${orgId}`.execute(db);
}

/** Restores an organization deactivated by its provider (never one its owner deleted). */
export async function restoreOrg(db: Q, orgId: number) {
  await sql`UPDATE organizations SET status = 'active', deactivated_at = NULL WHERE id = ${orgId} AND deleted_at IS NULL`.execute(db);
}

export async function listClients(db: Q, providerOrgId: number) {
  const r = await sql<{ id: number; name: string; tier: Tier; status: string; created_at: Date; deactivated_at: Date | null }>`
    SELECT id, name, tier, status, created_at, deactivated_at FROM organizations
    WHERE provider_org_id = ${providerOrgId} AND deleted_at IS NULL ORDER BY created_at, id`.execute(db);
  return r.rows;
}

export async function getClient(db: Q, providerOrgId: number, clientOrgId: number) {
  const r = await sql<{ id: number; name: string; tier: Tier; status: string; created_at: Date; deactivated_at: Date | null }>`
    SELECT id, name, tier, status, created_at, deactivated_at FROM organizations
    WHERE provider_org_id = ${providerOrgId} AND id = ${clientOrgId} AND deleted_at IS NULL`.execute(db);
  return r.rows[0];
}

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
    WHERE m.org_id = ${orgId} ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END, m.created_at, m.id`.execute(db);
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
    WHERE org_id = ${orgId} AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ${now} ORDER BY created_at, id`.execute(db);
  return r.rows;
}

export async function countMembers(db: Q, orgId: number): Promise<number> {
  const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM members WHERE org_id = ${orgId}`.execute(db);
  return r.rows[0].n;
}

export async function insertInvitation(db: Q, orgId: number, v: { email: string; role: 'admin' | 'viewer'; tokenHash: string; invitedBy: number; expiresAt: Date; now: Date }) {
  const r = await sql<InvitationRow>`INSERT INTO invitations (org_id, email, role, token_hash, invited_by, created_at, expires_at)
    VALUES (${orgId}, ${v.email}, ${v.role}, ${v.tokenHash}, ${v.invitedBy}, ${v.now}, ${v.expiresAt})
    RETURNING id, email, role, created_at, expires_at`.execute(db);
  return r.rows[0];
}

/** Withdraws the pending invitations of an address (a new invitation replaces them). */
export async function revokeInvitationsOf(db: Q, orgId: number, email: string, now: Date) {
  await sql`UPDATE invitations SET revoked_at = ${now} WHERE org_id = ${orgId} AND email = ${email} AND accepted_at IS NULL AND revoked_at IS NULL`.execute(db);
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
  const r = await sql<{ id: number; role: Role }>`SELECT id, role FROM members WHERE org_id = ${orgId} AND person_id = ${personId}`.execute(db);
  return r.rows[0];
}

export async function insertMembership(db: Q, orgId: number, person: PersonRow, role: Role) {
  const r = await sql<{ id: number }>`INSERT INTO members (org_id, person_id, email, name, role)
    VALUES (${orgId}, ${person.id}, ${person.email}, ${person.name}, ${role}) RETURNING id`.execute(db);
  return r.rows[0].id;
}

export async function getTeamMember(db: Q, orgId: number, memberId: number): Promise<(TeamRow & { person_id: number }) | undefined> {
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
  await sql`UPDATE feed_tokens SET revoked_at = ${now} WHERE org_id = ${orgId} AND created_by = ${memberId} AND revoked_at IS NULL`.execute(db);
  await sql`WITH locked AS (SELECT id FROM api_keys WHERE org_id = ${orgId} AND member_id = ${memberId} ORDER BY id FOR NO KEY UPDATE)
    UPDATE api_keys k SET revoked_at = COALESCE(k.revoked_at, ${now}), member_id = ${ownerId},
    label = left(coalesce(k.label || ' ', '') || '(of a removed member)', 200)
    FROM locked WHERE k.id = locked.id`.execute(db);
  await sql`DELETE FROM members WHERE org_id = ${orgId} AND id = ${memberId}`.execute(db);
}

export async function ownerOf(db: Q, orgId: number) {
  const r = await sql<{ id: number; email: string; name: string }>`SELECT id, email, name FROM members WHERE org_id = ${orgId} AND role = 'owner'`.execute(db);
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

// ---- Purge ----

/** Organizations their owner deleted before `cutoff`, oldest first. */
export async function deletedBefore(db: Q, cutoff: Date, limit: number): Promise<number[]> {
  const r = await sql<{ id: number }>`SELECT id FROM organizations WHERE deleted_at IS NOT NULL AND deleted_at <= ${cutoff}
    ORDER BY deleted_at, id LIMIT ${limit}`.execute(db);
  return r.rows.map((x) => x.id);
}

/** Every table of the schema with an org_id column (the tenant tables, found, not listed). */
export async function tenantTables(db: Q): Promise<string[]> {
  const r = await sql<{ table_name: string }>`
    SELECT c.table_name FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = current_schema() AND c.column_name = 'org_id' AND t.table_type = 'BASE TABLE'
    ORDER BY c.table_name`.execute(db);
  return r.rows.map((x) => x.table_name);
}

export async function deleteOrgRows(db: Tx, table: string, orgId: number): Promise<number> {
  const r = await sql`DELETE FROM ${sql.table(table)} WHERE org_id = ${orgId}`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

export async function savepoint(db: Tx, name: string, action: 'set' | 'release' | 'rollback') {
  const id = sql.id(name);
  if (action === 'set') await sql`SAVEPOINT ${id}`.execute(db);
  else if (action === 'release') await sql`RELEASE SAVEPOINT ${id}`.execute(db);
  else await sql`ROLLBACK TO SAVEPOINT ${id}`.execute(db);
}

export async function deleteOrganizationRow(db: Tx, orgId: number) {
  await sql`DELETE FROM organizations WHERE id = ${orgId}`.execute(db);
}

/** Persons left without any membership (their organizations purged) are removed: their email is personal data. */
export async function deleteOrphanPersons(db: Tx, personIds: number[]) {
  if (personIds.length === 0) return;
  await sql`DELETE FROM persons p WHERE p.id = ANY(${personIds}::bigint[])
    AND NOT EXISTS (SELECT 1 FROM members m WHERE m.person_id = p.id)`.execute(db);
}

export async function personsOfOrg(db: Q, orgId: number): Promise<number[]> {
  const r = await sql<{ person_id: number }>`SELECT person_id FROM members WHERE org_id = ${orgId}`.execute(db);
  return r.rows.map((x) => x.person_id);
}
