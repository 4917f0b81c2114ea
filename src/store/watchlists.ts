// Watchlists and the product and protocol catalogs (migration 0920; docs/watchlists.md). Tenant functions take
// orgId first; a foreign entry id is simply not found.
import type { RawBuilder } from 'kysely';
import { sql } from './kysely.ts';
import type { Db, Tx } from './db.ts';
import type { WatchEntityType } from '../domain/watchlist.ts';

type Conn = Db | Tx;

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

// ---- product catalog ----

/**
 * Rebuilds the product catalog from the corpus (after every import, with the vendor catalog): the SQL function
 * vi_refresh_products of migration 1170 (a CVE naming one vendor pairs each of its products with it; a CVE naming
 * several pairs only its primary vendor with its primary product; keys by vi_catalog_product_key). Returns the
 * catalog's size.
 */
export async function refreshProducts(db: Conn): Promise<number> {
  const r = await sql<{ n: number }>`SELECT vi_refresh_products() AS n`.execute(db);
  return r.rows[0].n;
}

export interface ProductRow {
  vendor_slug: string;
  vendor: string;
  product_key: string;
  name: string;
  cve_count: number;
}

/** Catalog products, by vendor name then product name; `vendor` (a slug) narrows, `q` matches the name or key. */
export async function listProducts(
  db: Conn,
  f: { vendor?: string; q?: string },
  limit: number,
  offset: number,
): Promise<{ total: number; rows: ProductRow[] }> {
  const parts: RawBuilder<unknown>[] = [];
  if (f.vendor !== undefined) parts.push(sql`p.vendor_slug = ${f.vendor}`);
  if (f.q !== undefined) {
    const pat = `%${likeEscape(f.q)}%`;
    parts.push(sql`(p.name ILIKE ${pat} OR p.product_key ILIKE ${pat})`);
  }
  const where = parts.length ? sql.join(parts, sql` AND `) : sql`TRUE`;
  const [total, rows] = await Promise.all([
    sql<{ n: number }>`SELECT count(*)::int AS n FROM products p WHERE ${where}`.execute(db),
    sql<ProductRow>`SELECT p.vendor_slug, coalesce(v.name, p.vendor_slug) AS vendor, p.product_key, p.name, p.cve_count
      FROM products p LEFT JOIN vendors v ON v.slug = p.vendor_slug WHERE ${where}
      ORDER BY lower(coalesce(v.name, p.vendor_slug)), p.vendor_slug, lower(p.name), p.product_key LIMIT ${limit} OFFSET ${offset}`.execute(
      db,
    ),
  ]);
  return { total: total.rows[0].n, rows: rows.rows };
}

/** Of `names`, those the product catalog holds (compared lower-cased), lower-cased (products_by_name). */
export async function catalogProductNames(db: Conn, names: readonly string[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const lower = [...new Set(names.map((n) => n.toLowerCase()))];
  const r = await sql<{
    n: string;
  }>`SELECT DISTINCT lower(name) AS n FROM products WHERE lower(name) = ANY(${lower}::text[])`.execute(db);
  return new Set(r.rows.map((x) => x.n));
}

/** CVE counts per ICS protocol (exact: the trigger-maintained facet counts). */
export async function protocolCounts(db: Conn): Promise<Map<string, number>> {
  const r = await sql<{
    key: string;
    n: string;
  }>`SELECT key, sum(n)::bigint AS n FROM cve_facet_counts WHERE scope = 'protocol' GROUP BY key`.execute(db);
  return new Map(r.rows.map((x) => [x.key, Number(x.n)]));
}

// ---- catalog lookups for POST /api/v1/watchlist ----

/** The display name of a catalog entity, or null when the catalog does not hold it. */
export async function catalogName(db: Conn, type: WatchEntityType, key: string): Promise<string | null> {
  switch (type) {
    case 'vendor': {
      const r = await sql<{ name: string }>`SELECT name FROM vendors WHERE slug = ${key}`.execute(db);
      return r.rows[0]?.name ?? null;
    }
    case 'product': {
      const [v, p] = key.split('/');
      const r = await sql<{
        name: string;
      }>`SELECT vi_product_phrase(coalesce(vv.name, pp.vendor_slug), pp.name) AS name FROM products pp
        LEFT JOIN vendors vv ON vv.slug = pp.vendor_slug WHERE pp.vendor_slug = ${v} AND pp.product_key = ${p}`.execute(
        db,
      );
      return r.rows[0]?.name ?? null;
    }
    case 'cve': {
      const r = await sql<{ cve_id: string }>`SELECT cve_id FROM cves WHERE cve_id = ${key}`.execute(db);
      return r.rows[0]?.cve_id ?? null;
    }
    case 'protocol':
      return null; // protocols are a fixed list: the caller names them (domain/watchlist.ts)
  }
}

// ---- renamed vendors (catalog rebuild) ----

/** Vendor slugs that watch entries name (vendor entries, and the vendor part of product entries) and the vendor
 * catalog does not hold. */
export async function orphanedWatchVendors(db: Conn): Promise<string[]> {
  const r = await sql<{ slug: string }>`
    SELECT DISTINCT s.slug FROM watchlist_entries w
    CROSS JOIN LATERAL (SELECT CASE w.entity_type WHEN 'vendor' THEN w.entity_key ELSE split_part(w.entity_key, '/', 1) END AS slug) s
    WHERE w.entity_type IN ('vendor', 'product') AND NOT EXISTS (SELECT 1 FROM vendors v WHERE v.slug = s.slug)
    ORDER BY s.slug`.execute(db);
  return r.rows.map((x) => x.slug);
}

/**
 * Moves watch entries from former vendor slugs to their new ones (vendor entries, and product entries' vendor part),
 * for the moves whose new slug the vendor catalog holds. An organization that already watches the new id, or
 * watches two former ids of it, keeps one entry: the one it already had, else its oldest. Returns the entries moved
 * and the duplicates removed.
 */
export async function moveWatchVendors(
  db: Conn,
  moves: { from: string; to: string }[],
): Promise<{ moved: number; merged: number }> {
  if (!moves.length) return { moved: 0, merged: 0 };
  // Each entry's new id, and whether it stays: not when its organization already watches the new id, nor for the
  // second of two former ids of one new id. Two statements (the caller's transaction): the duplicates go first, so
  // no update meets an id still held.
  const plan = (
    await sql<{ id: string; new_key: string; stays: boolean }>`
    WITH m AS (
      SELECT x.* FROM jsonb_to_recordset(${JSON.stringify(moves)}::jsonb) AS x("from" text, "to" text)
      WHERE EXISTS (SELECT 1 FROM vendors v WHERE v.slug = x."to")
    ), cand AS (
      SELECT w.id, w.org_id, w.entity_type, w.created_at,
        CASE w.entity_type WHEN 'vendor' THEN m."to"
          ELSE m."to" || '/' || vi_catalog_product_key(split_part(w.entity_key, '/', 2), m."to") END AS new_key
      FROM watchlist_entries w JOIN m
        ON (w.entity_type = 'vendor' AND w.entity_key = m."from") OR (w.entity_type = 'product' AND split_part(w.entity_key, '/', 1) = m."from")
    )
    SELECT c.id::text, c.new_key,
      row_number() OVER (PARTITION BY c.org_id, c.entity_type, c.new_key ORDER BY c.created_at, c.id) = 1
        AND NOT EXISTS (SELECT 1 FROM watchlist_entries o WHERE o.org_id = c.org_id AND o.entity_type = c.entity_type AND o.entity_key = c.new_key) AS stays
    FROM cand c`.execute(db)
  ).rows;
  const drop = plan.filter((p) => !p.stays).map((p) => p.id);
  const move = plan.filter((p) => p.stays);
  if (drop.length) await sql`DELETE FROM watchlist_entries WHERE id = ANY(${drop}::bigint[])`.execute(db);
  if (move.length) {
    await sql`UPDATE watchlist_entries w SET entity_key = x.k
      FROM unnest(${move.map((p) => p.id)}::bigint[], ${move.map((p) => p.new_key)}::text[]) AS x(id, k) WHERE w.id = x.id`.execute(
      db,
    );
  }
  return { moved: move.length, merged: drop.length };
}

// ---- watchlist entries (tenant) ----

export interface WatchRow {
  id: number;
  entity_type: WatchEntityType;
  entity_key: string;
  /** The catalog's current name (vendor name, "Vendor Product", CVE title); null when the catalog no longer holds it. */
  catalog_name: string | null;
  created_at: string;
}

const ENTRY = sql`w.id, w.entity_type, w.entity_key, to_char(w.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
  CASE w.entity_type
    WHEN 'vendor' THEN (SELECT v.name FROM vendors v WHERE v.slug = w.entity_key)
    WHEN 'product' THEN (SELECT vi_product_phrase(coalesce(v.name, p.vendor_slug), p.name) FROM products p LEFT JOIN vendors v ON v.slug = p.vendor_slug
      WHERE p.vendor_slug = split_part(w.entity_key, '/', 1) AND p.product_key = split_part(w.entity_key, '/', 2))
    WHEN 'cve' THEN (SELECT c.title FROM cves c WHERE c.cve_id = w.entity_key)
  END AS catalog_name`;

const asRow = (x: WatchRow): WatchRow => ({ ...x, id: Number(x.id) });

export async function listWatches(
  db: Conn,
  orgId: number,
  type: WatchEntityType | undefined,
  limit: number,
  offset: number,
): Promise<{ total: number; rows: WatchRow[] }> {
  const where = type ? sql`w.org_id = ${orgId} AND w.entity_type = ${type}` : sql`w.org_id = ${orgId}`;
  const [total, rows] = await Promise.all([
    sql<{ n: number }>`SELECT count(*)::int AS n FROM watchlist_entries w WHERE ${where}`.execute(db),
    sql<WatchRow>`SELECT ${ENTRY} FROM watchlist_entries w WHERE ${where} ORDER BY w.created_at, w.id LIMIT ${limit} OFFSET ${offset}`.execute(
      db,
    ),
  ]);
  return { total: total.rows[0].n, rows: rows.rows.map(asRow) };
}

export async function countWatches(db: Conn, orgId: number): Promise<number> {
  const r = await sql<{ n: number }>`SELECT count(*)::int AS n FROM watchlist_entries WHERE org_id = ${orgId}`.execute(
    db,
  );
  return r.rows[0].n;
}

/** Adds an entry; `existing` is the id of the same entry already there (nothing added). */
/** The id of the organization's entry for an entity, or null. */
export async function findWatchEntry(
  db: Conn,
  orgId: number,
  type: WatchEntityType,
  key: string,
): Promise<number | null> {
  const r = await sql<{
    id: number;
  }>`SELECT id FROM watchlist_entries WHERE org_id = ${orgId} AND entity_type = ${type} AND entity_key = ${key}`.execute(
    db,
  );
  return r.rows.length ? Number(r.rows[0].id) : null;
}

export async function addWatchEntry(
  db: Conn,
  orgId: number,
  type: WatchEntityType,
  key: string,
  memberId: number | null,
): Promise<{ row: WatchRow } | { existing: number }> {
  const ins = await sql<{ id: number }>`INSERT INTO watchlist_entries (org_id, entity_type, entity_key, created_by)
    VALUES (${orgId}, ${type}, ${key}, ${memberId}) ON CONFLICT (org_id, entity_type, entity_key) DO NOTHING RETURNING id`.execute(
    db,
  );
  if (!ins.rows.length) return { existing: (await findWatchEntry(db, orgId, type, key))! };
  const r =
    await sql<WatchRow>`SELECT ${ENTRY} FROM watchlist_entries w WHERE w.org_id = ${orgId} AND w.id = ${ins.rows[0].id}`.execute(
      db,
    );
  return { row: asRow(r.rows[0]) };
}

export async function deleteWatchEntry(db: Conn, orgId: number, id: number): Promise<WatchRow | null> {
  const r =
    await sql<WatchRow>`SELECT ${ENTRY} FROM watchlist_entries w WHERE w.org_id = ${orgId} AND w.id = ${id}`.execute(
      db,
    );
  if (!r.rows.length) return null;
  const d = await sql`DELETE FROM watchlist_entries WHERE org_id = ${orgId} AND id = ${id}`.execute(db);
  return Number(d.numAffectedRows ?? 0) > 0 ? asRow(r.rows[0]) : null;
}

/**
 * Whether a CVE (alias `c`) is of interest to an organization (docs/watchlists.md "Ranking"): it names one of the
 * organization's watched vendors or protocols, it names a watched product (`cve_product_keys`, migrations 1180 and
 * 1280: a product id matches when one of the CVE's product names has its key under its vendor), it is a watched CVE, or it
 * hits one of the organization's stored assets: `affected` in a stored v1 correlation result, or in a fix group (a
 * CVE open on the host) of a stored v2 Windows host. Each set is one uncorrelated subquery, evaluated once per
 * statement.
 *
 * Two forms of one rule, for two plans. `index` (the CVEs of interest of a ranked page): the CVE ids are an array,
 * so every branch is an index condition and PostgreSQL ORs the matches of the GIN and primary-key indexes. `row` (a
 * test per row: the rest of a ranked page, a search, the watchlist feed): the CVE ids are a hashed subquery, so a
 * row costs one hash probe however many CVEs the organization's products and assets hit. Neither is ever null.
 */
export function interestOf(orgId: number, form: 'index' | 'row' = 'row'): RawBuilder<boolean> {
  const keys = (type: string) =>
    sql`ARRAY(SELECT w.entity_key FROM watchlist_entries w WHERE w.org_id = ${orgId} AND w.entity_type = ${type})`;
  // A watched product `<vendor>/<key>` (domain/watchlist.ts cveNamesProduct): the CVEs whose ids hold it (through the
  // GIN index, as before migration 1280), and those in the compact form (past PRODUCT_PAIRS_MAX pairs) holding its key
  // alone and its vendor as `<vendor>/`. Only compact rows hold a key without a slash, so the second lookup finds
  // those alone and tests nothing else.
  const products = sql`SELECT split_part(w.entity_key, '/', 1) || '/' AS vendor, split_part(w.entity_key, '/', 2) AS key
    FROM watchlist_entries w WHERE w.org_id = ${orgId} AND w.entity_type = 'product'`;
  const cves = sql`SELECT w.entity_key FROM watchlist_entries w WHERE w.org_id = ${orgId} AND w.entity_type = 'cve'
      UNION
      SELECT k.cve_id FROM cve_product_keys k WHERE k.keys && ${keys('product')}
      UNION
      SELECT k.cve_id FROM cve_product_keys k WHERE k.keys && ARRAY(SELECT p.key FROM (${products}) p)
        AND EXISTS (SELECT 1 FROM (${products}) p WHERE p.key = ANY(k.keys) AND p.vendor = ANY(k.keys))
      UNION
      SELECT x->>'cve_id' FROM asset_correlations a CROSS JOIN LATERAL jsonb_array_elements(a.result->'cves') AS x
      WHERE a.org_id = ${orgId} AND x->>'status' = 'affected' AND x->>'cve_id' IS NOT NULL
      UNION
      SELECT g.id FROM windows_host_results h
        CROSS JOIN LATERAL jsonb_array_elements(h.result->'fix_groups') AS f
        CROSS JOIN LATERAL jsonb_array_elements_text(f->'cve_ids') AS g(id)
      WHERE h.org_id = ${orgId} AND g.id IS NOT NULL`;
  return sql<boolean>`(c.vendor_slugs && ${keys('vendor')} OR c.protocols && ${keys('protocol')}
    OR ${form === 'index' ? sql`c.cve_id = ANY(ARRAY(${cves}))` : sql`c.cve_id IN (${cves})`})`;
}
