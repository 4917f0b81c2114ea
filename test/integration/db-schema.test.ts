// The committed database types (src/store/db-schema.ts and the files of src/store/db-schema/) are those our
// migrations' schema generates: a fresh test database (migrated by src/store/migrate.ts) is introspected exactly as
// `npm run db:types` does, and any difference, missing file or stray file fails, naming the command that regenerates
// them. The CHECK-to-union reading and the split by concern are held to their cases here too.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { checkValues, DB_SCHEMA_DIR, DB_SCHEMA_FILE, generateDbTypes, splitDbTypes } from '../../tools/db-types.ts';
import { freshDb } from '../helpers/db.ts';

const tdb = await freshDb();
after(() => tdb.drop());

const root = new URL('../../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');

test('src/store/db-schema.ts and src/store/db-schema/ are generated from the migrated schema', async () => {
  const fresh = await generateDbTypes(tdb.url);
  const committedParts = readdirSync(new URL(`${DB_SCHEMA_DIR}/`, root)).map((f) => `${DB_SCHEMA_DIR}/${f}`);
  assert.deepEqual(
    [DB_SCHEMA_FILE, ...committedParts].sort(),
    [...fresh.keys()].sort(),
    'the committed files are not those `npm run db:types` writes: run it and commit the result',
  );
  for (const [file, text] of fresh) {
    const committed = read(file);
    if (committed === text) continue;
    const a = committed.split('\n');
    const b = text.split('\n');
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    assert.fail(
      `${file} is stale (a migration changed the schema): run \`npm run db:types\` and commit the result.\n` +
        `First difference at line ${i + 1}:\n  committed: ${a[i] ?? '(end of file)'}\n  generated: ${b[i] ?? '(end of file)'}`,
    );
  }
  // A CHECK's closed set is a union; a trigger-filled column is optional on insert; a free text column stays string.
  const identity = read(`${DB_SCHEMA_DIR}/identity.ts`);
  assert.match(identity, /\n {2}role: "owner" \| "admin" \| "viewer";\n/);
  assert.match(identity, /\n {2}person_id: Generated<number>;\n/);
  assert.match(identity, /\n {2}scopes: ArrayType<"read" \| "write">;\n/);
  assert.match(read(`${DB_SCHEMA_DIR}/alerts.ts`), /\n {2}disabled_reason: "consecutive_failures" \| null;\n/);
  const corpus = read(`${DB_SCHEMA_DIR}/corpus.ts`);
  assert.match(corpus, /\n {2}severity: "CRITICAL" \| "HIGH" \| "MEDIUM" \| "LOW" \| null;\n/);
  assert.match(corpus, /\nexport interface Cves \{[^}]*\n {2}title: string;\n/);
  assert.match(read(DB_SCHEMA_FILE), /\n {2}cves: Cves;\n/);
  for (const text of fresh.values()) assert.doesNotMatch(text, /schema_migrations/);
});

// A small module in kysely-codegen's layout: its import, helper types, row types and DB.
const codegen = (tables: string[]) =>
  [
    'import type { ColumnType } from "kysely";',
    'export type Generated<T> = T extends ColumnType<infer S, infer I, infer U>\n  ? ColumnType<S, I | undefined, U>\n  : ColumnType<T, T | undefined, T>;',
    'export type Timestamp = ColumnType<Date, Date | string, Date | string>;',
    ...tables.map((_, i) => `export interface T${i} {\n  ${i === 0 ? 'at: Timestamp' : 'n: number'};\n}`),
    `export interface DB {\n${tables.map((t, i) => `  ${t}: T${i};`).join('\n')}\n}`,
  ].join('\n\n') + '\n';

test('splitDbTypes puts each row type in the file of its group, imports only the helpers used, and refuses an unplaced table', () => {
  const groups = { corpus: { about: 'Corpus', tables: ['cves'] }, alerts: { about: 'Alerts', tables: ['webhooks'] } };
  const files = splitDbTypes(codegen(['cves', 'webhooks']), groups);
  assert.deepEqual(
    [...files.keys()].sort(),
    [DB_SCHEMA_FILE, ...['alerts', 'columns', 'corpus'].map((g) => `${DB_SCHEMA_DIR}/${g}.ts`)].sort(),
  );
  const corpus = files.get(`${DB_SCHEMA_DIR}/corpus.ts`) ?? '';
  assert.match(
    corpus,
    /import type \{ Timestamp \} from '.\/columns.ts';\n\nexport interface T0 \{\n {2}at: Timestamp;\n\}/,
  );
  assert.match(
    files.get(`${DB_SCHEMA_DIR}/alerts.ts`) ?? '',
    /^(?!.*import)[\s\S]*export interface T1 \{\n {2}n: number;/,
  );
  assert.doesNotMatch(files.get(`${DB_SCHEMA_DIR}/alerts.ts`) ?? '', /columns\.ts/);
  assert.match(files.get(`${DB_SCHEMA_DIR}/columns.ts`) ?? '', /export type Generated<T>[\s\S]*export type Timestamp/);
  assert.match(
    files.get(DB_SCHEMA_FILE) ?? '',
    /import type \{ T0 \} from '.\/db-schema\/corpus.ts';[\s\S]*export interface DB \{\n {2}cves: T0;\n {2}webhooks: T1;\n\}/,
  );
  assert.throws(() => splitDbTypes(codegen(['cves', 'webhooks', 'brand_new']), groups), /place brand_new in a group/);
  assert.throws(() => splitDbTypes(codegen(['cves']), groups), /names webhooks, which the schema does not have/);
  const twice = { ...groups, other: { about: 'Other', tables: ['cves'] } };
  assert.throws(() => splitDbTypes(codegen(['cves', 'webhooks']), twice), /table cves is in two groups/);
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
