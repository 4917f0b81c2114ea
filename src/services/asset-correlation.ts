// v1 asset correlation (docs/correlation.md §5–7): which CVEs hit the equipment an asset names.
// validate each asset (domain/assets.ts) → charge trial / partner asset checks (exact under concurrency, nothing
// processed when refused) → look up the stored ranges by vendor slug and product key (correlation-cache.ts) →
// match per asset (identical nameplates once) and decide per CVE (domain/correlate.ts) → card fields → the answer,
// one asset at a time as the route writes it (correlation-answer.ts: order, filter, page) → with an environment,
// every asset decided first and stored in one transaction (last writer wins per asset_id). Never sees a request
// or reply; refusals are ApiErrors the route renders.
import { sql } from '../store/kysely.ts';
import type { Db } from '../store/db.ts';
import type { Clock } from '../lib/clock.ts';
import { ApiError } from '../http/errors.ts';
import type { Principal } from './identity.ts';
import { validateAsset, type AssetError, type AssetRecord } from '../domain/assets.ts';
import { catalogProductNames } from '../store/watchlists.ts';
import { assetLookupKeys, familyLookup, parseCpe, type ProductMatch } from '../domain/product-match.ts';
import { matchRow, verdict, verdictStatus, type RangeRow } from '../domain/correlate.ts';
import { monthWindow } from '../domain/keys.ts';
import { TRIAL, TRIAL_CONTACT_URL } from '../domain/tiers.ts';
import type { CveCard, CveFlags, StoredRange } from '../store/ranges.ts';
import { CorrelationCache, cpeKey, memberKey, rangeKey, variantKey, type CorpusGeneration, type CorrelationCacheLimits, type RangeKey } from './correlation-cache.ts';
import {
  assetResult, decidedCve, decisionLookup, DEFAULT_OPTIONS, matchedProducts, select, severityCounts,
  type AssetAnswer, type AssetCheck, type AssetResult, type CorrelateOptions, type Decided, type MatchedGroup, type MatchedProduct, type NameGroup, type StatusCounts,
} from './correlation-answer.ts';
import { environmentExists, lockEnvironment, storedAssetPage } from '../store/windows.ts';
import type { PlanCapsTable } from '../domain/plan-caps.ts';
import { assertAssetRoom } from './plan-caps.ts';
import { decisionStatuses } from '../store/triage.ts';

/** Spec §4.7 / §8: at most 200 assets per call. */
export const MAX_ASSETS = 200;
/** Partner keys without their own limit (api_keys.monthly_asset_limit): asset checks per calendar month (UTC). */
export const DEFAULT_PARTNER_MONTHLY_ASSETS = 10_000;

export interface RejectedAsset {
  asset_id: string | null;
  index: number;
  errors: AssetError[];
  retryable: false;
  retry_after_seconds: null;
  action: 'fix_input';
}

export interface CorrelateInput {
  principal: Principal;
  requestId: string;
  assets: unknown[];
  environmentId: number | null;
  options: CorrelateOptions;
  /** A file upload of the web app: one refused asset refuses the call (422 with data.rejected), nothing stored. */
  wholeFile?: boolean;
}

/**
 * Whether the corpus knows the asset's product by its name: a range of the asset's vendor slug has its product key,
 * or names a variant of it (`rows(key)`: how many rows a lookup key holds). Such an asset is that product, not a
 * family: its products' rows are not looked up (member matches).
 */
export function namedBy(f: { slug: string; key: string }, rows: (key: RangeKey) => number): boolean {
  return rows(rangeKey(f.slug, f.key)) > 0 || rows(variantKey(f.slug, f.key)) > 0;
}

/** A stored range row that matched an asset, with the match. */
type Matched = { row: RangeRow; match: ProductMatch };

/**
 * A correlate call's answers: `count` assets, each answer made when taken (answer(i), in order, once each). `fail`
 * gives the call's charged checks back when writing the answers fails after they were charged.
 */
export interface CorrelateAnswers {
  rejected: RejectedAsset[];
  stored: boolean;
  count: number;
  answer: (i: number) => AssetAnswer;
  fail: () => Promise<void>;
  /** In an environment: each answer carries the triage decisions (AssetAnswer.decisions). */
  decided?: boolean;
}

/** Stored results go to PostgreSQL in statements of about this much JSON text (characters) each. */
const STORE_BATCH_CHARS = 16 << 20;

/**
 * A bucket's rows with the same names and keys (what matchRow reads), so one matchRow call decides them all; the
 * groups of a bucket are made once per bucket array (the correlation cache keeps the arrays), in first-row order.
 */
const GROUPS = new WeakMap<readonly StoredRange[], NameGroup[]>();
function groupsOf(bucket: readonly StoredRange[]): NameGroup[] {
  let groups = GROUPS.get(bucket);
  if (groups) return groups;
  const by = new Map<string, NameGroup>();
  for (const row of bucket) {
    const r = row.range;
    const key = `${r.vendor}\u0000${r.product}\u0000${r.cpe ?? ''}\u0000${row.vendor_slug}\u0000${row.product_key}\u0000${row.base_key ?? ''}`;
    const g = by.get(key);
    if (g) g.rows.push(row);
    else by.set(key, { key, rows: [row] });
  }
  GROUPS.set(bucket, (groups = [...by.values()]));
  return groups;
}

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
  /** Stored results go in statements of about this much JSON text each (default STORE_BATCH_CHARS; tests: smaller). */
  storeBatchChars?: number;
}

/** The 422 of a file refused whole (CorrelateInput.wholeFile): the rejected records in data.rejected, as a call of every record refused. */
export function refusedFile(refused: number, of: number, rejected: unknown[]): ApiError {
  return new ApiError('VALIDATION_ERROR', {
    message: `${refused} of ${of} rows refused; nothing was stored`,
    fields: [{ field: 'body.file', message: `${refused} of ${of} rows refused; nothing was stored`, type: 'value_error.rows' }],
    data: { rejected },
  });
}

export function createAssetCorrelation(deps: AssetCorrelationDeps) {
  const { db, clock } = deps;
  const cache = new CorrelationCache(deps.corpusDb ?? db, deps.corpus ?? null, deps.cacheLimits);

  /**
   * Each asset validated (domain/assets.ts). A product name holding a dotted quad is accepted when the catalog lists
   * it: the first pass collects the names validateAsset asks about (normalised as it normalises them), one catalog
   * lookup answers them all, and only the assets that asked are validated again with the answer.
   */
  async function validateAll(assets: unknown[]) {
    const asked = new Map<number, string>();
    const results = assets.map((raw, i) => validateAsset(raw, (name) => { asked.set(i, name); return false; }));
    if (asked.size === 0) return results;
    const listed = await catalogProductNames(db, [...asked.values()]);
    if (listed.size > 0) for (const i of asked.keys()) results[i] = validateAsset(assets[i], (name) => listed.has(name.toLowerCase()));
    return results;
  }

  async function validate(assets: unknown[]): Promise<{ accepted: AssetRecord[]; rejected: RejectedAsset[] }> {
    const results = await validateAll(assets);
    const accepted: AssetRecord[] = [];
    const rejected: RejectedAsset[] = [];
    // asset_id → index of the accepted asset that has it: an asset_id names one asset, and a second asset of it in the
    // same request would get an answer of its own while only one result is stored (as for Windows hosts).
    const first = new Map<string, number>();
    results.forEach((v, index) => {
      const refuse = (assetId: string | null, errors: AssetError[]) => rejected.push({ asset_id: assetId, index, errors, retryable: false, retry_after_seconds: null, action: 'fix_input' });
      if (!v.ok) refuse(v.asset_id, v.errors);
      else if (first.has(v.asset.asset_id)) {
        refuse(v.asset.asset_id, [{ code: 'duplicate_asset_id', field: 'asset_id', message: `asset_id is the same as asset ${first.get(v.asset.asset_id)} of this request; send each asset once (this asset was not evaluated)` }]);
      } else {
        first.set(v.asset.asset_id, index);
        accepted.push(v.asset);
      }
    });
    if (!accepted.length) {
      throw new ApiError('VALIDATION_ERROR', {
        message: assets.length ? 'Every asset was refused; see data.rejected' : 'assets is empty',
        fields: [{ field: 'body.assets', message: assets.length ? 'every asset was refused' : 'at least one asset is required', type: 'value_error.assets' }],
        data: { rejected },
      });
    }
    return { accepted, rejected };
  }

  /**
   * Spec §7/§8: trial keys spend the organization's 750 checks, partner keys their monthly limit. One conditional
   * UPDATE each, so 20 parallel calls never pass the limit; refused → nothing counted, nothing processed.
   */
  async function charge(p: Principal, n: number): Promise<void> {
    if (n <= 0) return;
    if (p.kind === 'trial') {
      // A trial key issued without its record (the operator CLI always writes one) starts a fresh record here.
      const r = await sql<{ used: number }>`
        INSERT INTO trial_usage AS t (org_id, used) SELECT ${p.orgId}, ${n}::int WHERE ${n}::int <= ${TRIAL.totalChecks}
        ON CONFLICT (org_id) DO UPDATE SET used = t.used + EXCLUDED.used WHERE t.ended_at IS NULL AND t.used + EXCLUDED.used <= ${TRIAL.totalChecks}
        RETURNING used`.execute(db);
      if (r.rows.length) return;
      const cur = await sql<{ used: number }>`SELECT used FROM trial_usage WHERE org_id = ${p.orgId}`.execute(db);
      const used = cur.rows[0]?.used ?? TRIAL.totalChecks;
      throw new ApiError('TRIAL_LIMIT', {
        message: used >= TRIAL.totalChecks ? `The trial's ${TRIAL.totalChecks} asset checks are used up; nothing was processed` : `This request needs ${n} asset checks and ${TRIAL.totalChecks - used} remain; nothing was processed`,
        detail: { reason: 'limit', used, limit: TRIAL.totalChecks, remaining: Math.max(0, TRIAL.totalChecks - used), requested: n, contact_url: TRIAL_CONTACT_URL },
      });
    }
    if (p.kind === 'partner' && p.keyId !== null) {
      const { month, resetsAt } = monthWindow(clock.now());
      const lim = await sql<{ l: number | null }>`SELECT monthly_asset_limit AS l FROM api_keys WHERE id = ${p.keyId}`.execute(db);
      const limit = lim.rows[0]?.l ?? DEFAULT_PARTNER_MONTHLY_ASSETS;
      const r = await sql<{ used: number }>`
        INSERT INTO partner_usage AS u (key_id, month, used) SELECT ${p.keyId}, ${month}::date, ${n}::int WHERE ${n}::int <= ${limit}::int
        ON CONFLICT (key_id, month) DO UPDATE SET used = u.used + EXCLUDED.used WHERE u.used + EXCLUDED.used <= ${limit}::int
        RETURNING used`.execute(db);
      if (r.rows.length) return;
      const cur = await sql<{ used: number }>`SELECT used FROM partner_usage WHERE key_id = ${p.keyId} AND month = ${month}::date`.execute(db);
      const used = cur.rows[0]?.used ?? 0;
      throw new ApiError('PARTNER_LIMIT', {
        resetAt: resetsAt.toISOString(),
        detail: { used, limit, remaining: Math.max(0, limit - used), requested: n, resets_at: resetsAt.toISOString() },
      });
    }
  }

  /** Gives charged checks back when the call fails after charging (a 500 must not spend a trial). */
  async function refund(p: Principal, n: number): Promise<void> {
    if (p.kind === 'trial') await sql`UPDATE trial_usage SET used = greatest(0, used - ${n}) WHERE org_id = ${p.orgId}`.execute(db);
    if (p.kind === 'partner' && p.keyId !== null) {
      await sql`UPDATE partner_usage SET used = greatest(0, used - ${n}) WHERE key_id = ${p.keyId} AND month = ${monthWindow(clock.now()).month}::date`.execute(db);
    }
  }

  /** Spec §4.7: a Free account calls correlate-cves and its check only with a trial key. */
  function assertAllowed(p: Principal): void {
    if (p.tier === 'free' && p.kind !== 'trial' && p.kind !== 'partner') {
      throw new ApiError('TRIAL_REQUIRED', { detail: { trial_url: `${deps.publicUrl}/api/v1/account/trial`, contact_url: TRIAL_CONTACT_URL } });
    }
  }

  /**
   * Per asset, the CVEs whose stored ranges matched its product, with those ranges, and the groups of rows that
   * matched; and every such CVE id.
   */
  async function matchAll(accepted: AssetRecord[]): Promise<{ matchedPer: Map<string, Matched[]>[]; groupsPer: MatchedGroup[][]; ids: string[] }> {
    // Each asset's lookup keys: its vendor slug, and the corpus's other slugs of the same organisation (vendorStem),
    // with its product key and every whole-word prefix of it (family matches); and its CPE's vendor and product.
    const related = await cache.relatedSlugs();
    // Rows of variants of the asset's product ("… (6ES7511-1AK02-0AB0)") are found by their base key.
    const keysOf = accepted.map((a) => {
      const c = a.cpe ? parseCpe(a.cpe) : null;
      const ks: RangeKey[] = [];
      for (const k of assetLookupKeys(a.vendor, a.product, related)) {
        ks.push(rangeKey(k.slug, k.key));
        if (k.full) ks.push(variantKey(k.slug, k.key));
      }
      if (c) ks.push(cpeKey(c.vendor, c.product));
      return ks;
    });
    const byKey = await cache.rangesFor(keysOf.flat());
    // An asset whose name no source gives a product (namedBy) but that names a family: the rows of the family's
    // products, under its own vendor slug (member matches: isMemberKey; docs/correlation.md §2 "Members").
    const families = accepted.map((a) => {
      const f = familyLookup(a.vendor, a.product);
      return f && !namedBy(f, (k) => byKey.get(k)?.length ?? 0) ? memberKey(f.slug, f.key) : null;
    });
    if (families.some((k) => k !== null)) {
      for (const [k, rows] of await cache.rangesFor(families.filter((k) => k !== null))) byKey.set(k, rows);
      families.forEach((k, i) => { if (k) keysOf[i].push(k); });
    }
    const ids = new Set<string>();
    const groupsPer: MatchedGroup[][] = [];
    // Assets with the same nameplate (vendor, product, version, CPE: what matching reads), as an inventory of
    // identical devices sends them, share one match: their rows are matched and held once per call.
    const plates = new Map<string, number>();
    const matchedPer: Map<string, Matched[]>[] = [];
    accepted.forEach((asset, i) => {
      const plate = `${asset.vendor}\u0000${asset.product}\u0000${asset.version ?? ''}\u0000${asset.cpe ?? ''}`;
      const same = plates.get(plate);
      if (same !== undefined) {
        groupsPer.push(groupsPer[same]);
        matchedPer.push(matchedPer[same]);
        return;
      }
      plates.set(plate, i);
      // Each asset is compared only with the rows its own keys found (not every row of the call), one matchRow per
      // group of rows with the same names. Product-key buckets are disjoint (a row has one vendor slug and product
      // key); only a CPE or variant bucket can repeat rows of another bucket, so rows are deduplicated only then.
      const buckets = keysOf[i].filter((k) => (byKey.get(k)?.length ?? 0) > 0);
      const seen = buckets.length > 1 && buckets.some((k) => !k.startsWith('k\u0000')) ? new Set<StoredRange>() : null;
      const byCve = new Map<string, Matched[]>();
      const matchedGroups: MatchedGroup[] = [];
      const memo = new Map<string, ProductMatch | null>();
      for (const k of buckets) {
        for (const group of groupsOf(byKey.get(k)!)) {
          let match = memo.get(group.key);
          if (match === undefined) memo.set(group.key, (match = matchRow(asset, group.rows[0])));
          if (!match) continue;
          matchedGroups.push({ group, match });
          for (const row of group.rows) {
            if (seen) {
              if (seen.has(row)) continue;
              seen.add(row);
            }
            const list = byCve.get(row.cve_id);
            if (list) list.push({ row, match });
            else {
              byCve.set(row.cve_id, [{ row, match }]);
              ids.add(row.cve_id);
            }
          }
        }
      }
      groupsPer.push(matchedGroups);
      matchedPer.push(byCve);
    });
    return { matchedPer, groupsPer, ids: [...ids] };
  }

  /** Every CVE one asset's product matches, decided, with its card. */
  function decideOne(asset: AssetRecord, matched: Map<string, Matched[]>, cards: ReadonlyMap<string, CveCard>): Decided[] {
    const decided: Decided[] = [];
    for (const [cve_id, rows] of matched) {
      const card = cards.get(cve_id);
      if (!card) continue; // ranges of a CVE not in the corpus (no description from any source)
      decided.push(decidedCve(cve_id, verdict(asset, rows), card));
    }
    return decided;
  }

  /**
   * Stores each asset's full result (every CVE, unfiltered) in the environment, replacing the previous one for the
   * same asset_id (last writer wins, in asset_id order: no deadlock). One transaction; the rows go in statements of
   * about STORE_BATCH_CHARS of JSON each, so no one text grows past what a string can hold (a family nameplate's
   * result can be tens of MB). Past the asset cap: 403 cap_exceeded and nothing stored.
   */
  async function storeResults(input: CorrelateInput, perAsset: { asset: AssetRecord; decided: Decided[]; products: MatchedProduct[] }[]): Promise<void> {
    const last = new Map<string, number>();
    perAsset.forEach((a, i) => last.set(a.asset.asset_id, i));
    const ids = [...last.keys()].sort();
    await db.transaction().execute(async (trx) => {
      // The check holds the organization's row lock until commit.
      await assertAssetRoom(trx, deps.planCaps, input.principal.orgId, ids);
      // The environment may have been deleted since the call began: 404, nothing stored (never a foreign-key 500).
      if (input.environmentId !== null && !(await lockEnvironment(trx, input.principal.orgId, input.environmentId))) {
        throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: input.environmentId } });
      }
      let batch: string[] = [];
      let chars = 0;
      const flush = async () => {
        if (!batch.length) return;
        await sql`INSERT INTO asset_correlations AS c (org_id, environment_id, asset_id, asset, result, request_id)
          SELECT ${input.principal.orgId}, ${input.environmentId}, asset_id, asset, result, ${input.requestId}
          FROM jsonb_to_recordset(${`[${batch.join(',')}]`}::jsonb) AS x(asset_id text, asset jsonb, result jsonb)
          ON CONFLICT (org_id, environment_id, asset_id) DO UPDATE
            SET asset = EXCLUDED.asset, result = EXCLUDED.result, request_id = EXCLUDED.request_id, stored_at = now()`.execute(trx);
        batch = [];
        chars = 0;
      };
      for (const id of ids) {
        const a = perAsset[last.get(id)!];
        const row = JSON.stringify({ asset_id: id, asset: a.asset, result: assetResult(select(a.asset, a.decided, a.products, { ...DEFAULT_OPTIONS, include_not_affected: true })) });
        if (chars + row.length > (deps.storeBatchChars ?? STORE_BATCH_CHARS)) await flush();
        batch.push(row);
        chars += row.length;
      }
      await flush();
    });
  }

  async function prepare(input: CorrelateInput) {
    assertAllowed(input.principal);
    if (input.environmentId !== null && !(await environmentExists(db, input.principal.orgId, input.environmentId))) {
      throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: input.environmentId } });
    }
    const v = await validate(input.assets);
    if (input.wholeFile && v.rejected.length) throw refusedFile(v.rejected.length, input.assets.length, v.rejected);
    await charge(input.principal, v.accepted.length);
    return v;
  }

  async function run<T>(p: Principal, n: number, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      await refund(p, n).catch(() => undefined);
      throw e;
    }
  }

  return {
    /**
     * POST /api/v1/assets/correlate-cves. The database is read before this resolves (the lookups, the cards, the
     * stored copy); each asset's CVEs are then decided when its answer is taken (`answer(i)`, in order), so the
     * route streams the first assets while the next ones are decided and an answer is never held whole
     * (docs/correlation.md §6). With environment_id every asset is decided first and stored, and answer(i) selects.
     */
    async correlate(input: CorrelateInput): Promise<CorrelateAnswers> {
      const { accepted, rejected } = await prepare(input);
      return run(input.principal, accepted.length, async () => {
        const { matchedPer, groupsPer, ids } = await matchAll(accepted);
        const cards = await cache.cards(ids);
        const productsAt = (i: number) => matchedProducts(groupsPer[i], cards);
        const fail = () => refund(input.principal, accepted.length);
        if (input.environmentId === null) {
          return {
            rejected, stored: false, count: accepted.length, fail,
            answer: (i: number) => select(accepted[i], decideOne(accepted[i], matchedPer[i], cards), productsAt(i), input.options),
          };
        }
        const perAsset = accepted.map((asset, i) => ({ asset, decided: decideOne(asset, matchedPer[i], cards), products: productsAt(i) }));
        await storeResults(input, perAsset);
        const lookup = decisionLookup(await decisionStatuses(db, input.principal.orgId, input.environmentId));
        // Ranks are over every decided CVE whatever the options, so the stored copy and the answer agree.
        return {
          rejected, stored: true, count: accepted.length, fail, decided: true,
          answer: (i: number) => select(perAsset[i].asset, perAsset[i].decided, perAsset[i].products, input.options, lookup),
        };
      });
    },

    /**
     * GET /api/v1/assets/results: a page of the assets stored in one of the organization's environments (by asset_id;
     * `assetId` narrows it to one), each decided again against the ranges of now, so a CVE imported since it was
     * stored is in its answer (docs/correlation.md "Stored assets"). Nothing is charged or stored. A stored asset
     * that today's validation refuses is in `rejected`, as in the call that would send it now.
     */
    async results(input: { principal: Principal; environmentId: number; assetId: string | null; page: number; perPage: number; options: CorrelateOptions }): Promise<CorrelateAnswers & { total: number }> {
      const orgId = input.principal.orgId;
      if (!(await environmentExists(db, orgId, input.environmentId))) {
        throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: input.environmentId } });
      }
      const { total, rows } = await storedAssetPage(db, orgId, input.environmentId, input.assetId, input.perPage, (input.page - 1) * input.perPage);
      // validate() refuses an empty batch (a request of none); a page past the end, or an asset_id not stored, is empty.
      const { accepted, rejected } = rows.length ? await validate(rows.map((r) => r.asset)) : { accepted: [], rejected: [] };
      const { matchedPer, groupsPer, ids } = await matchAll(accepted);
      const cards = await cache.cards(ids);
      const lookup = decisionLookup(await decisionStatuses(db, orgId, input.environmentId));
      return {
        total, rejected, stored: false, count: accepted.length, fail: async () => {}, decided: true,
        answer: (i: number) => select(accepted[i], decideOne(accepted[i], matchedPer[i], cards), matchedProducts(groupsPer[i], cards), input.options, lookup),
      };
    },

    /** POST /api/v1/assets/correlate-cves/check: per asset only whether anything matched and the counts. */
    async check(input: CorrelateInput): Promise<{ assets: AssetCheck[]; rejected: RejectedAsset[] }> {
      // The environment is checked (404 when it is not the organization's); nothing is stored.
      const { accepted, rejected } = await prepare(input);
      return run(input.principal, accepted.length, async () => {
        // Only what the counts need: each CVE's status (verdictStatus: no sentences, no deciding range), severity
        // and KEV flag (no card fields read from the CVE documents).
        const { matchedPer, ids } = await matchAll(accepted);
        const flags = await cache.flags(ids);
        return {
          rejected,
          assets: accepted.map((asset, i) => {
            const counts: StatusCounts = { affected: 0, not_affected: 0, needs_review: 0 };
            const open: CveFlags[] = [];
            let matched = false;
            for (const [cve_id, rows] of matchedPer[i]) {
              const f = flags.get(cve_id);
              if (!f) continue; // ranges of a CVE not in the corpus
              matched = true;
              const status = verdictStatus(asset, rows);
              counts[status]++;
              if (status !== 'not_affected') open.push(f);
            }
            return { asset_id: asset.asset_id, matched, counts, severity: severityCounts(open), known_exploited: open.some((f) => f.kev_flagged) };
          }),
        };
      });
    },

    /** Stored results of an environment (tests and the environment views). */
    async stored(orgId: number, environmentId: number): Promise<{ asset_id: string; result: AssetResult; request_id: string }[]> {
      const r = await sql<{ asset_id: string; result: AssetResult; request_id: string }>`SELECT asset_id, result, request_id FROM asset_correlations
        WHERE org_id = ${orgId} AND environment_id = ${environmentId} ORDER BY asset_id`.execute(db);
      return r.rows;
    },

    assertAllowed,
    /**
     * Work that spends asset checks (check-windows): `fn` validates, calls `spend(accepted)` once its input is
     * validated (an all-refused call is its 422, nothing spent), and does the work; a failure after spending gives the
     * checks back. Refused records are never charged (docs/correlation.md §7).
     */
    async charged<T>(p: Principal, fn: (spend: (accepted: number) => Promise<void>) => Promise<T>): Promise<T> {
      let spent = 0;
      try {
        return await fn(async (n) => { await charge(p, n); spent = n; });
      } catch (e) {
        if (spent > 0) await refund(p, spent).catch(() => undefined);
        throw e;
      }
    },
    /** What the correlation cache holds (tests, operators). */
    cacheStats: () => cache.stats(),
  };
}

export type AssetCorrelation = ReturnType<typeof createAssetCorrelation>;
