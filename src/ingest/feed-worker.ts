// The feed thread's side (feed-thread.ts): reads its files in order, each with the format's reader
// (ingest/detect.ts READERS), and posts their items in batches. A source record travels as its JSON text and hash
// (made here, once) with its key and revision fields, and the import thread parses it when it enriches its CVE;
// other items travel as they are. At most
// FEED_THREAD_AHEAD batches are unacknowledged, so a fast reader never holds more than that in memory. A file that
// fails ends with its error, and the thread goes on to the next file (the import decides whether to go on).
import { parentPort, workerData } from 'node:worker_threads';
import { readFeed } from './detect.ts';
import { makeRecordJson, textFields } from './record-json.ts';
import { FEED_THREAD_AHEAD, FEED_THREAD_BATCH, type FeedThreadData, type FromFeedThread, type WireItem } from './feed-thread-types.ts';

const port = parentPort!;
const { files } = workerData as FeedThreadData;
let credit = FEED_THREAD_AHEAD;
let resume: (() => void) | null = null;
port.on('message', () => {
  credit++;
  resume?.();
});
const send = (m: FromFeedThread) => port.postMessage(m);

async function flush(file: number, items: WireItem[]): Promise<void> {
  while (credit <= 0) await new Promise<void>((r) => (resume = r));
  resume = null;
  credit--;
  send({ t: 'items', file, items });
}

for (let file = 0; file < files.length; file++) {
  const { path, format } = files[file];
  let batch: WireItem[] = [];
  try {
    for await (const item of readFeed(path, format)) {
      batch.push(item.kind === 'cve' ? { kind: 'cve-text', text: { ...textFields(item.record), ...makeRecordJson(item.record) } } : item);
      if (batch.length >= FEED_THREAD_BATCH) {
        await flush(file, batch);
        batch = [];
      }
    }
    if (batch.length) await flush(file, batch);
    send({ t: 'end', file });
  } catch (err) {
    // The items read before the error are delivered first, as the in-line reader yields them before it throws.
    if (batch.length) await flush(file, batch);
    const e = err as Error & { code?: string };
    send({ t: 'error', file, name: e.name ?? 'Error', message: e.message ?? String(err), code: e.code ?? null });
  }
}
port.unref();
