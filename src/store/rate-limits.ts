// Rate-limit counters in PostgreSQL (rate-limiter-flexible's Postgres store over our pool, table rate_limits
// from migration 0004), insured by an in-process limiter with the same limits: when the database cannot answer,
// limits still apply per process (ADR 0089: never a 500, never unlimited).
import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Store } from './db.ts';

export interface WindowSpec {
  /** Allowed points per window. */
  points: number;
  /** Window length in seconds (fixed window starting at the first consumption). */
  durationSec: number;
}

/** Makes the limiter of one named window: what http/limits.ts is given (the app builds it over the store). */
export type LimiterFactory = (name: string, spec: WindowSpec) => RateLimiterAbstract;

/** The limiters of this store: counters in PostgreSQL, insured in process. */
export function postgresLimiters(store: Store): LimiterFactory {
  return (name, spec) => postgresLimiter(store, name, spec);
}

export function postgresLimiter(store: Store, name: string, spec: WindowSpec): RateLimiterAbstract {
  return new RateLimiterPostgres({
    storeClient: store.pool,
    storeType: 'pool',
    tableName: 'rate_limits',
    tableCreated: true,
    keyPrefix: name,
    points: spec.points,
    duration: spec.durationSec,
    insuranceLimiter: new RateLimiterMemory({ keyPrefix: name, points: spec.points, duration: spec.durationSec }),
  });
}
