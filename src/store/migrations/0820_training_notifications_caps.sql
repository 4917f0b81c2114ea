-- Training progress (spec §4.4), notification preferences (§4.5) and per-organization
-- plan-cap overrides (§4.5 /account/usage, §8). All keyed by org_id (+ member_id for per-person rows), so the
-- two-tenant runner and the purge find them like every other tenant table.

-- One row per member and module once the member started it; completed_at set by `complete`.
-- module_id names a module of the catalogue on disk (content/training); rows of a module later removed from the
-- catalogue are kept and ignored by the progress summary.
CREATE TABLE training_progress (
  org_id        bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  member_id     bigint NOT NULL REFERENCES members(id) ON DELETE CASCADE,
  module_id     text NOT NULL CHECK (length(module_id) BETWEEN 1 AND 80),
  started_at    timestamptz NOT NULL,
  completed_at  timestamptz CHECK (completed_at IS NULL OR completed_at >= started_at),
  updated_at    timestamptz NOT NULL,
  PRIMARY KEY (org_id, member_id, module_id)
);

-- Per member; no row = the defaults of docs/account-preferences.md. min_severity and min_bcs are both optional; an alert
-- must meet every threshold that is set.
CREATE TABLE notification_preferences (
  org_id         bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  member_id      bigint NOT NULL REFERENCES members(id) ON DELETE CASCADE,
  email_enabled  boolean NOT NULL,
  min_severity   text CHECK (min_severity IN ('LOW','MEDIUM','HIGH','CRITICAL')),
  min_bcs        numeric(3,1) CHECK (min_bcs BETWEEN 0 AND 10),
  kev_only       boolean NOT NULL,
  delivery       text NOT NULL CHECK (delivery IN ('instant','daily_digest')),
  updated_at     timestamptz NOT NULL,
  PRIMARY KEY (org_id, member_id)
);

-- Operator overrides of the plan caps (`vulnintel org caps`); NULL = the plan's cap, -1 = unlimited.
CREATE TABLE org_cap_overrides (
  org_id        bigint PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  members       integer CHECK (members >= -1),
  environments  integer CHECK (environments >= -1),
  assets        integer CHECK (assets >= -1),
  updated_at    timestamptz NOT NULL
);
