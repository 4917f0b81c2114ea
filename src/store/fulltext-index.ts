// Loads the in-memory full-text index (src/domain/fulltext.ts) from the read model, and keeps it no older than the
// last committed write the CVE reader has been told about (docs/search.md):
//  - built on the first search that can use it (never at start: a replica that serves no search pays nothing);
//  - read from one REPEATABLE READ snapshot through a cursor, tagged with the reader's cache generation read
//    before the snapshot; a notification during the build discards it (the same rule as the response cache);
//  - after a notification the index is dropped at once (never served stale) and rebuilt once writes have been
//    quiet for `debounceMs`; meanwhile searches run in PostgreSQL.
import pg from 'pg';
import { FullTextIndexBuilder, type FullTextIndex } from '../domain/fulltext.ts';

const BATCH = 5000;

/** Reads every CVE's search vector and sort keys in ordinal order (published_at DESC NULLS LAST, cve_id DESC). */
export async function loadFullTextIndex(url: string, signal: { aborted: boolean; client?: pg.Client }): Promise<FullTextIndex | null> {
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
      const r = await c.query<{ cve_id: string; search: string; cvss_score: number | null; epss_score: number | null; id_rank: number }>(
        `FETCH ${BATCH} FROM fts`);
      for (const row of r.rows) {
        b.add({ cveId: row.cve_id, search: row.search, cvss: row.cvss_score, epss: row.epss_score, idRank: row.id_rank });
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

export interface FullTextIndexHolderOptions {
  url: string;
  /** The reader's cache generation (bumped by every corpus notification). */
  generation: () => number;
  /** Whether the reader is told about commits (LISTEN up); without it the index is never served. */
  live: () => boolean;
  onError?: (err: Error) => void;
  /** Quiet time after the last notification before a rebuild (default 2 s). */
  debounceMs?: number;
  /** Injected loader (tests). */
  load?: typeof loadFullTextIndex;
}

export class FullTextIndexHolder {
  private index: FullTextIndex | null = null;
  private builtAt = -1;
  private wanted = false;
  private building: { aborted: boolean; client?: pg.Client } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private failures = 0;

  constructor(private readonly opts: FullTextIndexHolderOptions) {}

  /** The index if it reflects every commit the reader knows of; otherwise null, and a build is started. */
  current(): FullTextIndex | null {
    if (this.closed) return null;
    this.wanted = true;
    if (this.index && this.builtAt === this.opts.generation() && this.opts.live()) return this.index;
    if (!this.building && !this.timer) this.schedule(0);
    return null;
  }

  /** A corpus notification: drop the index now, rebuild when writes are quiet. */
  invalidated(): void {
    this.index = null;
    if (this.wanted && !this.closed) this.schedule(this.opts.debounceMs ?? 2000);
  }

  /** Resolves when no build is pending (tests). */
  async settled(): Promise<void> {
    while (this.building || this.timer) await new Promise((r) => setTimeout(r, 20));
  }

  private schedule(ms: number) {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.timer = null; void this.build(); }, ms);
    this.timer.unref();
  }

  private async build() {
    if (this.building || this.closed) return;
    const signal: { aborted: boolean; client?: pg.Client } = { aborted: false };
    this.building = signal;
    const gen = this.opts.generation();
    try {
      if (!this.opts.live()) {
        // Freshness cannot be known without LISTEN: try again later.
        this.schedule(1000);
        return;
      }
      const idx = await (this.opts.load ?? loadFullTextIndex)(this.opts.url, signal);
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
      this.opts.onError?.(e as Error);
      this.failures++;
      this.schedule(Math.min(60_000, 1000 * 2 ** this.failures));
    } finally {
      this.building = null;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.index = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const b = this.building;
    if (b) {
      b.aborted = true;
      await b.client?.end().catch(() => {});
    }
  }
}
