-- Import speed (ADR 0045): the source records (cve_sources.record) and the structured ranges
-- (cve_ranges.range) become json instead of jsonb. Both are written by the import as the JSON text Node made and
-- read back whole by Node (enrichment, correlation, alerts); no read path looks inside them with an index or an
-- operator, and the one SQL comparison on a record (the NVD/MSRC revision check of the source upsert) reads two
-- top-level keys. jsonb parsed every text into its binary form on the way in (about a fifth of PostgreSQL's CPU in a
-- first import: perf, docs/benchmarks.md) and printed it back on the way out; json checks that the text is JSON and
-- stores it as it is, so reading it back is a copy. The rewrite of existing rows happens once, here.
ALTER TABLE cve_sources ALTER COLUMN record TYPE json USING record::json;
ALTER TABLE cve_ranges ALTER COLUMN range TYPE json USING range::json;
-- lz4 TOAST compression as migration 0500 set it (a type change may reset it); builds without lz4 keep pglz.
DO $$
BEGIN
  ALTER TABLE cve_sources ALTER COLUMN record SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available in this PostgreSQL build: TOAST compression stays pglz';
END $$;
