// Plan caps on environments, assets, members and webhooks (spec §4.5 /account/usage, §8 "Team members"), per tier.
// The member caps are the spec's (2 Standard, 5 Professional, 25 Enterprise); the rest is our decision
// (ADR 0082; webhooks: every alert fans out to each of them, docs/webhooks.md "Cap"). Operators change them with VULNINTEL_PLAN_CAPS (JSON, merged over these
// defaults) and per organization with `vulnintel org caps` (stored overrides). -1 = unlimited.
// This is the one table: team invitations enforce it and /account/org, /account/usage and the CLI report it.
// Overrides are stored in organizations.cap_overrides (jsonb).
import { isOneOf } from './one-of.ts';
import { TIERS, type Tier } from './tiers.ts';

export const CAP_RESOURCES = ['environments', 'assets', 'members', 'webhooks'] as const;
export type CapResource = (typeof CAP_RESOURCES)[number];
export type Caps = Record<CapResource, number>;
export type PlanCapsTable = Record<Tier, Readonly<Caps>>;

export const DEFAULT_PLAN_CAPS: Readonly<PlanCapsTable> = Object.freeze({
  free: Object.freeze({ environments: 1, assets: 25, members: 1, webhooks: 0 }),
  standard: Object.freeze({ environments: 3, assets: 250, members: 2, webhooks: 20 }),
  professional: Object.freeze({ environments: 10, assets: 2500, members: 5, webhooks: 25 }),
  api: Object.freeze({ environments: 25, assets: 10000, members: 5, webhooks: 25 }),
  enterprise: Object.freeze({ environments: -1, assets: -1, members: 25, webhooks: 50 }),
});

function capValue(v: unknown, where: string): number {
  // Stryker disable next-line ConditionalExpression: Number.isSafeInteger is false for anything but a number; the typeof check is kept for the type narrowing
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < -1)
    throw new Error(`${where} must be an integer ≥ 0, or -1 for unlimited`);
  return v;
}

/** Parses VULNINTEL_PLAN_CAPS, e.g. {"standard":{"assets":500}}, merged over the defaults. Throws on a bad value. */
export function parsePlanCaps(raw: string | undefined): PlanCapsTable {
  if (raw === undefined || raw.trim() === '') return DEFAULT_PLAN_CAPS;
  let j: unknown;
  try {
    j = JSON.parse(raw);
  } catch {
    throw new Error('not valid JSON; expected e.g. {"standard":{"assets":500}}');
  }
  if (j === null || typeof j !== 'object' || Array.isArray(j)) throw new Error('expected a JSON object keyed by tier');
  const out: PlanCapsTable = { ...DEFAULT_PLAN_CAPS };
  const tiers: [string, unknown][] = Object.entries(j);
  for (const [tier, caps] of tiers) {
    if (!isOneOf(TIERS, tier)) throw new Error(`unknown tier "${tier}" (one of ${TIERS.join(', ')})`);
    if (caps === null || typeof caps !== 'object' || Array.isArray(caps))
      throw new Error(`${tier}: expected an object of caps`);
    const merged = { ...out[tier] };
    for (const [res, v] of Object.entries(caps)) {
      if (!isOneOf(CAP_RESOURCES, res))
        throw new Error(`${tier}: unknown cap "${res}" (one of ${CAP_RESOURCES.join(', ')})`);
      merged[res] = capValue(v, `${tier}.${res}`);
    }
    out[tier] = Object.freeze(merged);
  }
  return Object.freeze(out);
}

/** Per-organization overrides as stored (organizations.cap_overrides); a cap given there replaces the plan's. */
export type CapOverrides = Partial<Record<CapResource, number>>;

/** The caps that apply to an organization: its override where set, else its plan's. */
export function effectiveCaps(
  table: Readonly<PlanCapsTable>,
  tier: Tier,
  overrides: CapOverrides | null | undefined,
): Caps {
  const plan = table[tier];
  const out = { ...plan };
  for (const r of CAP_RESOURCES) {
    const o = overrides?.[r];
    // Stryker disable next-line ConditionalExpression: Number.isSafeInteger is false for anything but a number; the typeof check is kept for the type narrowing
    if (typeof o === 'number' && Number.isSafeInteger(o) && o >= -1) out[r] = o;
  }
  return out;
}

export interface UsageLine {
  used: number;
  /** Effective cap; -1 = unlimited. */
  limit: number;
  /** Left before the cap (-1 = unlimited; never negative). */
  remaining: number;
  /** The plan's cap, before any override. */
  plan_limit: number;
  /** Whether an organization override sets `limit`. */
  overridden: boolean;
}

export function usageLine(used: number, plan: number, limit: number, overridden: boolean): UsageLine {
  return { used, limit, remaining: limit < 0 ? -1 : Math.max(0, limit - used), plan_limit: plan, overridden };
}

/** True when one more of a resource fits under the cap (-1 = no cap). */
export function underCap(limit: number, used: number): boolean {
  return limit < 0 || used < limit;
}
