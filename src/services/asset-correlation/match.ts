// Reading and matching a call's assets (docs/correlation.md §5–6): each asset validated (domain/assets.ts; a
// product name holding a dotted quad checked against the catalog), then matched against the stored ranges its
// lookup keys find (the correlation cache), identical nameplates once, and each matched CVE decided
// (domain/correlate.ts) with its card.
import type { Db } from '../../store/db.ts';
import { validateAsset, type AssetError, type AssetRecord } from '../../domain/assets.ts';
import { catalogProductNames } from '../../store/watchlists.ts';
import { assetLookupKeys, familyLookup, type ProductMatch } from '../../domain/product-match.ts';
import { parseCpe } from '../../domain/cpe-name.ts';
import { matchRow, verdict, type RangeRow } from '../../domain/correlate.ts';
import type { CveCard, StoredRange } from '../../store/ranges.ts';
import { cpeKey, memberKey, rangeKey, variantKey, type CorrelationCache, type RangeKey } from '../correlation-cache.ts';
import { decidedCve, type Decided } from '../correlation-answer.ts';
import type { MatchedGroup, NameGroup } from '../correlation-products.ts';
import { invalidInput } from '../refusal.ts';

export interface RejectedAsset {
  asset_id: string | null;
  index: number;
  errors: AssetError[];
  retryable: false;
  retry_after_seconds: null;
  action: 'fix_input';
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
export type Matched = { row: RangeRow; match: ProductMatch };

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

/** What matching gives per accepted asset: the matched CVEs with their rows, and the groups of rows that matched. */
export interface Matches {
  matchedPer: Map<string, Matched[]>[];
  groupsPer: MatchedGroup[][];
  /** Every matched CVE id. */
  ids: string[];
}

export function createAssetMatcher(db: Db, cache: CorrelationCache) {
  /**
   * Each asset validated (domain/assets.ts). A product name holding a dotted quad is accepted when the catalog lists
   * it: the first pass collects the names validateAsset asks about (normalised as it normalises them), one catalog
   * lookup answers them all, and only the assets that asked are validated again with the answer.
   */
  async function validateAll(assets: unknown[]) {
    const asked = new Map<number, string>();
    const results = assets.map((raw, i) =>
      validateAsset(raw, (name) => {
        asked.set(i, name);
        return false;
      }),
    );
    if (asked.size === 0) return results;
    const listed = await catalogProductNames(db, [...asked.values()]);
    if (listed.size > 0)
      for (const i of asked.keys()) results[i] = validateAsset(assets[i], (name) => listed.has(name.toLowerCase()));
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
      const refuse = (assetId: string | null, errors: AssetError[]) =>
        rejected.push({
          asset_id: assetId,
          index,
          errors,
          retryable: false,
          retry_after_seconds: null,
          action: 'fix_input',
        });
      if (!v.ok) refuse(v.asset_id, v.errors);
      else if (first.has(v.asset.asset_id)) {
        refuse(v.asset.asset_id, [
          {
            code: 'duplicate_asset_id',
            field: 'asset_id',
            message: `asset_id is the same as asset ${first.get(v.asset.asset_id)} of this request; send each asset once (this asset was not evaluated)`,
          },
        ]);
      } else {
        first.set(v.asset.asset_id, index);
        accepted.push(v.asset);
      }
    });
    if (!accepted.length) {
      throw invalidInput(
        assets.length ? 'Every asset was refused; see data.rejected' : 'assets is empty',
        [
          {
            field: 'body.assets',
            message: assets.length ? 'every asset was refused' : 'at least one asset is required',
            type: 'value_error.assets',
          },
        ],
        { rejected },
      );
    }
    return { accepted, rejected };
  }

  /**
   * Per asset, the CVEs whose stored ranges matched its product, with those ranges, and the groups of rows that
   * matched; and every such CVE id.
   */
  async function matchAll(accepted: AssetRecord[]): Promise<Matches> {
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
      families.forEach((k, i) => {
        if (k) keysOf[i].push(k);
      });
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

  return {
    validate,
    matchAll,

    /** Every CVE one asset's product matches, decided, with its card. */
    decideOne: (
      asset: AssetRecord,
      matched: Map<string, Matched[]>,
      cards: ReadonlyMap<string, CveCard>,
    ): Decided[] => {
      const decided: Decided[] = [];
      for (const [cve_id, rows] of matched) {
        const card = cards.get(cve_id);
        if (!card) continue; // ranges of a CVE not in the corpus (no description from any source)
        decided.push(decidedCve(cve_id, verdict(asset, rows), card));
      }
      return decided;
    },
  };
}

export type AssetMatcher = ReturnType<typeof createAssetMatcher>;
