// Persons and organizations: SQL only (the rules are in services/accounts/ and domain/accounts.ts). Sign-in links
// and sessions are in store/account-sessions.ts, the team and its invitations in store/account-team.ts, the purge
// in store/account-purge.ts. Tenant-scoped functions take orgId first.
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
  const r =
    await sql<PersonRow>`SELECT id, email, name, preferences, last_org_id FROM persons WHERE email = ${email}`.execute(
      db,
    );
  return r.rows[0];
}

export async function getPerson(db: Q, personId: number): Promise<PersonRow | undefined> {
  const r =
    await sql<PersonRow>`SELECT id, email, name, preferences, last_org_id FROM persons WHERE id = ${personId}`.execute(
      db,
    );
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
export async function updatePerson(
  db: Tx,
  personId: number,
  v: { name?: string; preferences?: Record<string, unknown> },
): Promise<number | null> {
  if (v.name !== undefined) {
    await sql`UPDATE persons SET name = ${v.name} WHERE id = ${personId}`.execute(db);
    await sql`UPDATE members SET name = ${v.name} WHERE person_id = ${personId}`.execute(db);
  }
  if (v.preferences === undefined) return null;
  const r = await sql<{
    n: number;
  }>`UPDATE persons SET preferences = jsonb_strip_nulls(preferences || ${JSON.stringify(v.preferences)}::jsonb)
    WHERE id = ${personId} RETURNING (SELECT count(*)::int FROM jsonb_object_keys(preferences)) AS n`.execute(db);
  return r.rows[0]?.n ?? null;
}

/**
 * The names of the other members of every organization `personId` belongs to (empty names left out), those
 * organizations' rows locked first (FOR NO KEY UPDATE, in id order, as lockOrg): two members renaming themselves to
 * look-alikes at once take turns, so both cannot pass the comparison.
 */
export async function teammateNamesLocked(db: Tx, personId: number): Promise<string[]> {
  await sql`SELECT id FROM organizations WHERE id IN (SELECT org_id FROM members WHERE person_id = ${personId})
    ORDER BY id FOR NO KEY UPDATE`.execute(db);
  const r = await sql<{ name: string }>`SELECT DISTINCT m.name FROM members m
    WHERE m.org_id IN (SELECT org_id FROM members WHERE person_id = ${personId})
      AND m.person_id IS DISTINCT FROM ${personId} AND m.name <> ''`.execute(db);
  return r.rows.map((x) => x.name);
}

/** Moves a person (and its memberships' copies) to a new email address. */
export async function setPersonEmail(db: Tx, personId: number, email: string) {
  await sql`UPDATE persons SET email = ${email} WHERE id = ${personId}`.execute(db);
  await sql`UPDATE members SET email = ${email} WHERE person_id = ${personId}`.execute(db);
}

export async function personIdOfMember(db: Q, orgId: number, memberId: number): Promise<number | undefined> {
  const r = await sql<{
    person_id: number;
  }>`SELECT person_id FROM members WHERE org_id = ${orgId} AND id = ${memberId}`.execute(db);
  return r.rows[0]?.person_id;
}

/** GET /account/me in one statement: the member's person, organization and membership date (org-scoped). */
export async function memberProfile(
  db: Q,
  orgId: number,
  memberId: number,
): Promise<
  | {
      email: string;
      name: string;
      preferences: PersonRow['preferences'];
      org_id: number;
      org_name: string;
      tier: Tier;
      created_at: Date;
    }
  | undefined
> {
  const r = await sql<{
    email: string;
    name: string;
    preferences: PersonRow['preferences'];
    org_id: number;
    org_name: string;
    tier: Tier;
    created_at: Date;
  }>`
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
  const r =
    await sql<OrgRow>`SELECT id, name, tier, status, created_at, cap_overrides, provider_org_id, deactivated_at, deleted_at
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
  const r =
    await sql<OrgRow>`SELECT id, name, tier, status, created_at, cap_overrides, provider_org_id, deactivated_at, deleted_at
    FROM organizations WHERE id = ${orgId} FOR NO KEY UPDATE`.execute(db);
  return r.rows[0];
}

export async function renameOrg(db: Q, orgId: number, name: string) {
  await sql`UPDATE organizations SET name = ${name} WHERE id = ${orgId}`.execute(db);
}

/** Sets the given overrides (null clears one); the others stay. Returns the stored overrides, undefined when no such organization. */
export async function setCapOverrides(
  db: Q,
  orgId: number,
  set: Partial<Record<keyof CapOverrides, number | null>>,
): Promise<CapOverrides | undefined> {
  const keep = Object.fromEntries(Object.entries(set).filter(([, v]) => v !== null));
  const clear = Object.entries(set)
    .filter(([, v]) => v === null)
    .map(([k]) => k);
  const r = await sql<{
    cap_overrides: CapOverrides;
  }>`UPDATE organizations SET cap_overrides = (cap_overrides - ${clear}::text[]) || ${JSON.stringify(keep)}::jsonb
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
  await sql`UPDATE organizations SET status = 'active', deactivated_at = NULL WHERE id = ${orgId} AND deleted_at IS NULL`.execute(
    db,
  );
}

export async function listClients(db: Q, providerOrgId: number) {
  const r = await sql<{
    id: number;
    name: string;
    tier: Tier;
    status: string;
    created_at: Date;
    deactivated_at: Date | null;
  }>`
    SELECT id, name, tier, status, created_at, deactivated_at FROM organizations
    WHERE provider_org_id = ${providerOrgId} AND deleted_at IS NULL ORDER BY created_at, id`.execute(db);
  return r.rows;
}

export async function getClient(db: Q, providerOrgId: number, clientOrgId: number) {
  const r = await sql<{
    id: number;
    name: string;
    tier: Tier;
    status: string;
    created_at: Date;
    deactivated_at: Date | null;
  }>`
    SELECT id, name, tier, status, created_at, deactivated_at FROM organizations
    WHERE provider_org_id = ${providerOrgId} AND id = ${clientOrgId} AND deleted_at IS NULL`.execute(db);
  return r.rows[0];
}
