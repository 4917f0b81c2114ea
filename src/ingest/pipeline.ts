// The import pipeline: feed items (from files via the readers, or from a live fetcher) → source tables →
// enrichment → the `cves` read model, in batches; each batch is one transaction, so a crash leaves every
// committed batch consistent and the previous corpus intact. Single-flight under a database lock; runs are
// recorded in ingest_runs (stages ingest and enricher); a run left 'running' by a killed process is marked
// failed at the next start. Memory stays flat: items stream through fixed-size batches.
import type { Db, Tx } from '../store/db.ts';
import { withTx } from '../store/db.ts';
import { rangeSet, storeRanges, type RangeSet } from '../store/ranges.ts';
import { docRow, upsertCves, upsertCvesWithPrevious, upsertDocRows, type DocRow } from '../store/cves.ts';
import { recordOf, sourceText, type SourceText } from './record-json.ts';
import { moveWatchVendors, orphanedWatchVendors, refreshProducts } from '../store/watchlists.ts';
import { formerSlugTarget } from '../domain/vendors.ts';
import { recordChanges, storedFacts, type ChangeInput } from '../store/changes.ts';
import { diffCve, diffRanges, factsOf, type ChangeFacts } from '../domain/changes.ts';
import { beginBulkLoad, bulkLoadPending, endBulkLoad, touchCorpus, type BulkTask } from '../store/bulk.ts';
import {
  batchSettings, countCves, countSourceRows, deleteCves, deleteSourcesNotIn, failStaleRuns, finishRun, getState, loadCatalogRows, loadSources, previousSages, progressRun,
  refreshVendors, replaceCapecCatalog, replaceCweCatalog, setFeedState, setState, sourceCveIds, startRun, upsertEpss,
  upsertSourceRecords, withImportLock,
} from '../store/ingest.ts';
import { closeInputs, openInputs, openItems, primeAhead, type CollectedInputs, type PipelineInput } from './inputs.ts';
import { type CapecRecord, type CweRecord, type EpssRecord, type FeedFormat, type FeedMeta } from './types.ts';
import { mergeSources } from '../domain/merge.ts';
import { buildCapecIndex } from '../domain/capec.ts';
import { buildCveDocument, type Built, type Catalogs } from '../domain/enrich.ts';
import { GROUNDED_MODEL, type AnalysisFacts, type AnalysisProvider } from '../domain/analysis.ts';
import { ENRICHMENT_VERSION, type CveDocument, type SageBlock } from '../domain/cve-document.ts';
import { silentProgress, type ProgressSink } from './progress.ts';
import { boundHeapGrowth } from '../lib/heap.ts';
import { emptyMsrcSummary, storeAndCount, type MsrcImportSummary } from './msrc-import.ts';
import { msrcDocumentStates } from '../store/windows.ts';
import type { PreparedMsrcDocument } from './msrc-prepare.ts';

export interface PipelineLog {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
}

export interface PipelineOptions {
  /** Run label stored in ingest_runs.source (import, snapshot, sync). */
  source?: string;
  log?: PipelineLog;
  progress?: ProgressSink;
  /** CVE source records per transaction. */
  batchSize?: number;
  /** EPSS rows per transaction. */
  epssBatchSize?: number;
  /** Optional analysis provider (OpenAI-compatible); the grounded analysis is used otherwise. */
  provider?: AnalysisProvider;
  now?: () => string;
  /** Wait for a running import instead of refusing. */
  wait?: boolean;
  /**
   * Asked once the pipeline lock is held: false ends the run before it starts (ImportNotNeededError), as when
   * another instance imported the snapshot while this one waited for the lock.
   */
  stillNeeded?: (conn: Db) => Promise<boolean>;
  /**
   * Bulk first import (default true): into an empty corpus, load without the read model's secondary indexes and
   * side-table triggers and rebuild them once at the end of the run (src/store/bulk.ts). False: always incremental.
   */
  bulkLoad?: boolean;
  /**
   * Record CVE changes (default true; docs/watchlists.md "Change history"). False only to measure what recording
   * costs (bench/change-history.ts): a run without it leaves no history of what it changed.
   */
  recordChanges?: boolean;
  /**
   * Concurrent batch writers (default 2, one per core of the reference machine), each on its own pooled
   * connection; records are routed to writers by CVE id, so each CVE's records keep their order.
   */
  writers?: number;
  /**
   * Store each MSRC document's Windows subset (API v2 tables) as the document is read (default true), so a
   * document is parsed once for the corpus and the Windows engine. The sync's MSRC source stores them itself.
   */
  windowsDocuments?: boolean;
  /**
   * Skip, with a warning, a file its reader refuses before its first item (importPaths: local folders hold
   * other files). Off for the sync, where a refused download fails its source.
   */
  skipRefused?: boolean;
  /**
   * Stops the run between records and batches (SIGTERM during the first start's snapshot import): the batches in
   * flight settle, the run is recorded as failed with the reason, and a bulk load is left for the next run to
   * finish, so the stop is quick. The promise rejects with the signal's reason.
   */
  signal?: AbortSignal;
  /** Test hook: called after each committed batch. */
  afterBatch?: (batch: number) => void | Promise<void>;
}

export interface PipelineSummary {
  inputs: { label: string; format: FeedFormat; items: number }[];
  skipped: { label: string; reason: string }[];
  items: number;
  changed_sources: number;
  documents_written: number;
  documents_removed: number;
  corpus: number;
  vendors: number;
  full_reenrichment: boolean;
  /** MSRC documents stored for the Windows engine (API v2). */
  msrc: MsrcImportSummary;
}

export class ImportBusyError extends Error {
  constructor() {
    super('another import or sync is running (database lock held)');
  }
}

/** The run's `stillNeeded` answered false once the lock was held: nothing was done. */
export class ImportNotNeededError extends Error {
  constructor() {
    super('the import is no longer needed');
  }
}

/**
 * Watch entries follow a vendor whose slug changed with the alias table or the normalisation (`sapse` → `sap`):
 * after the catalogs are rebuilt, entries naming a slug the catalog no longer holds move to the slug it now stands
 * for (domain/vendors.ts formerSlugTarget) when the catalog holds that one; an entry of a vendor that simply left the
 * corpus stays as it is.
 */
async function carryWatchEntries(tx: Tx): Promise<void> {
  const moves = (await orphanedWatchVendors(tx)).flatMap((from) => {
    const to = formerSlugTarget(from);
    return to === null ? [] : [{ from, to }];
  });
  await moveWatchVendors(tx, moves);
}

/** A transaction of the import's own work, with its settings (store/ingest.ts batchSettings). */
function inImportTx<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return withTx(db, async (tx) => {
    await batchSettings(tx);
    return fn(tx);
  });
}

interface Writer {
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
      const code = (err as { code?: string }).code;
      if (i >= attempts || (code !== '40P01' && code !== '40001')) throw err;
      await new Promise((r) => setTimeout(r, 20 * i));
    }
  }
}

type PendingAnalysis = { doc: CveDocument; facts: AnalysisFacts };

class Enricher {
  catalogs: Catalogs = { cwe: new Map(), capec: buildCapecIndex([], null) };
  catalogKey = '';
  /**
   * Where changes are recorded (the enricher run), or null: a bulk load into an empty corpus is the baseline and
   * records none (docs/watchlists.md "Change history").
   */
  history: { runId: number } | null = null;
  constructor(private readonly opts: PipelineOptions) {}

  async reload(db: Db | Tx): Promise<void> {
    const rows = await loadCatalogRows(db);
    this.catalogs = { cwe: new Map(rows.cwe.map((c) => [c.id, { name: c.name }])), capec: buildCapecIndex(rows.capec, rows.capecVersion) };
    // The enrichment rules' version is part of the key: a corpus built with older rules is re-enriched by the
    // next import or sync, like one built with other catalogs.
    this.catalogKey = `${ENRICHMENT_VERSION}:${(await getState(db, 'cwe_catalog_hash')) ?? ''}:${(await getState(db, 'capec_catalog_hash')) ?? ''}`;
  }

  /**
   * Re-enriches the given CVEs from their stored sources; writes changed documents, drops CVEs without a description.
   * Returns the documents waiting for the configured analysis provider: the caller passes them to analyse() once
   * the transaction has committed (each batch keeps its own list, so concurrent writers never mix them).
   */
  async enrich(tx: Tx, ids: string[], known: SourceText[] = []): Promise<{ written: number; removed: number; pending: PendingAnalysis[]; touched: boolean }> {
    const pending: PendingAnalysis[] = [];
    if (!ids.length) return { written: 0, removed: 0, pending, touched: false };
    const { records, epss } = await loadSources(tx, ids, known);
    const now = this.opts.now?.() ?? new Date().toISOString();
    const provider = this.opts.provider && this.opts.provider.name !== 'grounded' ? this.opts.provider : null;
    const history = this.history !== null;
    // Every CVE is worked out here, one at a time and before the batch's next round trip: its records are parsed
    // (record-json.ts), its structured ranges grouped and hashed, and its document built and serialised.
    // The batch then holds strings, not records and documents, while it waits on the database: what outlived the young
    // generation was copied by every scavenge. Documents are kept only for the analysis provider, and their change
    // facts only for the history.
    const sets = new Map<string, RangeSet>();
    const rows: DocRow[] = [];
    const facts = new Map<string, ChangeFacts>();
    const built: Built[] = [];
    const drop: string[] = [];
    for (const id of ids) {
      const recs = (records.get(id) ?? []).map(recordOf);
      sets.set(id, rangeSet(recs, history));
      const m = recs.length ? mergeSources(id, recs, epss.get(id) ?? null) : null;
      // The corpus is every CVE that has a description from some source.
      if (!m || !m.description) {
        drop.push(id);
        continue;
      }
      const b = buildCveDocument(m, this.catalogs, now);
      if (provider) built.push(b);
      else rows.push(docRow(b.doc));
      if (history) facts.set(id, factsOf(b.doc));
    }
    // Unchanged range sets write nothing.
    const rangeChanges = await storeRanges(tx, sets, history);
    if (provider) {
      // The provider is called after the batch commits (analyse()), never inside the transaction: until it
      // answers, a record shows its previous analysis (or the grounded one) marked pending.
      const prev = await previousSages(tx, built.map((b) => b.doc.cve_id));
      for (const b of built) {
        const before = prev.get(b.doc.cve_id) as SageBlock | undefined;
        b.doc.sage = { ...(before && before.model !== GROUNDED_MODEL ? before : b.doc.sage), status: 'pending' };
        pending.push(b);
        rows.push(docRow(b.doc));
      }
    }
    // A changed range set is a corpus change (cached answers are dropped). The corpus row is bumped last: its row
    // lock is held until commit, and taken earlier it would serialise the concurrent batch writers' upserts.
    const touched = rangeChanges.length > 0;
    if (!this.history) {
      const written = await upsertDocRows(tx, rows);
      const removed = await deleteCves(tx, drop);
      if (touched) await touchCorpus(tx);
      return { written, removed, pending, touched };
    }
    // Change history: the facts each written row replaced come back from the upsert itself (only rows whose
    // document changed are read), those of removed CVEs are read before the delete.
    const written = await upsertCvesWithPrevious(tx, rows);
    const gone = drop.length ? await storedFacts(tx, drop) : new Map<string, ChangeFacts>();
    const removed = await deleteCves(tx, drop);
    const changes: ChangeInput[] = [];
    for (const w of written) {
      const prev = w.inserted || !w.previous ? null : factsOf(w.previous);
      for (const c of diffCve(prev, facts.get(w.cve_id)!)) changes.push({ cve_id: w.cve_id, ...c });
    }
    for (const [id, f] of gone) for (const c of diffCve(f, null)) changes.push({ cve_id: id, ...c });
    // Affected ranges: only CVEs whose range digest changed come back from storeRanges; a CVE new to the corpus
    // (its new_cve says it all) or leaving it records no range change.
    const fresh = new Set(written.filter((w) => w.inserted || !w.previous).map((w) => w.cve_id));
    const dropped = new Set(drop);
    for (const rc of rangeChanges) {
      if (fresh.has(rc.cve_id) || dropped.has(rc.cve_id)) continue;
      const c = diffRanges(rc.before, rc.after);
      if (c) changes.push({ cve_id: rc.cve_id, ...c });
    }
    if (touched) await touchCorpus(tx);
    // Last statement of the batch transaction: it takes the feed-position lock until commit.
    await recordChanges(tx, changes, this.history.runId);
    return { written: written.length, removed, pending, touched };
  }

  /** Runs the configured provider over the documents of a committed batch; failures leave them pending. */
  async analyse(conn: Db, pending: PendingAnalysis[]): Promise<number> {
    const provider = this.opts.provider;
    const queue = [...pending];
    if (!provider || !queue.length) return 0;
    const done: CveDocument[] = [];
    const worker = async () => {
      for (let item = queue.shift(); item; item = queue.shift()) {
        const now = this.opts.now?.() ?? new Date().toISOString();
        try {
          const sage = await provider.analyze(item.facts, item.doc.sage, now);
          done.push({ ...item.doc, sage });
        } catch {
          // Keeps the stored (pending) analysis: the provider never blocks or fails the import.
        }
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    return done.length ? withTx(conn, (tx) => upsertCves(tx, done)) : 0;
  }
}

export async function runPipeline(db: Db, inputs: PipelineInput[], opts: PipelineOptions = {}, skipped: { label: string; reason: string }[] = []): Promise<PipelineSummary> {
  try {
    const res = await withImportLock(db, async (conn) => {
      if (opts.stillNeeded && !(await opts.stillNeeded(conn))) throw new ImportNotNeededError();
      // Peak memory stays bounded while records stream through (src/lib/heap.ts).
      const release = boundHeapGrowth();
      try {
        return await pipeline(db, conn, inputs, opts, skipped);
      } finally {
        release();
      }
    }, opts.wait, opts.signal);
    if (!res.ran) throw new ImportBusyError();
    return res.value;
  } finally {
    // Whatever reading holds (a feed thread started early, even when the run was refused) ends with the run.
    await closeInputs(inputs);
  }
}

/** `vulnintel import PATH...`: files or directories (or inputs already collected), formats detected per file. */
export async function importPaths(db: Db, paths: string[] | CollectedInputs, opts: PipelineOptions = {}): Promise<PipelineSummary> {
  const { inputs, skipped } = Array.isArray(paths) ? await openInputs(paths) : paths;
  for (const s of skipped) opts.log?.warn({ file: s.label }, `skipped: ${s.reason}`);
  return runPipeline(db, inputs, { source: 'import', skipRefused: true, ...opts }, skipped);
}

/** `db` is the pool (batch writers take their own connections); `conn` holds the import lock. */
async function pipeline(db: Db, conn: Db, inputs: PipelineInput[], opts: PipelineOptions, skipped: { label: string; reason: string }[]): Promise<PipelineSummary> {
  const progress = opts.progress ?? silentProgress;
  const batchSize = opts.batchSize ?? 1000;
  const epssBatchSize = opts.epssBatchSize ?? 5000;
  const stale = await failStaleRuns(conn);
  if (stale) opts.log?.warn({ runs: stale }, 'runs left running by an interrupted process were marked failed');
  // A bulk load left unfinished by a killed run is completed first (indexes and counts restored).
  if (await bulkLoadPending(conn)) {
    opts.log?.warn({}, 'finishing the bulk load of an interrupted import');
    await endBulkLoad(db);
  }
  const bulk = opts.bulkLoad !== false && (await withTx(conn, (tx) => beginBulkLoad(tx)));
  const ingestRun = await startRun(conn, 'ingest', opts.source ?? null);
  const enrichRun = await startRun(conn, 'enricher', opts.source ?? null);
  const summary: PipelineSummary = {
    inputs: [], skipped, items: 0, changed_sources: 0, documents_written: 0, documents_removed: 0, corpus: 0, vendors: 0, full_reenrichment: false,
    msrc: emptyMsrcSummary(),
  };
  // MSRC: document addresses from an `/updates` index among the inputs, and the stored revisions (read once).
  const msrcUrls = new Map<string, string>();
  let msrcStates: Map<string, { sha256: string }> | null = null;
  const storeWindows = async (doc: PreparedMsrcDocument) => {
    msrcStates ??= await msrcDocumentStates(db);
    await storeAndCount(db, doc, msrcUrls.get(doc.id) || null, msrcStates, summary.msrc);
  };
  const enricher = new Enricher(opts);
  if (!bulk && opts.recordChanges !== false) enricher.history = { runId: enrichRun };
  let batchNo = 0;
  // Writers: CVE ids are routed to a fixed writer by a hash of the id, so all the records of one CVE are written in
  // order by one writer, and two writers never touch the same CVE, source or EPSS row. Each writer has one batch
  // in flight on its own pooled connection while the next one is read: parsing, enrichment and the database
  // overlap, and PostgreSQL works on two batches at once. Memory stays bounded (two batches per writer).
  const writerCount = Math.max(1, Math.min(8, opts.writers ?? 2));
  const writers: Writer[] = Array.from({ length: writerCount }, () => ({ cve: [], epss: [], inflight: null }));
  const inflight = new Set<Promise<void>>();
  try {
    await enricher.reload(conn);
    let catalogsChanged = false;

    const writeBatch = async (recs: SourceText[], scores: EpssRecord[]) => {
      const r = await retryOnConflict(() => inImportTx(db, async (tx) => {
        const up = await upsertSourceRecords(tx, recs);
        const changed = new Set(up.ids);
        for (const id of await upsertEpss(tx, scores)) changed.add(id);
        // The records just written stand in for their stored rows; any other record (one refused as an older
        // revision among them) is read as stored.
        const res = await enricher.enrich(tx, [...changed].sort(), up.written);
        // With the triggers off, the batch tells API processes itself (once: enrich() may have done it).
        if (bulk && !res.touched) await touchCorpus(tx);
        return { ...res, changed: changed.size };
      }));
      summary.changed_sources += r.changed;
      summary.documents_written += r.written;
      summary.documents_removed += r.removed;
      const n = ++batchNo;
      await enricher.analyse(db, r.pending);
      await progressRun(conn, ingestRun, summary.items);
      await progressRun(conn, enrichRun, summary.documents_written);
      await opts.afterBatch?.(n);
    };
    /** Starts the writer's batch once its previous one is done (at most one in flight per writer). */
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
      p.then(() => inflight.delete(p), () => undefined);
    };
    /** Sends every writer's partial batch and waits until all are committed. */
    const flush = async () => {
      for (const w of writers) await send(w);
      for (const w of writers) {
        const p = w.inflight;
        w.inflight = null;
        if (p) await p;
      }
    };
    const writerOf = (cveId: string) => writers[writerCount === 1 ? 0 : routeKey(cveId) % writerCount];

    const checkStop = () => opts.signal?.throwIfAborted();
    for (let i = 0; i < inputs.length; i++) {
      checkStop();
      const input = inputs[i];
      // Feed threads of the inputs coming up start now, reading ahead while this one is imported.
      primeAhead(inputs, i);
      progress.file(i + 1, inputs.length, input.label, input.format);
      const cwe: CweRecord[] = [];
      const capec: CapecRecord[] = [];
      const metas: FeedMeta[] = [];
      // The KEV file is the whole catalog: entries it no longer lists are removed after it.
      const kevIds = input.format === 'kev' ? new Set<string>() : null;
      let n = 0;
      const items = await openItems(input, opts.skipRefused === true);
      if ('refused' in items) {
        summary.skipped.push({ label: input.label, reason: items.refused });
        opts.log?.warn({ file: input.label }, `skipped: ${items.refused}`);
        continue;
      }
      for await (const item of items) {
        checkStop();
        if (item.kind === 'msrc-index') {
          for (const e of item.entries) if (e.cvrfUrl) msrcUrls.set(e.id, e.cvrfUrl);
          continue;
        }
        if (item.kind === 'msrc-document') {
          if (opts.windowsDocuments !== false) await storeWindows(item.doc);
          continue;
        }
        n++;
        summary.items++;
        switch (item.kind) {
          case 'cve':
          case 'cve-text': {
            const text = item.kind === 'cve' ? sourceText(item.record) : item.text;
            if (kevIds && text.source === 'kev') kevIds.add(text.cve_id);
            const w = writerOf(text.cve_id);
            w.cve.push(text);
            if (w.cve.length >= batchSize) await send(w);
            break;
          }
          case 'epss': {
            const w = writerOf(item.record.cve_id);
            w.epss.push(item.record);
            if (w.epss.length >= epssBatchSize) await send(w);
            break;
          }
          case 'cwe':
            cwe.push(item.record);
            break;
          case 'capec':
            capec.push(item.record);
            break;
          case 'meta':
            metas.push(item.meta);
            break;
        }
        if ((summary.items & 1023) === 0) progress.items(summary.items);
      }
      progress.items(summary.items);
      summary.inputs.push({ label: input.label, format: input.format, items: n });
      if (kevIds && kevIds.size > 0) {
        await flush();
        const r = await withTx(conn, async (tx) => {
          const gone = await deleteSourcesNotIn(tx, 'kev', [...kevIds]);
          summary.changed_sources += gone.length;
          return enricher.enrich(tx, gone);
        });
        summary.documents_written += r.written;
        summary.documents_removed += r.removed;
        await enricher.analyse(conn, r.pending);
      }
      if (cwe.length || capec.length || metas.length) {
        // Catalogs and feed facts of this file: one transaction. A catalog changes how the next batches are
        // enriched, so the batches read before it are committed first; feed facts alone (an MSRC or CSAF
        // document's revision) are informational and do not stop the writers.
        if (cwe.length || capec.length) await flush();
        await withTx(conn, async (tx) => {
          for (const m of metas) await setFeedState(tx, m);
          let changed = false;
          if (cwe.length) changed = (await replaceCweCatalog(tx, cwe)) || changed;
          if (capec.length) changed = (await replaceCapecCatalog(tx, capec)) || changed;
          if (changed) {
            await enricher.reload(tx);
            // With no stored sources yet there is nothing to redo: the corpus is built with these catalogs.
            if ((await countSourceRows(tx)) === 0) await setState(tx, 'corpus_catalogs', enricher.catalogKey);
            else catalogsChanged = true;
          }
        });
      }
    }
    await flush();

    // CWE/CAPEC changes touch titles and CAPEC of every CVE: re-enrich all when documents were built with
    // other catalogs (this also resumes an interrupted re-enrichment after a crash).
    const corpusKey = await getState(conn, 'corpus_catalogs');
    if (corpusKey !== enricher.catalogKey) {
      if (corpusKey !== null || catalogsChanged) {
        summary.full_reenrichment = true;
        progress.line('catalogs changed: re-enriching the corpus');
        let after = '';
        for (;;) {
          checkStop();
          const ids = await sourceCveIds(conn, after, batchSize);
          if (!ids.length) break;
          after = ids[ids.length - 1];
          const r = await withTx(conn, (tx) => enricher.enrich(tx, ids));
          summary.documents_written += r.written;
          summary.documents_removed += r.removed;
          await enricher.analyse(conn, r.pending);
          await progressRun(conn, enrichRun, summary.documents_written);
        }
      }
      await setState(conn, 'corpus_catalogs', enricher.catalogKey);
    }
    checkStop();
    // The vendor and product catalogs are rebuilt from the whole corpus, each in its own transaction on a pooled
    // connection with the import's settings (both group every CVE's names: with the default 4 MB of work_mem a full
    // corpus's sorts spill to disk). After a bulk load they join the pool that rebuilds the read model's indexes and
    // counts (they read only the documents), so both cores stay busy to the end of the run.
    let vendors = 0;
    const catalogs: BulkTask[] = [
      { weight: 120, run: async (tx) => { await batchSettings(tx); vendors = await refreshVendors(tx); } },
      { weight: 480, run: async (tx) => { await batchSettings(tx); await refreshProducts(tx); } },
    ];
    if (bulk) {
      progress.line('bulk load: building the read-model indexes and counts');
      await endBulkLoad(db, 2, catalogs);
    } else await Promise.all(catalogs.map((t) => withTx(db, t.run)));
    summary.vendors = vendors;
    await inImportTx(db, carryWatchEntries);
    summary.corpus = await countCves(conn);
    await finishRun(conn, ingestRun, 'succeeded', summary.items);
    await finishRun(conn, enrichRun, 'succeeded', summary.documents_written);
    progress.end();
    return summary;
  } catch (err) {
    // Let the batches still in flight settle before recording the failure.
    await Promise.allSettled([...inflight]);
    // Indexes and counts are restored now if possible, else by the next run (always so when stopped: quick).
    if (bulk && !opts.signal?.aborted) await endBulkLoad(db).catch(() => undefined);
    const msg = err instanceof Error ? err.message : String(err);
    await finishRun(conn, ingestRun, 'failed', summary.items, msg).catch(() => undefined);
    await finishRun(conn, enrichRun, 'failed', summary.documents_written, msg).catch(() => undefined);
    progress.end();
    throw err;
  }
}
