// The binary array parameters of the import's bulk statements (src/store/pg-arrays.ts), read back by PostgreSQL
// itself: every element arrives exactly as sent (quotes, backslashes, multi-byte and 4-byte UTF-8, empty strings,
// nulls), jsonb elements are parsed once into the same values, and array literals survive their cast.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { sql } from '../../src/store/kysely.ts';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { jsonArray, jsonbArray, textArray, textArrayLiteral } from '../../src/store/pg-arrays.ts';
import { documentTexts } from '../../src/store/cves.ts';
import type { CveDocument } from '../../src/domain/cve-document.ts';

let t: TestDb;
before(async () => {
  t = await freshDb();
});
after(async () => {
  await t.drop();
});

/** A string as it comes back from the database: through UTF-8 (lone surrogates become U+FFFD). */
const asUtf8 = <T extends string | null>(v: T): T => (v === null ? v : (Buffer.from(v, 'utf8').toString('utf8') as T));
// Short strings (up to 64 code units) are measured and copied in JS, longer ones natively: both sides of that line.
const HOSTILE = [
  'plain',
  '',
  'lone \ud800 high',
  'lone \udc00 low',
  'pair \ud83d\ude00 end',
  '\u0080\u07ff\u0800\uffff',
  'x'.repeat(64),
  `${'y'.repeat(63)}é`,
  'z'.repeat(65),
  'quote " and \\ backslash',
  "it's",
  'Élan — Ωmega',
  '𝒳 emoji 🔥',
  'line\nbreak\ttab',
  'ls\u2028ps\u2029',
  '{a,b}',
  'NULL',
  ' ',
];

test('textArray: every element arrives as sent, in order, nulls as SQL NULL', async () => {
  const values = [...HOSTILE, null, 'after null'];
  const r = await sql<{ v: string | null; n: number; len: number | null }>`
    SELECT v, n::int, octet_length(v) AS len FROM unnest(${textArray(values)}::text[]) WITH ORDINALITY AS x(v, n) ORDER BY n`.execute(
    t.store.db,
  );
  // As UTF-8 encodes them: a lone surrogate becomes U+FFFD, as Buffer.byteLength counted it.
  assert.deepEqual(
    r.rows.map((x) => x.v),
    values.map(asUtf8),
  );
  assert.equal(r.rows[2].v, 'lone \ufffd high');
  assert.deepEqual(
    r.rows.map((x) => x.n),
    values.map((_, i) => i + 1),
  );
  // Byte lengths as UTF-8: the 4-byte characters were written whole.
  assert.deepEqual(
    r.rows.map((x) => x.len),
    values.map((v) => (v === null ? null : Buffer.byteLength(v))),
  );
});

test('textArray: an empty array is an empty text[]', async () => {
  const r = await sql<{ n: number; dims: string | null }>`
    SELECT cardinality(${textArray([])}::text[])::int AS n, array_dims(${textArray([])}::text[]) AS dims`.execute(
    t.store.db,
  );
  assert.deepEqual(r.rows[0], { n: 0, dims: null });
});

test('jsonbArray: each JSON text becomes the jsonb value it spells', async () => {
  const values = [
    { a: 1, s: 'x"y\\z' },
    [1, 'two', null],
    'just a string',
    { nested: { e: 'Ωmega 🔥', n: -1.5e-7 } },
    null,
    true,
  ];
  const r = await sql<{ v: unknown; t: string }>`
    SELECT v, jsonb_typeof(v) AS t FROM unnest(${jsonbArray(values.map((v) => JSON.stringify(v)))}::jsonb[]) WITH ORDINALITY AS x(v, n) ORDER BY n`.execute(
    t.store.db,
  );
  assert.deepEqual(
    r.rows.map((x) => x.v),
    values,
  );
  assert.deepEqual(
    r.rows.map((x) => x.t),
    ['object', 'array', 'string', 'object', 'null', 'boolean'],
  );
});

test('jsonbArray: invalid JSON is refused by the database, not stored', async () => {
  await assert.rejects(
    sql`SELECT * FROM unnest(${jsonbArray(['{"ok":1}', '{broken'])}::jsonb[])`.execute(t.store.db),
    (e: { code?: string }) => e.code === '22P02',
  );
});

test('jsonArray: each JSON text is stored as it is spelled (key order, spacing) and reads back as its value', async () => {
  const texts = [
    '{"z":1,"a":{"y":[1,2],"b":"x\\"y"}}',
    '[ 1, "two" ,null ]',
    '"Ωmega 🔥 \\u00e9"',
    '{"n":-1.5e-7}',
    'null',
    'true',
  ];
  const r = await sql<{ v: unknown; raw: string; t: string }>`
    SELECT v, v::text AS raw, json_typeof(v) AS t FROM unnest(${jsonArray(texts)}::json[]) WITH ORDINALITY AS x(v, n) ORDER BY n`.execute(
    t.store.db,
  );
  assert.deepEqual(
    r.rows.map((x) => x.raw),
    texts,
  );
  assert.deepEqual(
    r.rows.map((x) => x.v),
    texts.map((x) => JSON.parse(x)),
  );
  assert.deepEqual(
    r.rows.map((x) => x.t),
    ['object', 'array', 'string', 'object', 'null', 'boolean'],
  );
});

test('jsonArray: invalid JSON is refused by the database, not stored', async () => {
  await assert.rejects(
    sql`SELECT * FROM unnest(${jsonArray(['{"ok":1}', '{"unclosed":'])}::json[])`.execute(t.store.db),
    (e: { code?: string }) => e.code === '22P02',
  );
});

test('an array sent as the wrong element type is refused (the element OID is checked)', async () => {
  await assert.rejects(
    sql`SELECT * FROM unnest(${textArray(['1'])}::int[])`.execute(t.store.db),
    /array element type 25 \(text\) instead of expected 23/,
  );
});

test('textArrayLiteral: a text[] column value survives the cast element for element', async () => {
  const lists = [[], ['siemens'], HOSTILE, ['a,b', '}', '{', '"']];
  const r = await sql<{ v: string[] }>`
    SELECT v::text[] AS v FROM unnest(${textArray(lists.map(textArrayLiteral))}::text[]) WITH ORDINALITY AS x(v, n) ORDER BY n`.execute(
    t.store.db,
  );
  assert.deepEqual(
    r.rows.map((x) => x.v),
    lists.map((l) => l.map(asUtf8)),
  );
});

test('documentTexts: the hash is that of the text with both volatile timestamps null, stored has them; either key order', () => {
  const base = {
    cve_id: 'CVE-2024-0001',
    title: 'A "quoted" title',
    temporal: {
      published_at: '2024-01-01T00:00:00Z',
      modified_at: null,
      enriched_at: '2026-11-26T10:00:00.123Z',
      kev_added_at: null,
    },
    sage: { tier: 'full', generated_at: '2026-11-26T10:00:01.000Z', status: 'ready' },
  };
  // The same document with sage before temporal (as read back from jsonb, which orders keys).
  const reordered = { cve_id: base.cve_id, sage: base.sage, title: base.title, temporal: base.temporal };
  for (const doc of [base, reordered] as unknown as CveDocument[]) {
    const { hash, stored } = documentTexts(doc);
    const stable = JSON.stringify({
      ...doc,
      temporal: { ...doc.temporal, enriched_at: null },
      sage: { ...doc.sage, generated_at: null },
    });
    assert.equal(hash, createHash('sha256').update(stable).digest('hex'));
    assert.equal(stored, JSON.stringify(doc));
  }
  const noAnalysis = { ...base, sage: { ...base.sage, generated_at: null } } as unknown as CveDocument;
  assert.equal(documentTexts(noAnalysis).stored, JSON.stringify(noAnalysis));
});
