-- One store of per-organization plan-cap overrides, organizations.cap_overrides (jsonb, 0800).
-- Overrides set in org_cap_overrides (0820, `vulnintel org caps`) move there (a set column wins over the same key
-- in the jsonb; NULL columns meant "the plan's cap" and are left out), then the table goes.
UPDATE organizations o
   SET cap_overrides = o.cap_overrides || jsonb_strip_nulls(jsonb_build_object('members', c.members, 'environments', c.environments, 'assets', c.assets))
  FROM org_cap_overrides c
 WHERE c.org_id = o.id;

DROP TABLE org_cap_overrides;
