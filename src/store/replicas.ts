// Corpus reads on PostgreSQL streaming replicas (DATABASE_REPLICA_URL; docs/deploy.md, ADR 0098).
//
// The router watches each replica and the primary on a timer and hands out, per connection, a replica that is
// streaming, within the configured lag, and has applied at least the corpus version the primary was last known to
// have (`cve_corpus_state.version`, moved in the same transaction as every corpus change and replicated with it).
// Otherwise the primary answers. LISTEN/NOTIFY does not reach a standby: the CVE reader keeps listening on the
// primary and tells the router of each notification (`primaryMoved`); reads then go to the primary until a replica
// shows it has applied the version the primary reports after that notification.
//
// A replica that refuses a connection, or whose connection fails under a read, is marked down at once and the read
// is run on the primary (a read is safe to repeat); the next check that reaches it marks it back.
import pg from 'pg';
import { deadlineAware, openStore, type Store, type StoreOptions } from './db.ts';
import { isConnectionError } from '../lib/db-errors.ts';
import { Kysely, PostgresDialect } from './kysely.ts';
import type { DB as Database } from './db-schema.ts';
import { asError } from '../lib/errors.ts';

export type ReplicaState = 'streaming' | 'behind' | 'down' | 'starting';

export interface ReplicaStatus {
  /** host:port/database of the replica (never its password). */
  name: string;
  state: ReplicaState;
  /** Time the replica is behind the primary, ms (0 when it has replayed everything the primary had written); null when unknown. */
  lag_ms: number | null;
  /** The corpus version the replica has applied; null when unknown. */
  corpus_version: number | null;
}

export interface ReplicaRouterOptions {
  /** A replica further behind than this is not read from (and health is degraded). */
  maxLagMs: number;
  /** How often the replicas and the primary's corpus version are checked, ms (default 1000). */
  checkIntervalMs?: number;
  /** Pool options of the replica pools (statement timeout, deadline, size), as the primary's. */
  store?: StoreOptions;
  onError?: (err: Error) => void;
}

interface Replica {
  name: string;
  url: string;
  store: Store;
  driver: pg.Pool;
  state: ReplicaState;
  lagMs: number | null;
  version: number | null;
}

/** The replica's URL as it may be shown: host, port and database. */
function displayName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname}`;
  } catch {
    return '(unparsable URL)';
  }
}

export class ReplicaRouter {
  private readonly replicas: Replica[];
  private readonly primaryDriver: pg.Pool;
  /** The primary's corpus version as last learned; reads need a replica that has applied it. */
  private target = 0;
  /** Moved by every notification: a version read before the latest notification is not trusted as the target. */
  private seq = 0;
  private targetKnown = false;
  private told = false;
  private next = 0;
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  private closed = false;
  /** Reads handed out per server (replica name, or `primary`) by the read stores. */
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly primary: Store,
    urls: string[],
    private readonly opts: ReplicaRouterOptions,
  ) {
    this.primaryDriver = deadlineAware(primary.pool);
    this.replicas = urls.map((url) => {
      const store = openStore(url, {
        ...opts.store,
        applicationName: 'vulnintel-replica',
        onPoolError: (err) => opts.onError?.(err),
      });
      return {
        name: displayName(url),
        url,
        store,
        driver: deadlineAware(store.pool),
        state: 'starting',
        lagMs: null,
        version: null,
      };
    });
    const every = opts.checkIntervalMs ?? 1000;
    this.timer = setInterval(() => void this.check(), every);
    this.timer.unref();
    void this.check();
  }

  /**
   * Whether the caller is told about the primary's commits (its LISTEN connection up). Without it no replica is
   * read: a replica's answer could be older than a commit the caller cannot hear of.
   */
  setTold(told: boolean): void {
    this.told = told;
    if (told) this.primaryMoved();
  }

  /**
   * A corpus notification from the primary: until the primary's version after it is read, and a replica has
   * applied that version, reads go to the primary.
   */
  primaryMoved(): void {
    this.seq++;
    this.targetKnown = false;
    void this.check();
  }

  /** A replica to read from now, or null for the primary. */
  pick(): Replica | null {
    if (!this.told || !this.targetKnown || this.closed) return null;
    const n = this.replicas.length;
    for (let i = 0; i < n; i++) {
      const r = this.replicas[(this.next + i) % n];
      if (r.state === 'streaming' && r.version !== null && r.version >= this.target) {
        this.next = (this.next + i + 1) % n;
        return r;
      }
    }
    return null;
  }

  /** Reads (connections and single statements) each server was given by the read stores, by replica name or `primary`. */
  served(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  private count(name: string): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
  }

  /** Health: degraded when a replica is down or further behind than the configured lag. */
  status(): { degraded: boolean; replicas: ReplicaStatus[] } {
    const replicas = this.replicas.map((r) => ({
      name: r.name,
      state: r.state,
      lag_ms: r.lagMs,
      corpus_version: r.version,
    }));
    return { degraded: replicas.some((r) => r.state === 'down' || r.state === 'behind'), replicas };
  }

  /** Runs one check now (tests; also after a notification), sharing a check under way. */
  check(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.checking) {
      // A notification during a check: one more check after it, so the new version is read.
      return this.checking.then(() => this.check());
    }
    this.checking = this.runCheck().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  private async runCheck(): Promise<void> {
    const seq = this.seq;
    let primaryLsn: string | null = null;
    try {
      const r = await this.primary.pool.query<{ version: string; lsn: string }>(
        `SELECT (SELECT version FROM cve_corpus_state WHERE id = 1)::text AS version, pg_current_wal_lsn()::text AS lsn`,
      );
      primaryLsn = r.rows[0].lsn;
      if (seq === this.seq) {
        this.target = Number(r.rows[0].version ?? 0);
        this.targetKnown = true;
      }
    } catch (e) {
      // The primary unreachable: every read fails on it anyway; replicas keep their last state.
      this.opts.onError?.(asError(e));
    }
    await Promise.all(this.replicas.map((r) => this.checkReplica(r, primaryLsn)));
  }

  private async checkReplica(r: Replica, primaryLsn: string | null): Promise<void> {
    try {
      const q = await r.store.pool.query<{
        version: string | null;
        behind_bytes: string | null;
        replay_age_ms: string | null;
        standby: boolean;
      }>(
        `
        SELECT (SELECT version FROM cve_corpus_state WHERE id = 1)::text AS version,
               pg_is_in_recovery() AS standby,
               CASE WHEN pg_is_in_recovery() AND $1::pg_lsn IS NOT NULL
                 THEN pg_wal_lsn_diff($1::pg_lsn, coalesce(pg_last_wal_replay_lsn(), '0/0'::pg_lsn))::text END AS behind_bytes,
               (extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) * 1000)::bigint::text AS replay_age_ms`,
        [primaryLsn],
      );
      const row = q.rows[0];
      r.version = row.version === null ? null : Number(row.version);
      // Caught up with what the primary had written when it was asked: no lag. Otherwise the age of the last
      // transaction it replayed (how long ago the primary committed it).
      const behind = row.behind_bytes === null ? 0 : Number(row.behind_bytes);
      r.lagMs =
        !row.standby || behind <= 0 ? 0 : row.replay_age_ms === null ? null : Math.max(0, Number(row.replay_age_ms));
      r.state = r.lagMs === null || r.lagMs > this.opts.maxLagMs ? 'behind' : 'streaming';
    } catch (e) {
      this.markDown(r, asError(e));
    }
  }

  private markDown(r: Replica, err: Error): void {
    if (r.state !== 'down')
      this.opts.onError?.(
        Object.assign(new Error(`replica ${r.name} unavailable; reads go to the primary: ${err.message}`), {
          cause: err,
        }),
      );
    r.state = 'down';
    r.lagMs = null;
  }

  /**
   * A Store whose reads go to a replica when one may answer, else to the primary. For reads only: every statement
   * may run on another server than the one before it, except inside one checked-out client. `fallback` answers
   * when no replica may (default: the primary's pool; the CVE reader's search pool for searches).
   */
  readStore(fallback: Store = this.primary): Store {
    const pool = this.routingPool(fallback);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    const urlNow = () => this.pick()?.url ?? fallback.url;
    return {
      db,
      pool,
      get url() {
        return urlNow();
      },
      async close() {
        await db.destroy();
      },
    };
  }

  private routingPool(fallback: Store): pg.Pool {
    const router = {
      pick: () => this.pick(),
      count: (n: string) => this.count(n),
      markDown: (r: Replica, e: Error) => this.markDown(r, e),
      wrap: this.wrap.bind(this),
    };
    const primaryDriver = fallback === this.primary ? this.primaryDriver : deadlineAware(fallback.pool);
    type Client = { query(...a: unknown[]): unknown; release(err?: unknown): void };
    return {
      options: fallback.pool.options,
      async connect(): Promise<Client> {
        const r = router.pick();
        if (r) {
          try {
            const c = router.wrap(await r.driver.connect(), r, primaryDriver);
            router.count(r.name);
            return c;
          } catch (e) {
            if (!isConnectionError(e)) throw e;
            router.markDown(r, asError(e));
          }
        }
        router.count('primary');
        return primaryDriver.connect();
      },
      // The forms the read path sends: a text with its values, or a query config (a named prepared statement).
      async query(textOrConfig: string | pg.QueryConfig, values?: unknown[]) {
        const r = router.pick();
        if (r) {
          try {
            const res = await r.store.pool.query(textOrConfig, values);
            router.count(r.name);
            return res;
          } catch (e) {
            if (!isConnectionError(e)) throw e;
            router.markDown(r, asError(e));
          }
        }
        router.count('primary');
        return fallback.pool.query(textOrConfig, values);
      },
      on() {
        return this;
      },
      end: async () => {},
    } as unknown as pg.Pool;
  }

  /**
   * A replica's client whose failed connection moves it to the primary: a statement that fails because the replica
   * went away runs again there, unless a transaction was begun on the replica (its snapshot is gone).
   */
  private wrap(
    client: { query(...a: unknown[]): unknown; release(err?: unknown): void },
    r: Replica,
    primaryDriver: pg.Pool,
  ) {
    const router = { count: (n: string) => this.count(n), markDown: (x: Replica, e: Error) => this.markDown(x, e) };
    let current = client;
    let onPrimary = false;
    let inTx = false;
    return {
      query(...args: unknown[]) {
        const first = args[0];
        const text =
          typeof first === 'string'
            ? first
            : typeof first === 'object' && first !== null && 'text' in first
              ? first.text
              : undefined;
        if (typeof text === 'string' && /^\s*BEGIN\b/i.test(text)) inTx = true;
        if (typeof text === 'string' && /^\s*(COMMIT|ROLLBACK)\b/i.test(text)) inTx = false;
        const res = current.query(...args);
        if (onPrimary || !(res instanceof Promise)) return res;
        const began = inTx && !(typeof text === 'string' && /^\s*BEGIN\b/i.test(text));
        return res.catch(async (e: unknown) => {
          if (!isConnectionError(e) || began) throw e;
          router.markDown(r, asError(e));
          router.count('primary');
          current.release(e);
          current = await primaryDriver.connect();
          onPrimary = true;
          return current.query(...args);
        });
      },
      release(err?: unknown) {
        current.release(err);
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.checking?.catch(() => {});
    await Promise.all(this.replicas.map((r) => r.store.close()));
  }
}
