-- Change history of affected ranges (docs/watchlists.md "Change history"): a new change kind,
-- `ranges_changed`, recorded when a CVE's stored range set changes (src/domain/changes.ts diffRanges).
ALTER TABLE cve_changes DROP CONSTRAINT cve_changes_kind_check;
ALTER TABLE cve_changes ADD CONSTRAINT cve_changes_kind_check CHECK (kind IN ('new_cve', 'cve_removed', 'kev_added',
  'kev_removed', 'epss_threshold', 'cvss_changed', 'exploit_maturity_up', 'patch_changed', 'advisory_added', 'ranges_changed'));
