-- Stored v1 correlation results (asset_correlations.result, migration 0700: one JSON answer per asset, often tens
-- of kB) get the lz4 TOAST compression that migration 0500 gave the CVE documents and source records, which were
-- the only large JSON columns then. Servers built without lz4 keep pglz, as in 0500.
DO $$
BEGIN
  ALTER TABLE asset_correlations ALTER COLUMN result SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available in this PostgreSQL build: TOAST compression stays pglz';
END $$;
