-- The vendor catalog tells API processes of a change (migration 0201) only when a statement changed rows. The one
-- statement trigger for INSERT, UPDATE and DELETE fired for every statement, and refreshVendors (an upsert that
-- updates only changed rows, with a delete of vendors that are gone) ran three such statements at the end of every
-- import and sync: an import that changed nothing still moved cve_corpus_state and emptied every API process's
-- caches. Per event now, each with its transition table, as the count triggers of cves do (migration 0501).
DROP TRIGGER vendors_changed ON vendors;

CREATE OR REPLACE FUNCTION vendors_notify() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed boolean := true;
BEGIN
  IF TG_OP = 'DELETE' THEN
    EXECUTE 'SELECT EXISTS (SELECT 1 FROM old_rows)' INTO changed;
  ELSIF TG_OP IN ('INSERT', 'UPDATE') THEN
    EXECUTE 'SELECT EXISTS (SELECT 1 FROM new_rows)' INTO changed;
  END IF;
  IF changed THEN
    UPDATE cve_corpus_state SET version = version + 1, changed_at = now() WHERE id = 1;
    PERFORM pg_notify('cve_corpus_changed', '');
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER vendors_changed_ins AFTER INSERT ON vendors REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION vendors_notify();
CREATE TRIGGER vendors_changed_upd AFTER UPDATE ON vendors REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION vendors_notify();
CREATE TRIGGER vendors_changed_del AFTER DELETE ON vendors REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION vendors_notify();
CREATE TRIGGER vendors_changed_truncate AFTER TRUNCATE ON vendors
  FOR EACH STATEMENT EXECUTE FUNCTION vendors_notify();
