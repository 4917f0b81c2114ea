-- Tenant resource ids reveal nothing across organizations (docs/tenant-ids.md).
-- Environment ids came from one global sequence, so an organization could read the others' volume off the
-- gap between two of its own ids. New ids are drawn at random: 48 random bits (from gen_random_uuid(), a
-- cryptographic source) offset by 2^48, so every id is a 15-digit positive integer. They stay integers
-- because the spec types `environment_id` as an integer, and 15 digits fit a JSON number exactly and the
-- v2 parsers (`^\d{1,15}$`). Existing ids are kept as they are: clients and stored results refer to them.
-- Every new tenant resource table takes `id bigint PRIMARY KEY DEFAULT vi_tenant_id()`.
CREATE FUNCTION vi_tenant_id() RETURNS bigint
  LANGUAGE sql VOLATILE PARALLEL SAFE
  AS $$ SELECT 281474976710656 + ('x' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 12))::bit(48)::bigint $$;

ALTER TABLE environments ALTER COLUMN id SET DEFAULT vi_tenant_id();
DROP SEQUENCE environments_id_seq;
