// Messages between the import thread and the feed thread (feed-thread.ts, feed-worker.ts).
import type { FeedFormat, IngestItem } from './types.ts';

/** Items per message, and messages the reader may post ahead of the import. */
export const FEED_THREAD_BATCH = 256;
export const FEED_THREAD_AHEAD = 4;

export interface FeedFile { path: string; format: FeedFormat }

/** The files one thread reads, in this order. */
export interface FeedThreadData { files: FeedFile[] }

/** An item as it travels: a source record as its text (ingest/record-json.ts SourceText), anything else as it is. */
export type WireItem = Exclude<IngestItem, { kind: 'cve' }>;

/**
 * `file` is the index in FeedThreadData.files. Each file's items come in order and end with exactly one `end` or
 * `error` for that file; the thread then goes on to the next file.
 */
export type FromFeedThread =
  | { t: 'items'; file: number; items: WireItem[] }
  | { t: 'end'; file: number }
  | { t: 'error'; file: number; name: string; message: string; code: string | null };
