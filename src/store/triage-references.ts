// What a triage decision refers to, checked and listed: the organization's members, the environment's stored
// assets (and the products VEX documents name them by), the environment's name, and the CVEs of the corpus.
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';

type Conn = Db | Tx;

/** Which of the ids are members of the organization. */
export async function membersOf(db: Conn, orgId: number, ids: readonly number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const r = await sql<{
    id: number;
  }>`SELECT id::float8 AS id FROM members WHERE org_id = ${orgId} AND id = ANY(${ids}::bigint[])`.execute(db);
  return new Set(r.rows.map((x) => x.id));
}

/** Which of the asset ids are stored in the environment (v1 correlated assets or v2 Windows hosts). */
export async function storedAssetIds(
  db: Conn,
  orgId: number,
  environmentId: number,
  ids: readonly string[],
): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const r = await sql<{
    asset_id: string;
  }>`SELECT asset_id FROM asset_correlations WHERE org_id = ${orgId} AND environment_id = ${environmentId} AND asset_id = ANY(${ids}::text[])
    UNION SELECT asset_id FROM windows_host_results WHERE org_id = ${orgId} AND environment_id = ${environmentId} AND asset_id = ANY(${ids}::text[])`.execute(
    db,
  );
  return new Set(r.rows.map((x) => x.asset_id));
}

/** Which of the CVE ids the corpus holds. */
export async function knownCves(db: Conn, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const r = await sql<{ cve_id: string }>`SELECT cve_id FROM cves WHERE cve_id = ANY(${ids}::text[])`.execute(db);
  return new Set(r.rows.map((x) => x.cve_id));
}

/** The environment's assets with what VEX products are made of (exports). */
export async function environmentProducts(
  db: Conn,
  orgId: number,
  environmentId: number,
): Promise<
  {
    asset_id: string;
    vendor: string | null;
    product: string | null;
    version: string | null;
    cpe: string | null;
    kind: 'asset' | 'windows_host';
  }[]
> {
  const r = await sql<{
    asset_id: string;
    vendor: string | null;
    product: string | null;
    version: string | null;
    cpe: string | null;
    kind: 'asset' | 'windows_host';
  }>`
    SELECT * FROM (SELECT asset_id, asset->>'vendor' AS vendor, asset->>'product' AS product, asset->>'version' AS version, asset->>'cpe' AS cpe, 'asset' AS kind
      FROM asset_correlations WHERE org_id = ${orgId} AND environment_id = ${environmentId}
    UNION ALL
    SELECT asset_id, 'Microsoft', host->>'os_product', host->>'os_build', NULL, 'windows_host'
      FROM windows_host_results WHERE org_id = ${orgId} AND environment_id = ${environmentId}) p
    ORDER BY asset_id COLLATE "C"`.execute(db);
  return r.rows;
}

/** The name of the organization's environment, or null when it has none of this id. */
export async function environmentName(db: Conn, orgId: number, id: number): Promise<string | null> {
  const r = await db
    .selectFrom('environments')
    .select('name')
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
  return r?.name ?? null;
}
