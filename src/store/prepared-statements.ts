// The CVE read model's queries run as named prepared statements, on the pool or on one client holding a transaction.
import { createHash } from 'node:crypto';
import type { RawBuilder } from 'kysely';
import type pg from 'pg';
import type { Db } from './db.ts';

/** Where a read runs: the pool, or one client holding a transaction (a ranked page's snapshot). */
export type Reader = { db: Db; pool: pg.Pool | pg.PoolClient };

/**
 * Runs a query as a named prepared statement: planning the list query costs twice its execution (1.3 ms vs
 * 0.7 ms), and a prepared statement lets PostgreSQL reuse a generic plan. The name is a hash of the SQL text
 * (values are parameters), so the number of statements per connection is bounded by the filter shapes.
 */
export async function runPrepared<R>(store: Reader, q: RawBuilder<R>): Promise<R[]> {
  const c = q.compile(store.db);
  const name = `vi_${createHash('sha1').update(c.sql).digest('hex').slice(0, 24)}`;
  // The rows are typed as the sql<R> template declares them (what Kysely's execute does with the same query).
  const r = await store.pool.query<R & pg.QueryResultRow>({ name, text: c.sql, values: [...c.parameters] });
  return r.rows;
}
