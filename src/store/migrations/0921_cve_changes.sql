-- CVE change history (docs/watchlists.md "Change history"): per CVE, the changes people act on, with
-- before and after values, written by the import in the same transaction as the read-model document
-- (src/domain/changes.ts decides what is a change).
--
-- `seq` is the feed position of GET /api/v1/changes. It is drawn from a sequence while the writing transaction
-- holds a transaction-level advisory lock, as its last statement before commit: two import writers commit their
-- batches concurrently, and without the lock a batch could commit with smaller positions after a reader had
-- already passed them (a cursor would skip them). With it, positions become visible in increasing order.
CREATE SEQUENCE cve_changes_seq;
CREATE TABLE cve_changes (
  seq         bigint PRIMARY KEY,
  cve_id      text NOT NULL,
  kind        text NOT NULL CHECK (kind IN ('new_cve', 'cve_removed', 'kev_added', 'kev_removed', 'epss_threshold',
                'cvss_changed', 'exploit_maturity_up', 'patch_changed', 'advisory_added')),
  before      jsonb,
  after       jsonb,
  changed_at  timestamptz NOT NULL DEFAULT now(),
  -- The import or sync that recorded it (ingest_runs, stage 'enricher'); NULL for a writer outside a run.
  run_id      bigint
);
CREATE INDEX cve_changes_by_cve ON cve_changes (cve_id, seq);
CREATE INDEX cve_changes_by_time ON cve_changes (changed_at, seq);
