-- The catalog product ids each CVE names, as an indexed table (docs/watchlists.md "Ranking"). A watched
-- product matched a CVE by reading the CVE's document (its product names, keyed per vendor) row by row, so
-- `ranked=true` read every document of a watched product's vendor, and sorted the whole filtered list by the
-- interest test: 5-7 s on the 367k corpus for a product of a large vendor, 1.3 s with an empty watchlist. With the
-- ids in a table, the CVEs of interest are found through indexes and the rest of a ranked list is read in BCS order.
--
-- A table, not a column of `cves`: filling a new column rewrote every row of `cves` and every entry of its nine
-- indexes (216 s on the 367k corpus, with `cves` locked throughout); this migration takes 28.6 s there and leaves
-- `cves` alone but for its BCS index (below).
--
-- `cveProductKeys` in src/domain/watchlist.ts computes the ids of every written document (store/cves.ts writes them
-- with the document, for the rows whose document changed; store/ingest.ts deleteCves removes them with it); this
-- function is its SQL twin (a test holds them equal) and fills the table from the stored corpus below. Each of the
-- CVE's vendors is paired with each product name it names, as the interest test did: `<vendor-slug>/<catalog key>`,
-- distinct, in byte order; names without a key are left out.
CREATE FUNCTION vi_cve_product_keys(vendor_slugs text[], products jsonb) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT coalesce(array_agg(DISTINCT x.id ORDER BY x.id), '{}')
    FROM (SELECT (v || '/' || vi_catalog_product_key(p, v)) COLLATE "C" AS id
          FROM unnest(vendor_slugs) v, jsonb_array_elements_text(coalesce(products, '[]')) p) x
    WHERE x.id NOT LIKE '%/' $$;

-- One row per CVE that names a product, its ids as one array: a CVE's pairs are few (99 % have at most 60), but a
-- CVE of many vendors names each product under each of them (CVE-2022-4974: 378 vendors, 623 products). The GIN
-- index finds the CVEs naming any of a set of ids.
-- Made from the stored corpus with CREATE TABLE AS, which PostgreSQL runs in parallel (an INSERT's SELECT is not:
-- 60 s against 20 s on the 367k corpus); OFFSET 0 computes each CVE's ids once (the filter would repeat the call).
CREATE TABLE cve_product_keys AS
  SELECT cve_id, keys FROM (SELECT c.cve_id, vi_cve_product_keys(c.vendor_slugs, c.doc->'affected'->'products') AS keys FROM cves c OFFSET 0) x
  WHERE cardinality(keys) > 0;
ALTER TABLE cve_product_keys ALTER COLUMN cve_id SET NOT NULL, ALTER COLUMN keys SET NOT NULL,
  ADD PRIMARY KEY (cve_id), ADD CHECK (cardinality(keys) > 0);

CREATE INDEX cve_product_keys_keys ON cve_product_keys USING gin (keys);

-- The BCS index in the ranked order (BCS, then newest first, then CVE id), so the rest of a ranked page is read
-- from it in order. Keyed on BCS and CVE id alone, the index gave every CVE of one BCS score in one group that had
-- to be read whole and sorted by date: 23,000 CVEs for the top score of the 367k corpus. (Absent while a bulk load
-- is unfinished, store/bulk.ts: it is then made here, and the bulk load's own definition is skipped by name.)
DROP INDEX IF EXISTS cves_by_bcs_cover;
CREATE INDEX cves_by_bcs_cover ON cves (bcs_score DESC, published_at DESC NULLS LAST, cve_id DESC)
  INCLUDE (cvss_score, severity, kev_flagged, has_public_exploit, poc_available, patch_status);
