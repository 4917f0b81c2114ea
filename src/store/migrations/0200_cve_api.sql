-- CVE API read paths (docs/cve-api-performance.md).
--  1. Ordering/filter indexes for the list endpoints: every sort order is an index, so a page is an index
--     walk plus LIMIT, never a sort of the whole match.
--  2. Exact facet counts maintained by statement-level triggers in the writer's transaction, so
--     `pagination.total` for the common filters is a sum over a few rows instead of count(*) over 55k.
--  3. A corpus version bumped (and NOTIFYed) by the same triggers, used by the API's response cache.
--  4. watchlist_entries: the organization's declared interest used by `ranked=true`.

CREATE INDEX cves_by_date   ON cves (published_at DESC NULLS LAST, cve_id DESC);
CREATE INDEX cves_by_cvss   ON cves (cvss_score DESC NULLS LAST, cve_id DESC);
CREATE INDEX cves_by_epss   ON cves (epss_score DESC NULLS LAST, cve_id DESC);
CREATE INDEX cves_by_bcs    ON cves (bcs_score DESC, cve_id DESC);
CREATE INDEX cves_sev_date  ON cves (severity, published_at DESC NULLS LAST, cve_id DESC);
CREATE INDEX cves_kev_date  ON cves (published_at DESC NULLS LAST, cve_id DESC) WHERE kev_flagged;
CREATE INDEX cves_vendor_slugs ON cves USING gin (vendor_slugs);
CREATE INDEX cves_protocols ON cves USING gin (protocols);
CREATE INDEX cves_search    ON cves USING gin (search);

-- One row per combination of the discrete list filters, per scope: the whole corpus (scope 'all', key ''),
-- each vendor slug (scope 'vendor') and each protocol (scope 'protocol'). A list total whose filters are only
-- these dimensions (plus at most one vendor or protocol) is the sum of the matching rows: exact, and never
-- more than a few hundred rows to add up.
CREATE TABLE cve_facet_counts (
  scope         text    NOT NULL CHECK (scope IN ('all', 'vendor', 'protocol')),
  key           text    NOT NULL,
  severity      text    NOT NULL,             -- '' when the CVE has no CVSS severity
  kev           boolean NOT NULL,
  exploit       boolean NOT NULL,             -- has_public_exploit OR poc_available (the has_exploit filter)
  patch_status  text    NOT NULL,
  maturity      text    NOT NULL,
  ics_relevant  boolean NOT NULL,
  n             bigint  NOT NULL,
  PRIMARY KEY (scope, key, severity, kev, exploit, patch_status, maturity, ics_relevant)
);

-- One-dimensional statistics: CVEs per published month ('YYYY-MM', '' when unknown) and per EPSS decile
-- bucket ('0'..'9', 'none'), kept by the same triggers for the stats endpoints.
CREATE TABLE cve_stat_counts (
  dim  text   NOT NULL CHECK (dim IN ('month', 'epss_bucket')),
  key  text   NOT NULL,
  n    bigint NOT NULL,
  PRIMARY KEY (dim, key)
);

CREATE TABLE cve_corpus_state (
  id          integer PRIMARY KEY CHECK (id = 1),
  version     bigint NOT NULL,
  changed_at  timestamptz NOT NULL
);
INSERT INTO cve_corpus_state VALUES (1, 0, now());

CREATE FUNCTION cve_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed bigint;
BEGIN
  -- Transition tables hold the statement's rows: +1 for new images, -1 for old images.
  CREATE TEMP TABLE IF NOT EXISTS _cve_delta (
    severity text, kev boolean, exploit boolean, patch_status text, maturity text, ics_relevant boolean,
    vendor_slugs text[], protocols text[], month text, epss_bucket text, s integer
  ) ON COMMIT DROP;
  TRUNCATE _cve_delta;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO _cve_delta
    SELECT coalesce(severity, ''), kev_flagged, has_public_exploit OR poc_available, patch_status, exploit_maturity,
           ics_relevant, vendor_slugs, protocols, coalesce(to_char(published_at AT TIME ZONE 'UTC', 'YYYY-MM'), ''),
           CASE WHEN epss_score IS NULL THEN 'none' ELSE least(9, floor(epss_score * 10))::int::text END, 1
    FROM new_rows;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    INSERT INTO _cve_delta
    SELECT coalesce(severity, ''), kev_flagged, has_public_exploit OR poc_available, patch_status, exploit_maturity,
           ics_relevant, vendor_slugs, protocols, coalesce(to_char(published_at AT TIME ZONE 'UTC', 'YYYY-MM'), ''),
           CASE WHEN epss_score IS NULL THEN 'none' ELSE least(9, floor(epss_score * 10))::int::text END, -1
    FROM old_rows;
  END IF;
  SELECT count(*) INTO changed FROM _cve_delta;
  IF changed = 0 THEN
    RETURN NULL;
  END IF;

  -- Rows are upserted in primary-key order so concurrent writers lock them in the same order (no deadlock).
  INSERT INTO cve_facet_counts AS f (scope, key, severity, kev, exploit, patch_status, maturity, ics_relevant, n)
  SELECT scope, key, severity, kev, exploit, patch_status, maturity, ics_relevant, sum(s)
  FROM (
    SELECT 'all' AS scope, '' AS key, d.* FROM _cve_delta d
    UNION ALL
    SELECT 'vendor', v.k, d.* FROM _cve_delta d CROSS JOIN LATERAL (SELECT DISTINCT unnest(d.vendor_slugs)) v(k)
    UNION ALL
    SELECT 'protocol', p.k, d.* FROM _cve_delta d CROSS JOIN LATERAL (SELECT DISTINCT unnest(d.protocols)) p(k)
  ) x
  GROUP BY scope, key, severity, kev, exploit, patch_status, maturity, ics_relevant
  HAVING sum(s) <> 0
  ORDER BY scope, key, severity, kev, exploit, patch_status, maturity, ics_relevant
  ON CONFLICT (scope, key, severity, kev, exploit, patch_status, maturity, ics_relevant)
  DO UPDATE SET n = f.n + EXCLUDED.n;

  INSERT INTO cve_stat_counts AS c (dim, key, n)
  SELECT dim, key, sum(s) FROM (
    SELECT 'month' AS dim, month AS key, s FROM _cve_delta
    UNION ALL
    SELECT 'epss_bucket', epss_bucket, s FROM _cve_delta
  ) x
  GROUP BY dim, key
  HAVING sum(s) <> 0
  ORDER BY dim, key
  ON CONFLICT (dim, key) DO UPDATE SET n = c.n + EXCLUDED.n;

  DELETE FROM cve_facet_counts WHERE n = 0;
  DELETE FROM cve_stat_counts WHERE n = 0;

  UPDATE cve_corpus_state SET version = version + 1, changed_at = now() WHERE id = 1;
  -- Delivered at commit, only if the writer's transaction commits: API processes drop cached responses.
  PERFORM pg_notify('cve_corpus_changed', '');
  RETURN NULL;
END;
$$;

CREATE TRIGGER cves_counts_ins AFTER INSERT ON cves REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cve_counts_apply();
CREATE TRIGGER cves_counts_upd AFTER UPDATE ON cves REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cve_counts_apply();
CREATE TRIGGER cves_counts_del AFTER DELETE ON cves REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cve_counts_apply();

-- TRUNCATE has no transition table: it empties the counts with it.
CREATE FUNCTION cve_counts_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM cve_facet_counts;
  DELETE FROM cve_stat_counts;
  UPDATE cve_corpus_state SET version = version + 1, changed_at = now() WHERE id = 1;
  PERFORM pg_notify('cve_corpus_changed', '');
  RETURN NULL;
END;
$$;
CREATE TRIGGER cves_counts_truncate AFTER TRUNCATE ON cves FOR EACH STATEMENT EXECUTE FUNCTION cve_counts_truncate();

-- An organization's declared interest (vendor slugs, protocol names). The watchlist endpoints are not built
-- yet; `ranked=true` already reads this table, scoped to the caller's organization.
CREATE TABLE watchlist_entries (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id       bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  entity_type  text NOT NULL CHECK (entity_type IN ('vendor', 'protocol')),
  entity_key   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, entity_type, entity_key)
);
