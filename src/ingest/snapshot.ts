// The bundled snapshot (snapshot/ in the repository): imported once, with progress, when the corpus is empty.
import { existsSync } from 'node:fs';
import type { Config } from '../config.ts';
import type { Store } from '../store/db.ts';
import { importPaths, type PipelineLog, type PipelineSummary } from './pipeline.ts';
import { countCves } from '../store/ingest.ts';
import { createProgress } from './progress.ts';
import type { ProgressSink } from './progress.ts';

export type SnapshotLog = PipelineLog;

/**
 * On an empty corpus, imports config.snapshotDir (unless VULNINTEL_AUTO_IMPORT=false). Returns the summary,
 * or null when nothing was done. Waits for a concurrent import (another instance starting) to finish.
 */
export async function ensureSnapshot(store: Store, config: Readonly<Pick<Config, 'snapshotDir' | 'autoImportSnapshot'>>, log: SnapshotLog, progress?: ProgressSink): Promise<PipelineSummary | null> {
  if (!config.autoImportSnapshot) return null;
  if ((await countCves(store.db)) > 0) return null;
  if (!existsSync(config.snapshotDir)) {
    log.warn({ dir: config.snapshotDir }, 'corpus is empty and the snapshot folder does not exist: serving an empty corpus');
    return null;
  }
  log.info({ dir: config.snapshotDir }, 'corpus is empty: importing the bundled snapshot');
  const summary = await importPaths(store.db, [config.snapshotDir], {
    source: 'snapshot',
    log,
    wait: true,
    progress: progress ?? createProgress(process.stderr),
  });
  log.info({ corpus: summary.corpus, vendors: summary.vendors, items: summary.items }, 'snapshot imported');
  return summary;
}
