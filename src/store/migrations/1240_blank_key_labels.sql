-- An API key's label is non-empty text with a non-space character, or NULL for none (docs/accounts.md). Without
-- this rule POST /api/v1/account/keys stored "" and "   " as they came, the account page stored a label of spaces, and
-- `vulnintel key create --label ""` stored "": such labels become NULL, the same "no label" a key created without
-- one has (and rotation, which copies the label, now writes the same). Other labels are left as they are.
UPDATE api_keys SET label = NULL WHERE btrim(label, E' \t\n\r\f\v') = '';
