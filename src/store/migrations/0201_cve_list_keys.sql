-- Per-vendor and per-protocol list keys (docs/cve-api-performance.md). `vendor_slugs`/`protocols` are arrays on
-- `cves`, so "newest CVEs of vendor X" would otherwise be a GIN bitmap scan plus a sort of every match. One slim
-- row per (vendor or protocol, CVE), ordered by an index, turns that into an index-only walk at any depth, with
-- the discrete filters (severity, kev, exploit, patch status) answered from the index too.
CREATE TABLE cve_list_keys (
  kind          text    NOT NULL CHECK (kind IN ('vendor', 'protocol')),
  key           text    NOT NULL,
  cve_id        text    NOT NULL,
  published_at  timestamptz,
  severity      text,
  kev           boolean NOT NULL,
  exploit       boolean NOT NULL,
  patch_status  text    NOT NULL,
  PRIMARY KEY (kind, key, cve_id)
);
CREATE INDEX cve_list_keys_by_date ON cve_list_keys (kind, key, published_at DESC NULLS LAST, cve_id DESC)
  INCLUDE (severity, kev, exploit, patch_status);
CREATE INDEX cve_list_keys_cve ON cve_list_keys (cve_id);

INSERT INTO cve_list_keys
SELECT 'vendor', v.k, c.cve_id, c.published_at, c.severity, c.kev_flagged, c.has_public_exploit OR c.poc_available, c.patch_status
FROM cves c CROSS JOIN LATERAL (SELECT DISTINCT unnest(c.vendor_slugs)) v(k)
UNION ALL
SELECT 'protocol', p.k, c.cve_id, c.published_at, c.severity, c.kev_flagged, c.has_public_exploit OR c.poc_available, c.patch_status
FROM cves c CROSS JOIN LATERAL (SELECT DISTINCT unnest(c.protocols)) p(k);

CREATE FUNCTION cve_list_keys_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    DELETE FROM cve_list_keys k USING old_rows o WHERE k.cve_id = o.cve_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO cve_list_keys
    SELECT 'vendor', v.k, c.cve_id, c.published_at, c.severity, c.kev_flagged, c.has_public_exploit OR c.poc_available, c.patch_status
    FROM new_rows c CROSS JOIN LATERAL (SELECT DISTINCT unnest(c.vendor_slugs)) v(k)
    UNION ALL
    SELECT 'protocol', p.k, c.cve_id, c.published_at, c.severity, c.kev_flagged, c.has_public_exploit OR c.poc_available, c.patch_status
    FROM new_rows c CROSS JOIN LATERAL (SELECT DISTINCT unnest(c.protocols)) p(k);
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER cves_list_keys_ins AFTER INSERT ON cves REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cve_list_keys_apply();
CREATE TRIGGER cves_list_keys_upd AFTER UPDATE ON cves REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cve_list_keys_apply();
CREATE TRIGGER cves_list_keys_del AFTER DELETE ON cves REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION cve_list_keys_apply();

CREATE FUNCTION cve_list_keys_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM cve_list_keys;
  RETURN NULL;
END;
$$;
CREATE TRIGGER cves_list_keys_truncate AFTER TRUNCATE ON cves FOR EACH STATEMENT EXECUTE FUNCTION cve_list_keys_truncate();

-- The API caches vendor-name resolution too: a catalog change must reach it like a corpus change.
CREATE FUNCTION vendors_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE cve_corpus_state SET version = version + 1, changed_at = now() WHERE id = 1;
  PERFORM pg_notify('cve_corpus_changed', '');
  RETURN NULL;
END;
$$;
CREATE TRIGGER vendors_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON vendors
  FOR EACH STATEMENT EXECUTE FUNCTION vendors_notify();

CREATE INDEX vendors_lower_name ON vendors (lower(name));
