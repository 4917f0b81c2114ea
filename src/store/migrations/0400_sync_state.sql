-- Live feed sync (`vulnintel sync`, docs/sync.md): one checkpoint per source, written after every committed
-- page or document, so an interrupted sync resumes where it stopped.
CREATE TABLE sync_state (
  source      text PRIMARY KEY CHECK (length(source) BETWEEN 1 AND 64),
  cursor      jsonb NOT NULL DEFAULT '{}'::jsonb,
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Per-document versions for feeds that list documents (the CISA CSAF ROLIE feed): a document is fetched again
-- only when the feed's `updated` for it changes.
CREATE TABLE sync_documents (
  source      text NOT NULL,
  doc_id      text NOT NULL CHECK (length(doc_id) BETWEEN 1 AND 200),
  version     text NOT NULL,
  fetched_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source, doc_id)
);
