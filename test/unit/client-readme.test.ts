// The examples of clients/typescript/README.md are the files of clients/typescript/examples/, which the repository's
// typecheck compiles against the generated client types: a README example cannot go stale without failing here or
// in `npx tsc --noEmit`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const dir = new URL('../../clients/typescript/', import.meta.url);
const EXAMPLES = ['list-cves.ts', 'correlate-assets.ts', 'webhook-receiver.ts'];

test('each TypeScript block of the client README is an example file, in order, imports named as published', () => {
  const readme = readFileSync(new URL('README.md', dir), 'utf8');
  const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  const files = EXAMPLES.map((f) =>
    readFileSync(new URL(`examples/${f}`, dir), 'utf8')
      .replaceAll("'../index.ts'", "'@vulnintel/client'")
      .replaceAll("'../webhooks.ts'", "'@vulnintel/client/webhooks'"),
  );
  assert.equal(blocks.length, EXAMPLES.length);
  blocks.forEach((b, i) => assert.equal(b, files[i], `README block ${i + 1} differs from examples/${EXAMPLES[i]}`));
  assert.ok(
    files.every((f) => !f.includes("'../")),
    'examples import only the package',
  );
});
