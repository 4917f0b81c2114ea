// The purge of deleted organizations: every tenant table's rows, the organization row, the persons left without a
// membership. SQL only (the rules are in services/accounts/lifecycle.ts).
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';

type Q = Db | Tx;

// ---- Purge ----

/** Organizations their owner deleted before `cutoff`, oldest first. */
export async function deletedBefore(db: Q, cutoff: Date, limit: number): Promise<number[]> {
  const r = await sql<{
    id: number;
  }>`SELECT id FROM organizations WHERE deleted_at IS NOT NULL AND deleted_at <= ${cutoff}
    ORDER BY deleted_at, id LIMIT ${limit}`.execute(db);
  return r.rows.map((x) => x.id);
}

/** Every table of the schema with an org_id column (the tenant tables, found, not listed). */
export async function tenantTables(db: Q): Promise<string[]> {
  const r = await sql<{ table_name: string }>`
    SELECT c.table_name FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = current_schema() AND c.column_name = 'org_id' AND t.table_type = 'BASE TABLE'
    ORDER BY c.table_name`.execute(db);
  return r.rows.map((x) => x.table_name);
}

export async function deleteOrgRows(db: Tx, table: string, orgId: number): Promise<number> {
  const r = await sql`DELETE FROM ${sql.table(table)} WHERE org_id = ${orgId}`.execute(db);
  return Number(r.numAffectedRows ?? 0);
}

export async function savepoint(db: Tx, name: string, action: 'set' | 'release' | 'rollback') {
  const id = sql.id(name);
  if (action === 'set') await sql`SAVEPOINT ${id}`.execute(db);
  else if (action === 'release') await sql`RELEASE SAVEPOINT ${id}`.execute(db);
  else await sql`ROLLBACK TO SAVEPOINT ${id}`.execute(db);
}

export async function deleteOrganizationRow(db: Tx, orgId: number) {
  await sql`DELETE FROM organizations WHERE id = ${orgId}`.execute(db);
}

/** Persons left without any membership (their organizations purged) are removed: their email is personal data. */
export async function deleteOrphanPersons(db: Tx, personIds: number[]) {
  if (personIds.length === 0) return;
  await sql`DELETE FROM persons p WHERE p.id = ANY(${personIds}::bigint[])
    AND NOT EXISTS (SELECT 1 FROM members m WHERE m.person_id = p.id)`.execute(db);
}

export async function personsOfOrg(db: Q, orgId: number): Promise<number[]> {
  const r = await sql<{ person_id: number }>`SELECT person_id FROM members WHERE org_id = ${orgId}`.execute(db);
  return r.rows.map((x) => x.person_id);
}
