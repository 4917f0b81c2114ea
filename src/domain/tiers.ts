// Tier permission table of spec §2.8, in one place, and the per-page caps of §8.
export const TIERS = ['free', 'standard', 'professional', 'api', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];
export const ROLES = ['owner', 'admin', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
export const KEY_KINDS = ['standard', 'partner', 'trial'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];
export const SCOPES = ['read', 'write'] as const;
export type Scope = (typeof SCOPES)[number];

export interface Permissions {
  search_max_results: number; // -1 = unlimited
  sage_visible: boolean;
  virtual_patch: boolean;
  api_keys: boolean;
  webhook_delivery: boolean;
}

export const TIER_PERMISSIONS: Readonly<Record<Tier, Readonly<Permissions>>> = Object.freeze({
  free: { search_max_results: 10, sage_visible: false, virtual_patch: false, api_keys: false, webhook_delivery: false },
  standard: {
    search_max_results: 1000,
    sage_visible: false,
    virtual_patch: false,
    api_keys: false,
    webhook_delivery: true,
  },
  professional: {
    search_max_results: 5000,
    sage_visible: true,
    virtual_patch: true,
    api_keys: true,
    webhook_delivery: true,
  },
  api: { search_max_results: -1, sage_visible: true, virtual_patch: true, api_keys: true, webhook_delivery: true },
  enterprise: {
    search_max_results: -1,
    sage_visible: true,
    virtual_patch: true,
    api_keys: true,
    webhook_delivery: true,
  },
});

/** per_page cap (spec §8): 10 for anonymous and Free callers, 100 for paid tiers. */
export function perPageCap(tier: Tier | null): number {
  return tier === null || tier === 'free' ? 10 : 100;
}

/**
 * The page a list request asks for (spec §2.1, §8): page 1 and 20 per page by default; a per_page over the tier's
 * cap is clamped, not refused (pagination.per_page reports the size actually used).
 */
export function pageOf(
  tier: Tier | null,
  q: { page?: number; per_page?: number },
): { page: number; perPage: number; offset: number } {
  const page = q.page ?? 1;
  const perPage = Math.min(q.per_page ?? 20, perPageCap(tier));
  return { page, perPage, offset: (page - 1) * perPage };
}

/** Trial keys: 14 days, 750 asset checks per organization, 25 per request (spec §8). */
export const TRIAL = Object.freeze({ days: 14, totalChecks: 750, perRequest: 25 });
/** detail.contact_url of every trial error (spec §7). */
export const TRIAL_CONTACT_URL = 'mailto:support@vulnintel.local';

/** Scopes a partner key may hold (spec §5.8: read-only). */
export const PARTNER_SCOPES: readonly Scope[] = ['read'];
/** Scopes a trial key may hold: its three calls include two POSTs (correlate-cves and /check). */
export const TRIAL_SCOPES: readonly Scope[] = ['read', 'write'];

/**
 * Monthly API-call allowance (spec §8): reported in X-RateLimit-* headers on every API-key response, tracked
 * but not enforced. The spec gives Professional 25,000 and Enterprise unlimited; the other tiers are our
 * decision (ADR 0023): API is unlimited like Enterprise (it is the API plan), Free and Standard get
 * Professional's figure (their keys are trial or partner keys issued by an operator). -1 = unlimited.
 */
export const MONTHLY_API_ALLOWANCE: Readonly<Record<Tier, number>> = Object.freeze({
  free: 25_000,
  standard: 25_000,
  professional: 25_000,
  api: -1,
  enterprise: -1,
});

// Plan caps (members, environments, assets) live in src/domain/plan-caps.ts.
