// Work done once at start, after migrations and before listening (e.g. importing the bundled snapshot into an
// empty corpus). Each area adds its step here.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Store } from './store/db.ts';
import { ensureSnapshot } from './services/import/snapshot.ts';
import { ensureMsrcSnapshot } from './services/import/msrc-documents.ts';

export interface StartupContext {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
  /** Aborted by SIGTERM/SIGINT: a running snapshot import stops between batches; the next start completes it. */
  signal?: AbortSignal;
}

export async function startupTasks(ctx: StartupContext): Promise<void> {
  // Steps are appended as the ingest and Windows data land (snapshot import on an empty corpus).
  await ensureSnapshot(ctx.store, ctx.config, ctx.log, undefined, ctx.signal);
  ctx.signal?.throwIfAborted();
  // The Windows engine's MSRC documents (snapshot/msrc), when none are stored yet: v2 answers right after start.
  await ensureMsrcSnapshot(ctx.store.db, ctx.config, ctx.log);
}
