-- Accounts (docs/accounts.md): a person (identity) apart from a membership (person × organization ×
-- role), sign-in links, sessions with idle expiry, invitations, plan-cap overrides, account deletion and
-- managed-service providers.

-- The person: one per email address, whatever the number of organizations it belongs to.
CREATE TABLE persons (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email       text NOT NULL UNIQUE CHECK (length(email) BETWEEN 3 AND 320 AND email = lower(email)),
  name        text NOT NULL DEFAULT '' CHECK (length(name) <= 200),
  preferences jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(preferences) = 'object'),
  -- The organization a sign-in link opens (the last one the person used); docs/accounts.md "Several organizations".
  last_org_id bigint REFERENCES organizations(id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- Existing members become persons (one per lower-cased email; the oldest membership's name).
INSERT INTO persons (email, name)
SELECT DISTINCT ON (lower(email)) lower(email), name FROM members ORDER BY lower(email), id;

ALTER TABLE members ADD COLUMN person_id bigint REFERENCES persons(id) ON DELETE CASCADE;
UPDATE members m SET person_id = p.id FROM persons p WHERE p.email = lower(m.email);
UPDATE persons p SET last_org_id = (SELECT m.org_id FROM members m WHERE m.person_id = p.id ORDER BY m.id DESC LIMIT 1);

-- members.email and members.name stay as copies of the person's (kept equal by the service when a person
-- changes them), so readers keyed by memberId need no join. A membership inserted without person_id (the
-- operator CLI, tests, other areas) is attached to the person of its email, created if new.
CREATE FUNCTION vi_member_person() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.email := lower(NEW.email);
  IF NEW.person_id IS NULL THEN
    INSERT INTO persons (email, name) VALUES (NEW.email, NEW.name)
      ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email
      RETURNING id INTO NEW.person_id;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER members_person BEFORE INSERT ON members FOR EACH ROW EXECUTE FUNCTION vi_member_person();
ALTER TABLE members ALTER COLUMN person_id SET NOT NULL;
CREATE UNIQUE INDEX members_org_person ON members(org_id, person_id);
CREATE INDEX members_person ON members(person_id);

-- Organizations: per-organization cap overrides ({"members": 10, ...}; src/domain/tiers.ts effectiveCaps), the
-- deletion time (an owner's DELETE /account: purged 20 h later), and the managed-service provider of a client.
ALTER TABLE organizations
  ADD COLUMN cap_overrides jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(cap_overrides) = 'object'),
  ADD COLUMN deleted_at timestamptz,
  ADD COLUMN provider_org_id bigint REFERENCES organizations(id) ON DELETE SET NULL,
  ADD CONSTRAINT organizations_deleted_is_deactivated CHECK (deleted_at IS NULL OR status = 'deactivated'),
  ADD CONSTRAINT organizations_not_own_provider CHECK (provider_org_id IS NULL OR provider_org_id <> id);
CREATE INDEX organizations_deleted ON organizations(deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX organizations_provider ON organizations(provider_org_id) WHERE provider_org_id IS NOT NULL;

-- Sessions: idle expiry from the last use (absolute expiry is expires_at).
ALTER TABLE sessions ADD COLUMN last_seen_at timestamptz NOT NULL DEFAULT now();
CREATE INDEX sessions_member ON sessions(member_id) WHERE revoked_at IS NULL;

-- Single-use links sent by email: sign-in, and confirming a new email address. Only the SHA-256 is stored.
CREATE TABLE auth_tokens (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  token_hash  text NOT NULL UNIQUE,
  purpose     text NOT NULL CHECK (purpose IN ('login', 'email_change')),
  person_id   bigint NOT NULL REFERENCES persons(id) ON DELETE CASCADE,
  -- email_change: the new address, confirmed by following the link sent to it.
  new_email   text CHECK (new_email IS NULL OR (length(new_email) BETWEEN 3 AND 320 AND new_email = lower(new_email))),
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  CHECK ((purpose = 'email_change') = (new_email IS NOT NULL))
);
CREATE INDEX auth_tokens_person ON auth_tokens(person_id);

-- Team invitations: a pending one holds a seat (counted against the member cap until accepted, revoked or expired).
CREATE TABLE invitations (
  id          bigint PRIMARY KEY DEFAULT vi_tenant_id(),
  org_id      bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  email       text NOT NULL CHECK (length(email) BETWEEN 3 AND 320 AND email = lower(email)),
  role        text NOT NULL CHECK (role IN ('admin', 'viewer')),
  token_hash  text NOT NULL UNIQUE,
  invited_by  bigint REFERENCES members(id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  accepted_at timestamptz,
  revoked_at  timestamptz
);
CREATE INDEX invitations_org ON invitations(org_id);
