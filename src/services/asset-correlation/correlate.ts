// POST /api/v1/assets/correlate-cves (docs/correlation.md §5–7): charge the accepted assets' checks, match, and
// answer one asset at a time as the route writes it; with an environment, every asset is decided first and stored.
import type { Db } from '../../store/db.ts';
import { select } from '../correlation-answer.ts';
import { matchedProducts } from '../correlation-products.ts';
import type { CorrelationCache } from '../correlation-cache.ts';
import type { AssetCharge } from './charge.ts';
import type { AssetMatcher } from './match.ts';
import { environmentLookups, type createAssetResults } from './results.ts';
import type { CorrelateAnswers, CorrelateInput } from './types.ts';

export interface CorrelateParts {
  db: Db;
  cache: CorrelationCache;
  charge: AssetCharge;
  matcher: AssetMatcher;
  results: ReturnType<typeof createAssetResults>;
  /** Validation and the charge, shared with the check (asset-correlation.ts prepare). */
  prepare: (input: CorrelateInput) => ReturnType<AssetMatcher['validate']>;
}

/**
 * The database is read before this resolves (the lookups, the cards, the stored copy); each asset's CVEs are then
 * decided when its answer is taken (`answer(i)`, in order), so the route streams the first assets while the next ones
 * are decided and an answer is never held whole (docs/correlation.md §6). With environment_id every asset is decided
 * first and stored, and answer(i) selects.
 */
export async function correlate(parts: CorrelateParts, input: CorrelateInput): Promise<CorrelateAnswers> {
  const { cache, charge, matcher } = parts;
  const { accepted, rejected } = await parts.prepare(input);
  return charge.run(input.principal, accepted.length, async () => {
    const { matchedPer, groupsPer, ids } = await matcher.matchAll(accepted);
    const cards = await cache.cards(ids);
    const productsAt = (i: number) => matchedProducts(groupsPer[i], cards);
    const fail = () => charge.refund(input.principal, accepted.length);
    const environmentId = input.environmentId;
    if (environmentId === null) {
      return {
        rejected,
        stored: false,
        count: accepted.length,
        fail,
        answer: (i: number) =>
          select(accepted[i], matcher.decideOne(accepted[i], matchedPer[i], cards), productsAt(i), input.options),
      };
    }
    const perAsset = accepted.map((asset, i) => ({
      asset,
      decided: matcher.decideOne(asset, matchedPer[i], cards),
      products: productsAt(i),
    }));
    await parts.results.store({ principal: input.principal, requestId: input.requestId, environmentId }, perAsset);
    const { lookup, stated } = await environmentLookups(parts.db, input.principal.orgId, environmentId, ids);
    // Ranks are over every decided CVE whatever the options, so the stored copy and the answer agree.
    return {
      rejected,
      stored: true,
      count: accepted.length,
      fail,
      decided: true,
      answer: (i: number) =>
        select(perAsset[i].asset, perAsset[i].decided, perAsset[i].products, input.options, lookup, stated),
    };
  });
}
