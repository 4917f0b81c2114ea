// What the alert run matches a window's changed CVEs against (docs/alerts.md): every active organization's watchlist
// entries, the CVEs' current facts, and the environments' stored assets and Windows hosts with the CVEs' ranges
// ("Asset matches").
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import type { WatchEntityType } from '../domain/watchlist.ts';
import type { ExploitMaturity } from '../domain/cve-document.ts';
import type { EnvAsset, EnvHost } from '../domain/asset-alerts.ts';
import type { AssetRecord } from '../domain/assets.ts';
import type { RangeRow } from '../domain/correlate.ts';
import { expandGroup, type StoredGroup } from '../domain/range-groups.ts';
import type { WindowsHost } from '../domain/windows/host-record.ts';

type Conn = Db | Tx;

export interface WatchHit {
  org_id: number;
  cve_id: string;
  entity_type: WatchEntityType;
  entity_key: string;
  entity_name: string | null;
}

/**
 * Every active organization's watch entries that match the given CVEs, by equality on keys the CVE yields (its
 * vendor slugs, its catalog product ids from `cve_product_keys`, its protocols and its own id), through the
 * (entity_type, entity_key) index: the cost follows the hits, not organizations × entries.
 */
export async function watchHits(db: Conn, ids: string[]): Promise<WatchHit[]> {
  const r = await sql<WatchHit>`
    WITH t AS (
      SELECT c.cve_id, c.vendor_slugs, c.protocols FROM cves c WHERE c.cve_id = ANY(${ids}::text[])
    ), keys AS (
      SELECT cve_id, 'vendor' AS kind, unnest(vendor_slugs) AS k FROM t
      UNION ALL SELECT cve_id, 'protocol', unnest(protocols) FROM t
      UNION ALL SELECT cve_id, 'cve', cve_id FROM t
      -- Catalog product ids (domain/watchlist.ts cveProductKeys): an id stands for itself, a key stored alone (the
      -- compact form) for itself under each of the CVE's vendors. (A vendor alone, '<slug>/', names no watchable id.)
      UNION ALL SELECT t.cve_id, 'product', CASE WHEN strpos(x, '/') > 0 THEN x ELSE v || '/' || x END
        FROM t JOIN cve_product_keys pk ON pk.cve_id = t.cve_id CROSS JOIN LATERAL unnest(pk.keys) x
        CROSS JOIN LATERAL (SELECT v FROM unnest(t.vendor_slugs) v WHERE strpos(x, '/') = 0 UNION ALL SELECT NULL WHERE strpos(x, '/') > 0) vs
    )
    SELECT w.org_id, k.cve_id, w.entity_type, w.entity_key,
      CASE w.entity_type
        WHEN 'vendor' THEN (SELECT v.name FROM vendors v WHERE v.slug = w.entity_key)
        WHEN 'product' THEN (SELECT vi_product_phrase(coalesce(v.name, p.vendor_slug), p.name) FROM products p LEFT JOIN vendors v ON v.slug = p.vendor_slug
          WHERE p.vendor_slug = split_part(w.entity_key, '/', 1) AND p.product_key = split_part(w.entity_key, '/', 2))
        ELSE NULL
      END AS entity_name
    FROM (SELECT DISTINCT cve_id, kind, k FROM keys) k
    JOIN watchlist_entries w ON w.entity_type = k.kind AND w.entity_key = k.k
    JOIN organizations o ON o.id = w.org_id AND o.status = 'active'
    ORDER BY w.org_id, k.cve_id`.execute(db);
  return r.rows.map((x) => ({ ...x, org_id: Number(x.org_id) }));
}

/** The current facts and payload fields of the given CVEs. */
export interface AlertCve {
  cve_id: string;
  title: string;
  cvss_score: number | null;
  cvss_vector: string | null;
  patch_status: string;
  kev_flagged: boolean;
  epss_score: number | null;
  epss_percentile: number | null;
  bcs_score: number;
  exploit_maturity: ExploitMaturity;
  patch_available: boolean;
  published_at: string | null;
  executive_summary: string | null;
  mitigation: string | null;
}

export async function alertCves(db: Conn, ids: string[]): Promise<Map<string, AlertCve>> {
  const r = await sql<AlertCve>`SELECT c.cve_id, c.title, (c.doc->'scoring'->'cvss'->>'score')::float8 AS cvss_score,
      c.doc->'scoring'->'cvss'->>'vector' AS cvss_vector, c.patch_status, c.kev_flagged,
      (c.doc->'scoring'->'epss'->>'score')::float8 AS epss_score, (c.doc->'scoring'->'epss'->>'percentile')::float8 AS epss_percentile,
      (c.doc->'scoring'->'bcs'->>'score')::float8 AS bcs_score, c.exploit_maturity, (c.doc->'patch'->>'patch_available')::boolean AS patch_available,
      c.doc->'temporal'->>'published_at' AS published_at, c.doc->'sage'->>'executive_summary' AS executive_summary,
      c.doc->'sage'->>'remediation_guidance' AS mitigation
    FROM cves c WHERE c.cve_id = ANY(${ids}::text[])`.execute(db);
  return new Map(r.rows.map((x) => [x.cve_id, x]));
}

/**
 * Every active organization's stored environment assets: the v1 assets of correlate-cves with environment_id, and
 * the v2 Windows hosts stored with an environment. Read once per run.
 */
export async function environmentAssets(db: Conn): Promise<{ assets: EnvAsset[]; hosts: EnvHost[] }> {
  const [a, h] = await Promise.all([
    sql<{ org_id: string; environment: string } & AssetRecord>`SELECT ac.org_id, e.name AS environment, ac.asset_id,
        ac.asset->>'vendor' AS vendor, ac.asset->>'product' AS product, ac.asset->>'version' AS version, ac.asset->>'cpe' AS cpe
      FROM asset_correlations ac JOIN environments e ON e.id = ac.environment_id JOIN organizations o ON o.id = ac.org_id AND o.status = 'active'`.execute(
      db,
    ),
    sql<{
      org_id: string;
      environment: string;
      asset_id: string;
      host: WindowsHost;
    }>`SELECT w.org_id, e.name AS environment, w.asset_id, w.host
      FROM windows_host_results w JOIN environments e ON e.id = w.environment_id JOIN organizations o ON o.id = w.org_id AND o.status = 'active'`.execute(
      db,
    ),
  ]);
  return {
    assets: a.rows.map((r) => ({
      org_id: Number(r.org_id),
      environment: r.environment,
      asset_id: r.asset_id,
      vendor: r.vendor,
      product: r.product,
      version: r.version,
      cpe: r.cpe,
    })),
    hosts: h.rows.map((r) => ({
      org_id: Number(r.org_id),
      environment: r.environment,
      asset_id: r.asset_id,
      host: r.host,
    })),
  };
}

/** Whether an active organization has a Windows host stored in an environment (the run would evaluate it). */
export async function hasEnvironmentHosts(db: Conn): Promise<boolean> {
  const r = await sql<{
    x: boolean;
  }>`SELECT EXISTS (SELECT 1 FROM windows_host_results w JOIN organizations o ON o.id = w.org_id AND o.status = 'active'
    WHERE w.environment_id IS NOT NULL) AS x`.execute(db);
  return r.rows[0].x;
}

/** The stored ranges of the given CVEs, and those of them in Microsoft's data (msrc_fixes). */
export async function cveProducts(
  db: Conn,
  ids: string[],
): Promise<{ ranges: (RangeRow & { cve_id: string })[]; msrc: string[] }> {
  const [r, m] = await Promise.all([
    sql<
      StoredGroup & { cve_id: string }
    >`SELECT cve_id, ord, source, source_key, vendor_slug, product_key, cpe_vendor, cpe_product, base_key, ranges
      FROM cve_ranges WHERE cve_id = ANY(${ids}::text[])`.execute(db),
    sql<{ cve_id: string }>`SELECT DISTINCT cve_id FROM msrc_fixes WHERE cve_id = ANY(${ids}::text[])`.execute(db),
  ]);
  return { ranges: r.rows.flatMap((g) => expandGroup(g)), msrc: m.rows.map((x) => x.cve_id) };
}
