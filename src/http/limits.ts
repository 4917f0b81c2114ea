// Per-key rate limits (spec §8), shared by every route that needs them. The correlation profile is the spec's:
// 60 requests and 5,000 assets or hosts per minute per API key, one budget shared by POST
// /api/v1/assets/correlate-cves (and /check) and every /api/v2/assets/... endpoint. Routes call
// `app.limits.correlation.check(principal, units)` before processing; docs/limits.md has the rules.
// Never writes X-RateLimit-* headers: those names report the monthly allowance (auth.ts).
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.ts';
import type { Principal } from './auth.ts';
import type { LimiterFactory, WindowSpec } from '../store/rate-limits.ts';

export interface ProfileSpec {
  requests: WindowSpec;
  /** Weighted budget (assets or hosts), or null when the profile counts requests only. */
  units: WindowSpec | null;
}

/** Named profiles (Infisical-style): routes pick one by name. */
export const RATE_PROFILES = {
  correlation: { requests: { points: 60, durationSec: 60 }, units: { points: 5000, durationSec: 60 } },
} as const satisfies Record<string, ProfileSpec>;

export type ProfileName = keyof typeof RATE_PROFILES;

export interface RateProfile {
  /**
   * Counts one request (always, whatever the outcome) and `units` assets or hosts. Throws 429 RATE_LIMITED with
   * retry_after_seconds = seconds until the window ends (also detail.retry_after and Retry-After). A request
   * refused for its units is not charged for them (nothing processed, nothing counted), only for the request.
   */
  check(principal: Principal, units?: number): Promise<void>;
}

function rateLimited(res: RateLimiterRes, what: string, spec: WindowSpec): ApiError {
  return new ApiError('RATE_LIMITED', {
    message: `Rate limit exceeded for this API key: ${spec.points} ${what} per ${spec.durationSec} seconds`,
    retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    detail: { limit: spec.points, window_seconds: spec.durationSec, counts: what },
  });
}

/** A profile over the limiters the app gives (store/rate-limits.ts `postgresLimiters`: counters in PostgreSQL). */
export function createProfile(limiters: LimiterFactory, name: string, spec: ProfileSpec): RateProfile {
  const requests: RateLimiterAbstract = limiters(`${name}_req`, spec.requests);
  const units: RateLimiterAbstract | null = spec.units ? limiters(`${name}_units`, spec.units) : null;
  return {
    async check(principal, n = 0) {
      // Keyed by the API key (never by IP: many clients share one NAT); sessions by member.
      const key = principal.keyId !== null ? `k${principal.keyId}` : `m${principal.memberId}`;
      try {
        await requests.consume(key, 1);
      } catch (e) {
        if (e instanceof RateLimiterRes) throw rateLimited(e, 'requests', spec.requests);
        throw e;
      }
      if (!units || n <= 0) return;
      try {
        await units.consume(key, n);
      } catch (e) {
        if (!(e instanceof RateLimiterRes)) throw e;
        // The store counted the refused units; give them back so a refused request costs only its request point.
        await units.reward(key, n).catch(() => {});
        throw rateLimited(e, 'assets or hosts', spec.units!);
      }
    },
  };
}

export type Limits = Record<ProfileName, RateProfile>;

export function createLimits(
  limiters: LimiterFactory,
  overrides: Partial<Record<ProfileName, ProfileSpec>> = {},
): Limits {
  const profile = (name: ProfileName) => createProfile(limiters, name, overrides[name] ?? RATE_PROFILES[name]);
  // One line per profile: a profile added to RATE_PROFILES and not here fails the type check (Limits names each).
  return { correlation: profile('correlation') };
}

declare module 'fastify' {
  interface FastifyInstance {
    limits: Limits;
  }
}

export function registerLimits(
  app: FastifyInstance,
  limiters: LimiterFactory,
  overrides?: Partial<Record<ProfileName, ProfileSpec>>,
) {
  app.decorate('limits', createLimits(limiters, overrides));
}
