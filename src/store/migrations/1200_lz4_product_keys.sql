-- Each CVE's catalog product ids (cve_product_keys.keys, migration 1180) are one text[] per CVE, and a CVE naming
-- many vendors and products holds a large one (CVE-2022-4974, the Freemius SDK: 377 vendors × 620 products, 233,740
-- ids, 12 MB as text). They were TOASTed with pglz, the default, which showed as 0.7 % of all CPU samples of the
-- 44,130-record import; lz4 as the documents, source records and correlation
-- results have (migrations 0500, 1080). Servers built without lz4 keep pglz, as there.
DO $$
BEGIN
  ALTER TABLE cve_product_keys ALTER COLUMN keys SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available in this PostgreSQL build: TOAST compression stays pglz';
END $$;
