-- cve_product_keys in a compact form past 1,000 vendor × product pairs (import speed; docs/watchlists.md
-- "Ranking", src/domain/watchlist.ts cveProductKeys, PRODUCT_PAIRS_MAX). Every vendor of a CVE was paired with every
-- product name it names: CVE-2022-4974 (377 vendors, 620 products) held 233,740 ids, most of a first import's
-- product-id index. Past the limit, a name whose key starts with none of the CVE's vendor slugs (the same catalog key
-- under all of them) is stored once, as the key alone, with each vendor once as `<vendor-slug>/`; a name whose key
-- starts with one of them keeps `<vendor-slug>/<catalog key>` per vendor (CVE-2022-4974: 14,157). A watched product
-- `<vendor>/<key>` matches a CVE whose keys hold it, or `<key>` and `<vendor>/`: the same CVEs as before.
CREATE OR REPLACE FUNCTION vi_cve_product_keys(vendor_slugs text[], products jsonb) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$
    WITH k AS (
      SELECT DISTINCT vi_product_key(p) AS key FROM jsonb_array_elements_text(coalesce(products, '[]')) p
    ), named AS (
      SELECT key, EXISTS (SELECT 1 FROM unnest(vendor_slugs) w WHERE length(key) > length(w) + 1 AND left(key, length(w) + 1) = w || '-') AS prefixed
      FROM k WHERE key <> ''
    )
    , form AS (
      SELECT key, prefixed OR cardinality(vendor_slugs) * (SELECT count(*) FROM named) <= 1000 AS paired FROM named
    )
    SELECT coalesce(array_agg(DISTINCT x.id ORDER BY x.id), '{}') FROM (
      SELECT (v || '/' || vi_catalog_product_key(key, v)) COLLATE "C" AS id FROM form, unnest(vendor_slugs) v WHERE paired
      UNION ALL
      SELECT regexp_replace(key, '(?<=.)-firmware$', '') COLLATE "C" FROM form WHERE NOT paired AND cardinality(vendor_slugs) > 0
      UNION ALL
      SELECT (v || '/') COLLATE "C" FROM unnest(vendor_slugs) v WHERE EXISTS (SELECT 1 FROM form WHERE NOT paired)
    ) x $$;

-- Only the CVEs past the limit change.
UPDATE cve_product_keys k SET keys = n.keys
FROM (SELECT c.cve_id, vi_cve_product_keys(c.vendor_slugs, c.doc->'affected'->'products') AS keys
      FROM cves c WHERE cardinality(c.vendor_slugs) * jsonb_array_length(coalesce(c.doc->'affected'->'products', '[]')) > 1000 OFFSET 0) n
WHERE k.cve_id = n.cve_id AND k.keys IS DISTINCT FROM n.keys;
