-- Exposure history and plant reports (docs/reports.md).
--
-- One snapshot per environment and UTC day, taken by the daily `exposure-snapshot` job from the same services as
-- the overview (open CVEs by sage priority and by severity, known-exploited open CVEs, assets with an open CVE,
-- Windows hosts past end of life, decisions by status, the mean age of open KEV CVEs). A second run on the same
-- day replaces the day's row. Rows older than 400 days are pruned by the job.
CREATE TABLE exposure_snapshots (
  org_id          bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id  bigint NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  day             date NOT NULL,
  taken_at        timestamptz NOT NULL,
  figures         jsonb NOT NULL,
  -- The open CVEs of the day: what a plant report compares with the previous one ("what changed").
  open_cve_ids    text[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (org_id, environment_id, day)
);
CREATE INDEX exposure_snapshots_by_day ON exposure_snapshots (day);

-- Each member's plant report schedule: none (the default, no row), weekly or monthly, by email.
CREATE TABLE report_preferences (
  org_id      bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  member_id   bigint NOT NULL REFERENCES members(id) ON DELETE CASCADE,
  cadence     text NOT NULL CHECK (cadence IN ('none', 'weekly', 'monthly')),
  updated_at  timestamptz NOT NULL,
  PRIMARY KEY (org_id, member_id)
);

-- One row per scheduled report email: (member, environment, cadence, period). The row is claimed ('sending')
-- before the message goes out and marked 'sent' after; a send that fails deletes its claim, so the next run
-- retries it. A claim left by a process that died mid-send is never retried: a report is never sent twice.
CREATE TABLE report_deliveries (
  org_id          bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  member_id       bigint NOT NULL REFERENCES members(id) ON DELETE CASCADE,
  environment_id  bigint NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  cadence         text NOT NULL CHECK (cadence IN ('weekly', 'monthly')),
  period_start    date NOT NULL,
  period_end      date NOT NULL CHECK (period_end > period_start),
  state           text NOT NULL CHECK (state IN ('sending', 'sent')),
  claimed_at      timestamptz NOT NULL,
  sent_at         timestamptz,
  -- What the report showed, for the next report's "what changed since the last report".
  open_cve_ids    text[],
  figures         jsonb,
  PRIMARY KEY (org_id, member_id, environment_id, cadence, period_start)
);
