// Messages between the import thread and the feed thread (feed-thread.ts, feed-worker.ts).
import type { FeedFormat, IngestItem } from './types.ts';

/** Items per message, and messages the reader may post ahead of the import. */
export const FEED_THREAD_BATCH = 256;
export const FEED_THREAD_AHEAD = 4;

export interface FeedThreadData { path: string; format: FeedFormat }

/** An item as it travels: a source record as its JSON text and hash, anything else as it is. */
export type WireItem = Exclude<IngestItem, { kind: 'cve' }> | { kind: 'cve-json'; json: string; hash: string };

export type FromFeedThread =
  | { t: 'items'; items: WireItem[] }
  | { t: 'end' }
  | { t: 'error'; name: string; message: string; code: string | null };
