-- One severity listed by CVSS or EPSS (`severity=HIGH&sort_by=cvss`): the CVSS index walks every higher-scored row
-- of the other severities first (53k CRITICAL rows before the first HIGH one on the 367k corpus, 86 ms a page); per
-- severity, the page is the first rows of the index, an index-only walk at any depth (docs/cve-api-performance.md §1).
CREATE INDEX cves_sev_cvss ON cves (severity, cvss_score DESC NULLS LAST, cve_id DESC)
  INCLUDE (kev_flagged, has_public_exploit, poc_available, patch_status);
CREATE INDEX cves_sev_epss ON cves (severity, epss_score DESC NULLS LAST, cve_id DESC)
  INCLUDE (kev_flagged, has_public_exploit, poc_available, patch_status);
