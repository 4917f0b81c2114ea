// The only entry point to PostgreSQL. Kysely over a pg Pool; one SQL dialect everywhere.
import pg from 'pg';
import { Duplex } from 'node:stream';
import type { Kysely as KyselyDb, Transaction } from 'kysely';
import { Kysely, PostgresDialect } from './kysely.ts';
import type { DB as Database } from './db-schema.ts';
import { asError, errorField } from '../lib/errors.ts';

// int8 (counts, ids) as JS numbers: our ids and counts stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
// numeric as number (sizes, averages).
pg.types.setTypeParser(1700, (v) => Number(v));

export type Db = KyselyDb<Database>;
export type Tx = Transaction<Database>;

export interface StoreOptions {
  /** statement_timeout in ms (0 = none, for ingest). */
  statementTimeoutMs?: number;
  max?: number;
  applicationName?: string;
  /** How long to wait for a new connection before failing (the request then answers 503). */
  connectionTimeoutMs?: number;
  /**
   * Client-side deadline for every query, ms (pg `query_timeout`; unset = none). Set above statement_timeout, so
   * a live but slow server still answers 57014 first (500, retry 5); a server that accepts the connection and
   * then says nothing fails the query here (503, retry 30) instead of hanging the caller (docs/reliability.md D4).
   */
  queryDeadlineMs?: number;
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
    query_timeout: opts.queryDeadlineMs && opts.queryDeadlineMs > 0 ? opts.queryDeadlineMs : undefined,
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
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: deadlineAware(pool) }) });
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

/**
 * Destroys the socket of a pg client: its `connection` (pg's Connection) holds it as `stream`. pg's types declare
 * the connection on Client only, so a pool client's is read and checked here.
 */
function cutSocket(client: pg.PoolClient): void {
  const connection: unknown = Reflect.get(client, 'connection');
  const stream: unknown =
    typeof connection === 'object' && connection !== null ? Reflect.get(connection, 'stream') : null;
  if (stream instanceof Duplex) stream.destroy();
}

/**
 * The pool as Kysely sees it. A query past its deadline leaves the connection mid-conversation (the server may
 * still answer later), so that connection is cut at once and never handed out again: queued statements on it
 * (a ROLLBACK) fail now instead of waiting out their own deadline. pool.query() callers get the same from pg-pool,
 * which discards a client released with an error.
 */
export function deadlineAware(pool: pg.Pool) {
  return {
    async connect() {
      const client = await pool.connect();
      let broken: Error | undefined;
      return {
        query(...args: unknown[]) {
          const r = (client.query as (...a: unknown[]) => unknown)(...args);
          if (r instanceof Promise) {
            return r.catch((e: unknown) => {
              if (isQueryDeadline(e)) {
                broken = asError(e);
                cutSocket(client);
              }
              throw e;
            });
          }
          return r;
        },
        release() {
          client.release(broken);
        },
      };
    },
    end: () => pool.end(),
  } as unknown as pg.Pool;
}

/** pg's client-side query deadline (query_timeout) fired. */
export function isQueryDeadline(err: unknown): boolean {
  return errorField(err, 'message') === 'Query read timeout';
}

/** Runs fn in one transaction; commits on success, rolls back on throw. */
export function withTx<T>(db: Db, fn: (trx: Tx) => Promise<T>): Promise<T> {
  return db.transaction().execute(fn);
}
