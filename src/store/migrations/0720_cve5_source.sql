-- The CVE Program's own records (CVE Record Format 5: cvelistV5, CVE Services, CISA Vulnrichment) are a source of
-- per-CVE facts beside NVD, CSAF, MSRC and KEV (src/ingest/cve5.ts, docs/cve5.md).
ALTER TABLE cve_sources DROP CONSTRAINT cve_sources_source_check;
ALTER TABLE cve_sources ADD CONSTRAINT cve_sources_source_check CHECK (source IN ('nvd','cve5','csaf','msrc','kev'));
