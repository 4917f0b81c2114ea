-- The names a CVE's document gives its vendors (affected.vendors, in the order of vendor_slugs) and products
-- (affected.products) as columns of cves, written with the document (store/cves.ts docRow). The vendor and product
-- catalogs are rebuilt from the whole corpus after every import and sync (store/ingest.ts refreshVendors,
-- vi_refresh_products): read out of the documents, every CVE's document was decompressed for each of its vendors and
-- again for its products, most of the time of both rebuilds (367k corpus: vendors 4.5 → 0.7 s, products 4.9 → 2.8 s;
-- the 44k bulk load's end: 508 → 119 ms and 819 → 633 ms; ADR 0060). Like the
-- document's other copies, no statistics.
ALTER TABLE cves
  ADD COLUMN vendor_names text[] NOT NULL DEFAULT '{}',
  ADD COLUMN product_names text[] NOT NULL DEFAULT '{}';
ALTER TABLE cves ALTER COLUMN vendor_names SET STATISTICS 0, ALTER COLUMN product_names SET STATISTICS 0;

-- A stored corpus gets its names from its documents (its rows are rewritten once).
UPDATE cves SET
  vendor_names = ARRAY(SELECT jsonb_array_elements_text(coalesce(doc->'affected'->'vendors', '[]'))),
  product_names = ARRAY(SELECT jsonb_array_elements_text(coalesce(doc->'affected'->'products', '[]')))
WHERE doc->'affected' IS NOT NULL;

-- The product catalog's rebuild (migration 1170) from the column. The pairs are joined to their keys by their bytes
-- (COLLATE "C": equality is the same, and no sort compares by the locale), and each product's CVEs are counted once
-- after the pairs are made distinct (hashed) instead of by count(DISTINCT), which sorted every pair.
CREATE OR REPLACE FUNCTION vi_refresh_products() RETURNS integer LANGUAGE sql AS $$
  WITH pairs AS (
    SELECT c.cve_id, c.vendor_slugs[1] AS vendor_slug, p.name
    FROM cves c, unnest(c.product_names) AS p(name)
    WHERE c.vendor_count = 1 AND cardinality(c.vendor_slugs) = 1
    UNION ALL
    SELECT c.cve_id, c.vendor_slugs[1], c.primary_product FROM cves c
    WHERE c.vendor_count > 1 AND c.primary_product IS NOT NULL AND cardinality(c.vendor_slugs) > 0
  ), named AS (
    SELECT vendor_slug, name, count(*)::int AS uses FROM pairs GROUP BY vendor_slug, name
  ), keyed AS (
    SELECT vendor_slug, vi_catalog_product_key(name, vendor_slug) AS product_key, name, uses FROM named
  ), spelled AS (
    SELECT DISTINCT ON (vendor_slug, product_key) vendor_slug, product_key, name
    FROM keyed WHERE product_key <> '' ORDER BY vendor_slug, product_key, uses DESC, name COLLATE "C"
  ), counted AS (
    SELECT vendor_slug, product_key, count(*)::int AS n FROM (
      SELECT DISTINCT k.vendor_slug, k.product_key, p.cve_id
      FROM pairs p JOIN keyed k ON k.vendor_slug COLLATE "C" = p.vendor_slug COLLATE "C" AND k.name COLLATE "C" = p.name COLLATE "C"
      WHERE k.product_key <> '') d
    GROUP BY vendor_slug, product_key
  ), fresh AS (
    SELECT s.vendor_slug, s.product_key, s.name, c.n FROM spelled s JOIN counted c USING (vendor_slug, product_key)
  ), gone AS (
    DELETE FROM products p WHERE NOT EXISTS (SELECT 1 FROM fresh f WHERE f.vendor_slug = p.vendor_slug AND f.product_key = p.product_key)
  )
  INSERT INTO products (vendor_slug, product_key, name, cve_count)
  SELECT vendor_slug, product_key, name, n FROM fresh
  ON CONFLICT (vendor_slug, product_key) DO UPDATE SET name = EXCLUDED.name, cve_count = EXCLUDED.cve_count
    WHERE (products.name, products.cve_count) IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.cve_count);
  SELECT count(*)::int FROM products;
$$;
