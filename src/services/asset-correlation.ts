// v1 asset correlation (docs/correlation.md §5–7): which CVEs hit the equipment an asset names. Built from its
// capabilities (services/asset-correlation/):
// - match.ts: validate each asset (domain/assets.ts), look up the stored ranges by vendor slug and product key
//   (correlation-cache.ts), match per asset (identical nameplates once) and decide per CVE (domain/correlate.ts);
// - charge.ts: trial and partner asset checks (exact under concurrency, nothing processed when refused; store/asset-checks.ts);
// - correlate.ts: the answer, one asset at a time as the route writes it (correlation-answer.ts: order, filter, page);
// - check.ts: per asset only the counts;
// - results.ts: with an environment, every asset decided first and stored in one transaction (last writer wins per
//   asset_id; store/asset-correlations.ts), and the stored assets decided again.
// Never sees a request or reply; refusals are Refusals (services/refusal.ts) the error handler renders.
import type { Db } from '../store/db.ts';
import type { Clock } from '../lib/clock.ts';
import type { PlanCapsTable } from '../domain/plan-caps.ts';
import { environmentExists } from '../store/windows.ts';
import { CorrelationCache, type CorpusGeneration, type CorrelationCacheLimits } from './correlation-cache.ts';
import { environmentNotFound, refusedFile } from './refusal.ts';
import { createAssetCharge } from './asset-correlation/charge.ts';
import { createAssetMatcher } from './asset-correlation/match.ts';
import { createAssetResults } from './asset-correlation/results.ts';
import { correlate } from './asset-correlation/correlate.ts';
import { check } from './asset-correlation/check.ts';
import type { CorrelateInput } from './asset-correlation/types.ts';

export { MAX_ASSETS, type CorrelateAnswers, type CorrelateInput } from './asset-correlation/types.ts';

export interface AssetCorrelationDeps {
  db: Db;
  clock: Clock;
  /** The public URL: TRIAL_REQUIRED's trial_url is the trial-start endpoint on it. */
  publicUrl: string;
  /** The plan caps: stored assets count against the organization's asset cap (services/plan-caps.ts). */
  planCaps: Readonly<PlanCapsTable>;
  /** The CVE reader's corpus generation: ranges and cards are cached while it is known (correlation-cache.ts). */
  corpus?: CorpusGeneration;
  /** Where the ranges and cards are read (a read replica when one may answer); default `db`. */
  corpusDb?: Db;
  cacheLimits?: CorrelationCacheLimits;
  /** Stored results go in statements of about this much JSON text each (tests: smaller; results.ts). */
  storeBatchChars?: number;
}

export function createAssetCorrelation(deps: AssetCorrelationDeps) {
  const { db } = deps;
  const cache = new CorrelationCache(deps.corpusDb ?? db, deps.corpus ?? null, deps.cacheLimits);
  const charge = createAssetCharge(deps);
  const matcher = createAssetMatcher(db, cache);
  const results = createAssetResults(deps, matcher, cache);

  /** Free account → the environment → each asset validated → the accepted assets' checks charged. */
  async function prepare(input: CorrelateInput) {
    charge.assertAllowed(input.principal);
    if (input.environmentId !== null && !(await environmentExists(db, input.principal.orgId, input.environmentId))) {
      throw environmentNotFound(input.environmentId);
    }
    const v = await matcher.validate(input.assets);
    if (input.wholeFile && v.rejected.length) throw refusedFile(v.rejected.length, input.assets.length, v.rejected);
    await charge.charge(input.principal, v.accepted.length);
    return v;
  }
  const parts = { db, cache, charge, matcher, results, prepare };

  return {
    /** POST /api/v1/assets/correlate-cves (correlate.ts). */
    correlate: (input: CorrelateInput) => correlate(parts, input),
    /** GET /api/v1/assets/results (results.ts). */
    results: results.results,
    /** POST /api/v1/assets/correlate-cves/check (check.ts). */
    check: (input: CorrelateInput) => check(parts, input),
    /** Stored results of an environment (tests and the environment views). */
    stored: results.stored,
    assertAllowed: charge.assertAllowed,
    charged: charge.charged,
    /** What the correlation cache holds (tests, operators). */
    cacheStats: () => cache.stats(),
  };
}

export type AssetCorrelation = ReturnType<typeof createAssetCorrelation>;
