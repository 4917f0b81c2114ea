-- Range groups (import speed; docs/correlation.md §4, src/domain/range-groups.ts): one row of cve_ranges per
-- group of a CVE's ranges that one source record states for one product named one way (source, source key, vendor,
-- product and CPE as the source spells them, so the same lookup keys), instead of one row per range. `ranges` holds
-- the names once and each statement with only the fields it sets, in the order the rows had:
--   {"vendor": …, "product": …, "cpe": …, "ranges": [{"status": "affected", "version": "12.0(24)S"}, …]}
-- The snapshot's 260,727 rows become 122,866 and their JSON a third of its size; a CVE record that lists 4,868 IOS
-- versions is one row. Readers expand a group into the rows it holds (expandGroup), so matching is unchanged.
-- Existing rows are grouped here. The range-set hashes of cve_range_state were taken over the old rows: a CVE's set is
-- rewritten the next time the CVE is enriched (its content is the same, so the change history records nothing).
ALTER TABLE cve_ranges RENAME TO cve_ranges_1240;
ALTER INDEX cve_ranges_pkey RENAME TO cve_ranges_1240_pkey;
DROP INDEX IF EXISTS cve_ranges_product;
DROP INDEX IF EXISTS cve_ranges_cpe;
DROP INDEX IF EXISTS cve_ranges_variant;

CREATE TABLE cve_ranges (
  cve_id       text NOT NULL,
  ord          integer NOT NULL,
  source       text NOT NULL,
  source_key   text NOT NULL,
  vendor_slug  text NOT NULL,
  product_key  text NOT NULL,
  cpe_vendor   text,
  cpe_product  text,
  base_key     text,
  ranges       json NOT NULL,
  PRIMARY KEY (cve_id, ord)
);

INSERT INTO cve_ranges (cve_id, ord, source, source_key, vendor_slug, product_key, cpe_vendor, cpe_product, base_key, ranges)
SELECT cve_id, (row_number() OVER (PARTITION BY cve_id ORDER BY first_ord) - 1)::int, source, source_key, vendor_slug, product_key,
  cpe_vendor, cpe_product, base_key,
  json_build_object('vendor', vendor, 'product', product, 'cpe', cpe, 'ranges', statements)
FROM (
  SELECT cve_id, min(ord) AS first_ord, source, source_key, vendor_slug, product_key, cpe_vendor, cpe_product, base_key,
    range->>'vendor' AS vendor, range->>'product' AS product, range->>'cpe' AS cpe,
    json_agg(json_strip_nulls(json_build_object(
      'status', range->'status', 'version', range->'version', 'start', range->'start', 'end', range->'end',
      'versionType', range->'versionType',
      'changes', CASE WHEN json_typeof(range->'changes') = 'array' AND json_array_length(range->'changes') > 0 THEN range->'changes' END,
      'defaultStatus', range->'defaultStatus', 'fixedIn', range->'fixedIn', 'runningOn', range->'runningOn', 'text', range->'text'
    )) ORDER BY ord) AS statements
  FROM cve_ranges_1240
  GROUP BY cve_id, source, source_key, vendor_slug, product_key, cpe_vendor, cpe_product, base_key,
    range->>'vendor', range->>'product', range->>'cpe'
) g;

DROP TABLE cve_ranges_1240;
CREATE INDEX cve_ranges_product ON cve_ranges (vendor_slug, product_key text_pattern_ops);
CREATE INDEX cve_ranges_cpe ON cve_ranges (cpe_vendor, cpe_product) WHERE cpe_vendor IS NOT NULL;
CREATE INDEX cve_ranges_variant ON cve_ranges (vendor_slug, base_key) WHERE base_key IS NOT NULL;

-- One row per range, as before this migration, for people and scripts reading the table in SQL (the application reads
-- the groups): `range` is the statement with its group's source, vendor, product and CPE, absent fields left out.
CREATE VIEW cve_range_rows AS
SELECT g.cve_id, g.ord AS group_ord, (s.i - 1)::int AS n, g.source, g.source_key, g.vendor_slug, g.product_key, g.cpe_vendor,
  g.cpe_product, g.base_key,
  jsonb_build_object('source', g.source, 'vendor', g.ranges->'vendor', 'product', g.ranges->'product', 'cpe', g.ranges->'cpe') || s.r::jsonb AS range
FROM cve_ranges g, json_array_elements(g.ranges->'ranges') WITH ORDINALITY AS s(r, i);

-- A group of thousands of versions is tens of kB: lz4 where the build has it (as migration 0500 for the others).
DO $$
BEGIN
  ALTER TABLE cve_ranges ALTER COLUMN ranges SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available in this PostgreSQL build: TOAST compression stays pglz';
END $$;

-- The new table's planner statistics (autovacuum may be off, or late): correlation looks it up by its indexes.
ANALYZE cve_ranges;
