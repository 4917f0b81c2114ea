// The feed thread's side (feed-thread.ts): reads its files in order, each with the format's reader
// (ingest/detect.ts READERS), and posts their items in batches. A source record travels as its JSON text and hash
// (made here, once) with its key and revision fields, and the import thread parses it when it enriches its CVE;
// other items travel as they are. Messages the import has not taken yet weigh at most `aheadBytes` (and
// one is always allowed), so a fast reader never holds more than that in memory. A file that fails ends with its
// error, and the thread goes on to the next file (the import decides whether to go on).
import { parentPort, workerData } from 'node:worker_threads';
import { errorCode, errorField } from '../lib/errors.ts';
import { readFeed } from './detect.ts';
import { textOf } from './record-json.ts';
import {
  FEED_THREAD_BATCH,
  FeedThreadDataSchema,
  wireBytes,
  type FeedThreadData,
  type FromFeedThread,
  type WireItem,
} from './feed-thread-types.ts';

const port = parentPort!;
if (!FeedThreadDataSchema.Check(workerData)) throw new TypeError('feed thread: workerData is not FeedThreadData');
const { files, aheadBytes }: FeedThreadData = workerData;
/** Bytes of the messages posted and not yet taken by the import (it posts each taken message's bytes back). */
let ahead = 0;
let resume: (() => void) | null = null;
port.on('message', (taken: number) => {
  ahead -= taken;
  resume?.();
});
const send = (m: FromFeedThread) => port.postMessage(m);

async function flush(file: number, items: WireItem[]): Promise<void> {
  const bytes = wireBytes(items);
  while (ahead > 0 && ahead + bytes > aheadBytes) await new Promise<void>((r) => (resume = r));
  resume = null;
  ahead += bytes;
  send({ t: 'items', file, items, bytes });
}

for (let file = 0; file < files.length; file++) {
  const { path, format } = files[file];
  let batch: WireItem[] = [];
  try {
    for await (const item of readFeed(path, format)) {
      batch.push(item.kind === 'cve' ? { kind: 'cve-text', text: textOf(item.record) } : item);
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
    const name = errorField(err, 'name');
    const message = errorField(err, 'message');
    send({
      t: 'error',
      file,
      name: typeof name === 'string' ? name : 'Error',
      message: typeof message === 'string' ? message : String(err),
      code: errorCode(err) ?? null,
    });
  }
}
port.unref();
