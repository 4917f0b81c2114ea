// The production FeedSink: each fetched file goes through the import pipeline (src/services/import/pipeline.ts), which
// reads it with the reader for its format, writes the records in batches (one transaction each), enriches
// the CVEs they touch and records its own ingest/enricher runs. It waits for a running `vulnintel import`
// (pipeline lock) instead of failing the sync.
import type { Db } from '../../store/db.ts';
import { readFeed } from '../../ingest/detect.ts';
import { runPipeline } from '../import/pipeline.ts';
import type { PipelineOptions } from '../import/types.ts';
import type { IngestItem } from '../../ingest/types.ts';
import { syncPipelineLabel } from '../../store/sync-state.ts';
import type { FeedItems, FeedSink } from './sync.ts';

export function pipelineSink(
  db: Db,
  opts: Pick<PipelineOptions, 'log' | 'provider' | 'batchSize' | 'epssBatchSize'> = {},
): FeedSink {
  /** Runs the pipeline over the inputs; answers the records read (not feed facts: the pipeline's item count also
   * includes the catalog-version items). */
  async function run(inputs: FeedItems[], info: { source: string }) {
    let records = 0;
    async function* counted(items: AsyncIterable<IngestItem> | Iterable<IngestItem>) {
      for await (const item of items) {
        if (item.kind !== 'meta' && item.kind !== 'msrc-document' && item.kind !== 'msrc-index') records++;
        yield item;
      }
    }
    // The MSRC source stores each document's Windows tables itself, after its CVEs (src/services/sync/sync-msrc.ts).
    await runPipeline(
      db,
      inputs.map((i) => ({ label: i.label, format: i.format, items: () => counted(i.items()) })),
      { ...opts, source: syncPipelineLabel(info.source), wait: true, windowsDocuments: false },
    );
    return { records };
  }
  return {
    importFiles(files, info) {
      return run(
        files.map(({ file, format }) => ({ label: file, format, items: () => readFeed(file, format) })),
        info,
      );
    },
    importItems(input, info) {
      return run([input], info);
    },
  };
}
