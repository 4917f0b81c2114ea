-- The fingerprint of the sealing key (src/lib/crypto.ts): one row, recorded when the first secret is sealed. A
-- process whose key has another fingerprint refuses to start while sealed secrets exist (docs/webhooks.md
-- "Sealing key"): with it, every delivery would fail. The fingerprint is an HMAC under the key, never the key.
CREATE TABLE sealing_key (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  fingerprint text NOT NULL CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
  recorded_at timestamptz NOT NULL DEFAULT now()
);
