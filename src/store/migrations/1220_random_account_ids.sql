-- Organizations, members and API keys take random 15-digit ids, as every tenant resource does (migration 0600,
-- docs/tenant-ids.md). Their ids came from global sequences and are shown to clients (/account/me, /account/keys,
-- /account/team, /account/clients, and the paths that revoke a key or remove a member), so an organization creating
-- a key a week after its last one could read how many keys all organizations had created meanwhile. Existing rows
-- keep their ids; lists order by created_at, then id.
ALTER TABLE organizations ALTER COLUMN id DROP IDENTITY;
ALTER TABLE organizations ALTER COLUMN id SET DEFAULT vi_tenant_id();
ALTER TABLE members ALTER COLUMN id DROP IDENTITY;
ALTER TABLE members ALTER COLUMN id SET DEFAULT vi_tenant_id();
ALTER TABLE api_keys ALTER COLUMN id DROP IDENTITY;
ALTER TABLE api_keys ALTER COLUMN id SET DEFAULT vi_tenant_id();
