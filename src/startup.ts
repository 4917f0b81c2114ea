// Work done once at start, after migrations and before listening (e.g. importing the bundled snapshot into an
// empty corpus). Each area adds its step here.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Store } from './store/db.ts';
import { ensureSnapshot } from './ingest/snapshot.ts';

export interface StartupContext {
  config: Readonly<Config>;
  store: Store;
  log: Logger;
}

export async function startupTasks(ctx: StartupContext): Promise<void> {
  // Steps are appended as the ingest and Windows data land (snapshot import on an empty corpus).
  await ensureSnapshot(ctx.store, ctx.config, ctx.log);
}
