// The caches of the Windows evaluation, in one place. Each is a WeakMap keyed by an object that lives as
// long as the data it describes, so nothing is kept after the index or the signal generation is dropped
// (registered in ../memo.ts, so tests and the mutation runner can empty them):
// - PREPARED: per product index, the host-independent facts of its CVEs;
// - STATIC_ORDER: per signal lookup (one cache generation) and product, the host-independent sort order;
// - RENDERED: per item (shared by hosts with the same facts), its rendered §2.7 object;
// - RANKS: per host's ordered item list, each item's priority_rank.
import type { ProductIndex } from './evaluation-index.ts';
import { prepareProduct, type Prepared } from './prepared.ts';
import type { CveResult } from './render.ts';
import type { CveItem, SignalLookup, StaticEntry } from './evaluate.ts';
import { memoWeak } from '../memo.ts';

const PREPARED = memoWeak<ProductIndex, Prepared[]>();

/** The prepared facts of every CVE of a product, computed once per index. */
export function prepared(pi: ProductIndex): Prepared[] {
  let list = PREPARED.get(pi);
  if (!list) {
    list = prepareProduct(pi);
    PREPARED.set(pi, list);
  }
  return list;
}

/**
 * The static order per product depends only on the index and the corpus signals: it is kept as long as the
 * same signal lookup (same cache generation) is passed, so its shared items, and their rendered forms,
 * survive from one call to the next.
 */
export const STATIC_ORDER = memoWeak<SignalLookup, WeakMap<ProductIndex, StaticEntry[]>>();

export const RENDERED = memoWeak<CveItem, { build: string | null; rank: number; r: CveResult }>();
const RANKS = memoWeak<CveItem[], Map<CveItem, number>>();

/** priority_rank of an item on a host: its position in the host's priority order (1 = first). */
export function rankOf(ordered: CveItem[], it: CveItem): number {
  let m = RANKS.get(ordered);
  if (!m) {
    m = new Map();
    for (let i = 0; i < ordered.length; i++) m.set(ordered[i], i + 1);
    RANKS.set(ordered, m);
  }
  return m.get(it) ?? 0;
}
