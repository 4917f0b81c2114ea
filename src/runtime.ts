// Opens the database the configuration asks for: DATABASE_URL, or the embedded PostgreSQL under the data dir.
// Migrations run here, under their advisory lock, before anything else touches the schema.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { openStore, type Store } from './store/db.ts';
import { migrate } from './store/migrate.ts';
import { startEmbedded, type EmbeddedHandle } from './store/embedded.ts';

export interface Runtime {
  store: Store;
  embedded: EmbeddedHandle | null;
  close(): Promise<void>;
}

export async function openRuntime(config: Readonly<Config>, log: Logger, opts: {
  statementTimeoutMs?: number; max?: number;
  /** Join the embedded cluster of a running server on the same data dir (operator CLI) instead of refusing. */
  attachEmbedded?: boolean;
} = {}): Promise<Runtime> {
  let embedded: EmbeddedHandle | null = null;
  let url = config.databaseUrl;
  if (!url) {
    embedded = await startEmbedded(config.dataDir, { info: (m) => log.info(m), error: (m) => log.error(m) }, { attach: opts.attachEmbedded });
    url = embedded.url;
  }
  const statementTimeoutMs = opts.statementTimeoutMs ?? config.statementTimeoutMs;
  const store = openStore(url, {
    statementTimeoutMs,
    // No deadline where statements may run unbounded (operator CLI imports).
    queryDeadlineMs: statementTimeoutMs > 0 ? config.dbDeadlineMs : undefined,
    max: opts.max,
    onPoolError: (err) => log.warn({ err: err.message }, 'idle database connection lost'),
  });
  try {
    const applied = await migrate(store.pool, { log: (m) => log.info(m) });
    if (applied.length) log.info({ applied: applied.length }, 'migrations applied');
  } catch (e) {
    await store.close();
    await embedded?.stop();
    throw e;
  }
  // Idempotent: a stop signal and the command's own end may both close it (src/cli.ts).
  let closing: Promise<void> | null = null;
  return {
    store,
    embedded,
    close() {
      closing ??= (async () => {
        await store.close();
        await embedded?.stop();
      })();
      return closing;
    },
  };
}
