// The only entry point to PostgreSQL. Kysely over a pg Pool; one SQL dialect everywhere.
import pg from 'pg';
import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import type { Database } from './schema.ts';

// int8 (counts, ids) as JS numbers: our ids and counts stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
// numeric as number (sizes, averages).
pg.types.setTypeParser(1700, (v) => Number(v));

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;

export interface StoreOptions {
  /** statement_timeout in ms (0 = none, for ingest). */
  statementTimeoutMs?: number;
  max?: number;
  applicationName?: string;
  /** How long to wait for a new connection before failing (the request then answers 503). */
  connectionTimeoutMs?: number;
  onPoolError?: (err: Error) => void;
}

export interface Store {
  db: Db;
  pool: pg.Pool;
  url: string;
  close(): Promise<void>;
}

export function openStore(url: string, opts: StoreOptions = {}): Store {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 20,
    application_name: opts.applicationName ?? 'vulnintel',
    statement_timeout: opts.statementTimeoutMs && opts.statementTimeoutMs > 0 ? opts.statementTimeoutMs : undefined,
    connectionTimeoutMillis: opts.connectionTimeoutMs ?? 5000,
    idleTimeoutMillis: 30000,
  });
  // An idle client losing its connection emits 'error' on the pool; without a listener the process dies.
  let closed = false;
  // After close() the pool's sockets are ending on purpose; their errors are not news.
  const onError = (err: Error) => {
    if (!closed) opts.onPoolError?.(err);
  };
  pool.on('error', onError);
  // A checked-out client whose socket dies emits 'error' as well as failing its query; pg-pool only listens
  // while a client is idle, so without this listener a database outage mid-query crashes the process.
  // The failed query still rejects and is mapped (503 / 500) where it was awaited.
  pool.on('connect', (client) => client.on('error', onError));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    pool,
    url,
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}

/** Runs fn in one transaction; commits on success, rolls back on throw. */
export function withTx<T>(db: Db, fn: (trx: Tx) => Promise<T>): Promise<T> {
  return db.transaction().execute(fn);
}

/** SQLSTATE classes that mean "the database is not reachable" (mapped to 503). */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (!e || typeof e !== 'object') return false;
  if (typeof e.code === 'string') {
    if (/^(08|57P0[1-3]|53300)/.test(e.code)) return true;
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH'].includes(e.code)) return true;
  }
  // pg's own client-side failures carry no code.
  return typeof e.message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(e.message);
}

/** SQLSTATE 57014: statement_timeout / query_canceled (mapped to 500 with retry 5). */
export function isStatementTimeout(err: unknown): boolean {
  return (err as { code?: string })?.code === '57014';
}
