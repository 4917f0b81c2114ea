// Windows patch level storage (migration 0300): MSRC documents and fix rows (global data), environments,
// stored host results and installed software (tenant data: every function takes orgId first).
import type { Selectable } from 'kysely';
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import { textArray } from './pg-arrays.ts';
import type { MsrcFixes } from './db-schema/windows.ts';
import type { CveDocument } from '../domain/cve-document.ts';

// ---- MSRC documents (global) --------------------------------------------------------------------------

export interface StoredMsrcDocument {
  id: string;
  title: string;
  initial_release_date: string | null;
  revision_date: string | null;
  revision_number: string | null;
  cvrf_url: string | null;
  sha256: string;
  vulnerabilities: number;
  payload: Buffer;
  fixes: Omit<Selectable<MsrcFixes>, 'doc_id'>[];
}

/** Replace one document and its fix rows in one transaction. */
export async function replaceMsrcDocument(db: Db, d: StoredMsrcDocument): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('msrc_documents').where('id', '=', d.id).execute();
    await trx
      .insertInto('msrc_documents')
      .values({
        id: d.id,
        title: d.title,
        initial_release_date: d.initial_release_date,
        revision_date: d.revision_date,
        revision_number: d.revision_number,
        cvrf_url: d.cvrf_url,
        sha256: d.sha256,
        vulnerabilities: d.vulnerabilities,
        payload: d.payload,
      })
      .execute();
    // One statement of binary column arrays (store/pg-arrays.ts): a month holds thousands of rows, which as
    // VALUES lists cost more to build, send and plan than to store.
    const col = <K extends keyof Omit<Selectable<MsrcFixes>, 'doc_id'>>(k: K) =>
      textArray(d.fixes.map((f) => (f[k] === null ? null : String(f[k]))));
    if (d.fixes.length) {
      await sql`
        INSERT INTO msrc_fixes (doc_id, cve_id, product_id, kb, fixed_build, subtype, supercedence, severity, exploited, release_month)
        SELECT ${d.id}, cve_id, product_id, kb, fixed_build, subtype, supercedence, severity, exploited::boolean, release_month
        FROM unnest(${col('cve_id')}::text[], ${col('product_id')}::text[], ${col('kb')}::text[], ${col('fixed_build')}::text[],
          ${col('subtype')}::text[], ${col('supercedence')}::text[], ${col('severity')}::text[], ${col('exploited')}::text[],
          ${col('release_month')}::text[])
          AS f(cve_id, product_id, kb, fixed_build, subtype, supercedence, severity, exploited, release_month)`.execute(
        trx,
      );
    }
  });
}

export async function msrcDocumentStates(db: Db): Promise<Map<string, { revision_date: Date | null; sha256: string }>> {
  const rows = await db.selectFrom('msrc_documents').select(['id', 'revision_date', 'sha256']).execute();
  return new Map(rows.map((r) => [r.id, { revision_date: r.revision_date, sha256: r.sha256 }]));
}

/** The number of stored MSRC documents. */
export async function countMsrcDocuments(db: Db): Promise<number> {
  const n = await db
    .selectFrom('msrc_documents')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirst();
  return Number(n?.n ?? 0);
}

/** A cheap fingerprint of the stored documents: changes whenever a document is added or replaced. */
export async function msrcVersion(db: Db): Promise<string> {
  const r = await db
    .selectFrom('msrc_documents')
    .select([sql<number>`count(*)::int`.as('n'), sql<string | null>`max(imported_at)::text`.as('t')])
    .executeTakeFirst();
  return `${r?.n ?? 0}/${r?.t ?? ''}`;
}

export async function loadMsrcPayloads(db: Db): Promise<{ id: string; cvrf_url: string | null; payload: Buffer }[]> {
  return db.selectFrom('msrc_documents').select(['id', 'cvrf_url', 'payload']).orderBy('id').execute();
}

// ---- CVE corpus signals (read only) ---------------------------------------------------------------------

export interface CveSignalRow {
  cve_id: string;
  kev_flagged: boolean;
  epss_score: number | null;
  bcs_score: number;
  cvss_score: number | null;
  poc_available: boolean;
  has_public_exploit: boolean;
  published_at: Date | null;
  /** The stored document's references (written from a CveDocument by upsertCves); null when it has none. */
  references: CveDocument['references'] | null;
}

export async function loadCveSignals(db: Db, cveIds: string[]): Promise<CveSignalRow[]> {
  if (cveIds.length === 0) return [];
  return db
    .selectFrom('cves')
    .select([
      'cve_id',
      'kev_flagged',
      'epss_score',
      'bcs_score',
      'cvss_score',
      'poc_available',
      'has_public_exploit',
      'published_at',
      sql<CveDocument['references'] | null>`doc->'references'`.as('references'),
    ])
    .where('cve_id', '=', sql<string>`ANY(${cveIds}::text[])`)
    .execute();
}

// ---- environments (tenant) -----------------------------------------------------------------------------

export interface EnvironmentRow {
  id: number;
  name: string;
  description: string | null;
  created_at: Date;
  host_count: number;
}

/** Inserts an environment (id drawn by vi_tenant_id(), migration 0600); null when the name is taken in the org. */
export async function createEnvironment(
  db: Db | Tx,
  orgId: number,
  name: string,
  description: string | null,
): Promise<EnvironmentRow | null> {
  const row = await db
    .insertInto('environments')
    .values({ org_id: orgId, name, description })
    .onConflict((oc) => oc.columns(['org_id', 'name']).doNothing())
    .returning(['id', 'name', 'description', 'created_at'])
    .executeTakeFirst();
  return row ? { ...row, host_count: 0 } : null;
}

/** The names of an organization's environments (the look-alike check). */
export async function environmentNames(db: Db | Tx, orgId: number): Promise<string[]> {
  return (await db.selectFrom('environments').select('name').where('org_id', '=', orgId).execute()).map((r) => r.name);
}

export async function listEnvironments(db: Db, orgId: number): Promise<EnvironmentRow[]> {
  return db
    .selectFrom('environments as e')
    .select([
      'e.id',
      'e.name',
      'e.description',
      'e.created_at',
      sql<number>`(SELECT count(*)::int FROM windows_host_results r WHERE r.org_id = e.org_id AND r.environment_id = e.id)`.as(
        'host_count',
      ),
    ])
    .where('e.org_id', '=', orgId)
    .orderBy('e.created_at')
    .orderBy('e.id')
    .execute();
}

export async function environmentExists(db: Db | Tx, orgId: number, id: number): Promise<boolean> {
  const r = await db
    .selectFrom('environments')
    .select('id')
    .where('org_id', '=', orgId)
    .where('id', '=', id)
    .executeTakeFirst();
  return r !== undefined;
}

/**
 * Takes a share lock on the organization's environment for the rest of the transaction (a store into it and its
 * deletion then run one after the other); false when the organization has no such environment (deleted meanwhile).
 */
export async function lockEnvironment(db: Tx, orgId: number, id: number): Promise<boolean> {
  const r = await sql<{
    id: number;
  }>`SELECT id FROM environments WHERE org_id = ${orgId} AND id = ${id} FOR SHARE`.execute(db);
  return r.rows.length > 0;
}

/**
 * Deletes what the organization stores under one asset_id in one environment (null: the hosts stored without an
 * environment): its v1 correlation, its v2 Windows host result and that host's installed software. The counts removed.
 */
export async function deleteStoredAsset(
  db: Tx,
  orgId: number,
  environmentId: number | null,
  assetId: string,
): Promise<{ correlations: number; windows_hosts: number }> {
  const env = environmentId === null ? sql`environment_id IS NULL` : sql`environment_id = ${environmentId}`;
  const c =
    environmentId === null
      ? { numAffectedRows: 0n }
      : await sql`DELETE FROM asset_correlations WHERE org_id = ${orgId} AND ${env} AND asset_id = ${assetId}`.execute(
          db,
        );
  const h =
    await sql`DELETE FROM windows_host_results WHERE org_id = ${orgId} AND ${env} AND asset_id = ${assetId}`.execute(
      db,
    );
  await sql`DELETE FROM windows_installed_software WHERE org_id = ${orgId} AND ${env} AND asset_id = ${assetId}`.execute(
    db,
  );
  return { correlations: Number(c.numAffectedRows ?? 0), windows_hosts: Number(h.numAffectedRows ?? 0) };
}

/**
 * A page of the v1 assets stored in one of the organization's environments (POST /api/v1/assets/correlate-cves with
 * environment_id), by asset_id; `assetId` narrows it to one. Each as it was sent (validated), and when it was stored.
 */
export async function storedAssetPage(
  db: Db,
  orgId: number,
  environmentId: number,
  assetId: string | null,
  limit: number,
  offset: number,
): Promise<{ total: number; rows: { asset_id: string; asset: unknown; stored_at: Date }[] }> {
  const one = assetId === null ? sql`` : sql`AND asset_id = ${assetId}`;
  const [total, rows] = await Promise.all([
    sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM asset_correlations WHERE org_id = ${orgId} AND environment_id = ${environmentId} ${one}`.execute(
      db,
    ),
    sql<{ asset_id: string; asset: unknown; stored_at: Date }>`SELECT asset_id, asset, stored_at FROM asset_correlations
      WHERE org_id = ${orgId} AND environment_id = ${environmentId} ${one} ORDER BY asset_id COLLATE "C" LIMIT ${limit} OFFSET ${offset}`.execute(
      db,
    ),
  ]);
  return { total: total.rows[0].n, rows: rows.rows };
}

export interface RemovedEnvironment extends EnvironmentRow {
  removed_assets: number;
  removed_windows_hosts: number;
}

/**
 * Deletes one of the organization's environments with everything stored in it (v1 correlated assets, v2 Windows
 * hosts and their installed software: the foreign keys cascade). Undefined when the organization has no such
 * environment. Alerts already raised keep their text (they name the environment as it was).
 */
export async function deleteEnvironment(db: Tx, orgId: number, id: number): Promise<RemovedEnvironment | undefined> {
  const r = await sql<Omit<RemovedEnvironment, 'host_count'>>`
    SELECT e.id, e.name, e.description, e.created_at,
      (SELECT count(*)::int FROM asset_correlations a WHERE a.org_id = e.org_id AND a.environment_id = e.id) AS removed_assets,
      (SELECT count(*)::int FROM windows_host_results h WHERE h.org_id = e.org_id AND h.environment_id = e.id) AS removed_windows_hosts
    FROM environments e WHERE e.org_id = ${orgId} AND e.id = ${id} FOR UPDATE`.execute(db);
  const row = r.rows[0];
  if (!row) return undefined;
  await sql`DELETE FROM environments WHERE org_id = ${orgId} AND id = ${id}`.execute(db);
  return { ...row, id: Number(row.id), host_count: 0 };
}

// ---- stored results (tenant) ---------------------------------------------------------------------------

export interface HostResultInput {
  asset_id: string;
  host: unknown;
  warnings: string[];
  result: unknown;
  data_as_of: string | null;
}

export interface SoftwareInput {
  asset_id: string;
  name: string;
  publisher: string | null;
  version: string | null;
}

/**
 * Store the results of one call atomically: each host's latest result replaces its previous one, and the
 * installed software of the listed hosts replaces theirs. Calls naming the same asset_id at the same time
 * serialise: the host rows are upserted in asset_id order, so the row lock taken by the first call
 * makes the other wait for its commit, then replace the row and the software whole (last writer wins, never a
 * duplicate-key error, never a mix of two calls).
 */
export async function storeResults(
  db: Db,
  orgId: number,
  environmentId: number | null,
  evaluatedOn: string,
  requestId: string,
  hosts: HostResultInput[],
  software: SoftwareInput[],
  before?: (trx: Tx, assetIds: string[]) => Promise<void>,
): Promise<void> {
  if (hosts.length === 0) return;
  await db.transaction().execute(async (trx) => {
    // A batch may name an asset twice: the last record wins, as it would across two calls.
    const last = new Map(hosts.map((h) => [h.asset_id, h]));
    const ids = [...last.keys()].sort();
    // The caller's check inside this transaction (the asset cap): a throw stores nothing.
    await before?.(trx, ids);
    const rows = ids
      .map((id) => last.get(id)!)
      .map((h) => ({
        org_id: orgId,
        environment_id: environmentId,
        asset_id: h.asset_id,
        host: JSON.stringify(h.host),
        warnings: h.warnings,
        result: JSON.stringify(h.result),
        evaluated_on: evaluatedOn,
        data_as_of: h.data_as_of,
        request_id: requestId,
      }));
    for (let i = 0; i < rows.length; i += 50) {
      await trx
        .insertInto('windows_host_results')
        .values(rows.slice(i, i + 50))
        .onConflict((oc) =>
          oc
            .expression(sql`org_id, COALESCE(environment_id, 0), asset_id`)
            .doUpdateSet((eb) => ({
              host: eb.ref('excluded.host'),
              warnings: eb.ref('excluded.warnings'),
              result: eb.ref('excluded.result'),
              evaluated_on: eb.ref('excluded.evaluated_on'),
              data_as_of: eb.ref('excluded.data_as_of'),
              request_id: eb.ref('excluded.request_id'),
              stored_at: sql`now()`,
            })),
        )
        .execute();
    }
    // The host rows are locked by this transaction now: the software of these hosts is replaced by one call at a time.
    const envMatch =
      environmentId === null ? sql<boolean>`environment_id IS NULL` : sql<boolean>`environment_id = ${environmentId}`;
    await trx
      .deleteFrom('windows_installed_software')
      .where('org_id', '=', orgId)
      .where(envMatch)
      .where('asset_id', '=', sql<string>`ANY(${ids}::text[])`)
      .execute();
    for (let i = 0; i < software.length; i += 1000) {
      await trx
        .insertInto('windows_installed_software')
        .values(software.slice(i, i + 1000).map((s) => ({ org_id: orgId, environment_id: environmentId, ...s })))
        .execute();
    }
  });
}

export interface StoredResultRow {
  environment_id: number | null;
  asset_id: string;
  host: unknown;
  warnings: string[];
  result: unknown;
  evaluated_on: string;
  data_as_of: Date | null;
}

export async function listResults(
  db: Db,
  orgId: number,
  f: { environmentId?: number; assetId?: string },
  limit: number,
  offset: number,
): Promise<{ total: number; rows: StoredResultRow[] }> {
  let q = db.selectFrom('windows_host_results').where('org_id', '=', orgId);
  if (f.environmentId !== undefined) q = q.where('environment_id', '=', f.environmentId);
  if (f.assetId !== undefined) q = q.where('asset_id', '=', f.assetId);
  const total = await q.select(sql<number>`count(*)::int`.as('n')).executeTakeFirst();
  const rows = await q
    .select([
      'environment_id',
      'asset_id',
      'host',
      'warnings',
      'result',
      sql<string>`evaluated_on::text`.as('evaluated_on'),
      'data_as_of',
    ])
    .orderBy('asset_id')
    .orderBy('environment_id')
    .limit(limit)
    .offset(offset)
    .execute();
  return { total: total?.n ?? 0, rows };
}
