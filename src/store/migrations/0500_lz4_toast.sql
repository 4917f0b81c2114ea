-- Import speed: the enriched document (cves.doc, about 6 kB of JSON) is compressed into TOAST on every write, and
-- PostgreSQL's default pglz took a fifth of the database's CPU during a full import (perf, docs/benchmarks.md).
-- lz4 compresses several times faster at a similar ratio. Servers built without lz4 (the embedded PostgreSQL
-- binaries among them) keep pglz: the statement is skipped with a notice, and nothing else depends on it.
-- Only newly written values use the new method; existing rows stay readable as they are.
DO $$
BEGIN
  ALTER TABLE cves ALTER COLUMN doc SET COMPRESSION lz4;
  ALTER TABLE cves ALTER COLUMN search SET COMPRESSION lz4;
  ALTER TABLE cve_sources ALTER COLUMN record SET COMPRESSION lz4;
  ALTER TABLE msrc_documents ALTER COLUMN payload SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available in this PostgreSQL build: TOAST compression stays pglz';
END $$;
