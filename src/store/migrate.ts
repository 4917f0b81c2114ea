// Numbered forward-only SQL migrations, applied under an advisory lock so concurrent starts are safe.
// A failing migration throws with the file name and the SQL error; the start stops there.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { errorField, errorMessage } from '../lib/errors.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
const LOCK_KEY = 7_224_001; // arbitrary constant shared by every Vulnintel process

export class MigrationError extends Error {}

export function listMigrations(dir = MIGRATIONS_DIR): { version: string; name: string; file: string }[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: f.slice(0, 4), name: f.slice(5, -4), file: path.join(dir, f) }));
}

export async function migrate(
  pool: pg.Pool,
  opts: { dir?: string; log?: (m: string) => void } = {},
): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version text PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set(
      (await client.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
    );
    for (const m of listMigrations(opts.dir)) {
      if (done.has(m.version)) continue;
      const sqlText = readFileSync(m.file, 'utf8');
      try {
        await client.query('BEGIN');
        await client.query(sqlText);
        await client.query('INSERT INTO schema_migrations(version, name) VALUES ($1, $2)', [m.version, m.name]);
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        const position = errorField(e, 'position');
        throw new MigrationError(
          `Migration ${path.basename(m.file)} failed: ${errorMessage(e)}${typeof position === 'string' && position ? ` (at character ${position})` : ''}`,
        );
      }
      opts.log?.(`applied migration ${m.version}_${m.name}`);
      applied.push(`${m.version}_${m.name}`);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    client.release();
  }
  return applied;
}
