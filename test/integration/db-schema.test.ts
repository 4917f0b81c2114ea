// The committed database types (src/store/db-schema.ts) are those our migrations' schema generates: a fresh test
// database (migrated by src/store/migrate.ts) is introspected exactly as `npm run db:types` does, and any difference
// fails, naming the command that regenerates the file. The CHECK-to-union reading is held to its cases here too.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { checkValues, DB_SCHEMA_FILE, generateDbTypes } from '../../tools/db-types.ts';
import { freshDb } from '../helpers/db.ts';

const tdb = await freshDb();
after(() => tdb.drop());

test('src/store/db-schema.ts is generated from the migrated schema', async () => {
  const fresh = await generateDbTypes(tdb.url);
  const committed = readFileSync(DB_SCHEMA_FILE, 'utf8');
  if (committed !== fresh) {
    const a = committed.split('\n');
    const b = fresh.split('\n');
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    assert.fail(
      'src/store/db-schema.ts is stale (a migration changed the schema): run `npm run db:types` and commit the result.\n' +
        `First difference at line ${i + 1}:\n  committed: ${a[i] ?? '(end of file)'}\n  generated: ${b[i] ?? '(end of file)'}`,
    );
  }
  // A CHECK's closed set is a union; a trigger-filled column is optional on insert; a free text column stays string.
  assert.match(committed, /\n {2}role: "owner" \| "admin" \| "viewer";\n/);
  assert.match(committed, /\n {2}severity: "CRITICAL" \| "HIGH" \| "MEDIUM" \| "LOW" \| null;\n/);
  assert.match(committed, /\n {2}disabled_reason: "consecutive_failures" \| null;\n/);
  assert.match(committed, /\n {2}person_id: Generated<number>;\n/);
  assert.match(committed, /\n {2}scopes: ArrayType<"read" \| "write">;\n/);
  assert.match(committed, /\nexport interface Cves \{[^}]*\n {2}title: string;\n/);
  assert.doesNotMatch(committed, /schema_migrations/);
});

test('checkValues reads the two shapes of a closed-set CHECK and nothing else', () => {
  assert.deepEqual(checkValues("CHECK ((role = ANY (ARRAY['owner'::text, 'admin'::text])))"), {
    column: 'role',
    values: ['owner', 'admin'],
    array: false,
  });
  assert.deepEqual(checkValues("CHECK ((kind = 'only'::text))"), { column: 'kind', values: ['only'], array: false });
  assert.deepEqual(checkValues("CHECK ((p = ANY (ARRAY['PATCH NOW'::text, 'it''s'::text])))"), {
    column: 'p',
    values: ['PATCH NOW', "it's"],
    array: false,
  });
  assert.equal(checkValues('CHECK ((length(title) > 0))'), null);
  assert.deepEqual(
    checkValues("CHECK (((scopes <@ ARRAY['read'::text, 'write'::text]) AND (cardinality(scopes) > 0)))"),
    { column: 'scopes', values: ['read', 'write'], array: true },
  );
  assert.deepEqual(checkValues("CHECK ((tags <@ ARRAY['a'::text]))"), { column: 'tags', values: ['a'], array: true });
  assert.equal(checkValues("CHECK ((((tags <@ ARRAY['a'::text]) AND (x > 0)) OR (y IS NULL)))"), null);
  assert.equal(checkValues("CHECK (((status = 'not_affected'::text) = (justification IS NOT NULL)))"), null);
  assert.equal(checkValues("CHECK ((cve_id ~ '^CVE-[0-9]{4}-[0-9]{4,}$'::text))"), null);
});
