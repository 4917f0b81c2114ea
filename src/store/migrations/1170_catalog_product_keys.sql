-- Product catalog keys without the vendor in front and without a trailing "firmware" (docs/watchlists.md "Product
-- catalog"). Sources spell one product with and without both ("Linux Kernel" / "kernel" of linux,
-- dap-2622 / dap-2622_firmware of D-Link), and as separate catalog products a watch on one would miss
-- the CVEs naming the other. `catalogProductKey` in src/domain/watchlist.ts is the same function (a test holds them
-- equal). Slugs are [a-z0-9-], so the slug needs no escaping inside the pattern.
CREATE FUNCTION vi_catalog_product_key(name text, vendor_slug text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT regexp_replace(regexp_replace(vi_product_key(name), '^' || vendor_slug || '-(?=.)', ''), '(?<=.)-firmware$', '') $$;

-- A catalog product's name as a watch entry shows it: vendor and product, the product alone when it starts with the
-- vendor's name ("Apache Tomcat", not "Apache Apache Tomcat"); `productPhrase` in src/domain/title.ts says it the same
-- way in titles and summaries.
CREATE FUNCTION vi_product_phrase(vendor text, product text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT trim(CASE WHEN starts_with(lower(product), lower(vendor)) THEN product ELSE vendor || ' ' || product END) $$;

-- Stored watch entries of products move to their key under the new rule; an organization that then watches one
-- product twice keeps its oldest entry. Two statements: the duplicates go first, so no update meets a key still held.
CREATE TEMP TABLE product_moves ON COMMIT DROP AS
  SELECT w.id, row_number() OVER (PARTITION BY w.org_id, k.new_key ORDER BY w.created_at, w.id) AS rn, k.new_key
  FROM watchlist_entries w
  CROSS JOIN LATERAL (SELECT split_part(w.entity_key, '/', 1) || '/' || vi_catalog_product_key(split_part(w.entity_key, '/', 2), split_part(w.entity_key, '/', 1)) AS new_key) k
  WHERE w.entity_type = 'product';
DELETE FROM watchlist_entries w USING product_moves m WHERE w.id = m.id AND m.rn > 1;
UPDATE watchlist_entries w SET entity_key = m.new_key FROM product_moves m WHERE w.id = m.id AND m.rn = 1 AND w.entity_key <> m.new_key;

-- The catalog rebuild (store/watchlists.ts refreshProducts) as one function, so this migration leaves the catalog
-- keyed as the entries are. A CVE naming one vendor pairs every product it names with that vendor; a CVE naming
-- several pairs only its primary vendor (the first slug) with its primary product. The display name is the spelling
-- of the key most CVEs use (ties: the first in byte order); cve_count counts CVEs, not spellings. Each spelling is
-- keyed once (a full corpus names some 350,000 pairs in 30,000 spellings). Returns the catalog's size.
CREATE FUNCTION vi_refresh_products() RETURNS integer LANGUAGE sql AS $$
  WITH pairs AS (
    SELECT c.cve_id, c.vendor_slugs[1] AS vendor_slug, p.name
    FROM cves c, jsonb_array_elements_text(c.doc->'affected'->'products') AS p(name)
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
    SELECT k.vendor_slug, k.product_key, count(DISTINCT p.cve_id)::int AS n
    FROM pairs p JOIN keyed k ON k.vendor_slug = p.vendor_slug AND k.name = p.name
    WHERE k.product_key <> ''
    GROUP BY k.vendor_slug, k.product_key
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

SELECT vi_refresh_products();
