// The data v1 asset correlation reads, kept in memory between calls (docs/correlation.md
// "Caching"): the structured ranges per lookup key (vendor slug + product key, or CPE vendor + product), and the
// card fields and flags per CVE. An inventory sweep asks for the same products call after call; without the cache
// each call fetched and parsed tens of thousands of range rows and read the cards of every matched CVE.
//
// Freshness is the CVE reader's (store/cve-reader.ts): the cache holds data of one corpus generation, and is
// emptied when a corpus notification moves the generation. While the reader is not told about commits (its
// LISTEN connection down, or both its caches disabled), nothing is cached and every call reads the database. A fill
// whose query raced a notification is used for that call and not kept. Bounded by rows (ranges) and entries
// (cards), oldest entry out first. Concurrent misses of one key share one query.
import type { Db } from '../store/db.ts';
import {
  cveCards,
  cveFlags,
  findRanges,
  vendorSlugs,
  type CveCard,
  type CveFlags,
  type StoredRange,
} from '../store/ranges.ts';
import { familyKeys } from '../domain/product-match.ts';
import { vendorStem } from '../domain/vendor-stem.ts';

/** The corpus generation while the reader is told about commits; null when nothing may be cached. */
export interface CorpusGeneration {
  generation(): number | null;
}

export interface CorrelationCacheLimits {
  /** Range rows held at most (about 0.5 kB each parsed). */
  rows: number;
  /** CVE cards held at most (about 0.3 kB each). */
  cards: number;
}

export const DEFAULT_CACHE_LIMITS: CorrelationCacheLimits = { rows: 250_000, cards: 100_000 };

/**
 * A lookup key as decide() buckets rows: `k\0<vendor slug>\0<product key>`, `v\0<vendor slug>\0<key>` (rows of
 * variants of the product with that key: their base_key), `m\0<vendor slug>\0<key>` (rows of the products of the
 * family with that key: their product key starts with it and a space) or `c\0<cpe vendor>\0<cpe product>`.
 */
export type RangeKey = string;

export const rangeKey = (vendorSlug: string, productKey: string): RangeKey => `k\u0000${vendorSlug}\u0000${productKey}`;
export const variantKey = (vendorSlug: string, productKey: string): RangeKey =>
  `v\u0000${vendorSlug}\u0000${productKey}`;
export const cpeKey = (vendor: string, product: string): RangeKey => `c\u0000${vendor}\u0000${product}`;
export const memberKey = (vendorSlug: string, familyKey: string): RangeKey => `m\u0000${vendorSlug}\u0000${familyKey}`;

/**
 * A map bounded by weight, oldest entry out first. A hit does not reorder (a call reads tens of thousands of cards:
 * moving each to the end cost more than the lookups); the cache is emptied at each corpus change anyway.
 */
class BoundedMap<V> {
  private readonly m = new Map<string, { v: V; w: number }>();
  private weight = 0;
  constructor(private readonly max: number) {}
  get(k: string): V | undefined {
    return this.m.get(k)?.v;
  }
  set(k: string, v: V, w = 1): void {
    if (w > this.max) return;
    const old = this.m.get(k);
    if (old) {
      this.weight -= old.w;
      this.m.delete(k);
    }
    this.m.set(k, { v, w });
    this.weight += w;
    for (const [key, e] of this.m) {
      if (this.weight <= this.max) break;
      this.m.delete(key);
      this.weight -= e.w;
    }
  }
  clear(): void {
    this.m.clear();
    this.weight = 0;
  }
  get size(): number {
    return this.m.size;
  }
}

export interface CacheStats {
  range_keys: number;
  cards: number;
  flags: number;
  generation: number | null;
}

export class CorrelationCache {
  private readonly rangeTable: BoundedMap<StoredRange[]>;
  private readonly cardTable: BoundedMap<CveCard>;
  private readonly flagTable: BoundedMap<CveFlags>;
  private readonly pending = new Map<RangeKey, Promise<Map<RangeKey, StoredRange[]>>>();
  private gen: number | null = null;
  /** The corpus's vendor slugs by organisation (vendorStem), only organisations with more than one slug or a stemmed one. */
  private stems: Promise<Map<string, string[]>> | null = null;

  constructor(
    private readonly db: Db,
    private readonly corpus: CorpusGeneration | null,
    limits: CorrelationCacheLimits = DEFAULT_CACHE_LIMITS,
  ) {
    this.rangeTable = new BoundedMap(limits.rows);
    this.cardTable = new BoundedMap(limits.cards);
    this.flagTable = new BoundedMap(limits.cards);
  }

  /** The generation data may be kept under now (emptying the cache when it moved); null: keep nothing. */
  private current(): number | null {
    const g = this.corpus?.generation() ?? null;
    if (g !== this.gen) {
      this.rangeTable.clear();
      this.cardTable.clear();
      this.flagTable.clear();
      this.pending.clear();
      this.stems = null;
      this.gen = g;
    }
    return g;
  }

  stats(): CacheStats {
    return {
      range_keys: this.rangeTable.size,
      cards: this.cardTable.size,
      flags: this.flagTable.size,
      generation: this.gen,
    };
  }

  /** The stored range rows under each key (every row of the key: a key is cached whole or not at all). */
  async rangesFor(keys: Iterable<RangeKey>): Promise<Map<RangeKey, StoredRange[]>> {
    const gen = this.current();
    const wanted = [...new Set(keys)];
    const out = new Map<RangeKey, StoredRange[]>();
    const missing: RangeKey[] = [];
    const waits: Promise<Map<RangeKey, StoredRange[]>>[] = [];
    for (const k of wanted) {
      const hit = gen === null ? undefined : this.rangeTable.get(k);
      if (hit) out.set(k, hit);
      else if (gen !== null && this.pending.has(k)) waits.push(this.pending.get(k)!);
      else missing.push(k);
    }
    if (missing.length) {
      const load = this.load(missing, gen);
      if (gen !== null) {
        for (const k of missing) this.pending.set(k, load);
        void load
          .finally(() => {
            for (const k of missing) if (this.pending.get(k) === load) this.pending.delete(k);
          })
          .catch(() => {});
      }
      waits.push(load);
    }
    for (const m of await Promise.all(waits))
      for (const k of wanted) if (!out.has(k) && m.has(k)) out.set(k, m.get(k)!);
    for (const k of wanted) if (!out.has(k)) out.set(k, []);
    return out;
  }

  private async load(keys: RangeKey[], gen: number | null): Promise<Map<RangeKey, StoredRange[]>> {
    const byKey = new Map<RangeKey, StoredRange[]>(keys.map((k) => [k, []]));
    const ks: { vendor_slug: string; product_key: string }[] = [];
    const vs: { vendor_slug: string; product_key: string }[] = [];
    const cs: { vendor: string; product: string }[] = [];
    const ms: { vendor_slug: string; product_key: string }[] = [];
    for (const k of keys) {
      const [kind, a, b] = k.split('\u0000');
      if (kind === 'k') ks.push({ vendor_slug: a, product_key: b });
      else if (kind === 'v') vs.push({ vendor_slug: a, product_key: b });
      else if (kind === 'm') ms.push({ vendor_slug: a, product_key: b });
      else cs.push({ vendor: a, product: b });
    }
    for (const r of await findRanges(this.db, ks, cs, vs, ms)) {
      // A row is in one key bucket, at most one variant bucket, at most one CPE bucket (UNION returns each row
      // once) and in the bucket of each family asked for whose key is a whole-word prefix of its own.
      byKey.get(rangeKey(r.vendor_slug, r.product_key))?.push(r);
      if (r.base_key) byKey.get(variantKey(r.vendor_slug, r.base_key))?.push(r);
      if (r.cpe_vendor && r.cpe_product) byKey.get(cpeKey(r.cpe_vendor, r.cpe_product))?.push(r);
      if (ms.length)
        for (const f of familyKeys(r.product_key).slice(1)) byKey.get(memberKey(r.vendor_slug, f))?.push(r);
    }
    // Kept only when no notification arrived while the query ran (the rows may predate that commit).
    if (gen !== null && this.current() === gen)
      for (const [k, rows] of byKey) this.rangeTable.set(k, rows, Math.max(1, rows.length));
    return byKey;
  }

  /**
   * The slugs of the corpus's vendors that name the organisation `stem` (vendorStem), for the lookup keys of an
   * asset (assetLookupKeys): "apache" → apache, apachesoftwarefoundation.
   */
  async relatedSlugs(): Promise<(stem: string) => readonly string[]> {
    const gen = this.current();
    let p = gen === null ? null : this.stems;
    if (!p) {
      p = vendorSlugs(this.db).then((slugs) => {
        const by = new Map<string, string[]>();
        for (const s of slugs) {
          const stem = vendorStem(s);
          const l = by.get(stem);
          if (l) l.push(s);
          else by.set(stem, [s]);
        }
        for (const [stem, l] of by) if (l.length === 1 && l[0] === stem) by.delete(stem);
        return by;
      });
      if (gen !== null) {
        this.stems = p;
        // A failed read is not kept.
        p.catch(() => {
          if (this.stems === p) this.stems = null;
        });
      }
    }
    const by = await p;
    return (stem) => by.get(stem) ?? [];
  }

  /** The card fields of the given CVEs (those in the corpus). */
  cards(ids: readonly string[]): Promise<Map<string, CveCard>> {
    return this.perCve(
      ids,
      (id) => this.cardTable.get(id),
      (missing) => cveCards(this.db, missing),
      (id, c) => this.cardTable.set(id, c),
    );
  }

  /** Severity and KEV flag of the given CVEs (from the cards when held). */
  flags(ids: readonly string[]): Promise<Map<string, CveFlags>> {
    return this.perCve(
      ids,
      (id) => this.cardTable.get(id) ?? this.flagTable.get(id),
      (missing) => cveFlags(this.db, missing),
      (id, f) => this.flagTable.set(id, f),
    );
  }

  /** Held values of `ids`, the others loaded in one query and kept when no notification arrived meanwhile. */
  private async perCve<V>(
    ids: readonly string[],
    held: (id: string) => V | undefined,
    load: (ids: string[]) => Promise<Map<string, V>>,
    keep: (id: string, v: V) => void,
  ): Promise<Map<string, V>> {
    const gen = this.current();
    const out = new Map<string, V>();
    const missing: string[] = [];
    for (const id of ids) {
      const hit = gen === null ? undefined : held(id);
      if (hit) out.set(id, hit);
      else missing.push(id);
    }
    if (!missing.length) return out;
    const got = await load(missing);
    const kept = gen !== null && this.current() === gen;
    for (const [id, v] of got) {
      out.set(id, v);
      if (kept) keep(id, v);
    }
    return out;
  }
}
