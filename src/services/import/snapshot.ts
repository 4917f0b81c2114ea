// The bundled snapshot (snapshot/ in the repository): imported once, with progress, when the corpus is empty.
import { existsSync } from 'node:fs';
import type { Config } from '../../config.ts';
import type { Db, Store } from '../../store/db.ts';
import { importPaths } from './pipeline.ts';
import { ImportNotNeededError, type PipelineLog, type PipelineSummary } from './types.ts';
import { countCves, lastRunStatus } from '../../store/ingest.ts';
import { createProgress } from '../../ingest/progress.ts';
import type { ProgressSink } from '../../ingest/progress.ts';

export type SnapshotLog = PipelineLog;

/**
 * On an empty corpus, imports config.snapshotDir (unless VULNINTEL_AUTO_IMPORT=false); a snapshot import that
 * did not finish (stopped by SIGTERM, killed) is completed at the next start. Returns the summary, or null when
 * nothing was done. Waits for a concurrent import (another instance starting) to finish. `signal` stops the
 * import between batches (the run is recorded as failed, and the next start completes it).
 */
export async function ensureSnapshot(
  store: Store,
  config: Readonly<Pick<Config, 'snapshotDir' | 'autoImportSnapshot'>>,
  log: SnapshotLog,
  progress?: ProgressSink,
  signal?: AbortSignal,
): Promise<PipelineSummary | null> {
  if (!config.autoImportSnapshot) return null;
  // Needed when the corpus is empty or the last snapshot import did not finish. Asked again once the import lock is
  // held: another instance starting on the same database may have imported it while this one waited.
  const unfinishedRun = async (db: Db) => {
    const last = await lastRunStatus(db, 'snapshot');
    return last !== null && last !== 'succeeded';
  };
  const needed = async (db: Db) => (await unfinishedRun(db)) || (await countCves(db)) === 0;
  const unfinished = await unfinishedRun(store.db);
  if (!unfinished && (await countCves(store.db)) > 0) return null;
  if (!existsSync(config.snapshotDir)) {
    log.warn(
      { dir: config.snapshotDir },
      'corpus is empty and the snapshot folder does not exist: serving an empty corpus',
    );
    return null;
  }
  log.info(
    { dir: config.snapshotDir },
    unfinished
      ? 'completing the interrupted import of the bundled snapshot'
      : 'corpus is empty: importing the bundled snapshot',
  );
  let summary: PipelineSummary;
  try {
    summary = await importPaths(store.db, [config.snapshotDir], {
      source: 'snapshot',
      log,
      wait: true,
      stillNeeded: needed,
      progress: progress ?? createProgress(process.stderr),
      signal,
    });
  } catch (e) {
    if (!(e instanceof ImportNotNeededError)) throw e;
    log.info({ dir: config.snapshotDir }, 'the bundled snapshot was imported by another instance meanwhile');
    return null;
  }
  log.info({ corpus: summary.corpus, vendors: summary.vendors, items: summary.items }, 'snapshot imported');
  return summary;
}
