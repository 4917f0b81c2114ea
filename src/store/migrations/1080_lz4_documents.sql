-- The large JSON columns (the CVE document, each source record, stored correlation results) are compressed with
-- LZ4 instead of PostgreSQL's default pglz where the server was built with LZ4 (pg_settings lists it): about 15 %
-- less database CPU per written document on a bulk import, and faster reads of the detail document
-- (docs/decisions.md 41). A server without LZ4 keeps pglz; nothing else depends on the method. Existing values
-- keep their compression until they are next written.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)) THEN
    ALTER TABLE cves ALTER COLUMN doc SET COMPRESSION lz4;
    ALTER TABLE cve_sources ALTER COLUMN record SET COMPRESSION lz4;
    ALTER TABLE asset_correlations ALTER COLUMN result SET COMPRESSION lz4;
  END IF;
END $$;
