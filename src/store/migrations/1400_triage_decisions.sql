-- Triage decisions (docs/triage.md): what a team decided about one CVE in one of its environments, in VEX's words,
-- and the append-only trail of every change to it.
--
-- One current decision per (organization, environment, CVE); `asset_ids` narrows it to chosen assets of the
-- environment (empty: the whole environment). The CISA minimum-VEX rules are held here too, so no writer can store
-- a decision a VEX document could not carry: not_affected needs its justification, affected its action statement,
-- and a due date belongs to affected only.
CREATE TABLE triage_decisions (
  org_id              bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id      bigint NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  cve_id              text NOT NULL CHECK (cve_id ~ '^CVE-[0-9]{4}-[0-9]{4,}$'),
  status              text NOT NULL CHECK (status IN ('under_investigation', 'affected', 'not_affected', 'fixed')),
  justification       text CHECK (justification IN ('component_not_present', 'vulnerable_code_not_present',
                        'vulnerable_code_not_in_execute_path', 'vulnerable_code_cannot_be_controlled_by_adversary',
                        'inline_mitigations_already_exist')),
  impact_statement    text CHECK (impact_statement IS NULL OR length(impact_statement) BETWEEN 1 AND 4000),
  action_statement    text CHECK (action_statement IS NULL OR length(action_statement) BETWEEN 1 AND 4000),
  due_date            date,
  asset_ids           text[] NOT NULL DEFAULT '{}',
  assignee_member_id  bigint REFERENCES members(id) ON DELETE SET NULL,
  -- "Review again": facts that arrived after the decision (KEV added, ranges changed, exploit maturity up).
  -- Empty while none did; setting the decision again clears them.
  review_reasons      text[] NOT NULL DEFAULT '{}',
  review_since        timestamptz,
  version             integer NOT NULL DEFAULT 1 CHECK (version >= 1),
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  updated_by_member   bigint REFERENCES members(id) ON DELETE SET NULL,
  updated_by_key      bigint REFERENCES api_keys(id) ON DELETE SET NULL,
  -- Where the decision came from: the API or a page ('api'), a bulk call ('bulk'), a VEX import ('import').
  source              text NOT NULL DEFAULT 'api' CHECK (source IN ('api', 'bulk', 'import')),
  PRIMARY KEY (org_id, environment_id, cve_id),
  CHECK ((status = 'not_affected') = (justification IS NOT NULL)),
  CHECK (status <> 'affected' OR action_statement IS NOT NULL),
  CHECK (due_date IS NULL OR status = 'affected')
);
CREATE INDEX triage_decisions_by_cve ON triage_decisions (cve_id);
CREATE INDEX triage_decisions_by_status ON triage_decisions (org_id, environment_id, status);

-- The trail: one row per change (set, clear, bulk, import, review flag), with the fields before and after (NULL
-- before the first decision and after a clear). Rows are only ever added: an UPDATE is refused by the trigger
-- below. They go only with their environment or organization (ON DELETE CASCADE).
CREATE TABLE triage_decision_history (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id            bigint NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  environment_id    bigint NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
  cve_id            text NOT NULL,
  action            text NOT NULL CHECK (action IN ('set', 'clear', 'bulk', 'import', 'review_flagged')),
  at                timestamptz NOT NULL DEFAULT now(),
  actor_member      bigint,
  actor_key         bigint,
  actor_label       text NOT NULL,
  before            jsonb,
  after             jsonb,
  comment           text CHECK (comment IS NULL OR length(comment) BETWEEN 1 AND 4000)
);
CREATE INDEX triage_history_by_decision ON triage_decision_history (org_id, environment_id, cve_id, id);

CREATE FUNCTION vi_triage_history_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'triage_decision_history is append-only' USING ERRCODE = 'integrity_constraint_violation';
END
$$;
CREATE TRIGGER triage_history_no_update BEFORE UPDATE ON triage_decision_history
  FOR EACH ROW EXECUTE FUNCTION vi_triage_history_append_only();
