-- The CVE detail answer ready to send (lib/cve-answer.ts, docs/cve-api-performance.md §6): `data` of
-- GET /api/v1/cves/{id} serialized when the document is written, in the same statement, cut around its `sage` value
-- (one per tier view). A row answers only for the document it was made from (same doc_hash and enriched_at) and the
-- code that shaped it (shape); otherwise the reader shapes the document. No foreign key: a row left by a deleted CVE
-- never matches a document, and `cves` stays truncatable on its own.
CREATE TABLE cve_answers (
  cve_id text PRIMARY KEY,
  doc_hash text NOT NULL,
  enriched_at timestamptz NOT NULL,
  shape text NOT NULL,
  sage_model text NOT NULL,
  head text NOT NULL,
  sage_full text NOT NULL,
  sage_truncated text NOT NULL,
  tail text NOT NULL
);
