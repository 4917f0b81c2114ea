-- Alert email (docs/alerts.md "Email"): one claim per (alert, member), taken before the message is sent,
-- so an alert is emailed to a member at most once, instantly or in a digest, across runs, retries and replicas.
CREATE TABLE alert_emails (
  alert_id    bigint NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
  member_id   bigint NOT NULL REFERENCES members(id) ON DELETE CASCADE,
  kind        text NOT NULL CHECK (kind IN ('instant', 'daily_digest')),
  claimed_at  timestamptz NOT NULL,
  PRIMARY KEY (alert_id, member_id)
);
