-- Lean stored alerts (docs/alerts.md "Storage"). The part of a cve.alert payload that is
-- the same for every organization (the CVE's fields, the reasons and change kinds of the window) is stored once per
-- (run, CVE) in alert_cves; an alert row keeps only what is its own: priority, the best match, the matches list and
-- the asset-match counts. A run over 1,000 organizations then writes a few hundred bytes per alert, not 1.5 kB.
-- Public data only (no organization in it): the CVE facts as the run saw them.
CREATE TABLE alert_cves (
  run_id        bigint NOT NULL REFERENCES alert_runs(id),
  cve_id        text NOT NULL,
  reasons       text[] NOT NULL,
  change_kinds  text[] NOT NULL,
  -- payload.timestamp of the run's alerts (ISO 8601).
  stamp         text NOT NULL,
  -- The CVE fields of payload.data (spec §6): cve_id, title, scores, patch status, KEV, EPSS, url, texts, reasons.
  data          jsonb NOT NULL,
  PRIMARY KEY (run_id, cve_id)
);

-- The two foreign keys were checked row by row on every insert, half of the insert's cost at 100k alerts, and
-- protected nothing: a run is never deleted and writes only its own alerts; the run writes alerts only for active
-- organizations, and an organization is purged 20 hours after it left 'active', by deleting its rows from every
-- table with an org_id column (services/accounts.ts purge, schema-wide), alerts included.
ALTER TABLE alerts DROP CONSTRAINT alerts_run_id_fkey;
ALTER TABLE alerts DROP CONSTRAINT alerts_org_id_fkey;

-- Rows written before this migration keep their full payload, reasons and change kinds; rows written after it
-- leave them NULL and are composed by alert_view.
ALTER TABLE alerts ALTER COLUMN payload DROP NOT NULL;
ALTER TABLE alerts ALTER COLUMN reasons DROP NOT NULL;
ALTER TABLE alerts ALTER COLUMN change_kinds DROP NOT NULL;
-- NULL when the matches list is the best match alone (one watch entry, no asset): the view rebuilds it.
ALTER TABLE alerts ADD COLUMN matches jsonb;
ALTER TABLE alerts ADD COLUMN assets_affected integer NOT NULL DEFAULT 0;
ALTER TABLE alerts ADD COLUMN assets_review integer NOT NULL DEFAULT 0;

-- Every alert as before: the stored columns plus the payload as it is delivered (spec §6), whichever way it was
-- stored. Readers (GET /alerts, webhook delivery, email) read this view, never alerts.payload directly.
CREATE VIEW alert_view AS
SELECT a.id, a.org_id, a.run_id, a.cve_id, a.sage_priority,
  coalesce(a.reasons, c.reasons) AS reasons,
  coalesce(a.change_kinds, c.change_kinds) AS change_kinds,
  a.match_type, a.match_name,
  coalesce(a.payload, jsonb_build_object(
    'event', 'cve.alert', 'version', '1.0', 'timestamp', c.stamp,
    'data', c.data || jsonb_build_object(
      'sage_priority', a.sage_priority,
      'watchlist_match', jsonb_build_object('entity_type', a.match_type, 'entity_name', a.match_name),
      'matches', coalesce(a.matches, jsonb_build_array(jsonb_build_object('entity_type', a.match_type, 'entity_name', a.match_name))),
      'asset_matches', jsonb_build_object('affected', a.assets_affected, 'needs_review', a.assets_review)))) AS payload,
  a.delivery_status, a.created_at
FROM alerts a LEFT JOIN alert_cves c ON c.run_id = a.run_id AND c.cve_id = a.cve_id;
