// Each test file gets its own database, cloned from a migrated template (fast), dropped at the end.
// The server comes from TEST_DATABASE_URL (set by test/run.mjs: the local PostgreSQL, or an embedded one).
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { openStore, type Store } from '../../src/store/db.ts';
import { listMigrations, migrate } from '../../src/store/migrate.ts';

export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * The run id (test/run.mjs sets VULNINTEL_TEST_RUN to a random r<10 hex>), part of every test database name: a
 * runner drops only databases named after its own run id or after runs of its own checkout whose runner is gone,
 * never those of a run next to it on a shared server. A file run directly (node --test) uses p<its pid>, which no
 * runner ever drops; the file drops its databases itself at its end.
 */
export const TEST_RUN = process.env.VULNINTEL_TEST_RUN ?? `p${process.pid}`;

/** A fresh name for a test database: vi_t_<run id>_<random>. */
export function testDbName(): string {
  return `vi_t_${TEST_RUN}_${randomBytes(6).toString('hex')}`;
}

function urlFor(db: string): string {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${db}`;
  return u.toString();
}

function templateName(): string {
  const h = createHash('sha256');
  for (const m of listMigrations()) h.update(m.file).update(readFileSync(m.file));
  return `vi_tpl_${h.digest('hex').slice(0, 16)}`;
}

/** A short-lived connection to the admin database (create and drop databases). */
export async function withAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const LOCK = 7_224_100;

export async function ensureTemplate(): Promise<string> {
  const tpl = templateName();
  await withAdmin(async (c) => {
    await c.query('SELECT pg_advisory_lock($1)', [LOCK]);
    try {
      const exists = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [tpl]);
      if (exists.rowCount === 0) {
        const building = `${tpl}_build`;
        await c.query(`DROP DATABASE IF EXISTS ${building}`);
        await c.query(`CREATE DATABASE ${building}`);
        const pool = new pg.Pool({ connectionString: urlFor(building), max: 1 });
        try {
          await migrate(pool);
        } finally {
          await pool.end();
        }
        await c.query(`ALTER DATABASE ${building} RENAME TO ${tpl}`);
      }
    } finally {
      await c.query('SELECT pg_advisory_unlock($1)', [LOCK]);
    }
  });
  return tpl;
}

export interface TestDb {
  name: string;
  url: string;
  store: Store;
  drop(): Promise<void>;
}

/** A fresh, migrated database for one test file. */
export async function freshDb(opts: { statementTimeoutMs?: number } = {}): Promise<TestDb> {
  const tpl = await ensureTemplate();
  const name = testDbName();
  await withAdmin(async (c) => {
    await c.query('SELECT pg_advisory_lock($1)', [LOCK]);
    try {
      await c.query(`CREATE DATABASE ${name} TEMPLATE ${tpl}`);
    } finally {
      await c.query('SELECT pg_advisory_unlock($1)', [LOCK]);
    }
  });
  const url = urlFor(name);
  const store = openStore(url, { statementTimeoutMs: opts.statementTimeoutMs, max: 10 });
  return {
    name,
    url,
    store,
    async drop() {
      await store.close();
      await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
