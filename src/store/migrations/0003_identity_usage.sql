-- Foundation, second step: trial start time, the monthly API-call allowance counter (spec §8), and an index
-- that keeps the health counts cheap on a full corpus.

-- One trial per organization (spec §8: 14 days, 750 checks): every trial key of the org expires 14 days after
-- the trial started, so issuing a second key never extends the trial.
ALTER TABLE trial_usage ADD COLUMN started_at timestamptz NOT NULL DEFAULT now();

-- Monthly API-call allowance (spec §8): tracked and reported in X-RateLimit-* headers, not enforced.
-- One row per organization and calendar month (UTC); `month` is the first day of that month.
CREATE TABLE api_usage_monthly (
  org_id  bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  month   date NOT NULL CHECK (extract(day FROM month) = 1),
  calls   bigint NOT NULL DEFAULT 0 CHECK (calls >= 0),
  PRIMARY KEY (org_id, month)
);

-- Health count pending_enrichment (docs/operations.md): CVEs whose analysis block is still pending. A partial
-- index keeps the count an index scan instead of reading every document.
CREATE INDEX cves_sage_pending ON cves (cve_id) WHERE (doc->'sage'->>'status') = 'pending';
