// The import pipeline: feed items (from files via the readers, or from a live fetcher) → source tables →
// enrichment → the `cves` read model, in batches; each batch is one transaction, so a crash leaves every
// committed batch consistent and the previous corpus intact. Single-flight under a database lock; runs are
// recorded in ingest_runs (stages ingest and enricher); a run left 'running' by a killed process is marked
// failed at the next start. Memory stays flat: items stream through fixed-size batches.
// Its stages: the batch writers (writers.ts), the enricher (enricher.ts), the catalogs (catalogs.ts); this file
// is the run.
import type { Db } from '../../store/db.ts';
import { withTx } from '../../store/db.ts';
import { beginBulkLoad, bulkLoadPending, endBulkLoad } from '../../store/bulk.ts';
import {
  countCves,
  deleteSourcesNotIn,
  failStaleRuns,
  finishRun,
  startRun,
  withImportLock,
} from '../../store/ingest.ts';
import { msrcDocumentStates } from '../../store/windows.ts';
import { sourceText } from '../../ingest/record-json.ts';
import {
  closeInputs,
  openInputs,
  openItems,
  primeAhead,
  type CollectedInputs,
  type PipelineInput,
} from '../../ingest/inputs.ts';
import type { CapecRecord, CweRecord, FeedMeta } from '../../ingest/types.ts';
import { silentProgress } from '../../ingest/progress.ts';
import type { PreparedMsrcDocument } from '../../ingest/msrc-prepare.ts';
import { boundHeapGrowth } from '../../lib/heap.ts';
import { emptyMsrcSummary, storeAndCount } from './msrc-documents.ts';
import { Enricher } from './enricher.ts';
import { startWriters } from './writers.ts';
import { rebuildCatalogs, reenrichForCatalogs, storeFileCatalogs } from './catalogs.ts';
import { ImportBusyError, ImportNotNeededError, type PipelineOptions, type PipelineSummary } from './types.ts';

export async function runPipeline(
  db: Db,
  inputs: PipelineInput[],
  opts: PipelineOptions = {},
  skipped: { label: string; reason: string }[] = [],
): Promise<PipelineSummary> {
  try {
    const res = await withImportLock(
      db,
      async (conn) => {
        if (opts.stillNeeded && !(await opts.stillNeeded(conn))) throw new ImportNotNeededError();
        // Peak memory stays bounded while records stream through (src/lib/heap.ts).
        const release = boundHeapGrowth();
        try {
          return await pipeline(db, conn, inputs, opts, skipped);
        } finally {
          release();
        }
      },
      opts.wait,
      opts.signal,
    );
    if (!res.ran) throw new ImportBusyError();
    return res.value;
  } finally {
    // Whatever reading holds (a feed thread started early, even when the run was refused) ends with the run.
    await closeInputs(inputs);
  }
}

/** `vulnintel import PATH...`: files or directories (or inputs already collected), formats detected per file. */
export async function importPaths(
  db: Db,
  paths: string[] | CollectedInputs,
  opts: PipelineOptions = {},
): Promise<PipelineSummary> {
  const { inputs, skipped } = Array.isArray(paths) ? await openInputs(paths) : paths;
  for (const s of skipped) opts.log?.warn({ file: s.label }, `skipped: ${s.reason}`);
  return runPipeline(db, inputs, { source: 'import', skipRefused: true, ...opts }, skipped);
}

/** `db` is the pool (batch writers take their own connections); `conn` holds the import lock. */
async function pipeline(
  db: Db,
  conn: Db,
  inputs: PipelineInput[],
  opts: PipelineOptions,
  skipped: { label: string; reason: string }[],
): Promise<PipelineSummary> {
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
    inputs: [],
    skipped,
    items: 0,
    changed_sources: 0,
    documents_written: 0,
    documents_removed: 0,
    corpus: 0,
    vendors: 0,
    full_reenrichment: false,
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
  const writers = startWriters({
    db,
    conn,
    enricher,
    bulk,
    summary,
    runs: { ingest: ingestRun, enrich: enrichRun },
    opts,
  });
  try {
    await enricher.reload(conn);
    let catalogsChanged = false;

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
            const w = writers.writerOf(text.cve_id);
            w.cve.push(text);
            if (w.cve.length >= batchSize) await writers.send(w);
            break;
          }
          case 'epss': {
            const w = writers.writerOf(item.record.cve_id);
            w.epss.push(item.record);
            if (w.epss.length >= epssBatchSize) await writers.send(w);
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
        await writers.flush();
        const r = await withTx(conn, async (tx) => {
          const gone = await deleteSourcesNotIn(tx, 'kev', [...kevIds]);
          summary.changed_sources += gone.length;
          return enricher.enrich(tx, gone);
        });
        summary.documents_written += r.written;
        summary.documents_removed += r.removed;
        await enricher.analyse(conn, r.pending);
      }
      if (await storeFileCatalogs(conn, enricher, writers, { cwe, capec, metas })) catalogsChanged = true;
    }
    await writers.flush();

    await reenrichForCatalogs(conn, enricher, { catalogsChanged, batchSize, summary, progress, enrichRun, checkStop });
    checkStop();
    summary.vendors = await rebuildCatalogs(db, bulk, progress);
    summary.corpus = await countCves(conn);
    await finishRun(conn, ingestRun, 'succeeded', summary.items);
    await finishRun(conn, enrichRun, 'succeeded', summary.documents_written);
    progress.end();
    return summary;
  } catch (err) {
    // Let the batches still in flight settle before recording the failure.
    await Promise.allSettled([...writers.inflight]);
    // Indexes and counts are restored now if possible, else by the next run (always so when stopped: quick).
    if (bulk && !opts.signal?.aborted) await endBulkLoad(db).catch(() => undefined);
    const msg = err instanceof Error ? err.message : String(err);
    await finishRun(conn, ingestRun, 'failed', summary.items, msg).catch(() => undefined);
    await finishRun(conn, enrichRun, 'failed', summary.documents_written, msg).catch(() => undefined);
    progress.end();
    throw err;
  }
}
