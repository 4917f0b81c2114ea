// The committed client types (clients/typescript/schema.ts) are those the served OpenAPI document generates: the
// document is built in process and rendered in memory exactly as `npm run client:generate` does, and any difference
// fails, naming the command that regenerates the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  CLIENT_GENERATE_COMMAND,
  CLIENT_SCHEMA_FILE,
  renderClientSchema,
  servedOpenApiDocument,
} from '../../tools/client-schema.ts';

test('clients/typescript/schema.ts is generated from the current OpenAPI document', async () => {
  const doc = await servedOpenApiDocument();
  const fresh = await renderClientSchema(doc);
  const committed = readFileSync(CLIENT_SCHEMA_FILE, 'utf8');
  if (committed === fresh) {
    // The file is really the document's: every documented path is in it.
    for (const p of Object.keys(doc.paths ?? {}))
      assert.ok(committed.includes(`\n    ${JSON.stringify(p)}: {`), `${p} in schema.ts`);
    return;
  }
  const a = committed.split('\n');
  const b = fresh.split('\n');
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  assert.fail(
    `clients/typescript/schema.ts is stale (the OpenAPI document changed): run \`${CLIENT_GENERATE_COMMAND}\` and commit the result.\n` +
      `First difference at line ${i + 1}:\n  committed: ${a[i] ?? '(end of file)'}\n  generated: ${b[i] ?? '(end of file)'}`,
  );
});
