// Stored asset results (docs/correlation.md "Stored assets"): correlate-cves with environment_id stores each asset's
// full result, and GET /api/v1/assets/results decides the stored assets again against the ranges of now.
import type { Db } from '../../store/db.ts';
import type { Principal } from '../identity.ts';
import type { AssetRecord } from '../../domain/assets.ts';
import type { PlanCapsTable } from '../../domain/plan-caps.ts';
import {
  assetResult,
  DEFAULT_OPTIONS,
  select,
  type AssetResult,
  type CorrelateOptions,
  type Decided,
} from '../correlation-answer.ts';
import { decisionLookup } from '../correlation-decisions.ts';
import { matchedProducts, type MatchedProduct } from '../correlation-products.ts';
import type { CorrelationCache } from '../correlation-cache.ts';
import { environmentExists, lockEnvironment, storedAssetPage } from '../../store/windows.ts';
import { storedResults, upsertAssetResults } from '../../store/asset-correlations.ts';
import { decisionStatuses } from '../../store/triage-decisions.ts';
import { vendorStatementsOf } from '../../store/vendor-statements.ts';
import { statementLookup } from '../../domain/vendor-statements.ts';
import { assertAssetRoom } from '../plan-caps.ts';
import { environmentNotFound } from '../refusal.ts';
import type { AssetMatcher } from './match.ts';
import type { CorrelateAnswers } from './types.ts';

/** Stored results go to PostgreSQL in statements of about this much JSON text (characters) each. */
const STORE_BATCH_CHARS = 16 << 20;

export interface AssetResultsDeps {
  db: Db;
  planCaps: Readonly<PlanCapsTable>;
  /** Stored results go in statements of about this much JSON text each (default STORE_BATCH_CHARS; tests: smaller). */
  storeBatchChars?: number;
}

/** One asset of a call, decided, with its matched products: what is stored. */
export interface DecidedAsset {
  asset: AssetRecord;
  decided: Decided[];
  products: MatchedProduct[];
}

/**
 * What an answer in an environment shows beside each CVE (select()): the environment's decisions, and the vendor
 * statements CSAF advisories make about the CVEs matched (docs/triage.md "Vendor statements").
 */
export async function environmentLookups(db: Db, orgId: number, environmentId: number, cveIds: readonly string[]) {
  const [statuses, stated] = await Promise.all([
    decisionStatuses(db, orgId, environmentId),
    vendorStatementsOf(db, cveIds),
  ]);
  return { lookup: decisionLookup(statuses), stated: statementLookup(stated) };
}

export function createAssetResults(deps: AssetResultsDeps, matcher: AssetMatcher, cache: CorrelationCache) {
  const { db } = deps;
  return {
    /**
     * Stores each asset's full result (every CVE, unfiltered) in the environment, replacing the previous one for the
     * same asset_id (last writer wins, in asset_id order: no deadlock). One transaction; the rows go in statements of
     * about STORE_BATCH_CHARS of JSON each, so no one text grows past what a string can hold (a family nameplate's
     * result can be tens of MB). Past the asset cap: 403 cap_exceeded and nothing stored.
     */
    store: async (
      input: { principal: Principal; requestId: string; environmentId: number },
      perAsset: DecidedAsset[],
    ): Promise<void> => {
      const orgId = input.principal.orgId;
      const last = new Map<string, number>();
      perAsset.forEach((a, i) => last.set(a.asset.asset_id, i));
      const ids = [...last.keys()].sort();
      await db.transaction().execute(async (trx) => {
        // The check holds the organization's row lock until commit.
        await assertAssetRoom(trx, deps.planCaps, orgId, ids);
        // The environment may have been deleted since the call began: 404, nothing stored (never a foreign-key 500).
        if (!(await lockEnvironment(trx, orgId, input.environmentId))) throw environmentNotFound(input.environmentId);
        let batch: string[] = [];
        let chars = 0;
        const flush = async () => {
          if (!batch.length) return;
          await upsertAssetResults(trx, orgId, input.environmentId, input.requestId, `[${batch.join(',')}]`);
          batch = [];
          chars = 0;
        };
        for (const id of ids) {
          const a = perAsset[last.get(id)!];
          const row = JSON.stringify({
            asset_id: id,
            asset: a.asset,
            result: assetResult(
              select(a.asset, a.decided, a.products, { ...DEFAULT_OPTIONS, include_not_affected: true }),
            ),
          });
          if (chars + row.length > (deps.storeBatchChars ?? STORE_BATCH_CHARS)) await flush();
          batch.push(row);
          chars += row.length;
        }
        await flush();
      });
    },

    /**
     * GET /api/v1/assets/results: a page of the assets stored in one of the organization's environments (by asset_id;
     * `assetId` narrows it to one), each decided again against the ranges of now, so a CVE imported since it was
     * stored is in its answer (docs/correlation.md "Stored assets"). Nothing is charged or stored. A stored asset
     * that today's validation refuses is in `rejected`, as in the call that would send it now.
     */
    results: async (input: {
      principal: Pick<Principal, 'orgId'>;
      environmentId: number;
      assetId: string | null;
      page: number;
      perPage: number;
      options: CorrelateOptions;
    }): Promise<CorrelateAnswers & { total: number }> => {
      const orgId = input.principal.orgId;
      if (!(await environmentExists(db, orgId, input.environmentId))) throw environmentNotFound(input.environmentId);
      const { total, rows } = await storedAssetPage(
        db,
        orgId,
        input.environmentId,
        input.assetId,
        input.perPage,
        (input.page - 1) * input.perPage,
      );
      // validate() refuses an empty batch (a request of none); a page past the end, or an asset_id not stored, is empty.
      const { accepted, rejected } = rows.length
        ? await matcher.validate(rows.map((r) => r.asset))
        : { accepted: [], rejected: [] };
      const { matchedPer, groupsPer, ids } = await matcher.matchAll(accepted);
      const cards = await cache.cards(ids);
      const { lookup, stated } = await environmentLookups(db, orgId, input.environmentId, ids);
      return {
        total,
        rejected,
        stored: false,
        count: accepted.length,
        fail: async () => {},
        decided: true,
        answer: (i: number) =>
          select(
            accepted[i],
            matcher.decideOne(accepted[i], matchedPer[i], cards),
            matchedProducts(groupsPer[i], cards),
            input.options,
            lookup,
            stated,
          ),
      };
    },

    /** Stored results of an environment (tests and the environment views). */
    stored: (orgId: number, environmentId: number) => storedResults<AssetResult>(db, orgId, environmentId),
  };
}
