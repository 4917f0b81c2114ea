-- Cheaper maintenance of the facet counts (0200): no temporary table per writer transaction (catalog churn on
-- every import batch) and no scan of the counts table to drop zero rows. The deltas are read straight from the
-- transition tables with dynamic SQL (PL/pgSQL makes them visible to EXECUTE); zero rows stay and readers
-- ignore them.
CREATE OR REPLACE FUNCTION cve_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  cols constant text := $c$coalesce(severity, '') AS severity, kev_flagged AS kev,
    has_public_exploit OR poc_available AS exploit, patch_status, exploit_maturity AS maturity, ics_relevant,
    vendor_slugs, protocols, coalesce(to_char(published_at AT TIME ZONE 'UTC', 'YYYY-MM'), '') AS month,
    CASE WHEN epss_score IS NULL THEN 'none' ELSE least(9, floor(epss_score * 10))::int::text END AS epss_bucket$c$;
  src text;
  changed boolean;
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE 'SELECT EXISTS (SELECT 1 FROM new_rows)' INTO changed;
    src := format('SELECT %s, 1 AS s FROM new_rows', cols);
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE 'SELECT EXISTS (SELECT 1 FROM old_rows)' INTO changed;
    src := format('SELECT %s, -1 AS s FROM old_rows', cols);
  ELSE
    EXECUTE 'SELECT EXISTS (SELECT 1 FROM new_rows)' INTO changed;
    src := format('SELECT %s, 1 AS s FROM new_rows UNION ALL SELECT %s, -1 AS s FROM old_rows', cols, cols);
  END IF;
  IF NOT changed THEN
    RETURN NULL;
  END IF;

  -- Rows are upserted in primary-key order so concurrent writers lock them in the same order (no deadlock).
  EXECUTE format($q$
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
    DO UPDATE SET n = f.n + EXCLUDED.n$q$, src);

  EXECUTE format($q$
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
    ON CONFLICT (dim, key) DO UPDATE SET n = c.n + EXCLUDED.n$q$, src);

  UPDATE cve_corpus_state SET version = version + 1, changed_at = now() WHERE id = 1;
  -- Delivered at commit, only if the writer's transaction commits: API processes drop cached responses.
  PERFORM pg_notify('cve_corpus_changed', '');
  RETURN NULL;
END;
$$;
