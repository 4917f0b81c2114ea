// Upkeep of the read model where the database does none (docs/operations.md "Read-model upkeep"): a PostgreSQL with
// autovacuum off never sets the visibility map of the tables a bulk import fills, nor takes statistics of the ones
// it does not ANALYZE, so the planned index-only walks of the CVE lists (docs/cve-api-performance.md) read the heap
// instead: on the 367k corpus, deep list pages took 0.4–1.2 s cold against 20–120 ms after a VACUUM (ANALYZE).
import { sql } from './kysely.ts';
import type { Db } from './db.ts';

/** The tables the CVE lists, ranked lists and asset correlation read, largest first. */
export const READ_MODEL_TABLES: readonly string[] = [
  'cves',
  'cve_ranges',
  'cve_sources',
  'cve_product_keys',
  'cve_list_keys',
];

/** Share of a table's pages that must be all-visible for it to need no VACUUM here. */
const VISIBLE_SHARE = 0.9;

/**
 * The read-model tables that need a VACUUM (ANALYZE): none when autovacuum is on (it does this itself: inserts
 * start it since PostgreSQL 13); else those never analyzed (reltuples −1) or with fewer than 90 % of their pages
 * all-visible. `autovacuum` overrides the server's setting (tests).
 */
export async function readModelNeedingVacuum(db: Db, autovacuum?: boolean): Promise<string[]> {
  const on =
    autovacuum ??
    (await sql<{ on: string }>`SELECT current_setting('autovacuum') AS on`.execute(db)).rows[0].on === 'on';
  if (on) return [];
  const r = await sql<{ relname: string }>`
    SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname = ANY(${[...READ_MODEL_TABLES]}::text[])
      AND (c.reltuples < 0 OR (c.relpages > 0 AND c.relallvisible < c.relpages * ${VISIBLE_SHARE}::float8))`.execute(
    db,
  );
  const need = new Set(r.rows.map((x) => x.relname));
  return READ_MODEL_TABLES.filter((t) => need.has(t));
}

/** VACUUM (ANALYZE) of each table, one statement each (VACUUM runs outside a transaction); returns them. */
export async function vacuumTables(db: Db, tables: readonly string[]): Promise<string[]> {
  for (const t of tables) await sql`VACUUM (ANALYZE) ${sql.id(t)}`.execute(db);
  return [...tables];
}
