-- Normalised source records (one row per CVE per source document), so a CVE's enrichment can be recomputed
-- when any one feed changes (e.g. KEV arrives after NVD). The enriched read model stays in `cves`.
CREATE TABLE cve_sources (
  cve_id      text NOT NULL CHECK (cve_id ~ '^CVE-[0-9]{4}-[0-9]{4,}$'),
  source      text NOT NULL CHECK (source IN ('nvd','csaf','msrc','kev')),
  source_key  text NOT NULL DEFAULT '',     -- CSAF: advisory id; otherwise ''
  record      jsonb NOT NULL,               -- src/ingest/types.ts CveSourceRecord
  record_hash text NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (cve_id, source, source_key)
);

-- FIRST EPSS, kept for every scored CVE (also those not yet in the corpus).
CREATE TABLE epss_scores (
  cve_id      text PRIMARY KEY CHECK (cve_id ~ '^CVE-[0-9]{4}-[0-9]{4,}$'),
  epss        double precision NOT NULL CHECK (epss >= 0 AND epss <= 1),
  percentile  double precision NOT NULL CHECK (percentile >= 0 AND percentile <= 1)
);

CREATE TABLE cwe_catalog (
  id          integer PRIMARY KEY,
  name        text NOT NULL,
  abstraction text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('weakness','category')),
  status      text,
  capec_ids   integer[] NOT NULL DEFAULT '{}'
);

CREATE TABLE capec_catalog (
  capec_id         integer PRIMARY KEY,
  name             text NOT NULL,
  typical_severity text,
  status           text,
  cwes             integer[] NOT NULL DEFAULT '{}',
  deprecated       boolean NOT NULL
);

-- Feed-level facts (catalog versions, KEV catalogVersion, EPSS model/score date) and pipeline state
-- (e.g. which catalog content the corpus was last enriched with).
CREATE TABLE feed_state (
  feed           text PRIMARY KEY,
  version        text,
  date           text,
  declared_count integer,
  updated_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ingest_state (
  key   text PRIMARY KEY,
  value text NOT NULL
);
