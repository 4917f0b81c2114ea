// The import's batch writers: CVE ids are routed to a fixed writer by a hash of the id, so all the records of one
// CVE are written in order by one writer, and two writers never touch the same CVE, source or EPSS row. Each
// writer has one batch in flight on its own pooled connection while the next one is read: parsing, enrichment and
// the database overlap, and PostgreSQL works on two batches at once. Memory stays bounded (two batches per writer).
import type { Db, Tx } from '../../store/db.ts';
import { withTx } from '../../store/db.ts';
import { touchCorpus } from '../../store/bulk.ts';
import { batchSettings, progressRun, upsertEpss, upsertSourceRecords } from '../../store/ingest.ts';
import type { SourceText } from '../../ingest/record-json.ts';
import type { EpssRecord } from '../../ingest/types.ts';
import type { Enricher } from './enricher.ts';
import type { PipelineOptions, PipelineSummary } from './types.ts';
import { errorField } from '../../lib/errors.ts';

/** A transaction of the import's own work, with its settings (store/ingest.ts batchSettings). */
export function inImportTx<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return withTx(db, async (tx) => {
    await batchSettings(tx);
    return fn(tx);
  });
}

export interface Writer {
  cve: SourceText[];
  epss: EpssRecord[];
  inflight: Promise<void> | null;
}

/** The writer routing key of a CVE id (a string hash: ids spread evenly over the writers). */
function routeKey(cveId: string): number {
  let n = 0;
  for (let i = 0; i < cveId.length; i++) n = (Math.imul(n, 31) + cveId.charCodeAt(i)) >>> 0;
  return n;
}

/**
 * Runs a batch transaction again when PostgreSQL aborted it for a deadlock or a serialization failure (two
 * writers' count-trigger updates can meet): a batch is an idempotent upsert, so running it again is safe.
 */
async function retryOnConflict<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      const code = errorField(err, 'code');
      if (i >= attempts || (code !== '40P01' && code !== '40001')) throw err;
      await new Promise((r) => setTimeout(r, 20 * i));
    }
  }
}

export interface BatchWriters {
  /** The writer of a CVE id. */
  writerOf(cveId: string): Writer;
  /** Starts the writer's batch once its previous one is done (at most one in flight per writer). */
  send(w: Writer): Promise<void>;
  /** Sends every writer's partial batch and waits until all are committed. */
  flush(): Promise<void>;
  /** The batches in flight (settled before a failed run is recorded). */
  readonly inflight: ReadonlySet<Promise<void>>;
}

export interface WriterRun {
  /** The pool: each batch takes its own connection. */
  db: Db;
  /** The connection that holds the import lock (run progress is recorded on it). */
  conn: Db;
  enricher: Enricher;
  /** A bulk load (the triggers are off: each batch tells API processes itself). */
  bulk: boolean;
  summary: PipelineSummary;
  runs: { ingest: number; enrich: number };
  opts: PipelineOptions;
}

/** The run's writers (`opts.writers`, 1 to 8, default 2), each with its pending batch of CVE records and EPSS scores. */
export function startWriters(run: WriterRun): BatchWriters {
  const { db, conn, enricher, bulk, summary, runs, opts } = run;
  const writerCount = Math.max(1, Math.min(8, opts.writers ?? 2));
  const writers: Writer[] = Array.from({ length: writerCount }, () => ({ cve: [], epss: [], inflight: null }));
  const inflight = new Set<Promise<void>>();
  let batchNo = 0;

  const writeBatch = async (recs: SourceText[], scores: EpssRecord[]) => {
    const r = await retryOnConflict(() =>
      inImportTx(db, async (tx) => {
        const up = await upsertSourceRecords(tx, recs);
        const changed = new Set(up.ids);
        for (const id of await upsertEpss(tx, scores)) changed.add(id);
        // The records just written stand in for their stored rows; any other record (one refused as an older
        // revision among them) is read as stored.
        const res = await enricher.enrich(tx, [...changed].sort(), up.written);
        // With the triggers off, the batch tells API processes itself (once: enrich() may have done it).
        if (bulk && !res.touched) await touchCorpus(tx);
        return { ...res, changed: changed.size };
      }),
    );
    summary.changed_sources += r.changed;
    summary.documents_written += r.written;
    summary.documents_removed += r.removed;
    const n = ++batchNo;
    await enricher.analyse(db, r.pending);
    await progressRun(conn, runs.ingest, summary.items);
    await progressRun(conn, runs.enrich, summary.documents_written);
    await opts.afterBatch?.(n);
  };
  const send = async (w: Writer) => {
    if (!w.cve.length && !w.epss.length) return;
    const recs = w.cve;
    const scores = w.epss;
    w.cve = [];
    w.epss = [];
    if (w.inflight) await w.inflight;
    const p = writeBatch(recs, scores);
    w.inflight = p;
    inflight.add(p);
    // Marked handled here; the rejection is rethrown where the batch is awaited.
    p.then(
      () => inflight.delete(p),
      () => undefined,
    );
  };
  const flush = async () => {
    for (const w of writers) await send(w);
    for (const w of writers) {
      const p = w.inflight;
      w.inflight = null;
      if (p) await p;
    }
  };
  const writerOf = (cveId: string) => writers[writerCount === 1 ? 0 : routeKey(cveId) % writerCount];
  return { writerOf, send, flush, inflight };
}
