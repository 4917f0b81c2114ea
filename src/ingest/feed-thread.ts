// Reading a large feed file on its own thread (docs/ingest.md "Feed thread"): decompression, JSON parsing, the
// format's reader and the serialisation and hash of each source record run there, beside the import's thread,
// which then parses each record's JSON text back (about a third of reading it) and reuses the text and hash for the
// write (record-json.ts). Errors keep their meaning: a FeedFormatError on the thread is a FeedFormatError here.
import { stat } from 'node:fs/promises';
import { startTsWorker } from '../lib/ts-worker.ts';
import { FeedFormatError, type CveSourceRecord, type FeedFormat, type IngestItem } from './types.ts';
import { rememberRecordJson } from './record-json.ts';
import type { FeedThreadData, FromFeedThread } from './feed-thread-types.ts';

/** Formats whose files hold many records (JSON Lines, NVD pages, cvelistV5 archives): read on the feed thread. */
const THREADED: ReadonlySet<FeedFormat> = new Set(['cve5-jsonl', 'cve5-zip', 'nvd-page', 'csaf-jsonl']);
/** Smaller files are read in line: starting a thread (tsx included) costs more than it saves. */
const MIN_BYTES = 4 * 1024 * 1024;

/** Whether `vulnintel import` reads this file on the feed thread. */
export async function readsOnThread(path: string, format: FeedFormat): Promise<boolean> {
  return THREADED.has(format) && (await stat(path)).size >= MIN_BYTES;
}

/** The items of one feed file, read on a worker thread; the thread ends when the iteration does. */
export async function* readFeedOnThread(path: string, format: FeedFormat): AsyncGenerator<IngestItem> {
  const data: FeedThreadData = { path, format };
  const worker = startTsWorker(new URL('./feed-worker.ts', import.meta.url), data);
  const queue: FromFeedThread[] = [];
  let failure: Error | null = null;
  let wake: (() => void) | null = null;
  worker.on('message', (m: FromFeedThread) => {
    queue.push(m);
    wake?.();
  });
  worker.on('error', (err) => {
    failure ??= err;
    wake?.();
  });
  worker.on('exit', (code) => {
    failure ??= new Error(`the feed thread for ${path} ended (exit code ${code}) before the end of the file`);
    wake?.();
  });
  try {
    for (;;) {
      while (!queue.length && !failure) await new Promise<void>((r) => (wake = r));
      wake = null;
      const m = queue.shift();
      if (!m) throw failure!;
      if (m.t === 'end') return;
      if (m.t === 'error') {
        if (m.name === 'FeedFormatError') throw new FeedFormatError(m.message);
        throw Object.assign(new Error(m.message), m.code ? { code: m.code } : {});
      }
      worker.postMessage(1); // one batch taken: the thread may read another ahead
      for (const w of m.items) {
        if (w.kind !== 'cve-json') {
          yield w;
          continue;
        }
        const record = JSON.parse(w.json) as CveSourceRecord;
        rememberRecordJson(record, { json: w.json, hash: w.hash });
        yield { kind: 'cve', record };
      }
    }
  } finally {
    worker.removeAllListeners('exit');
    await worker.terminate();
  }
}
