// Loads the in-memory full-text index (src/domain/fulltext/) from the read model, and keeps it no older than the
// last committed write the CVE reader has been told about (docs/search.md):
//  - built on the first search that can use it (never at start: a replica that serves no search pays nothing);
//  - read from one REPEATABLE READ snapshot through a cursor, tagged with the reader's cache generation read
//    before the snapshot; a notification during the build discards it (the same rule as the response cache);
//  - after a notification the index is dropped at once (never served stale) and rebuilt once writes have been
//    quiet for `debounceMs`; meanwhile searches run in PostgreSQL;
//  - it lives in a worker thread (src/store/fulltext-worker.ts), which builds it and ranks every search, so the
//    server's event loop stays free for the requests around a burst of broad searches.
import pg from 'pg';
import type { Worker } from 'node:worker_threads';
import { startTsWorker } from '../lib/ts-worker.ts';
import { FullTextIndexBuilder } from '../domain/fulltext/build.ts';
import type { FullTextIndex, IndexQuery } from '../domain/fulltext/query.ts';
import type { FromWorker, ToWorker } from './fulltext-worker.ts';
import { asError } from '../lib/errors.ts';

const BATCH = 5000;

/** Reads every CVE's search vector and sort keys in ordinal order (published_at DESC NULLS LAST, cve_id DESC). */
export async function loadFullTextIndex(
  url: string,
  signal: { aborted: boolean; client?: pg.Client },
): Promise<FullTextIndex | null> {
  const c = new pg.Client({ connectionString: url, application_name: 'vulnintel-search-index' });
  signal.client = c;
  c.on('error', () => {});
  await c.connect();
  try {
    await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await c.query(`DECLARE fts NO SCROLL CURSOR FOR
      SELECT cve_id, search::text AS search, cvss_score, epss_score,
             (row_number() OVER (ORDER BY cve_id DESC))::int AS id_rank
      FROM cves ORDER BY published_at DESC NULLS LAST, cve_id DESC`);
    const b = new FullTextIndexBuilder();
    for (;;) {
      if (signal.aborted) return null;
      const r = await c.query<{
        cve_id: string;
        search: string;
        cvss_score: number | null;
        epss_score: number | null;
        id_rank: number;
      }>(`FETCH ${BATCH} FROM fts`);
      for (const row of r.rows) {
        b.add({
          cveId: row.cve_id,
          search: row.search,
          cvss: row.cvss_score,
          epss: row.epss_score,
          idRank: row.id_rank,
        });
      }
      if (r.rows.length < BATCH) break;
      // Let requests run between batches: the build shares the event loop with the server.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await c.query('COMMIT');
    return b.build();
  } finally {
    await c.end().catch(() => {});
  }
}

/** What the reader searches: the index in its worker thread (or, for tests, in this thread). */
export interface SearchableIndex {
  readonly size: number;
  /** The exact total and one page of ids; null when the index cannot answer (the caller asks PostgreSQL). */
  search(q: IndexQuery): Promise<{ total: number; ids: string[] } | null>;
}

/** Where an index is built and searched. */
interface IndexHost {
  /** Builds a new index (the previous one is dropped); null when the build was aborted. */
  build(url: string): Promise<SearchableIndex | null>;
  abort(): void;
  drop(): void;
  close(): Promise<void>;
}

/** The index in this thread (tests, `thread: 'inline'`). */
class InlineHost implements IndexHost {
  private signal: { aborted: boolean; client?: pg.Client } | null = null;
  private idx: FullTextIndex | null = null;

  async build(url: string): Promise<SearchableIndex | null> {
    this.idx = null;
    const signal: { aborted: boolean; client?: pg.Client } = { aborted: false };
    this.signal = signal;
    try {
      const idx = await loadFullTextIndex(url, signal);
      if (!idx || signal.aborted) return null;
      this.idx = idx;
      return { size: idx.size, search: (q) => Promise.resolve(this.idx === idx ? idx.search(q) : null) };
    } finally {
      if (this.signal === signal) this.signal = null;
    }
  }

  abort(): void {
    if (!this.signal) return;
    this.signal.aborted = true;
    void this.signal.client?.end().catch(() => {});
  }

  drop(): void {
    this.idx = null;
  }

  async close(): Promise<void> {
    this.abort();
    this.idx = null;
  }
}

type Request = { t: 'build'; url: string } | { t: 'search'; q: IndexQuery };

/** The index in its own worker thread (the default). */
class WorkerHost implements IndexHost {
  readonly worker: Worker;
  private seq = 0;
  private readonly pending = new Map<number, (m: FromWorker) => void>();
  private dead: Error | null = null;
  /** Bumped at every build and drop: a handle of an older index answers null. */
  private epoch = 0;

  constructor(private readonly onDead: (err: Error) => void) {
    this.worker = startTsWorker(new URL('./fulltext-worker.ts', import.meta.url));
    // An idle index thread never keeps the process alive; the server's own handles do while it serves.
    this.worker.unref();
    this.worker.on('message', (m: FromWorker) => {
      const reply = this.pending.get(m.seq);
      if (!reply) return;
      this.pending.delete(m.seq);
      reply(m);
    });
    this.worker.on('error', (e) => this.fail(e));
    this.worker.on('exit', (code) => this.fail(new Error(`the search index thread exited (code ${code})`)));
  }

  private fail(err: Error) {
    if (this.dead) return;
    this.dead = err;
    for (const reply of this.pending.values()) reply({ t: 'failed', seq: -1, message: err.message });
    this.pending.clear();
    this.onDead(err);
  }

  private post(m: ToWorker) {
    if (!this.dead) this.worker.postMessage(m);
  }

  private call(req: Request): Promise<FromWorker> {
    if (this.dead) return Promise.resolve({ t: 'failed', seq: -1, message: this.dead.message });
    const seq = ++this.seq;
    return new Promise((resolve) => {
      this.pending.set(seq, resolve);
      this.post(req.t === 'build' ? { t: 'build', seq, url: req.url } : { t: 'search', seq, q: req.q });
    });
  }

  async build(url: string): Promise<SearchableIndex | null> {
    const epoch = ++this.epoch;
    const r = await this.call({ t: 'build', url });
    if (r.t === 'failed') throw new Error(r.message);
    if (r.t !== 'built' || epoch !== this.epoch) return null;
    return {
      size: r.size,
      search: async (q) => {
        if (epoch !== this.epoch) return null;
        const x = await this.call({ t: 'search', q });
        if (x.t !== 'result') return null;
        if (x.error) throw new Error(x.error);
        return epoch === this.epoch ? x.r : null;
      },
    };
  }

  abort(): void {
    this.post({ t: 'abort' });
  }

  drop(): void {
    this.epoch++;
    this.post({ t: 'drop' });
  }

  async close(): Promise<void> {
    this.dead ??= new Error('closed');
    await this.worker.terminate();
  }
}

export interface FullTextIndexHolderOptions {
  /** Where the index is read from (a function: a replica chosen at each build). */
  url: string | (() => string);
  /** The reader's cache generation (bumped by every corpus notification). */
  generation: () => number;
  /** Whether the reader is told about commits (LISTEN up); without it the index is never served. */
  live: () => boolean;
  onError?: (err: Error) => void;
  /** Quiet time after the last notification before a rebuild (default 2 s). */
  debounceMs?: number;
  /** Where the index lives: its own worker thread (default), or this thread. */
  thread?: 'worker' | 'inline';
}

export class FullTextIndexHolder {
  private index: SearchableIndex | null = null;
  private builtAt = -1;
  private wanted = false;
  private building = false;
  private host: IndexHost | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private failures = 0;

  constructor(private readonly opts: FullTextIndexHolderOptions) {}

  /**
   * The index if it reflects every commit the reader knows of; otherwise null, and (unless `build` is false) a build
   * is started.
   */
  current(build = true): SearchableIndex | null {
    if (this.closed) return null;
    if (this.index && this.builtAt === this.opts.generation() && this.opts.live()) return this.index;
    if (build) {
      this.wanted = true;
      if (!this.building && !this.timer) this.schedule(0);
    }
    return null;
  }

  /** A corpus notification: drop the index now, rebuild when writes are quiet. */
  invalidated(): void {
    this.index = null;
    this.host?.drop();
    if (this.wanted && !this.closed) this.schedule(this.opts.debounceMs ?? 2000);
  }

  /** The index's worker thread, if one is running (tests). */
  get thread(): Worker | null {
    return this.host instanceof WorkerHost ? this.host.worker : null;
  }

  /** Resolves when no build is pending (tests). */
  async settled(): Promise<void> {
    while (this.building || this.timer) await new Promise((r) => setTimeout(r, 20));
  }

  private schedule(ms: number) {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.build();
    }, ms);
    this.timer.unref();
  }

  private hostNow(): IndexHost {
    if (this.host) return this.host;
    if (this.opts.thread === 'inline') return (this.host = new InlineHost());
    const host: IndexHost = new WorkerHost((err) => {
      // The thread died (out of memory, a crash): searches go to PostgreSQL; a new thread is started later.
      if (this.host !== host) return;
      this.host = null;
      this.index = null;
      if (this.closed) return;
      this.opts.onError?.(err);
      this.failures++;
      this.schedule(Math.min(60_000, 1000 * 2 ** this.failures));
    });
    return (this.host = host);
  }

  private async build() {
    if (this.building || this.closed) return;
    this.building = true;
    const gen = this.opts.generation();
    try {
      if (!this.opts.live()) {
        // Freshness cannot be known without LISTEN: try again later.
        this.schedule(1000);
        return;
      }
      const idx = await this.hostNow().build(typeof this.opts.url === 'function' ? this.opts.url() : this.opts.url);
      if (this.closed || !idx) return;
      this.failures = 0;
      if (gen === this.opts.generation() && this.opts.live()) {
        this.index = idx;
        this.builtAt = gen;
      } else {
        this.schedule(this.opts.debounceMs ?? 2000);
      }
    } catch (e) {
      if (this.closed) return;
      this.opts.onError?.(asError(e));
      this.failures++;
      this.schedule(Math.min(60_000, 1000 * 2 ** this.failures));
    } finally {
      this.building = false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.index = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const host = this.host;
    this.host = null;
    if (host) {
      host.abort();
      await host.close();
    }
  }
}
