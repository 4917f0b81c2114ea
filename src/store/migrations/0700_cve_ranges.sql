-- Structured affected-version ranges (docs/correlation.md §4) and v1 asset correlation.

-- One row per range a source states for a CVE (domain/ranges.ts AffectedRange in `range`), rebuilt per CVE from its
-- cve_sources records whenever they change (store/ranges.ts). Looked up by canonical vendor slug and product key
-- (domain/product-match.ts), and by CPE vendor and product tokens.
CREATE TABLE cve_ranges (
  cve_id       text NOT NULL,
  ord          integer NOT NULL,
  source       text NOT NULL,
  source_key   text NOT NULL,
  vendor_slug  text NOT NULL,
  product_key  text NOT NULL,
  cpe_vendor   text,
  cpe_product  text,
  range        jsonb NOT NULL,
  PRIMARY KEY (cve_id, ord)
);
CREATE INDEX cve_ranges_product ON cve_ranges (vendor_slug, product_key);
CREATE INDEX cve_ranges_cpe ON cve_ranges (cpe_vendor, cpe_product) WHERE cpe_vendor IS NOT NULL;

-- Hash of each CVE's range set: a rebuild that yields the same rows writes nothing.
CREATE TABLE cve_range_state (
  cve_id  text PRIMARY KEY,
  hash    text NOT NULL
);

-- Stored v1 correlation results per environment (POST /api/v1/assets/correlate-cves with environment_id): the
-- latest per (organization, environment, asset_id); a later call for the same asset_id replaces it.
CREATE TABLE asset_correlations (
  org_id          bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id  bigint NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  asset_id        text NOT NULL CHECK (length(asset_id) BETWEEN 1 AND 64),
  asset           jsonb NOT NULL,
  result          jsonb NOT NULL,
  request_id      text NOT NULL,
  stored_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, environment_id, asset_id)
);

-- Partner keys (spec §5.8, §7 PARTNER_LIMIT): monthly asset-check limit per key (null = the default of
-- docs/correlation.md §6) and the counter per key and calendar month (UTC).
ALTER TABLE api_keys ADD COLUMN monthly_asset_limit integer CHECK (monthly_asset_limit IS NULL OR monthly_asset_limit >= 0);
CREATE TABLE partner_usage (
  key_id  bigint NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  month   date NOT NULL CHECK (extract(day FROM month) = 1),
  used    integer NOT NULL DEFAULT 0 CHECK (used >= 0),
  PRIMARY KEY (key_id, month)
);
