// Identity operations: who a credential is (API key or session), and the operator/account operations on
// organizations, members and keys (CLI today, the key-management endpoints with the accounts issue).
// The rules live here and in domain/keys.ts; store/identity.ts runs the SQL. Never sees request or reply.
import { oneOf } from './stored-values.ts';
import type { Clock } from '../lib/clock.ts';
import { generateApiKey, isWellFormedApiKey, KEY_START_LENGTH, sha256Hex } from '../lib/crypto.ts';
import { withTx, type Db, type Tx } from '../store/db.ts';
import {
  createMember,
  createOrganization,
  findKeyByHash,
  findMemberByEmail,
  getOrganization,
  endTrialUsage,
  insertApiKey,
  insertTrialUsage,
  listApiKeys,
  lockKeysByRef,
  lockOrganization,
  lockTrialUsage,
  revokeKey,
  setOrganizationTier,
} from '../store/identity.ts';
import { ROLES, TIER_PERMISSIONS, type KeyKind, type Role, type Scope, type Tier } from '../domain/tiers.ts';
import { Refusal, type IdentityRefusalCode, type RefusalCode } from './refusal.ts';
import { keyLabel, planKey, trialStatus, type KeyRefusal, type TrialState } from '../domain/keys.ts';
import { findSession, touchSession } from '../store/account-sessions.ts';
import { SESSION_TOUCH_MS, sessionExpired } from '../domain/accounts.ts';

/** The caller behind a request: resolved once by the auth hook and handed to services as plain data. */
export interface Principal {
  via: 'key' | 'session';
  orgId: number;
  orgName: string;
  memberId: number;
  email: string;
  /** The member's display name and the time it joined (the profile of GET /account/me, without another query). */
  name: string;
  memberSince: Date;
  role: Role;
  tier: Tier;
  keyId: number | null;
  /** Display prefix of the key, safe to log. */
  keyStart: string | null;
  kind: KeyKind | 'session';
  scopes: Scope[];
}

/** The refusals of a presented API key (http/refusals.ts maps each to its spec §7 answer). */
const KEY_REFUSED = {
  invalid: () => new Refusal('invalid_api_key', 'Invalid API key'),
  revoked: () => new Refusal('api_key_revoked', 'API key revoked'),
  expired: () => new Refusal('api_key_expired', 'API key expired'),
  trialEnded: () =>
    new Refusal('trial_over', 'The trial has ended; this key is no longer accepted', { reason: 'ended' }),
  trialExpired: () =>
    new Refusal('trial_over', 'The 14-day trial has expired; this key is no longer accepted', { reason: 'expired' }),
};

/** The codes authenticateKey refuses with (a caller that answers them itself catches these). */
export const KEY_REFUSAL_CODES: readonly RefusalCode[] = [
  'invalid_api_key',
  'api_key_revoked',
  'api_key_expired',
  'trial_over',
];

/** A refused identity operation; `code` is the spec's detail.error where the spec names one. */
export class IdentityError extends Refusal {
  declare readonly code: IdentityRefusalCode | 'role_required' | KeyRefusal;
  constructor(code: IdentityRefusalCode | 'role_required' | KeyRefusal, message: string) {
    super(code, message);
  }
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

export interface KeyRequest {
  email: string;
  role?: Role;
  name?: string;
  kind: KeyKind;
  scopes?: Scope[];
  label?: string | null;
}

const ROLE_RANK: Record<Role, number> = { viewer: 0, admin: 1, owner: 2 };

/** True when `role` is at least `minimum` (viewer < admin < owner). */
export function roleAtLeast(role: Role, minimum: Role): boolean {
  return ROLE_RANK[role] >= ROLE_RANK[minimum];
}

export function createIdentityService(db: Db, clock: Clock) {
  async function issueInTx(trx: Tx, orgId: number, tier: Tier, input: KeyRequest, now: Date): Promise<IssuedKey> {
    const trial: TrialState | null = input.kind === 'trial' ? ((await lockTrialUsage(trx, orgId)) ?? null) : null;
    const plan = planKey({ tier, kind: input.kind, scopes: input.scopes, trial }, now);
    if (!plan.ok) throw new IdentityError(plan.error, plan.message);
    const email = input.email.toLowerCase();
    const existing = await findMemberByEmail(trx, orgId, email);
    let member: { id: number; email: string; role: string };
    let created = false;
    if (existing) {
      if (input.role && input.role !== existing.role) {
        throw new IdentityError(
          'role_mismatch',
          `${email} is already a member with role ${existing.role}; a key inherits its member's role`,
        );
      }
      member = existing;
    } else {
      if (!input.role)
        throw new IdentityError(
          'role_required',
          `${email} is not a member of organization ${orgId}; give the new member's role`,
        );
      if (input.role === 'owner') throw new IdentityError('owner_exists', `Organization ${orgId} already has an owner`);
      member = await createMember(trx, orgId, email, input.role, input.name ?? '');
      created = true;
    }
    if (input.kind === 'partner' && member.role === 'viewer') {
      // A partner key correlates assets (spec §5.8); a key inherits its member's role, and a viewer's key is refused
      // every correlation call (403 viewer_role), so such a key could do nothing a partner key is for.
      throw new IdentityError(
        'viewer_partner_key',
        `${email} is a viewer; a partner key inherits its member's role and a viewer's key cannot correlate assets. Issue it for an admin`,
      );
    }
    if (plan.startsTrial) await insertTrialUsage(trx, orgId, now);
    const g = generateApiKey();
    const row = await insertApiKey(trx, orgId, {
      member_id: member.id,
      key_hash: g.hash,
      key_start: g.start,
      kind: input.kind,
      scopes: plan.scopes,
      label: keyLabel(input.label),
      expires_at: plan.expiresAt,
    });
    return {
      id: row.id,
      key: g.key,
      key_start: row.key_start,
      kind: row.kind,
      scopes: row.scopes,
      expires_at: row.expires_at,
      created_at: row.created_at,
      member: { id: member.id, email: member.email, role: oneOf(ROLES, member.role, 'members.role'), created },
    };
  }

  return {
    /**
     * Who an API key is; a key not accepted is refused (KEY_REFUSAL_CODES). Malformed keys fail the checksum and are
     * refused without a database query; a key of a deactivated organization is as unknown as a key that never existed.
     */
    async authenticateKey(key: string): Promise<Principal> {
      if (!isWellFormedApiKey(key)) throw KEY_REFUSED.invalid();
      const row = await findKeyByHash(db, sha256Hex(key));
      if (!row || row.org_status !== 'active') throw KEY_REFUSED.invalid();
      if (row.revoked_at) throw KEY_REFUSED.revoked();
      if (row.kind === 'trial' && row.trial_ended_at) throw KEY_REFUSED.trialEnded();
      if (row.expires_at && row.expires_at.getTime() <= clock.now().getTime()) {
        throw row.kind === 'trial' ? KEY_REFUSED.trialExpired() : KEY_REFUSED.expired();
      }
      return {
        via: 'key',
        orgId: row.org_id,
        orgName: row.org_name,
        memberId: row.member_id,
        email: row.email,
        name: row.member_name,
        memberSince: row.member_created_at,
        role: row.role,
        tier: row.tier,
        keyId: row.key_id,
        keyStart: row.key_start,
        kind: row.kind,
        scopes: row.scopes,
      };
    },

    /** Who a session token is; null when unknown, expired, revoked or its organization is not active. */
    async authenticateSession(token: string): Promise<Principal | null> {
      const now = clock.now();
      const s = await findSession(db, sha256Hex(token));
      if (!s || s.org_status !== 'active' || sessionExpired(s, now)) return null;
      // Idle expiry counts from the last use; written at most once a minute, so a busy session costs reads only.
      if (now.getTime() - s.last_seen_at.getTime() >= SESSION_TOUCH_MS) await touchSession(db, s.session_id, now);
      // A session holds both scopes; its member's role still bounds what it may do.
      return {
        via: 'session',
        orgId: s.org_id,
        orgName: s.org_name,
        memberId: s.member_id,
        email: s.email,
        name: s.member_name,
        memberSince: s.member_created_at,
        role: s.role,
        tier: s.tier,
        keyId: null,
        keyStart: null,
        kind: 'session',
        scopes: ['read', 'write'],
      };
    },

    /**
     * The calling member's profile (spec §2.8), from what the credential's own lookup read (member and organization,
     * joined by the key or session row): no further query (docs/benchmarks.md "Accounts and the edge limit").
     */
    profile(p: Principal) {
      return {
        id: p.memberId,
        email: p.email,
        name: p.name,
        tier: p.tier,
        org_id: p.orgId,
        org_name: p.orgName,
        created_at: p.memberSince.toISOString(),
        permissions: { ...TIER_PERMISSIONS[p.tier] },
      };
    },

    /**
     * Issues an API key for a member of the organization (created with `role` if the email is new). The
     * plaintext key is in the result only; the database keeps its SHA-256 and display prefix.
     */
    async issueApiKey(orgId: number, input: KeyRequest): Promise<IssuedKey> {
      return withTx(db, async (trx) => {
        const org = await lockOrganization(trx, orgId);
        if (!org || org.status !== 'active')
          throw new IdentityError('org_not_found', `No active organization with id ${orgId}`);
        return issueInTx(trx, orgId, org.tier, input, clock.now());
      });
    },

    /** Creates an organization and its owner; the owner's first key when the tier allows API keys. */
    async createOrganizationWithOwner(input: { name: string; tier: Tier; ownerEmail: string; ownerName?: string }) {
      return withTx(db, async (trx) => {
        const org = await createOrganization(trx, input.name, input.tier);
        const owner = await createMember(trx, org.id, input.ownerEmail, 'owner', input.ownerName ?? '');
        const key = TIER_PERMISSIONS[input.tier].api_keys
          ? await issueInTx(trx, org.id, input.tier, { email: owner.email, kind: 'standard' }, clock.now())
          : null;
        return { org, owner, key };
      });
    },

    async getOrganization(orgId: number) {
      return getOrganization(db, orgId);
    },

    /**
     * Ends the organization's free trial now (an operator's early end): its trial keys are refused from the next
     * request with 403 TRIAL_ENDED, reason `ended`, and no new trial key is issued. Idempotent: an ended trial keeps its
     * first end time. Returns the trial's state after the call.
     */
    async endTrial(orgId: number) {
      return withTx(db, async (trx) => {
        const org = await lockOrganization(trx, orgId);
        if (!org) throw new IdentityError('org_not_found', `No organization with id ${orgId}`);
        const trial = await lockTrialUsage(trx, orgId);
        if (!trial) throw new IdentityError('trial_not_started', `Organization ${orgId} has not started a trial`);
        const now = clock.now();
        const already = trial.ended_at !== null;
        const endedAt = trial.ended_at ?? (await endTrialUsage(trx, orgId, now));
        return { already, status: trialStatus({ ...trial, ended_at: endedAt }, now) };
      });
    },

    /** Changes the tier; the previous organization row, or org_not_found. */
    async setTier(orgId: number, tier: Tier) {
      const before = await getOrganization(db, orgId);
      if (!before) throw new IdentityError('org_not_found', `No organization with id ${orgId}`);
      await setOrganizationTier(db, orgId, tier);
      return before;
    },

    async listApiKeys(orgId: number) {
      if (!(await getOrganization(db, orgId)))
        throw new IdentityError('org_not_found', `No organization with id ${orgId}`);
      return listApiKeys(db, orgId);
    },

    /**
     * Revokes one key of the organization, by id or by its display prefix (key_start, or the whole key).
     * Idempotent: a revoked key keeps its first revocation time. A key of another organization is not found.
     */
    async revokeApiKey(orgId: number, ref: { id?: number; prefix?: string }) {
      return withTx(db, async (trx) => {
        let rows;
        if (ref.id !== undefined) rows = await lockKeysByRef(trx, orgId, { id: ref.id });
        else if (ref.prefix !== undefined) {
          const p = ref.prefix;
          if (isWellFormedApiKey(p))
            rows = await lockKeysByRef(trx, orgId, { hash: sha256Hex(p) }); // the whole key was given
          // Only the display prefix is stored: anything else than exactly that prefix cannot be checked.
          else if (p.length === KEY_START_LENGTH) rows = await lockKeysByRef(trx, orgId, { start: p });
          else
            throw new IdentityError(
              'key_not_found',
              `Give the key id, its ${KEY_START_LENGTH}-character prefix as shown by \`vulnintel key list\`, or the whole key`,
            );
        } else throw new IdentityError('key_not_found', 'Give a key id or a key prefix');
        if (rows.length === 0) throw new IdentityError('key_not_found', `No such API key in organization ${orgId}`);
        if (rows.length > 1)
          throw new IdentityError('ambiguous_key', `The prefix matches ${rows.length} keys; revoke by id`);
        return revokeKey(trx, orgId, rows[0].id, clock.now());
      });
    },
  };
}

export type IdentityService = ReturnType<typeof createIdentityService>;
