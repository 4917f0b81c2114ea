-- Atom feed tokens (beyond the spec; docs/feeds.md): a revocable secret in the URL of an organization's
-- watchlist feed (feed readers cannot send headers). Only its SHA-256 and a display prefix are stored.
CREATE TABLE feed_tokens (
  id          bigint PRIMARY KEY DEFAULT vi_tenant_id(),
  org_id      bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  created_by  bigint REFERENCES members(id) ON DELETE SET NULL,
  label       text CHECK (label IS NULL OR length(label) BETWEEN 1 AND 200),
  token_hash  text NOT NULL UNIQUE,
  token_start text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);
CREATE INDEX feed_tokens_org ON feed_tokens (org_id, created_at);
