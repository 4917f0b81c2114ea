// API-key issuance policy (spec §5.7, §5.8, §8), pure: which keys an organization may hold, with which scopes
// and expiry. The operator CLI and any later key-management endpoint both go through planKey(), so the CLI
// refuses exactly what the API would refuse.
import {
  PARTNER_SCOPES,
  SCOPES,
  TIER_PERMISSIONS,
  TRIAL,
  TRIAL_SCOPES,
  type KeyKind,
  type Scope,
  type Tier,
} from './tiers.ts';

/** The one tier a free API trial is for (spec §4.7: a Free account correlates only with a trial key). */
export const TRIAL_TIER: Tier = 'free';
import { NAME_TEXT_MESSAGE, NAME_FORBIDDEN } from './text.ts';

export const DAY_MS = 24 * 60 * 60 * 1000;

export interface TrialState {
  started_at: Date;
  ended_at: Date | null;
  used: number;
}

export interface KeyRequest {
  tier: Tier;
  kind: KeyKind;
  /** Requested scopes; undefined = the kind's default. */
  scopes?: Scope[];
  /** The organization's trial record, if a trial was ever started. */
  trial?: TrialState | null;
}

/** detail.error values, verbatim from spec §7 where the spec names one. */
export type KeyRefusal = 'upgrade_required' | 'scope_not_allowed' | 'trial_ended' | 'trial_unavailable';

export type KeyPlan =
  | { ok: true; scopes: Scope[]; expiresAt: Date | null; startsTrial: boolean }
  | { ok: false; error: KeyRefusal; message: string };

const DEFAULT_SCOPES: Record<KeyKind, readonly Scope[]> = {
  standard: SCOPES,
  partner: PARTNER_SCOPES,
  trial: TRIAL_SCOPES,
};

const ALLOWED_SCOPES: Record<KeyKind, readonly Scope[]> = {
  standard: SCOPES,
  partner: PARTNER_SCOPES,
  trial: TRIAL_SCOPES,
};

/** Longest API key label, after trimming (the API, the account page and the CLI refuse longer ones). */
export const KEY_LABEL_MAX = 200;

/**
 * An API key's label as stored: trimmed, and null for none (absent, empty or only spaces). The API refuses an
 * empty label (its schema: 1–200 characters with a non-space); the account page's blank field means no label, and a
 * rotated key carries its old key's label in this form.
 */
export function keyLabel(raw: string | null | undefined): string | null {
  const t = raw?.trim();
  return t ? t : null;
}

/** Why a label given on purpose (the CLI's --label) cannot be one, or null when it can. */
export function keyLabelProblem(raw: string): string | null {
  const t = raw.trim();
  if (t === '') return 'must not be empty or only spaces';
  if (t.length > KEY_LABEL_MAX) return `must be at most ${KEY_LABEL_MAX} characters`;
  if (NAME_FORBIDDEN.test(t)) return NAME_TEXT_MESSAGE;
  return null;
}

export function trialExpiry(startedAt: Date): Date {
  return new Date(startedAt.getTime() + TRIAL.days * DAY_MS);
}

/** What an organization's free API trial stands at (GET /api/v1/account/trial; docs/accounts.md "Free API trial"). */
export interface TrialStatus {
  status: 'not_started' | 'active' | 'ended';
  /** Why it ended (spec §7 TRIAL_ENDED reasons): `expired` (14 days), `ended` (ended early), `limit` (checks used up). */
  reason: 'expired' | 'ended' | 'limit' | null;
  started_at: string | null;
  ends_at: string | null;
  per_request: number;
  total_checks: number;
  used: number;
  remaining: number;
}

/** The trial's state from its usage row (null: never started), at `now`. An early end wins, then expiry, then the limit. */
export function trialStatus(t: TrialState | null, now: Date): TrialStatus {
  const base = { per_request: TRIAL.perRequest, total_checks: TRIAL.totalChecks };
  if (!t)
    return {
      status: 'not_started',
      reason: null,
      started_at: null,
      ends_at: null,
      ...base,
      used: 0,
      remaining: TRIAL.totalChecks,
    };
  const ends = trialExpiry(t.started_at);
  const used = Math.min(t.used, TRIAL.totalChecks);
  const reason = t.ended_at
    ? ('ended' as const)
    : ends.getTime() <= now.getTime()
      ? ('expired' as const)
      : t.used >= TRIAL.totalChecks
        ? ('limit' as const)
        : null;
  return {
    status: reason ? 'ended' : 'active',
    reason,
    started_at: t.started_at.toISOString(),
    ends_at: ends.toISOString(),
    ...base,
    used,
    remaining: reason ? 0 : TRIAL.totalChecks - used,
  };
}

/**
 * Decides whether a key of this kind may be issued now.
 * - standard keys need the tier's `api_keys` permission (Professional and above); lower tiers: upgrade_required.
 * - partner keys are read-only (spec §5.8) and are issued by an operator under an agreement, on any tier.
 * - trial keys exist for accounts without API access: the Free plan only, as POST /account/trial (a Standard
 *   organization has no correlation to try, a Professional one has API keys); any other tier: trial_unavailable.
 *   One trial per organization: every trial key expires 14 days after the trial started, and no new trial key once
 *   the trial ended, expired or used its 750 checks.
 */
export function planKey(req: KeyRequest, now: Date): KeyPlan {
  const scopes = [...new Set(req.scopes ?? DEFAULT_SCOPES[req.kind])].sort();
  if (scopes.length === 0)
    return { ok: false, error: 'scope_not_allowed', message: 'A key needs at least one scope (read, write)' };
  const outside = scopes.filter((s) => !ALLOWED_SCOPES[req.kind].includes(s));
  if (outside.length > 0) {
    return {
      ok: false,
      error: 'scope_not_allowed',
      // Stryker disable next-line StringLiteral: with today's kind tables only a partner key asks for a scope outside its kind, so one scope is outside and one (read) allowed: no separator is ever printed
      message: `${req.kind} keys may not hold the scope ${outside.join(', ')} (allowed: ${ALLOWED_SCOPES[req.kind].join(', ')})`,
    };
  }
  if (req.kind === 'standard') {
    if (!TIER_PERMISSIONS[req.tier].api_keys) {
      return {
        ok: false,
        error: 'upgrade_required',
        message: `API keys are available on the Professional tier and above; this organization is on ${req.tier}`,
      };
    }
    return { ok: true, scopes, expiresAt: null, startsTrial: false };
  }
  if (req.kind === 'partner') return { ok: true, scopes, expiresAt: null, startsTrial: false };
  // trial
  if (req.tier !== TRIAL_TIER) {
    return {
      ok: false,
      error: 'trial_unavailable',
      message: `The free API trial is for organizations on the Free plan; this organization is on ${req.tier}`,
    };
  }
  const t = req.trial;
  if (!t) return { ok: true, scopes, expiresAt: trialExpiry(now), startsTrial: true };
  const expires = trialExpiry(t.started_at);
  if (t.ended_at) return { ok: false, error: 'trial_ended', message: 'The trial of this organization has ended' };
  if (expires.getTime() <= now.getTime())
    return { ok: false, error: 'trial_ended', message: 'The 14-day trial of this organization has expired' };
  if (t.used >= TRIAL.totalChecks)
    return { ok: false, error: 'trial_ended', message: `The trial's ${TRIAL.totalChecks} asset checks are used up` };
  return { ok: true, scopes, expiresAt: expires, startsTrial: false };
}

/** First day (UTC) of the calendar month containing `now`, as YYYY-MM-01, and the first instant of the next. */
export function monthWindow(now: Date): { month: string; resetsAt: Date } {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  return { month: `${y}-${String(m + 1).padStart(2, '0')}-01`, resetsAt: new Date(Date.UTC(y, m + 1, 1)) };
}
