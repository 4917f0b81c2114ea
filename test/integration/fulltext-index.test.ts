// The in-memory full-text index (src/domain/fulltext/, docs/search.md) must answer exactly what PostgreSQL
// answers: the same exact total, the same ids in the same order (ts_rank recomputed bit for bit, every tie-break),
// for every sort and page. The corpus is the real import of NVD, CSAF and MSRC fixtures (real titles repeat
// "Remote Code Execution Vulnerability" and tie on rank) plus generated documents drawn from a small vocabulary
// (many rank and date ties, null CVSS/EPSS, repeated terms in title and description).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { threadId } from 'node:worker_threads';
import { testApp, type TestApp } from '../helpers/app.ts';
import { buildCve, seedCves } from '../helpers/cve-docs.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { fixture } from '../helpers/feeds.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import { loadFullTextIndex } from '../../src/store/fulltext-index.ts';
import type { SortBy } from '../../src/store/cve-filters.ts';
import { searchIds } from '../../src/store/cve-lists.ts';
import { createCveReader } from '../../src/store/cve-reader.ts';
import { isCveIdAnyCase } from '../../src/domain/cve-id.ts';
import { parseTsQuery } from '../../src/domain/fulltext/tsquery.ts';
import type { FullTextIndex } from '../../src/domain/fulltext/query.ts';

const WORDS = [
  'remote',
  'code',
  'execution',
  'windows',
  'overflow',
  'buffer',
  'denial',
  'service',
  'siemens',
  'simatic',
  'modbus',
  'parser',
  'heap',
  'kernel',
  'privilege',
  'elevation',
  'information',
  'disclosure',
  'widget',
  'gadget',
  'crafted',
  'packet',
  'injection',
  'command',
  'bypass',
  'authentication',
  'the',
  'of',
  'a',
];
let t: TestApp;
let idx: FullTextIndex;
const someIds: string[] = [];

before(async () => {
  t = await testApp();
  const dir = feedDir([
    ...CATALOGS,
    ...NVD_FIXTURES,
    ...CSAF_FIXTURES,
    fixture('msrc', '2024-Aug.xml.gz'),
    fixture('msrc', '2021-Jul.xml.gz'),
  ]);
  await importPaths(t.store.db, [dir], { log: { info() {}, warn() {} } });
  let seed = 7;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const pick = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
  const docs = Array.from({ length: 400 }, (_, i) =>
    buildCve({
      id: `CVE-2025-${String(20000 + i)}`,
      title: pick(2 + (i % 4)),
      description: pick(3 + (i % 9)),
      cvss: i % 5 === 0 ? null : Math.round(rnd() * 100) / 10,
      epss: i % 7 === 0 ? null : Math.round(rnd() * 1000) / 1000,
      // Few distinct dates (and some nulls): date ties fall to cve_id.
      published: i % 11 === 0 ? null : `2025-0${1 + (i % 3)}-01T00:00:00Z`,
      products: [pick(1)],
    }),
  );
  await seedCves(t.store, docs);
  idx = (await loadFullTextIndex(t.store.url, { aborted: false }))!;
  const r = await t.store.pool.query<{ cve_id: string }>('SELECT cve_id FROM cves ORDER BY cve_id LIMIT 5');
  someIds.push(...r.rows.map((x) => x.cve_id));
});
after(async () => {
  await t.close();
});

async function tsquery(q: string): Promise<string> {
  const r = await t.store.pool.query<{ t: string }>(
    `SELECT (websearch_to_tsquery('english', $1) || websearch_to_tsquery('simple', $1))::text AS t`,
    [q],
  );
  return r.rows[0].t;
}

async function compare(q: string, sortBy: SortBy | undefined, limit: number, offset: number) {
  const node = parseTsQuery(await tsquery(q));
  const sql = await searchIds(t.store, { q }, { sortBy }, limit, offset);
  // The reader sends CVE ids to PostgreSQL (exact id first), like anything the index does not evaluate.
  if (node === null || isCveIdAnyCase(q.trim())) return 'unsupported';
  const mem =
    node === 'empty' ? { total: 0, ids: [] } : idx.search({ query: node, sort: sortBy ?? 'rank', offset, limit });
  if (mem === null) return 'unsupported';
  assert.deepEqual(mem, sql, `q=${JSON.stringify(q)} sort=${sortBy} limit=${limit} offset=${offset}`);
  return 'same';
}

test('the index holds every CVE of the read model', async () => {
  const n = await t.store.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM cves');
  assert.ok(n.rows[0].n > 600, `corpus ${n.rows[0].n}`);
  assert.equal(idx.size, n.rows[0].n);
});

test('known searches: same total and order as PostgreSQL, for each sort and deep pages', async () => {
  const qs = [
    'remote code execution',
    'Remote Code Execution Vulnerability',
    'windows kernel',
    'overflow',
    'siemens simatic',
    'denial of service',
    'buffer or heap',
    'overflow -heap',
    'gadget or widget -crafted',
    'information disclosure',
  ];
  let same = 0;
  for (const q of qs) {
    for (const sortBy of [undefined, 'date', 'cvss', 'epss'] as const) {
      for (const [limit, offset] of [
        [10, 0],
        [10, 10],
        [100, 0],
        [25, 50],
        [10, 5000],
      ]) {
        if ((await compare(q, sortBy, limit, offset)) === 'same') same++;
      }
    }
  }
  // Every one of these is evaluated by the index (none is a phrase or a top-level AND).
  assert.equal(same, qs.length * 4 * 5);
  // Ranking really ties: the real MSRC titles share "Remote Code Execution Vulnerability".
  const top = await searchIds(t.store, { q: 'remote code execution' }, {}, 1000, 0);
  assert.ok(top.total > 50, `matches ${top.total}`);
});

test('phrases, hyphenated words, empty and stopword-only searches agree; a top-level AND is left to PostgreSQL', async () => {
  for (const q of [
    '"remote code execution"',
    '"code execution" windows',
    'out-of-bounds',
    'use-after-free -windows',
    '-"denial of service" overflow',
    'cross-site scripting',
    'the',
    '!!!',
  ]) {
    for (const sortBy of [undefined, 'cvss'] as const) assert.equal(await compare(q, sortBy, 20, 0), 'same', q);
  }
  // english reads nothing, simple reads 'the' & 'of': ts_rank would use calc_rank_and.
  assert.equal(await compare('the of', undefined, 10, 0), 'unsupported');
});

test('CVE ids: the reader sends them to PostgreSQL, which puts the exact id first', async () => {
  const reader = createCveReader(t.store, { maxEntries: 1000 });
  try {
    await reader.list({ q: 'windows' }, {}, 1, 0);
    await reader.fullText!.settled();
    assert.notEqual(reader.fullText!.current(), null);
    for (const id of someIds) {
      const page = await reader.list({ q: id.toLowerCase() }, {}, 10, 0);
      assert.equal(page.rows[0].cve_id, id);
      assert.deepEqual(page, await reader.list({ q: id.toLowerCase() }, { sortBy: undefined }, 10, 0));
      const sql = await searchIds(t.store, { q: id.toLowerCase() }, {}, 10, 0);
      assert.deepEqual(
        page.rows.map((r) => r.cve_id),
        sql.ids,
      );
    }
  } finally {
    await reader.close();
  }
});

test('generated searches agree with PostgreSQL (property)', async () => {
  const word = fc.constantFrom(...WORDS, 'windows', 'Microsoft', 'SIMATIC', 'CVE-2024-21338', 'zzzunknown');
  const term = fc.oneof(
    word,
    fc.array(word, { minLength: 2, maxLength: 3 }).map((ws) => `"${ws.join(' ')}"`),
    fc.array(word, { minLength: 2, maxLength: 3 }).map((ws) => ws.join('-')),
  );
  const query = fc
    .array(fc.tuple(fc.constantFrom('', '', '', '-', 'or '), term), { minLength: 1, maxLength: 5 })
    .map((parts) => parts.map(([op, w]) => `${op}${w}`).join(' '));
  let evaluated = 0;
  await fc.assert(
    fc.asyncProperty(
      query,
      fc.constantFrom(undefined, 'date', 'cvss', 'epss'),
      fc.integer({ min: 1, max: 60 }),
      fc.integer({ min: 0, max: 400 }),
      async (q, sortBy, limit, offset) => {
        if ((await compare(q, sortBy as SortBy | undefined, limit, offset)) === 'same') evaluated++;
      },
    ),
    { numRuns: 300 },
  );
  assert.ok(evaluated > 200, `evaluated by the index: ${evaluated}/300`);
});

test('the reader serves plain searches from the index once built, and drops it at the next write', async () => {
  const reader = createCveReader(t.store, { maxEntries: 1000 });
  const direct = createCveReader(t.store, { maxEntries: 0, fullTextIndex: false });
  try {
    for (let i = 0; i < 100 && !reader.caching; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(reader.fullText!.current(), null, 'not built before the first search');
    await reader.list({ q: 'remote code execution' }, {}, 10, 0);
    await reader.fullText!.settled();
    assert.notEqual(reader.fullText!.current(), null);
    for (const sortBy of [undefined, 'cvss'] as const) {
      const a = await reader.list({ q: 'windows overflow' }, { sortBy }, 20, 10);
      const b = await direct.list({ q: 'windows overflow' }, { sortBy }, 20, 10);
      assert.deepEqual(a, b);
    }
    // A write notifies: the index is dropped at once (never served stale), and the new CVE is found meanwhile.
    await seedCves(t.store, [
      buildCve({ id: 'CVE-2025-29999', title: 'Quokka firmware overflow', description: 'quokka' }),
    ]);
    for (let i = 0; i < 100 && reader.fullText!.current() !== null; i++) await new Promise((r) => setTimeout(r, 20));
    const found = await reader.list({ q: 'quokka' }, {}, 10, 0);
    assert.deepEqual(
      found.rows.map((r) => r.cve_id),
      ['CVE-2025-29999'],
    );
    await reader.fullText!.settled();
    assert.notEqual(reader.fullText!.current(), null, 'rebuilt once writes are quiet');
    const again = await reader.list({ q: 'quokka' }, {}, 10, 0);
    assert.deepEqual(
      again.rows.map((r) => r.cve_id),
      ['CVE-2025-29999'],
    );
    assert.equal(again.total, 1);
  } finally {
    await reader.close();
    await direct.close();
  }
});

test('the index lives in its own thread; when that thread dies, searches go to PostgreSQL and a new thread rebuilds it', async () => {
  const reader = createCveReader(t.store, { maxEntries: 0 });
  const direct = createCveReader(t.store, { maxEntries: 0, fullTextIndex: false });
  try {
    await reader.list({ q: 'buffer overflow' }, {}, 10, 0);
    for (let i = 0; i < 250 && reader.fullText!.current() === null; i++) await new Promise((r) => setTimeout(r, 20));
    assert.notEqual(reader.fullText!.current(), null);
    const first = reader.fullText!.thread;
    assert.ok(first, 'a worker thread holds the index');
    assert.notEqual(first.threadId, threadId, "not the server's own thread");
    const expected = await direct.list({ q: 'buffer overflow' }, { sortBy: 'date' }, 20, 5);
    assert.deepEqual(await reader.list({ q: 'buffer overflow' }, { sortBy: 'date' }, 20, 5), expected);
    await first.terminate();
    assert.equal(reader.fullText!.current(), null, 'a dead thread serves nothing');
    assert.deepEqual(
      await reader.list({ q: 'buffer overflow' }, { sortBy: 'date' }, 20, 5),
      expected,
      'PostgreSQL answers meanwhile',
    );
    for (let i = 0; i < 400 && reader.fullText!.current() === null; i++) await new Promise((r) => setTimeout(r, 20));
    assert.notEqual(reader.fullText!.current(), null, 'rebuilt in a new thread');
    assert.notEqual(reader.fullText!.thread!.threadId, first.threadId);
    assert.deepEqual(await reader.list({ q: 'buffer overflow' }, { sortBy: 'date' }, 20, 5), expected);
  } finally {
    await reader.close();
    await direct.close();
  }
});

test('with the response cache off the index still serves, kept fresh by its own LISTEN; disabled means never built', async () => {
  const reader = createCveReader(t.store, { maxEntries: 0 });
  const off = createCveReader(t.store, { maxEntries: 0, fullTextIndex: false });
  try {
    assert.equal(off.fullText, null);
    await reader.list({ q: 'windows' }, {}, 10, 0);
    for (let i = 0; i < 250 && reader.fullText!.current() === null; i++) await new Promise((r) => setTimeout(r, 20));
    assert.notEqual(reader.fullText!.current(), null);
    assert.equal(reader.caching, false, 'nothing is cached');
    assert.deepEqual(
      await reader.list({ q: 'windows -kernel' }, { sortBy: 'epss' }, 15, 3),
      await off.list({ q: 'windows -kernel' }, { sortBy: 'epss' }, 15, 3),
    );
  } finally {
    await reader.close();
    await off.close();
  }
});
