-- Read and unread alerts per member (the web app's inbox, docs/web.md): a row when a member has read an alert of
-- their organization; no row is unread. Removed with the member, the alert or the organization.
CREATE TABLE alert_reads (
  org_id     bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  member_id  bigint NOT NULL REFERENCES members(id) ON DELETE CASCADE,
  alert_id   bigint NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
  read_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (member_id, alert_id)
);
CREATE INDEX alert_reads_alert ON alert_reads (alert_id);
