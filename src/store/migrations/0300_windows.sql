-- Windows patch level (API v2): Microsoft's CVRF documents, their per-CVE-product fix rows,
-- environments, and stored per-host results. Tenant tables carry org_id (docs/windows-engine.md).

-- One row per MSRC monthly document at its latest revision. `payload` is the Windows subset of the
-- document (normalised JSON, gzip) from which the evaluation index is rebuilt at start; `revision_date` is
-- the document's CurrentReleaseDate (UTC), which drives refreshes and meta.microsoft_data_as_of.
CREATE TABLE msrc_documents (
  id                    text PRIMARY KEY,
  title                 text NOT NULL,
  initial_release_date  timestamptz,
  revision_date         timestamptz,
  revision_number       text,
  cvrf_url              text,
  sha256                text NOT NULL,
  vulnerabilities       integer NOT NULL,
  payload               bytea NOT NULL,
  imported_at           timestamptz NOT NULL DEFAULT now()
);

-- Per CVE, Windows product and Vendor Fix: KB, fixed build, subtype, supersedence, severity, exploited
-- status and release month (the month of the document). Replaced whole with its document.
CREATE TABLE msrc_fixes (
  doc_id         text NOT NULL REFERENCES msrc_documents(id) ON DELETE CASCADE,
  cve_id         text NOT NULL,
  product_id     text NOT NULL,
  kb             text,
  fixed_build    text,
  subtype        text,
  supercedence   text,
  severity       text,
  exploited      boolean NOT NULL,
  release_month  text
);
CREATE INDEX msrc_fixes_cve ON msrc_fixes (cve_id);
CREATE INDEX msrc_fixes_product_kb ON msrc_fixes (product_id, kb);
CREATE INDEX msrc_fixes_doc ON msrc_fixes (doc_id);

-- An organization's environments (sites, plants, lines): groups of hosts whose results are stored.
CREATE TABLE environments (
  id           bigserial PRIMARY KEY,
  org_id       bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  description  text CHECK (description IS NULL OR length(description) <= 500),
  created_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, name)
);
CREATE INDEX environments_org ON environments (org_id, id);

-- The latest stored result per (organization, environment, asset_id). `host` is the validated host record
-- (never identifying data: refused hosts are never stored); `result` the host-level result (product, labels,
-- counts, fix groups); the per-CVE list is recomputed from `host` at `evaluated_on` when read.
CREATE TABLE windows_host_results (
  id              bigserial PRIMARY KEY,
  org_id          bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id  bigint REFERENCES environments(id) ON DELETE CASCADE,
  asset_id        text NOT NULL CHECK (length(asset_id) BETWEEN 1 AND 64),
  host            jsonb NOT NULL,
  warnings        text[] NOT NULL DEFAULT '{}',
  result          jsonb NOT NULL,
  evaluated_on    date NOT NULL,
  data_as_of      timestamptz,
  request_id      text,
  stored_at       timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX windows_host_results_key ON windows_host_results (org_id, COALESCE(environment_id, 0), asset_id);
CREATE INDEX windows_host_results_asset ON windows_host_results (org_id, asset_id);

-- installed_software of hosts listed in windows_hosts (spec §2.6: stored only).
CREATE TABLE windows_installed_software (
  org_id          bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id  bigint REFERENCES environments(id) ON DELETE CASCADE,
  asset_id        text NOT NULL,
  name            text NOT NULL,
  publisher       text,
  version         text,
  stored_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX windows_installed_software_key ON windows_installed_software (org_id, COALESCE(environment_id, 0), asset_id);
