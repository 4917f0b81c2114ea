// Migrations: concurrent starts apply each version once under the advisory lock; a failing
// migration stops with the file name and the SQL error and leaves nothing half-applied.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ADMIN_URL, testDbName } from '../helpers/db.ts';
import { listMigrations, migrate, MigrationError } from '../../src/store/migrate.ts';

const name = testDbName();
let url: string;
const admin = () => new pg.Client({ connectionString: ADMIN_URL });

before(async () => {
  const c = admin();
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  url = u.toString();
});
after(async () => {
  const c = admin();
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await c.end();
});

test('two concurrent migrators: every version applied exactly once, no error', async () => {
  const pools = [new pg.Pool({ connectionString: url, max: 2 }), new pg.Pool({ connectionString: url, max: 2 })];
  try {
    const [a, b] = await Promise.all(pools.map((p) => migrate(p)));
    const all = listMigrations().map((m) => `${m.version}_${m.name}`);
    assert.deepEqual([...a, ...b].sort(), all.sort(), 'each migration applied by exactly one of the two');
    const rows = await pools[0].query('SELECT version FROM schema_migrations ORDER BY version');
    assert.deepEqual(
      rows.rows.map((r) => r.version),
      listMigrations().map((m) => m.version),
    );
    assert.deepEqual(await migrate(pools[0]), [], 'a third run has nothing to do');
  } finally {
    await Promise.all(pools.map((p) => p.end()));
  }
});

test('a failing migration stops with its file name and the SQL error, rolled back', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vi-mig-'));
  writeFileSync(path.join(dir, '0001_ok.sql'), 'CREATE TABLE mig_ok (id int);');
  writeFileSync(path.join(dir, '0002_bad.sql'), 'CREATE TABLE mig_half (id int);\nSELECT * FROM no_such_table;');
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await pool.query('DROP TABLE IF EXISTS schema_migrations');
    await assert.rejects(
      migrate(pool, { dir }),
      (e: unknown) =>
        e instanceof MigrationError &&
        /^Migration 0002_bad\.sql failed: relation "no_such_table" does not exist \(at character \d+\)$/.test(
          e.message,
        ),
    );
    const tables = await pool.query(`SELECT tablename FROM pg_tables WHERE tablename LIKE 'mig_%' ORDER BY 1`);
    assert.deepEqual(
      tables.rows.map((r) => r.tablename),
      ['mig_ok'],
      'the failed file left nothing behind',
    );
    const versions = await pool.query('SELECT version FROM schema_migrations');
    assert.deepEqual(
      versions.rows.map((r) => r.version),
      ['0001'],
    );
  } finally {
    await pool.end();
  }
});
