-- A triage decision and its trail row each check one foreign key for where they belong, not two: (org_id,
-- environment_id) references the environment of that organization. The pair also says more than the two keys did
-- (the environment is the organization's), and a bulk decision of 10,000 CVEs writes 20,000 rows, each checked.
-- Deleting an organization still removes them (organization → environments → these, each ON DELETE CASCADE).
CREATE UNIQUE INDEX environments_org_id_key ON environments (org_id, id);
ALTER TABLE environments ADD CONSTRAINT environments_org_id_key UNIQUE USING INDEX environments_org_id_key;
-- The unique index serves every lookup the plain one did.
DROP INDEX environments_org;

ALTER TABLE triage_decisions
  DROP CONSTRAINT triage_decisions_org_id_fkey,
  DROP CONSTRAINT triage_decisions_environment_id_fkey,
  ADD CONSTRAINT triage_decisions_environment_fkey FOREIGN KEY (org_id, environment_id)
    REFERENCES environments (org_id, id) ON DELETE CASCADE;

ALTER TABLE triage_decision_history
  DROP CONSTRAINT triage_decision_history_org_id_fkey,
  DROP CONSTRAINT triage_decision_history_environment_id_fkey,
  ADD CONSTRAINT triage_decision_history_environment_fkey FOREIGN KEY (org_id, environment_id)
    REFERENCES environments (org_id, id) ON DELETE CASCADE;
