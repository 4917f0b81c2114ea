// Reading feed files on their own thread (docs/ingest.md "Feed thread"): decompression, parsing, the format's
// reader and the serialisation and hash of each source record run there, beside the import's thread, which gets
// each record as its text (a `cve-text` item: record-json.ts SourceText), stores that text and parses it back only
// when it enriches the record's CVE. One thread reads a large file alone, or a run of smaller files one after the other (the
// monthly MSRC documents): it reads ahead while the import works on the file before. Errors keep their meaning: a
// FeedFormatError on the thread is a FeedFormatError here, and comes where the in-line reader would throw it.
import type { Worker } from 'node:worker_threads';
import { startTsWorker } from '../lib/ts-worker.ts';
import { FeedFormatError, type FeedFormat, type IngestItem } from './types.ts';
import {
  FEED_THREAD_AHEAD_BYTES,
  type FeedFile,
  type FeedThreadData,
  type FromFeedThread,
} from './feed-thread-types.ts';

/** Formats whose files hold many records (JSON Lines, NVD pages, cvelistV5 archives): read on the feed thread. */
const THREADED: ReadonlySet<FeedFormat> = new Set(['cve5-jsonl', 'cve5-zip', 'nvd-page', 'csaf-jsonl']);
/** Smaller files are read in line: starting a thread (tsx included) costs more than it saves. */
const MIN_BYTES = 4 * 1024 * 1024;

/** Whether `vulnintel import` reads a file of this format and size (as stored) alone on a feed thread. */
export function readsOnThread(format: FeedFormat, bytes: number): boolean {
  return THREADED.has(format) && bytes >= MIN_BYTES;
}

/**
 * Formats whose documents are parsed whole and cost much to read (an MSRC month is 5–15 MB of XML in 100–300 kB
 * of gzip): a run of them in import order is read by one shared thread, from MIN_RUN_BYTES (file sizes as stored).
 */
const GROUPED: ReadonlySet<FeedFormat> = new Set(['msrc-cvrf']);
const MIN_RUN_BYTES = 1024 * 1024;

/** Whether a run of consecutive files of one format is read by one shared thread (FeedThreadReader). */
export function readsRunOnThread(format: FeedFormat, files: number, bytes: number): boolean {
  return GROUPED.has(format) && files >= 2 && bytes >= MIN_RUN_BYTES;
}

/**
 * One feed thread for a list of files, taken in order with `items(i)`. The thread starts at the first `items()`
 * and reads ahead (FEED_THREAD_AHEAD_BYTES); a file taken out of order, or after the thread was stopped,
 * starts a new thread from that file. It keeps the process alive only while an `items()` iteration waits on it,
 * it stops after the last file or when an iteration is left early, and `close()` stops it in any case.
 */
export class FeedThreadReader {
  private worker: Worker | null = null;
  /** Index in `files` of the thread's first file (messages count from it). */
  private base = 0;
  /** The next file whose messages the thread will deliver. */
  private next = 0;
  private queue: FromFeedThread[] = [];
  private failure: Error | null = null;
  private wake: (() => void) | null = null;
  /** Whether a thread was ever started: prime() starts the first one only. */
  private started = false;

  /** `aheadBytes`: how far the thread may read ahead (FEED_THREAD_AHEAD_BYTES; tests set less). */
  constructor(
    private readonly files: FeedFile[],
    private readonly aheadBytes = FEED_THREAD_AHEAD_BYTES,
  ) {}

  /** Bytes of the messages the thread has posted that no items() has taken yet (tests). */
  get aheadNow(): number {
    return this.queue.reduce((n, m) => n + (m.t === 'items' ? m.bytes : 0), 0);
  }

  private start(from: number): Worker {
    const data: FeedThreadData = { files: this.files.slice(from), aheadBytes: this.aheadBytes };
    const worker = startTsWorker(new URL('./feed-worker.ts', import.meta.url), data);
    this.worker = worker;
    this.started = true;
    this.base = from;
    this.next = from;
    this.queue = [];
    this.failure = null;
    worker.unref();
    worker.on('message', (m: FromFeedThread) => {
      if (worker !== this.worker) return;
      this.queue.push(m);
      this.wake?.();
    });
    worker.on('error', (err) => {
      if (worker !== this.worker) return;
      this.failure ??= err;
      this.wake?.();
    });
    worker.on('exit', (code) => {
      if (worker !== this.worker) return;
      this.failure ??= new Error(
        `the feed thread for ${this.files[this.next]?.path ?? 'its files'} ended (exit code ${code}) before the end of the file`,
      );
      this.wake?.();
    });
    return worker;
  }

  /**
   * Starts the thread at the first file now, before the import asks for items: it reads ahead (up to
   * FEED_THREAD_AHEAD_BYTES) while the import opens the database and its run, instead of after (docs/ingest.md
   * "Feed thread").
   * It does not keep the process alive; `close()` stops it if the import never comes to it. Once a thread was
   * started (here or by items()), prime() does nothing: the import calls it again as it comes near the files.
   */
  prime(): void {
    if (!this.started) this.start(0);
  }

  /** Whether a thread is running (started by prime() or items(), not yet stopped). */
  get reading(): boolean {
    return this.worker !== null;
  }

  /** Stops the thread (if any); its unread messages are dropped. */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    this.queue = [];
    if (w) {
      w.removeAllListeners('exit');
      await w.terminate();
    }
  }

  private async take(worker: Worker): Promise<FromFeedThread> {
    while (!this.queue.length && !this.failure) await new Promise<void>((r) => (this.wake = r));
    this.wake = null;
    const m = this.queue.shift();
    if (m) {
      if (m.t === 'items') worker.postMessage(m.bytes); // a batch taken: the thread may read that much more ahead
      return m;
    }
    throw this.failure!;
  }

  /**
   * The items of file `i`, as its in-line reader yields them but for source records, which come as their text
   * (`cve-text`; the in-line reader's `cve` record is recordOf of it), and its error where that reader throws it.
   */
  async *items(i: number): AsyncGenerator<IngestItem> {
    if (!this.worker || i < this.next) {
      await this.close();
      this.start(i);
    }
    const worker = this.worker!;
    const last = i === this.files.length - 1;
    let finished = false;
    worker.ref();
    try {
      for (;;) {
        const m = await this.take(worker);
        const file = this.base + m.file;
        if (file < i) continue; // a file before this one, not read by the import: dropped
        if (m.t === 'end') {
          this.next = i + 1;
          finished = true;
          return;
        }
        if (m.t === 'error') {
          this.next = i + 1;
          finished = true;
          if (m.name === 'FeedFormatError') throw new FeedFormatError(m.message);
          throw Object.assign(new Error(m.message), m.code ? { code: m.code } : {});
        }
        for (const w of m.items) {
          if (w.kind === 'msrc-document') {
            // A Buffer arrives as a plain Uint8Array.
            const p = w.doc.payload;
            yield {
              kind: 'msrc-document',
              doc: { ...w.doc, payload: Buffer.from(p.buffer, p.byteOffset, p.byteLength) },
            };
          } else yield w;
        }
      }
    } finally {
      if (this.worker === worker) {
        worker.unref();
        // Left early (the import stopped), or the last file read: nothing more will be taken.
        if (!finished || last) await this.close();
      }
    }
  }
}
