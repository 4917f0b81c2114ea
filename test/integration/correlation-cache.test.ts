// The correlation cache (services/correlation-cache.ts; docs/correlation.md "Caching"): range rows and cards are
// kept between calls while the CVE reader is told about commits, and a corpus change empties them, so an import
// that adds ranges shows in the next call. Real records: the NVD baseline, then the CISA advisory ICSA-24-289-02
// (Schneider Electric Data Center Expert, "<= 8.1.1.3").
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';

let t: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
const quiet = { info() {}, warn() {} };
const ASSET = { asset_id: 'dce-1', vendor: 'Schneider Electric', product: 'Data Center Expert', version: '8.1.1.0' };

async function correlate() {
  const r = await t.app.inject({
    method: 'POST',
    url: '/api/v1/assets/correlate-cves',
    headers: { ...org.auth, 'content-type': 'application/json' },
    payload: JSON.stringify({ assets: [ASSET] }),
  });
  assert.equal(r.statusCode, 200, r.body);
  return r.json().data.assets[0] as { cves: { cve_id: string; status: string; range: { source: string } }[] };
}

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

before(async () => {
  t = await testApp();
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES])], { log: quiet });
  org = await seedOrg(t.store, { name: 'Cache org', tier: 'professional' });
  // The reader's LISTEN connection is up: the cache keeps data from now on.
  await until(
    async () => t.app.services.cves.corpusGeneration(),
    (g) => g !== null,
  );
});
after(async () => {
  await t.close();
});

test('a second call is served from the cache; an import that adds ranges shows in the next call', async () => {
  const first = await correlate();
  assert.equal(
    first.cves.some((c) => c.cve_id === 'CVE-2024-8531'),
    false,
    'the advisory is not imported yet',
  );
  const held = t.app.services.assets.cacheStats();
  assert.ok(held.range_keys > 0, JSON.stringify(held));
  assert.equal(held.generation, t.app.services.cves.corpusGeneration());
  assert.deepEqual(await correlate(), first);

  await importPaths(t.store.db, [feedDir(CSAF_FIXTURES)], { log: quiet });
  const after = await until(correlate, (a) => a.cves.some((c) => c.cve_id === 'CVE-2024-8531'));
  const dce = after.cves.find((c) => c.cve_id === 'CVE-2024-8531');
  assert.ok(dce, "the advisory's range reached the next call");
  assert.deepEqual([dce.status, dce.range.source], ['affected', 'csaf']);
  assert.notEqual(t.app.services.assets.cacheStats().generation, held.generation);
});

test('the cache keeps data of one generation only, and nothing while the generation is unknown (no LISTEN)', async () => {
  const { CorrelationCache, rangeKey } = await import('../../src/services/correlation-cache.ts');
  let gen: number | null = null;
  const cache = new CorrelationCache(t.store.db, { generation: () => gen }, { rows: 10_000, cards: 100 });
  const key = rangeKey('schneider-electric', 'data center expert');
  const rows = (await cache.rangesFor([key])).get(key)!;
  assert.ok(rows.length > 0, 'the key has stored ranges');
  assert.deepEqual(cache.stats(), { range_keys: 0, cards: 0, flags: 0, generation: null });
  gen = 1;
  assert.deepEqual(
    (await cache.rangesFor([key])).get(key)!.map((r) => [r.cve_id, r.ord]),
    rows.map((r) => [r.cve_id, r.ord]),
  );
  await cache.cards([rows[0].cve_id]);
  assert.deepEqual(cache.stats(), { range_keys: 1, cards: 1, flags: 0, generation: 1 });
  // The flags of a CVE whose card is held come from the card.
  const f = await cache.flags([rows[0].cve_id]);
  assert.equal(f.get(rows[0].cve_id)?.cve_id, rows[0].cve_id);
  assert.equal(cache.stats().flags, 0);
  // A key with no rows is held too (an empty bucket), and counts no rows.
  assert.deepEqual(
    (await cache.rangesFor([rangeKey('no-such-vendor', 'nothing')])).get(rangeKey('no-such-vendor', 'nothing')),
    [],
  );
  assert.equal(cache.stats().range_keys, 2);
  gen = 2;
  await cache.flags([]);
  assert.deepEqual(cache.stats(), { range_keys: 0, cards: 0, flags: 0, generation: 2 });
});
