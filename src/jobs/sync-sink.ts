// The production FeedSink: each fetched file goes through the import pipeline (src/ingest/pipeline.ts), which
// reads it with the reader for its format, writes the records in batches (one transaction each), enriches
// the CVEs they touch and records its own ingest/enricher runs. It waits for a running `vulnintel import`
// (pipeline lock) instead of failing the sync.
import type { Db } from '../store/db.ts';
import { readFeed } from '../ingest/detect.ts';
import { runPipeline, type PipelineOptions } from '../ingest/pipeline.ts';
import type { FeedFormat } from '../ingest/types.ts';
import type { FeedSink } from './sync.ts';

export function pipelineSink(db: Db, opts: Pick<PipelineOptions, 'log' | 'provider' | 'batchSize'> = {}): FeedSink {
  return {
    async importFiles(files, info) {
      let records = 0;
      // Records, not feed facts: the pipeline's item count also includes the catalog-version items.
      async function* counted(file: string, format: FeedFormat) {
        for await (const item of readFeed(file, format)) {
          if (item.kind !== 'meta' && item.kind !== 'msrc-document' && item.kind !== 'msrc-index') records++;
          yield item;
        }
      }
      const inputs = files.map(({ file, format }) => ({ label: file, format, items: () => counted(file, format) }));
      // The MSRC source stores each document's Windows tables itself, after its CVEs (src/jobs/sync-msrc.ts).
      await runPipeline(db, inputs, { ...opts, source: `sync:${info.source}`, wait: true, windowsDocuments: false });
      return { records };
    },
  };
}
