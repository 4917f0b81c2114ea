// Bounded memo tables for pure functions of the domain (vendor canonicalisation, product keys, version spellings):
// correlation and the import call them with the same few thousand inputs hundreds of thousands of times.
// Every table is registered here so the mutation runner (tools/mutation/runner.mjs) can empty them before each test:
// a value memoised by one test, or in the dry run without a mutant, must not hide a mutant from the next
// (docs/quality.md).
const TABLES = new Set<{ clear(): void }>();

/** A memo table holding at most `max` entries (emptied when full). */
export function memoTable<K, V>(max: number): { get(k: K): V | undefined; set(k: K, v: V): void } {
  const m = new Map<K, V>();
  TABLES.add(m);
  return {
    get: (k) => m.get(k),
    set(k, v) {
      if (m.size >= max) m.clear();
      m.set(k, v);
    },
  };
}

/**
 * A memo keyed by objects (a product index, a rendered item): kept as long as its key lives. Emptying it replaces
 * the WeakMap.
 */
export function memoWeak<K extends object, V>(): { get(k: K): V | undefined; set(k: K, v: V): void } {
  let w = new WeakMap<K, V>();
  TABLES.add({
    clear: () => {
      w = new WeakMap();
    },
  });
  return {
    get: (k) => w.get(k),
    set: (k, v) => {
      w.set(k, v);
    },
  };
}

/** Empties every memo table (tests and the mutation runner only, which imports it by path). @public */
export function clearMemos(): void {
  for (const m of TABLES) m.clear();
}
