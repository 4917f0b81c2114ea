-- The CVE read model: one row per CVE, slim list columns for filtering/sorting plus the full enriched
-- document (src/domain/cve-document.ts) for the detail endpoint.
CREATE TABLE cves (
  cve_id            text PRIMARY KEY CHECK (cve_id ~ '^CVE-[0-9]{4}-[0-9]{4,}$'),
  cve_year          integer NOT NULL,
  cve_seq           bigint NOT NULL,
  bsid              text NOT NULL,
  title             text NOT NULL CHECK (length(title) > 0),
  severity          text CHECK (severity IN ('CRITICAL','HIGH','MEDIUM','LOW')),
  cvss_score        real,
  bcs_score         real NOT NULL,
  epss_score        real,
  epss_percentile   real,
  kev_flagged       boolean NOT NULL,
  kev_added_at      timestamptz,
  exploit_maturity  text NOT NULL,
  poc_available     boolean NOT NULL,
  has_public_exploit boolean NOT NULL,
  patch_status      text NOT NULL,
  ics_relevant      boolean NOT NULL,
  ics_relevance     real NOT NULL,
  primary_vendor    text,
  primary_product   text,
  vendor_count      integer NOT NULL,
  vendor_slugs      text[] NOT NULL,
  protocols         text[] NOT NULL,
  published_at      timestamptz,
  modified_at       timestamptz,
  enriched_at       timestamptz NOT NULL,
  search            tsvector NOT NULL,
  doc               jsonb NOT NULL,
  doc_hash          text NOT NULL
);

-- Canonical vendor catalog (spec §4.1 vendor endpoints; /api/v1/catalog/vendors). Filled by ingest from the
-- vendor alias table; slug is stable and never derived from the display name at request time.
CREATE TABLE vendors (
  slug       text PRIMARY KEY CHECK (slug ~ '^[a-z0-9][a-z0-9-]*$'),
  name       text NOT NULL,
  aliases    text[] NOT NULL DEFAULT '{}',
  cve_count  integer NOT NULL DEFAULT 0
);
