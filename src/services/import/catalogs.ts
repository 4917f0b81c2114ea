// The catalogs of an import run: the CWE and CAPEC catalogs and feed facts a file carries (stored between the
// batches), the re-enrichment of the corpus when the catalogs it was built with changed, and the vendor and
// product catalogs rebuilt from the whole corpus at the end of the run (watch entries follow renamed vendors).
import type { Db, Tx } from '../../store/db.ts';
import { withTx } from '../../store/db.ts';
import { endBulkLoad, type BulkTask } from '../../store/bulk.ts';
import { moveWatchVendors, orphanedWatchVendors, refreshProducts } from '../../store/watchlists.ts';
import {
  batchSettings,
  countSourceRows,
  getState,
  progressRun,
  refreshVendors,
  replaceCapecCatalog,
  replaceCweCatalog,
  setFeedState,
  setState,
  sourceCveIds,
} from '../../store/ingest.ts';
import type { CapecRecord, CweRecord, FeedMeta } from '../../ingest/types.ts';
import type { ProgressSink } from '../../ingest/progress.ts';
import { formerSlugTarget } from '../../domain/vendors.ts';
import type { Enricher } from './enricher.ts';
import { inImportTx, type BatchWriters } from './writers.ts';
import type { PipelineSummary } from './types.ts';

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

/** The catalog records and feed facts read from one file. */
export interface FileCatalogs {
  cwe: CweRecord[];
  capec: CapecRecord[];
  metas: FeedMeta[];
}

/**
 * Stores a file's catalogs and feed facts in one transaction. A catalog changes how the next batches are enriched,
 * so the batches read before it are committed first; feed facts alone (an MSRC or CSAF document's revision) are
 * informational and do not stop the writers. True when a catalog changed while sources are stored: the corpus is
 * then re-enriched at the end of the run.
 */
export async function storeFileCatalogs(
  conn: Db,
  enricher: Enricher,
  writers: BatchWriters,
  file: FileCatalogs,
): Promise<boolean> {
  const { cwe, capec, metas } = file;
  if (!cwe.length && !capec.length && !metas.length) return false;
  if (cwe.length || capec.length) await writers.flush();
  let reenrich = false;
  await withTx(conn, async (tx) => {
    for (const m of metas) await setFeedState(tx, m);
    let changed = false;
    if (cwe.length) changed = (await replaceCweCatalog(tx, cwe)) || changed;
    if (capec.length) changed = (await replaceCapecCatalog(tx, capec)) || changed;
    if (changed) {
      await enricher.reload(tx);
      // With no stored sources yet there is nothing to redo: the corpus is built with these catalogs.
      if ((await countSourceRows(tx)) === 0) await setState(tx, 'corpus_catalogs', enricher.catalogKey);
      else reenrich = true;
    }
  });
  return reenrich;
}

/**
 * CWE/CAPEC changes touch titles and CAPEC of every CVE: re-enriches all when documents were built with other
 * catalogs (this also resumes an interrupted re-enrichment after a crash), then records the catalogs the corpus is
 * built with.
 */
export async function reenrichForCatalogs(
  conn: Db,
  enricher: Enricher,
  run: {
    catalogsChanged: boolean;
    batchSize: number;
    summary: PipelineSummary;
    progress: ProgressSink;
    enrichRun: number;
    checkStop: () => void;
  },
): Promise<void> {
  const { summary, batchSize } = run;
  const corpusKey = await getState(conn, 'corpus_catalogs');
  if (corpusKey === enricher.catalogKey) return;
  if (corpusKey !== null || run.catalogsChanged) {
    summary.full_reenrichment = true;
    run.progress.line('catalogs changed: re-enriching the corpus');
    let after = '';
    for (;;) {
      run.checkStop();
      const ids = await sourceCveIds(conn, after, batchSize);
      if (!ids.length) break;
      after = ids[ids.length - 1];
      const r = await withTx(conn, (tx) => enricher.enrich(tx, ids));
      summary.documents_written += r.written;
      summary.documents_removed += r.removed;
      await enricher.analyse(conn, r.pending);
      await progressRun(conn, run.enrichRun, summary.documents_written);
    }
  }
  await setState(conn, 'corpus_catalogs', enricher.catalogKey);
}

/**
 * The vendor and product catalogs are rebuilt from the whole corpus, each in its own transaction on a pooled
 * connection with the import's settings (both group every CVE's names: with the default 4 MB of work_mem a full
 * corpus's sorts spill to disk). After a bulk load they join the pool that rebuilds the read model's indexes and
 * counts (they read only the documents), so both cores stay busy to the end of the run. Watch entries then follow
 * renamed vendors. Answers the number of vendors.
 */
export async function rebuildCatalogs(db: Db, bulk: boolean, progress: ProgressSink): Promise<number> {
  let vendors = 0;
  const catalogs: BulkTask[] = [
    {
      weight: 120,
      run: async (tx) => {
        await batchSettings(tx);
        vendors = await refreshVendors(tx);
      },
    },
    {
      weight: 480,
      run: async (tx) => {
        await batchSettings(tx);
        await refreshProducts(tx);
      },
    },
  ];
  if (bulk) {
    progress.line('bulk load: building the read-model indexes and counts');
    await endBulkLoad(db, 2, catalogs);
  } else await Promise.all(catalogs.map((t) => withTx(db, t.run)));
  await inImportTx(db, carryWatchEntries);
  return vendors;
}
