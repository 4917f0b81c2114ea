-- One definition of the read model's side-table rows, shared by the triggers (0201, 0202: per statement, from
-- the transition tables) and the bulk first import (src/store/bulk.ts: once, from `cves`). Each function returns
-- the text of one statement over a given row source; the caller EXECUTEs it (a trigger must run it itself:
-- transition tables are visible only to the trigger function's own statements).

-- The count dimensions of a `cves`-shaped relation, with a sign column `s` (+1 counted, -1 uncounted).
CREATE OR REPLACE FUNCTION cve_count_rows_sql(rel text, sign int) RETURNS text LANGUAGE sql IMMUTABLE AS $f$
  SELECT format($q$SELECT coalesce(severity, '') AS severity, kev_flagged AS kev,
    has_public_exploit OR poc_available AS exploit, patch_status, exploit_maturity AS maturity, ics_relevant,
    vendor_slugs, protocols, coalesce(to_char(published_at AT TIME ZONE 'UTC', 'YYYY-MM'), '') AS month,
    CASE WHEN epss_score IS NULL THEN 'none' ELSE least(9, floor(epss_score * 10))::int::text END AS epss_bucket,
    %s AS s FROM %I$q$, sign, rel)
$f$;

-- Adds the signed rows of `src` (cve_count_rows_sql) to the facet counts. Rows are upserted in primary-key order
-- so concurrent writers lock them in the same order (no deadlock); zero rows stay and readers ignore them.
CREATE OR REPLACE FUNCTION cve_facet_counts_sql(src text) RETURNS text LANGUAGE sql IMMUTABLE AS $f$
  SELECT format($q$
    WITH d AS (%s)
    INSERT INTO cve_facet_counts AS f (scope, key, severity, kev, exploit, patch_status, maturity, ics_relevant, n)
    SELECT scope, key, severity, kev, exploit, patch_status, maturity, ics_relevant, sum(s)
    FROM (
      SELECT 'all' AS scope, '' AS key, d.* FROM d
      UNION ALL
      SELECT 'vendor', v.k, d.* FROM d CROSS JOIN LATERAL (SELECT DISTINCT unnest(d.vendor_slugs)) v(k)
      UNION ALL
      SELECT 'protocol', p.k, d.* FROM d CROSS JOIN LATERAL (SELECT DISTINCT unnest(d.protocols)) p(k)
    ) x
    GROUP BY scope, key, severity, kev, exploit, patch_status, maturity, ics_relevant
    HAVING sum(s) <> 0
    ORDER BY scope, key, severity, kev, exploit, patch_status, maturity, ics_relevant
    ON CONFLICT (scope, key, severity, kev, exploit, patch_status, maturity, ics_relevant)
    DO UPDATE SET n = f.n + EXCLUDED.n$q$, src)
$f$;

-- Adds the signed rows of `src` to the month and EPSS-bucket counts.
CREATE OR REPLACE FUNCTION cve_stat_counts_sql(src text) RETURNS text LANGUAGE sql IMMUTABLE AS $f$
  SELECT format($q$
    WITH d AS (%s)
    INSERT INTO cve_stat_counts AS c (dim, key, n)
    SELECT dim, key, sum(s) FROM (
      SELECT 'month' AS dim, month AS key, s FROM d
      UNION ALL
      SELECT 'epss_bucket', epss_bucket, s FROM d
    ) x
    GROUP BY dim, key
    HAVING sum(s) <> 0
    ORDER BY dim, key
    ON CONFLICT (dim, key) DO UPDATE SET n = c.n + EXCLUDED.n$q$, src)
$f$;

-- Inserts the vendor and protocol list keys of the rows of a `cves`-shaped relation.
CREATE OR REPLACE FUNCTION cve_list_keys_sql(rel text) RETURNS text LANGUAGE sql IMMUTABLE AS $f$
  SELECT format($q$
    INSERT INTO cve_list_keys (kind, key, cve_id, published_at, severity, kev, exploit, patch_status)
    SELECT 'vendor', v.k, c.cve_id, c.published_at, c.severity, c.kev_flagged, c.has_public_exploit OR c.poc_available, c.patch_status
    FROM %1$I c CROSS JOIN LATERAL (SELECT DISTINCT unnest(c.vendor_slugs)) v(k)
    UNION ALL
    SELECT 'protocol', p.k, c.cve_id, c.published_at, c.severity, c.kev_flagged, c.has_public_exploit OR c.poc_available, c.patch_status
    FROM %1$I c CROSS JOIN LATERAL (SELECT DISTINCT unnest(c.protocols)) p(k)$q$, rel)
$f$;

CREATE OR REPLACE FUNCTION cve_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  src text;
  changed boolean;
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE 'SELECT EXISTS (SELECT 1 FROM new_rows)' INTO changed;
    src := cve_count_rows_sql('new_rows', 1);
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE 'SELECT EXISTS (SELECT 1 FROM old_rows)' INTO changed;
    src := cve_count_rows_sql('old_rows', -1);
  ELSE
    EXECUTE 'SELECT EXISTS (SELECT 1 FROM new_rows)' INTO changed;
    src := cve_count_rows_sql('new_rows', 1) || ' UNION ALL ' || cve_count_rows_sql('old_rows', -1);
  END IF;
  IF NOT changed THEN
    RETURN NULL;
  END IF;
  EXECUTE cve_facet_counts_sql(src);
  EXECUTE cve_stat_counts_sql(src);
  UPDATE cve_corpus_state SET version = version + 1, changed_at = now() WHERE id = 1;
  -- Delivered at commit, only if the writer's transaction commits: API processes drop cached responses.
  PERFORM pg_notify('cve_corpus_changed', '');
  RETURN NULL;
END;
$$;

CREATE OR REPLACE FUNCTION cve_list_keys_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    DELETE FROM cve_list_keys k USING old_rows o WHERE k.cve_id = o.cve_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    EXECUTE cve_list_keys_sql('new_rows');
  END IF;
  RETURN NULL;
END;
$$;
