// v1 asset correlation (issue 11; docs/correlation.md §5–7): which CVEs hit the equipment an asset names.
// validate each asset (domain/assets.ts) → charge trial / partner asset checks (exact under concurrency, nothing
// processed when refused) → look up the stored ranges by vendor slug and product key (one query per call) →
// match and decide per CVE (domain/correlate.ts) → card fields from `cves` → order, filter, page → store the
// results when an environment is named (one statement per call: last writer wins per asset_id). Never sees a
// request or reply; refusals are ApiErrors the route renders.
import { sql } from 'kysely';
import type { Db } from '../store/db.ts';
import type { Clock } from '../lib/clock.ts';
import { ApiError } from '../http/errors.ts';
import type { Principal } from './identity.ts';
import { validateAsset, type AssetError, type AssetRecord } from '../domain/assets.ts';
import { assetLookupKeys, familyLookup, parseCpe, strongerMatch, type MatchConfidence, type ProductMatch } from '../domain/product-match.ts';
import { matchRow, sourceLabel, verdict, verdictStatus, type CorrelationStatus, type CveVerdict, type RangeRow } from '../domain/correlate.ts';
import type { AffectedRange } from '../domain/ranges.ts';
import { cvePath } from '../domain/cve-view.ts';
import { monthWindow } from '../domain/keys.ts';
import { TRIAL } from '../domain/tiers.ts';
import { SORTS, type SortName } from '../domain/windows/view.ts';
import type { CveCard, CveFlags, StoredRange } from '../store/ranges.ts';
import { CorrelationCache, cpeKey, memberKey, rangeKey, variantKey, type CorpusGeneration, type CorrelationCacheLimits, type RangeKey } from './correlation-cache.ts';
import { environmentExists } from '../store/windows.ts';

/** Spec §4.7 / §8: at most 200 assets per call. */
import type { PlanCapsTable } from '../domain/plan-caps.ts';
import { assertAssetRoom } from './plan-caps.ts';
export const MAX_ASSETS = 200;
/** Partner keys without their own limit (api_keys.monthly_asset_limit): asset checks per calendar month (UTC). */
export const DEFAULT_PARTNER_MONTHLY_ASSETS = 10_000;

/** The v2 sort values (spec §4.2), with the same meaning. */
export { SORTS };
export type Sort = SortName;

export interface CorrelateOptions {
  include_not_affected: boolean;
  sort: Sort;
  affected_only: boolean;
  known_exploited_only: boolean;
  fix_available_only: boolean;
  cve_page: number | null;
  cve_page_size: number | null;
}

export const DEFAULT_OPTIONS: CorrelateOptions = {
  include_not_affected: false, sort: 'priority', affected_only: false, known_exploited_only: false, fix_available_only: false, cve_page: null, cve_page_size: null,
};

export interface RejectedAsset {
  asset_id: string | null;
  index: number;
  errors: AssetError[];
  retryable: false;
  retry_after_seconds: null;
  action: 'fix_input';
}

export interface DecidingRange {
  source: 'nvd' | 'cve5' | 'csaf';
  source_name: string;
  source_key: string | null;
  vendor: string;
  product: string;
  cpe: string | null;
  status: AffectedRange['status'];
  version: string | null;
  start: AffectedRange['start'];
  end: AffectedRange['end'];
  text: string | null;
  running_on: string[] | null;
}

export interface AssetCve {
  cve_id: string;
  title: string;
  status: CorrelationStatus;
  reason: string;
  match: ProductMatch;
  range: DecidingRange;
  fixed_version: string | null;
  severity: string | null;
  cvss: { score: number | null; version: string | null; vector: string | null };
  bcs_score: number;
  epss: { score: number | null; percentile: number | null };
  known_exploited: boolean;
  exploit_maturity: string;
  published_at: string | null;
  priority_rank: number;
  _links: { self: string };
}

export interface MatchedProduct {
  vendor: string;
  product: string;
  confidence: MatchConfidence;
  basis: string;
}

export interface StatusCounts { affected: number; not_affected: number; needs_review: number }
export interface SeverityCounts { critical: number; high: number; medium: number; low: number; none: number }

export interface AssetResult {
  asset_id: string;
  vendor: string;
  product: string;
  version: string | null;
  matched_products: MatchedProduct[];
  counts: StatusCounts;
  cves: AssetCve[];
  cves_page?: { page: number; page_size: number; total: number; total_unfiltered: number; has_more: boolean };
}

export interface AssetCheck {
  asset_id: string;
  matched: boolean;
  counts: StatusCounts;
  /** Severity of the affected and needs-review CVEs. */
  severity: SeverityCounts;
  known_exploited: boolean;
}

export interface CorrelateInput {
  principal: Principal;
  requestId: string;
  assets: unknown[];
  environmentId: number | null;
  options: CorrelateOptions;
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

const STATUS_RANK: Record<CorrelationStatus, number> = { affected: 0, needs_review: 1, not_affected: 2 };
const num = (x: number | null) => x ?? -1;

/** One CVE of an asset, decided: what an answer's CVE entry is made of (assetResult, http/views/correlate-json.ts). */
export interface Decided {
  cve_id: string; v: CveVerdict; card: CveCard;
  /** The integer part of the priority order (status, known-exploited, exploit, a stated fix), smaller first. */
  pk: number;
  /** The card's BCS, CVSS and EPSS (-1 when none), copied here for the sorts (no card read per comparison). */
  bcs: number; cvss: number; epss: number;
  /** Its place in the asset's priority order, 1 first (set by select()). */
  rank: number;
}

/**
 * One asset's answer before it becomes JSON: the CVEs listed (filtered, sorted, paged, each with its rank) and the
 * rest of AssetResult. assetResult() makes the plain object; the route writes the bytes from this directly.
 */
export interface AssetAnswer {
  asset: AssetRecord;
  matched_products: MatchedProduct[];
  counts: StatusCounts;
  listed: Decided[];
  cves_page?: AssetResult['cves_page'];
}

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
}

/** Stored results go to PostgreSQL in statements of about this much JSON text (characters) each. */
const STORE_BATCH_CHARS = 16 << 20;

/** Decided.pk: status rank, then not known-exploited, no exploit or PoC, no stated fix (each one bit). */
function priorityKey(v: CveVerdict, card: CveCard): number {
  return STATUS_RANK[v.status] * 8 + (card.kev_flagged ? 0 : 4) + (card.has_public_exploit || card.poc_available ? 0 : 2) + (v.fixed_version !== null ? 0 : 1);
}

/**
 * A bucket's rows with the same names and keys (what matchRow reads), so one matchRow call decides them all; the
 * groups of a bucket are made once per bucket array (the correlation cache keeps the arrays), in first-row order.
 */
export interface NameGroup { key: string; rows: StoredRange[] }
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

/** A group of rows that matched an asset, with the match. */
export interface MatchedGroup { group: NameGroup; match: ProductMatch }

/** Same idea as v2's priority (spec §4.2): status, then known-exploited, exploit/PoC, a stated fix, BCS, CVSS, EPSS. */
function comparator(sort: Sort): (a: Decided, b: Decided) => number {
  const exploit = (d: Decided) => (d.card.has_public_exploit || d.card.poc_available ? 1 : 0);
  const tie = (a: Decided, b: Decided) => (a.cve_id < b.cve_id ? -1 : a.cve_id > b.cve_id ? 1 : 0);
  switch (sort) {
    case 'score':
      return (a, b) => STATUS_RANK[a.v.status] - STATUS_RANK[b.v.status] || b.cvss - a.cvss || tie(a, b);
    case 'exploit':
      return (a, b) => Number(b.card.kev_flagged) - Number(a.card.kev_flagged) || exploit(b) - exploit(a) || b.epss - a.epss || b.cvss - a.cvss || tie(a, b);
    case 'newest':
      return (a, b) => (b.card.published_at?.getTime() ?? 0) - (a.card.published_at?.getTime() ?? 0) || tie(a, b);
    default:
      // pk packs status, known-exploited, exploit and a stated fix (priorityKey), in that order.
      return (a, b) => a.pk - b.pk || b.bcs - a.bcs || b.cvss - a.cvss || b.epss - a.epss || tie(a, b);
  }
}

/** The deciding range as answers show it; one object per (cached) row, shared by every answer that cites it. */
const DECIDING = new WeakMap<RangeRow, DecidingRange>();
export function deciding(row: RangeRow): DecidingRange {
  let d = DECIDING.get(row);
  if (d) return d;
  const r = row.range;
  d = {
    source: r.source, source_name: sourceLabel(r.source), source_key: row.source_key || null, vendor: r.vendor, product: r.product, cpe: r.cpe,
    status: r.status, version: r.version, start: r.start, end: r.end, text: r.text, running_on: r.runningOn,
  };
  DECIDING.set(row, d);
  return d;
}

function severityCounts(list: CveFlags[]): SeverityCounts {
  const c: SeverityCounts = { critical: 0, high: 0, medium: 0, low: 0, none: 0 };
  for (const f of list) {
    const s = (f.severity ?? 'none').toLowerCase();
    if (s in c) c[s as keyof SeverityCounts]++;
    else c.none++;
  }
  return c;
}

/**
 * The fields of a CVE entry that come from its card, in the entry's order around the asset's own fields:
 * head (cve_id, title), then status … fixed_version, then mid (severity … published_at), then priority_rank, then
 * tail (_links). One mapping for cveEntry and the byte writer's cached fragments (http/views/correlate-json.ts).
 */
export function cardFields(c: CveCard) {
  return {
    head: { cve_id: c.cve_id, title: c.title },
    mid: {
      severity: c.severity, cvss: { score: c.cvss_score, version: c.cvss_version, vector: c.cvss_vector }, bcs_score: c.bcs_score,
      epss: { score: c.epss_score, percentile: c.epss_percentile }, known_exploited: c.kev_flagged, exploit_maturity: c.exploit_maturity,
      published_at: c.published_at ? c.published_at.toISOString() : null,
    },
    tail: { _links: { self: cvePath(c.cve_id) } },
  };
}

/** A listed CVE as the answer shows it (AssetCve). */
export function cveEntry(d: Decided): AssetCve {
  const f = cardFields(d.card);
  return {
    ...f.head, status: d.v.status, reason: d.v.reason, match: d.v.match, range: deciding(d.v.deciding.row), fixed_version: d.v.fixed_version,
    ...f.mid, priority_rank: d.rank, ...f.tail,
  };
}

/** One asset's answer as a plain object (what an environment stores). */
export function assetResult(a: AssetAnswer): AssetResult {
  return {
    asset_id: a.asset.asset_id, vendor: a.asset.vendor, product: a.asset.product, version: a.asset.version, matched_products: a.matched_products,
    counts: a.counts, cves: a.listed.map(cveEntry), ...(a.cves_page ? { cves_page: a.cves_page } : {}),
  };
}

/**
 * The products an asset matched: one per (vendor slug, product key), with its strongest match; of the groups with
 * that match, the one with the first names (vendor, product) names it. Only products with a CVE in the corpus.
 */
export function matchedProducts(groups: readonly MatchedGroup[], cards: ReadonlyMap<string, unknown>): MatchedProduct[] {
  const best = new Map<string, { vendor: string; product: string; match: ProductMatch }>();
  for (const { group, match } of groups) {
    if (!group.rows.some((r) => cards.has(r.cve_id))) continue;
    const row = group.rows[0];
    const key = `${row.vendor_slug}\u0000${row.product_key}`;
    const cand = { vendor: row.range.vendor, product: row.range.product, match };
    const prev = best.get(key);
    // strongerMatch keeps its first argument on a tie.
    const stronger = !prev || strongerMatch(prev.match, match) !== prev.match;
    const tie = prev && prev.match.confidence === match.confidence;
    if (stronger || (tie && (cand.vendor < prev.vendor || (cand.vendor === prev.vendor && cand.product < prev.product)))) best.set(key, cand);
  }
  return [...best.values()]
    .map((p) => ({ vendor: p.vendor, product: p.product, confidence: p.match.confidence, basis: p.match.basis }))
    .sort((a, b) => (a.vendor + a.product < b.vendor + b.product ? -1 : 1));
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
  cacheLimits?: CorrelationCacheLimits;
  /** Stored results go in statements of about this much JSON text each (default STORE_BATCH_CHARS; tests: smaller). */
  storeBatchChars?: number;
}

export function createAssetCorrelation(deps: AssetCorrelationDeps) {
  const { db, clock } = deps;
  const cache = new CorrelationCache(db, deps.corpus ?? null, deps.cacheLimits);

  function validate(assets: unknown[]): { accepted: AssetRecord[]; rejected: RejectedAsset[] } {
    const accepted: AssetRecord[] = [];
    const rejected: RejectedAsset[] = [];
    assets.forEach((raw, index) => {
      const v = validateAsset(raw);
      if (v.ok) accepted.push(v.asset);
      else rejected.push({ asset_id: v.asset_id, index, errors: v.errors, retryable: false, retry_after_seconds: null, action: 'fix_input' });
    });
    if (!accepted.length) {
      throw new ApiError('VALIDATION_ERROR', {
        message: assets.length ? 'Every asset was refused; see data.rejected' : 'assets is empty',
        fields: [{ field: 'assets', message: assets.length ? 'every asset was refused' : 'at least one asset is required', type: 'value_error.assets' }],
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
        detail: { reason: 'limit', used, limit: TRIAL.totalChecks, remaining: Math.max(0, TRIAL.totalChecks - used), requested: n, contact_url: 'mailto:support@vulnintel.local' },
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
      throw new ApiError('TRIAL_REQUIRED', { detail: { trial_url: `${deps.publicUrl}/api/v1/account/trial` } });
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
      const v = verdict(asset, rows);
      decided.push({
        cve_id, v, card, pk: priorityKey(v, card), bcs: card.bcs_score, cvss: num(card.cvss_score), epss: num(card.epss_score), rank: 0,
      });
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

  /** The asset's CVEs as the options list them, each ranked in the priority order of all of them. */
  function select(asset: AssetRecord, decided: Decided[], products: MatchedProduct[], o: CorrelateOptions): AssetAnswer {
    const counts: StatusCounts = { affected: 0, not_affected: 0, needs_review: 0 };
    for (const d of decided) counts[d.v.status]++;
    const ordered = [...decided].sort(comparator('priority'));
    for (let i = 0; i < ordered.length; i++) ordered[i].rank = i + 1;
    const sorted = o.sort === 'priority' ? ordered : [...decided].sort(comparator(o.sort));
    const list = o.include_not_affected && !o.affected_only && !o.known_exploited_only && !o.fix_available_only ? sorted : sorted.filter((d) =>
      (o.include_not_affected || d.v.status !== 'not_affected')
      && (!o.affected_only || d.v.status === 'affected')
      && (!o.known_exploited_only || d.card.kev_flagged)
      && (!o.fix_available_only || d.v.fixed_version !== null));
    const total = list.length;
    if (o.cve_page === null && o.cve_page_size === null) return { asset, matched_products: products, counts, listed: list };
    const p = o.cve_page ?? 1;
    const size = o.cve_page_size ?? 100;
    return {
      asset, matched_products: products, counts, listed: list.slice((p - 1) * size, p * size),
      cves_page: { page: p, page_size: size, total, total_unfiltered: decided.length, has_more: p * size < total },
    };
  }

  async function prepare(input: CorrelateInput) {
    assertAllowed(input.principal);
    if (input.environmentId !== null && !(await environmentExists(db, input.principal.orgId, input.environmentId))) {
      throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: input.environmentId } });
    }
    const v = validate(input.assets);
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
        // Ranks are over every decided CVE whatever the options, so the stored copy and the answer agree.
        return {
          rejected, stored: true, count: accepted.length, fail,
          answer: (i: number) => select(perAsset[i].asset, perAsset[i].decided, perAsset[i].products, input.options),
        };
      });
    },

    /** POST /api/v1/assets/correlate-cves/check: per asset only whether anything matched and the counts. */
    async check(input: CorrelateInput): Promise<{ assets: AssetCheck[]; rejected: RejectedAsset[] }> {
      const { accepted, rejected } = await prepare({ ...input, environmentId: null });
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
    charge,
    /** What the correlation cache holds (tests, operators). */
    cacheStats: () => cache.stats(),
    refund,
  };
}

export type AssetCorrelation = ReturnType<typeof createAssetCorrelation>;
