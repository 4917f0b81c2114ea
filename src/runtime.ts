// Opens the database the configuration asks for: DATABASE_URL, or the embedded PostgreSQL under the data dir.
// Migrations run here, under their advisory lock, before anything else touches the schema.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { openStore, type Store } from './store/db.ts';
import { isConnectionError } from './lib/db-errors.ts';
import { migrate } from './store/migrate.ts';
import { startEmbedded, type EmbeddedHandle } from './store/embedded.ts';
import { checkSealingKey } from './services/sealing-key.ts';
import { asError, errorCode } from './lib/errors.ts';

/**
 * The database of the configuration cannot be used at start (unreachable, unknown host, refused credentials, no
 * such database): the message says which one was tried, as a newcomer needs it, without its password, not a bare
 * "Error: connect ECONNREFUSED 127.0.0.1:5432" for a DATABASE_URL pointing at a stopped server.
 */
export class DatabaseOpenError extends Error {
  constructor(target: string, cause: Error) {
    super(`Cannot open the database at ${target}: ${cause.message || errorCode(cause) || String(cause)}`, { cause });
  }
}

/** A failure of the first query that means the database itself cannot be used (not a failing migration). */
function isUnusableDatabase(e: unknown): boolean {
  const code = errorCode(e);
  // 28xxx: authentication refused; 3D000: no such database; EAI_AGAIN: the host name does not resolve (yet).
  return isConnectionError(e) || (code !== undefined && (/^28/.test(code) || code === '3D000' || code === 'EAI_AGAIN'));
}

/** DATABASE_URL as it may be shown: user, host, port and database; never the password or the query string. */
export function displayDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.username ? `${decodeURIComponent(u.username)}@` : ''}${u.host}${u.pathname}`;
  } catch {
    return '(unparsable URL)';
  }
}

export interface Runtime {
  store: Store;
  embedded: EmbeddedHandle | null;
  /**
   * The pool for import and job work (the first start's snapshot import, the job workers in `vulnintel serve`):
   * without the API's statement timeout and query deadline, as the CLI and `vulnintel worker` run them; the
   * migrations run on it too. On the API pool, a bulk load's index rebuild, a migration rewriting a large
   * corpus, or a wait for another start's migrations longer than VULNINTEL_STATEMENT_TIMEOUT_MS would fail the start ("canceling statement due to statement timeout"). The same pool as `store` when that has no
   * statement timeout; closed by close().
   */
  work(): Store;
  close(): Promise<void>;
}

export async function openRuntime(
  config: Readonly<Config>,
  log: Logger,
  opts: {
    statementTimeoutMs?: number;
    max?: number;
    /** Join the embedded cluster of a running server on the same data dir (operator CLI) instead of refusing. */
    attachEmbedded?: boolean;
  } = {},
): Promise<Runtime> {
  let embedded: EmbeddedHandle | null = null;
  let url = config.databaseUrl;
  if (!url) {
    embedded = await startEmbedded(
      config.dataDir,
      { info: (m) => log.info(m), error: (m) => log.error(m) },
      { attach: opts.attachEmbedded },
    );
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
  // The pool of import and job work, and of the migrations: none of them is bounded by the API's statement timeout
  // (a migration rewriting a large corpus runs for a minute; a start waiting for another's migrations, as long).
  const work =
    statementTimeoutMs > 0
      ? openStore(url, {
          statementTimeoutMs: 0,
          max: opts.max,
          applicationName: 'vulnintel-work',
          onPoolError: (err) => log.warn({ err: err.message }, 'idle database connection lost'),
        })
      : store;
  try {
    const applied = await migrate(work.pool, { log: (m) => log.info(m) });
    if (applied.length) log.info({ applied: applied.length }, 'migrations applied');
    // The server, `vulnintel worker` and every CLI command refuse to start with another sealing key than the one
    // of the stored secrets (docs/webhooks.md "Sealing key").
    await checkSealingKey(work.db, config);
  } catch (e) {
    if (work !== store) await work.close();
    await store.close();
    await embedded?.stop();
    throw isUnusableDatabase(e)
      ? new DatabaseOpenError(
          embedded ? `the embedded PostgreSQL of ${config.dataDir}` : `DATABASE_URL (${displayDatabaseUrl(url)})`,
          asError(e),
        )
      : e;
  }
  // Idempotent: a stop signal and the command's own end may both close it (src/cli.ts).
  let closing: Promise<void> | null = null;
  return {
    store,
    embedded,
    work: () => work,
    close() {
      closing ??= (async () => {
        if (work !== store) await work.close();
        await store.close();
        await embedded?.stop();
      })();
      return closing;
    },
  };
}
