// Cache building blocks that cannot stampede: when a cached value expires while many
// requests wait for it, exactly one load runs and every waiter shares its result, and a value close to expiry
// is reloaded in the background by the request that notices, so a busy server never sees it expire.

/**
 * Concurrent calls with the same key share one promise: the loader runs once per key at a time. The entry is
 * forgotten when the promise settles (a failure is not cached: the next call loads again).
 */
export class SingleFlight<V> {
  private readonly inflight = new Map<string, Promise<V>>();

  run(key: string, load: () => Promise<V>): Promise<V> {
    const running = this.inflight.get(key);
    if (running) return running;
    const p = load().finally(() => {
      if (this.inflight.get(key) === p) this.inflight.delete(key);
    });
    this.inflight.set(key, p);
    return p;
  }

  /** Loads under way (for tests and health). */
  get size(): number {
    return this.inflight.size;
  }
}

export interface RefreshingValueOptions {
  /** Age after which a value is never served. */
  ttlMs: number;
  /** A value at least `ttlMs - refreshAheadMs` old is served and reloaded in the background. */
  refreshAheadMs: number;
  /** Milliseconds clock (injected in tests to expire without sleeping). */
  now: () => number;
  /** Told about a background reload that failed (the current value stays until it expires). */
  onRefreshError?: (err: Error) => void;
}

/**
 * One value per key version (for example the MSRC data version the value was computed for): single-flight
 * loads, refresh ahead of expiry, and invalidation that also discards a load started before it.
 */
export class RefreshingValue<V> {
  private current: { key: string; at: number; value: V } | null = null;
  private readonly flights = new SingleFlight<V>();
  private generation = 0;

  constructor(
    private readonly load: (key: string) => Promise<V>,
    private readonly opts: RefreshingValueOptions,
  ) {}

  async get(key: string): Promise<V> {
    const c = this.current;
    if (c && c.key === key) {
      const age = this.opts.now() - c.at;
      if (age < this.opts.ttlMs) {
        if (age >= this.opts.ttlMs - this.opts.refreshAheadMs) {
          this.start(key).catch((err: Error) => this.opts.onRefreshError?.(err));
        }
        return c.value;
      }
    }
    return this.start(key);
  }

  /** Forget the value; a load under way is not installed (it may predate the change that invalidated). */
  invalidate(): void {
    this.generation++;
    this.current = null;
  }

  private start(key: string): Promise<V> {
    const gen = this.generation;
    return this.flights.run(`${gen}\u0000${key}`, async () => {
      const at = this.opts.now();
      const value = await this.load(key);
      if (gen === this.generation && (!this.current || this.current.at <= at || this.current.key !== key)) {
        this.current = { key, at, value };
      }
      return value;
    });
  }
}
