// The full-text index's own thread (docs/search.md "Worker thread"): it builds the index from the database and
// answers searches, so a broad search's ranking (milliseconds of CPU on the full corpus) never holds up the
// server's event loop, and the detail and list requests around it keep answering. Messages (one at a time, in
// order): build → built | failed | aborted; abort; drop; search → result.
import { parentPort } from 'node:worker_threads';
import type pg from 'pg';
import type { FullTextIndex, IndexQuery } from '../domain/fulltext/query.ts';
import { loadFullTextIndex } from './fulltext-index.ts';
import { errorMessage } from '../lib/errors.ts';

export type ToWorker =
  | { t: 'build'; seq: number; url: string }
  | { t: 'abort' }
  | { t: 'drop' }
  | { t: 'search'; seq: number; q: IndexQuery };

export type FromWorker =
  | { t: 'built'; seq: number; size: number }
  | { t: 'failed'; seq: number; message: string }
  | { t: 'aborted'; seq: number }
  | { t: 'result'; seq: number; r: { total: number; ids: string[] } | null; error?: string };

const port = parentPort!;
let index: FullTextIndex | null = null;
let building: { aborted: boolean; client?: pg.Client } | null = null;
const send = (m: FromWorker) => port.postMessage(m);

port.on('message', (m: ToWorker) => {
  switch (m.t) {
    case 'build': {
      index = null;
      const signal: { aborted: boolean; client?: pg.Client } = { aborted: false };
      building = signal;
      loadFullTextIndex(m.url, signal).then(
        (idx) => {
          if (building === signal) building = null;
          if (!idx || signal.aborted) return send({ t: 'aborted', seq: m.seq });
          index = idx;
          send({ t: 'built', seq: m.seq, size: idx.size });
        },
        (e: unknown) => {
          if (building === signal) building = null;
          send(signal.aborted ? { t: 'aborted', seq: m.seq } : { t: 'failed', seq: m.seq, message: errorMessage(e) });
        },
      );
      return;
    }
    case 'abort':
      if (building) {
        building.aborted = true;
        void building.client?.end().catch(() => {});
      }
      return;
    case 'drop':
      index = null;
      return;
    case 'search':
      try {
        send({ t: 'result', seq: m.seq, r: index ? index.search(m.q) : null });
      } catch (e) {
        send({ t: 'result', seq: m.seq, r: null, error: errorMessage(e) });
      }
      return;
  }
});
