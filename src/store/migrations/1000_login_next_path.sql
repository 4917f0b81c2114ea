-- The page a sign-in link lands on (`/login?next=…`, docs/accounts.md "Pages"): stored with the single-use token
-- server-side, so the link itself carries nothing a third party could point elsewhere. Validated by
-- safeNextPath (src/domain/accounts.ts) before it is stored; the CHECK keeps it a local path.
ALTER TABLE auth_tokens ADD COLUMN next_path text
  CHECK (next_path IS NULL OR (length(next_path) <= 512 AND next_path LIKE '/%' AND next_path NOT LIKE '//%'));
