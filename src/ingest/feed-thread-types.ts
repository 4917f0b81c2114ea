// Messages between the import thread and the feed thread (feed-thread.ts, feed-worker.ts).
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { FEED_FORMATS, type FeedFormat, type IngestItem } from './types.ts';

/** Items per message. */
export const FEED_THREAD_BATCH = 256;
/**
 * How far the reader may read ahead of the import: the bytes of the messages the import has not taken yet (a record's
 * text, a Windows document's payload; a kilobyte for any other item), and always at least one message. The thread
 * starts before the database is opened and migrated; stopped four messages (1,024 records, about 4 MB of the CVE
 * record file) ahead, the import would wait on it while it parsed the next ones. 32 MB (some 8,000 records) makes the
 * 44k import 0.5 s sooner than four messages; 16 MB is as fast (A/B wall 1.01, four pairs) with less held: the
 * benchmark corpus's import peaks at 811 MB instead of 942 MB (the limit is 1 GB). 64 MB gains nothing more and peaks
 * at 645 MB in the 44k import. A run of MSRC months (5-15 MB of XML each) stays a few documents ahead.
 */
export const FEED_THREAD_AHEAD_BYTES = 16 << 20;

/** A message's weight against FEED_THREAD_AHEAD_BYTES. */
export function wireBytes(items: readonly WireItem[]): number {
  let n = 0;
  for (const w of items)
    n += w.kind === 'cve-text' ? w.text.json.length : w.kind === 'msrc-document' ? w.doc.payload.byteLength : 1024;
  return n;
}

export interface FeedFile {
  path: string;
  format: FeedFormat;
}

/** The files one thread reads, in this order, and how far it may read ahead (FEED_THREAD_AHEAD_BYTES). */
export interface FeedThreadData {
  files: FeedFile[];
  aheadBytes: number;
}

/** FeedThreadData as the thread checks it: a thread's workerData arrives untyped. */
export const FeedThreadDataSchema = Compile(
  Type.Object({
    files: Type.Array(
      Type.Object({ path: Type.String(), format: Type.Union(FEED_FORMATS.map((f) => Type.Literal(f))) }),
    ),
    aheadBytes: Type.Number(),
  }),
);

/** An item as it travels: a source record as its text (ingest/record-json.ts SourceText), anything else as it is. */
export type WireItem = Exclude<IngestItem, { kind: 'cve' }>;

/**
 * `file` is the index in FeedThreadData.files. Each file's items come in order and end with exactly one `end` or
 * `error` for that file; the thread then goes on to the next file.
 */
export type FromFeedThread =
  | { t: 'items'; file: number; items: WireItem[]; bytes: number }
  | { t: 'end'; file: number }
  | { t: 'error'; file: number; name: string; message: string; code: string | null };
