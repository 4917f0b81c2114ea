// Stored v1 asset correlations (asset_correlations: tenant data, every function takes orgId first). The page of
// stored assets the results route reads is store/windows.ts storedAssetPage.
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';

/**
 * Stores a batch of results in one statement: `rowsJson` is a JSON array of {asset_id, asset, result}, each replacing
 * the organization's previous result of that asset_id in the environment (last writer wins).
 */
export async function upsertAssetResults(
  trx: Tx,
  orgId: number,
  environmentId: number | null,
  requestId: string,
  rowsJson: string,
): Promise<void> {
  await sql`INSERT INTO asset_correlations AS c (org_id, environment_id, asset_id, asset, result, request_id)
    SELECT ${orgId}, ${environmentId}, asset_id, asset, result, ${requestId}
    FROM jsonb_to_recordset(${rowsJson}::jsonb) AS x(asset_id text, asset jsonb, result jsonb)
    ON CONFLICT (org_id, environment_id, asset_id) DO UPDATE
      SET asset = EXCLUDED.asset, result = EXCLUDED.result, request_id = EXCLUDED.request_id, stored_at = now()`.execute(
    trx,
  );
}

/** The stored results of one environment, by asset_id. */
export async function storedResults<R>(
  db: Db,
  orgId: number,
  environmentId: number,
): Promise<{ asset_id: string; result: R; request_id: string }[]> {
  const r = await sql<{
    asset_id: string;
    result: R;
    request_id: string;
  }>`SELECT asset_id, result, request_id FROM asset_correlations
    WHERE org_id = ${orgId} AND environment_id = ${environmentId} ORDER BY asset_id`.execute(db);
  return r.rows;
}

/**
 * What an environment's overview reads of the organization's own data, as one text that changes whenever it does:
 * the count and the sum of the row versions (xmin) of its stored assets and of its triage decisions. A row written
 * (inserted, replaced) takes the writing transaction's id, newer than every id already in the sum; a row deleted
 * lowers the count: either way the text differs (services/overview.ts keeps an overview while it stays the same).
 */
export async function environmentStamp(db: Db, orgId: number, environmentId: number): Promise<string> {
  const r = await sql<{ s: string }>`SELECT
    (SELECT count(*) || ':' || coalesce(sum(xmin::text::bigint), 0) FROM asset_correlations WHERE org_id = ${orgId} AND environment_id = ${environmentId}) || '/' ||
    (SELECT count(*) || ':' || coalesce(sum(xmin::text::bigint), 0) FROM triage_decisions WHERE org_id = ${orgId} AND environment_id = ${environmentId}) AS s`.execute(
    db,
  );
  return r.rows[0].s;
}
