-- The alert run (spec §6; docs/alerts.md): runs over windows of the change feed (cve_changes.seq), and
-- the alerts they store per organization, pending delivery.

-- One row per run. A run owns the window (from_seq, to_seq]; the next run starts after the last completed one's
-- to_seq. A run left 'running' by a process that died is resumed by the next run, over the same window: alerts
-- are unique per (run, organization, CVE), so nothing is stored twice.
CREATE TABLE alert_runs (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  from_seq     bigint NOT NULL,
  to_seq       bigint NOT NULL CHECK (to_seq >= from_seq),
  status       text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed')),
  trigger      text NOT NULL CHECK (trigger IN ('schedule', 'cli')),
  started_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz,
  changes      integer NOT NULL DEFAULT 0,
  alerts       integer NOT NULL DEFAULT 0
);
-- At most one run in progress.
CREATE UNIQUE INDEX alert_runs_one_running ON alert_runs ((true)) WHERE status = 'running';

CREATE TABLE alerts (
  id               bigint PRIMARY KEY DEFAULT vi_tenant_id(),
  org_id           bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  run_id           bigint NOT NULL REFERENCES alert_runs(id),
  cve_id           text NOT NULL,
  sage_priority    text NOT NULL CHECK (sage_priority IN ('PATCH NOW', 'PATCH NEXT', 'MONITOR', 'IGNORE')),
  -- Why: one line per change in the window ("added to KEV", "EPSS percentile 45 → 92").
  reasons          text[] NOT NULL,
  change_kinds     text[] NOT NULL,
  -- spec §6 watchlist_match: {entity_type, entity_name}.
  match_type       text NOT NULL,
  match_name       text NOT NULL,
  -- The spec §6 cve.alert payload as it will be delivered (docs/alerts.md).
  payload          jsonb NOT NULL,
  -- Delivery is the webhook and email work's: they move an alert on from 'pending' (docs/alerts.md "Delivery").
  delivery_status  text NOT NULL DEFAULT 'pending' CHECK (delivery_status IN ('pending', 'delivered', 'failed', 'skipped')),
  created_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (run_id, org_id, cve_id)
);
CREATE INDEX alerts_by_org ON alerts (org_id, created_at DESC, id DESC);
CREATE INDEX alerts_pending ON alerts (created_at, id) WHERE delivery_status = 'pending';
