// API keys over HTTP and the free API trial (docs/accounts.md "API keys", "Free API trial"): the key part of the
// accounts service (services/accounts.ts spreads it into its own, with the other parts of services/accounts/). Keys are shown once, stored as their hash.
import type { Clock } from '../../lib/clock.ts';
import { generateApiKey } from '../../lib/crypto.ts';
import { withTx, type Db, type Tx } from '../../store/db.ts';
import { lockOrg } from '../../store/accounts.ts';
import {
  insertApiKey,
  keyToRotate,
  listApiKeys,
  lockKeysByRef,
  lockTrialUsage,
  insertTrialUsage,
  revokeKey,
  trialUsageOf,
} from '../../store/identity.ts';
import { TIER_PERMISSIONS, TRIAL, type KeyKind, type Scope } from '../../domain/tiers.ts';
import { keyLabel, planKey, trialStatus, type TrialStatus } from '../../domain/keys.ts';
import { AccountError, iso } from '../account-errors.ts';
import type { Principal } from '../identity.ts';

export function createAccountKeys({ db, clock }: { db: Db; clock: Clock }) {
  function keyView(k: {
    id: number;
    key_start: string;
    kind: KeyKind;
    scopes: Scope[];
    label: string | null;
    created_at: Date;
    expires_at: Date | null;
    revoked_at: Date | null;
    last_used_at: Date | null;
    member_id: number;
    email: string;
  }) {
    return {
      id: k.id,
      key_start: k.key_start,
      kind: k.kind,
      scopes: k.scopes,
      label: k.label,
      created_at: iso(k.created_at)!,
      expires_at: iso(k.expires_at),
      revoked_at: iso(k.revoked_at),
      last_used_at: iso(k.last_used_at),
      member: { id: k.member_id, email: k.email },
    };
  }

  function requireKeysTier(p: Principal) {
    if (!TIER_PERMISSIONS[p.tier].api_keys) {
      throw new AccountError(
        'upgrade_required',
        `API keys are available on the Professional tier and above; this organization is on ${p.tier}`,
      );
    }
  }

  /**
   * A new key of the caller's member (creation, and rotation, which only a key's holder may do). `within`: the scopes
   * the new key may have at most (a key creating a key: its own scopes, so a leaked write-only key cannot mint a read
   * key); null for a browser session or the operator.
   */
  async function issueKey(
    trx: Tx,
    p: Principal,
    input: { kind: 'standard' | 'partner'; scopes?: Scope[]; label?: string | null },
    within: readonly Scope[] | null = null,
  ) {
    const plan = planKey({ tier: p.tier, kind: input.kind, scopes: input.scopes }, clock.now());
    if (!plan.ok) throw new AccountError(plan.error === 'trial_ended' ? 'trial_ended' : plan.error, plan.message);
    const lacking = within === null ? [] : plan.scopes.filter((x) => !within.includes(x));
    if (lacking.length) {
      throw new AccountError(
        'insufficient_scope',
        `This API key lacks the ${lacking.join(' and ')} scope, so it cannot create a key that has it (send scopes within its own, or use a browser session)`,
        { required_scope: lacking[0] },
      );
    }
    // Under the organization's lock, and only while it is active: a key created while the owner deletes the
    // organization (which revokes every key under the same lock) was stored unrevoked in it.
    const o = await lockOrg(trx, p.orgId);
    if (!o || o.status !== 'active')
      throw new AccountError(
        'org_removed',
        'The organization was deleted or deactivated while the request ran; no key was created',
      );
    return insertKey(trx, p, input.kind, plan.scopes, keyLabel(input.label), plan.expiresAt);
  }

  /** Inserts a key of the caller's member; its text is in the answer only (stored as its hash). */
  async function insertKey(
    trx: Tx,
    p: Principal,
    kind: KeyKind,
    scopes: Scope[],
    label: string | null,
    expiresAt: Date | null,
  ) {
    const g = generateApiKey();
    const row = await insertApiKey(trx, p.orgId, {
      member_id: p.memberId,
      key_hash: g.hash,
      key_start: g.start,
      kind,
      scopes,
      label,
      expires_at: expiresAt,
    });
    return {
      key: g.key,
      id: row.id,
      key_start: row.key_start,
      kind: row.kind,
      scopes: row.scopes,
      label,
      created_at: iso(row.created_at)!,
      expires_at: iso(row.expires_at),
    };
  }

  return {
    async listKeys(p: Principal) {
      requireKeysTier(p);
      return (await listApiKeys(db, p.orgId)).map(keyView);
    },

    /** A new key of the calling member (it inherits the member's role); the key itself is in the answer only. */
    async createKey(p: Principal, input: { kind: 'standard' | 'partner'; scopes?: Scope[]; label?: string | null }) {
      requireKeysTier(p);
      return withTx(db, async (trx) => issueKey(trx, p, input, p.via === 'key' ? p.scopes : null));
    },

    async revokeKey(p: Principal, keyId: number) {
      requireKeysTier(p);
      return withTx(db, async (trx) => {
        const rows = await lockKeysByRef(trx, p.orgId, { id: keyId });
        if (rows.length === 0) throw new AccountError('not_found', 'No such API key in your organization');
        const r = await revokeKey(trx, p.orgId, keyId, clock.now());
        return { id: r.id, key_start: r.key_start, revoked_at: iso(r.revoked_at)! };
      });
    },

    /** Rotation: a new key with the old one's kind, scopes and label is created, then the old one is revoked. */
    async rotateKey(p: Principal, keyId: number) {
      requireKeysTier(p);
      return withTx(db, async (trx) => {
        const rows = await lockKeysByRef(trx, p.orgId, { id: keyId });
        if (rows.length === 0) throw new AccountError('not_found', 'No such API key in your organization');
        const old = await keyToRotate(trx, keyId);
        if (old.revoked_at) throw new AccountError('key_revoked', 'This key is revoked; create a new one instead');
        if (old.kind === 'trial') throw new AccountError('scope_not_allowed', 'Trial keys are not rotated');
        // The new key is shown to whoever rotates, so only its holder may rotate it: an admin rotating the owner's
        // key would get a key acting as the owner (spec §5.1, §5.6). Others revoke it instead.
        if (old.member_id !== p.memberId)
          throw new AccountError(
            'not_key_holder',
            'Only the member a key belongs to can rotate it (the new key is shown to whoever rotates); revoke it instead',
          );
        const fresh = await issueKey(trx, p, { kind: old.kind, scopes: old.scopes, label: old.label });
        const r = await revokeKey(trx, p.orgId, keyId, clock.now());
        return { key: fresh, revoked: { id: r.id, key_start: r.key_start, revoked_at: iso(r.revoked_at)! } };
      });
    },

    /** The organization's free API trial: not started, active (checks used and remaining) or ended, with why. */
    async trial(p: Principal): Promise<TrialStatus> {
      return trialStatus((await trialUsageOf(db, p.orgId)) ?? null, clock.now());
    },

    /**
     * Starts the organization's one free trial (spec §8: 25 assets per request, 750 in total, 14 days) and issues
     * its trial key. Free organizations only.
     */
    async startTrial(p: Principal) {
      return withTx(db, async (trx) => {
        const o = await lockOrg(trx, p.orgId);
        if (!o || o.tier !== 'free')
          throw new AccountError('trial_unavailable', 'The free API trial is for organizations on the Free plan');
        const trial = await lockTrialUsage(trx, p.orgId);
        const now = clock.now();
        if (trial) {
          if (trialStatus(trial, now).status === 'ended')
            throw new AccountError('trial_ended', 'The free API trial of this organization has ended');
          throw new AccountError(
            'trial_unavailable',
            'The free API trial of this organization has already started; its key was shown once at the start',
          );
        }
        const plan = planKey({ tier: o.tier, kind: 'trial', trial: null }, now);
        if (!plan.ok) throw new AccountError('trial_unavailable', plan.message);
        await insertTrialUsage(trx, p.orgId, now);
        const key = await insertKey(trx, p, 'trial', plan.scopes, 'Free API trial', plan.expiresAt);
        return {
          ...key,
          kind: 'trial' as const,
          expires_at: key.expires_at!,
          trial: {
            started_at: iso(now)!,
            ends_at: iso(plan.expiresAt)!,
            per_request: TRIAL.perRequest,
            total_checks: TRIAL.totalChecks,
          },
        };
      });
    },
  };
}
