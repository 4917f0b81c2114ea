-- Identity core (spec §2.8, §5) and ingest run records (spec §2.9 pipeline).
CREATE TABLE organizations (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  tier        text NOT NULL CHECK (tier IN ('free','standard','professional','api','enterprise')),
  status      text NOT NULL DEFAULT 'active' CHECK (status IN ('active','deactivated')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  deactivated_at timestamptz
);

CREATE TABLE members (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id      bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  email       text NOT NULL CHECK (length(email) BETWEEN 3 AND 320),
  name        text NOT NULL DEFAULT '',
  role        text NOT NULL CHECK (role IN ('owner','admin','viewer')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, email)
);
CREATE UNIQUE INDEX members_one_owner ON members(org_id) WHERE role = 'owner';

CREATE TABLE api_keys (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id      bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  member_id   bigint NOT NULL REFERENCES members(id) ON DELETE CASCADE,
  key_hash    text NOT NULL UNIQUE,           -- sha256 hex of the key; the key itself is never stored
  key_start   text NOT NULL,                  -- display prefix, e.g. vi_live_AbC123
  kind        text NOT NULL CHECK (kind IN ('standard','partner','trial')),
  scopes      text[] NOT NULL CHECK (scopes <@ ARRAY['read','write']::text[] AND cardinality(scopes) > 0),
  label       text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz,
  revoked_at  timestamptz,
  last_used_at timestamptz
);
CREATE INDEX api_keys_org ON api_keys(org_id);

CREATE TABLE sessions (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id      bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  member_id   bigint NOT NULL REFERENCES members(id) ON DELETE CASCADE,
  token_hash  text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  revoked_at  timestamptz
);
CREATE INDEX sessions_org ON sessions(org_id);

-- Trial keys share one counter per organization: 750 asset checks in total (spec §8).
CREATE TABLE trial_usage (
  org_id      bigint PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
  used        integer NOT NULL DEFAULT 0 CHECK (used >= 0 AND used <= 750),
  ended_at    timestamptz
);

CREATE TABLE ingest_runs (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  stage       text NOT NULL CHECK (stage IN ('ingest','enricher')),
  source      text,
  status      text NOT NULL CHECK (status IN ('running','succeeded','failed')),
  started_at  timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  rows        integer NOT NULL DEFAULT 0,
  error       text
);
CREATE INDEX ingest_runs_stage_started ON ingest_runs(stage, started_at DESC);
