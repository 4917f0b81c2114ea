-- Tenant webhooks (spec §3.1, §4.6, §6; docs/webhooks.md). One row per receiver URL of an organization.
-- The signing secret is stored only encrypted (AES-256-GCM, src/lib/crypto.ts `sealSecret`): hex(sha256(secret))
-- is the spec's HMAC key, so a hash would be as sensitive as the secret itself.
CREATE TABLE webhooks (
  id                   bigint PRIMARY KEY DEFAULT vi_tenant_id(),
  org_id               bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  label                text NOT NULL,
  url                  text NOT NULL,
  secret_sealed        text NOT NULL,
  enabled              boolean NOT NULL DEFAULT true,
  consecutive_failures integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
  disabled_reason      text CHECK (disabled_reason IN ('consecutive_failures')),
  disabled_at          timestamptz,
  last_delivery_at     timestamptz,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now(),
  CHECK (enabled = (disabled_reason IS NULL))
);
CREATE INDEX webhooks_org ON webhooks (org_id, created_at, id);

-- One row per (webhook, CVE, event), inserted BEFORE the request is sent (the claim): the unique key makes each
-- CVE go at most once to a webhook, and a crash between claim and send leaves a `claimed` row that is never
-- resent. Test deliveries have no CVE (NULL, so they never collide).
CREATE TABLE webhook_deliveries (
  id           bigint PRIMARY KEY DEFAULT vi_tenant_id(),
  org_id       bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  webhook_id   bigint NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  cve_id       text,
  event        text NOT NULL CHECK (event IN ('cve.alert', 'webhook.test')),
  status       text NOT NULL DEFAULT 'claimed' CHECK (status IN ('claimed', 'delivered', 'failed')),
  claimed_at   timestamptz NOT NULL,
  sent_at      timestamptz,
  finished_at  timestamptz,
  http_status  integer,
  duration_ms  integer,
  error        text,
  CHECK (event = 'webhook.test' OR cve_id IS NOT NULL)
);
CREATE UNIQUE INDEX webhook_deliveries_once ON webhook_deliveries (webhook_id, cve_id, event);
CREATE INDEX webhook_deliveries_recent ON webhook_deliveries (webhook_id, claimed_at DESC, id DESC);
CREATE INDEX webhook_deliveries_org ON webhook_deliveries (org_id);
