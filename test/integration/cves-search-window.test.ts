// Full-text search (GET /api/v1/cves?q=): the ranked ids and the exact total come from one pass, a search's
// first SEARCH_WINDOW ranked ids are cached and its pages sliced from them, and pages beyond the window or past
// the end are read directly. Every way of reading a page must give the same order and the same exact total.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.ts';
import { buildCve, seedCves } from '../helpers/cve-docs.ts';
import { createCveReader, SEARCH_WINDOW } from '../../src/store/cve-reader.ts';
import type { CveFilter } from '../../src/store/cve-filters.ts';

let t: TestApp;
// More matches than the window, with ranks that differ (title vs description) and dates that tie, so the
// order depends on every sort key.
const N = SEARCH_WINDOW + 37;
before(async () => {
  t = await testApp();
  const docs = Array.from({ length: N }, (_, i) =>
    buildCve({
      id: `CVE-2024-${String(10000 + i)}`,
      title: i % 3 === 0 ? `Overflow ${i} in widget parser` : `Issue ${i} in gadget`,
      description: i % 3 === 0 ? 'A crafted packet.' : `A heap overflow in the gadget parser (${i}).`,
      published: `2024-0${1 + (i % 9)}-0${1 + (i % 7)}T00:00:00Z`,
    }),
  );
  docs.push(buildCve({ id: 'CVE-2023-0001', title: 'Unrelated entry', description: 'Nothing to see.' }));
  for (let i = 0; i < docs.length; i += 200) await seedCves(t.store, docs.slice(i, i + 200));
});
after(async () => {
  await t.close();
});

async function allPages(
  read: (limit: number, offset: number) => Promise<{ total: number; rows: { cve_id: string }[] }>,
  perPage: number,
) {
  const ids: string[] = [];
  const totals = new Set<number>();
  for (let offset = 0; offset < N + perPage; offset += perPage) {
    const p = await read(perPage, offset);
    totals.add(p.total);
    ids.push(...p.rows.map((r) => r.cve_id));
  }
  return { ids, totals: [...totals] };
}

test('windowed pages equal direct pages: same order, exact total on every page, past the end included', async () => {
  const cachedReader = createCveReader(t.store, { maxEntries: 1000 });
  const direct = createCveReader(t.store, { maxEntries: 0 });
  try {
    for (let i = 0; i < 100 && !cachedReader.caching; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(cachedReader.caching, true);
    const f: CveFilter = { q: 'overflow parser' };
    const a = await allPages((l, o) => cachedReader.list(f, {}, l, o), 100);
    const b = await allPages((l, o) => direct.list(f, {}, l, o), 100);
    assert.deepEqual(a.totals, [N]);
    assert.deepEqual(b.totals, [N]);
    assert.equal(a.ids.length, N);
    assert.equal(new Set(a.ids).size, N);
    assert.deepEqual(a.ids, b.ids);
    // Title matches (every third CVE) rank above description-only matches.
    const titled = a.ids.slice(0, Math.ceil(N / 3));
    assert.ok(titled.every((id) => (Number(id.slice(-5)) - 10000) % 3 === 0));
    // Pages of 10 read through the window and across its end give the same sequence.
    const c = await allPages((l, o) => cachedReader.list(f, {}, l, o), 10);
    assert.deepEqual(c.ids, a.ids);
    // Sorted searches too.
    const d = await allPages((l, o) => cachedReader.list(f, { sortBy: 'cvss' }, l, o), 100);
    const e = await allPages((l, o) => direct.list(f, { sortBy: 'cvss' }, l, o), 100);
    assert.deepEqual(d.ids, e.ids);
  } finally {
    await cachedReader.close();
    await direct.close();
  }
});

test('over HTTP: a page past the end still reports the exact total; no match gives zero', async () => {
  const past = (await t.app.inject({ method: 'GET', url: '/api/v1/cves?q=gadget&page=5000' })).json();
  assert.deepEqual(past.data, []);
  assert.equal(past.pagination.total, N - Math.ceil(N / 3));
  assert.equal(past.pagination.has_next, false);
  const none = (await t.app.inject({ method: 'GET', url: '/api/v1/cves?q=zzzunmatched' })).json();
  assert.equal(none.pagination.total, 0);
  assert.deepEqual(none.data, []);
  assert.equal(none.meta.corpus_size, N + 1);
});
