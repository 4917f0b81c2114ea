// v1 asset correlation latency (issue 11; docs/benchmarks.md "Asset correlation"): 200 mixed assets per call to
// POST /api/v1/assets/correlate-cves (p50, p99) and to /check (p50), in process (app.inject), against a fresh
// database holding the SMALL fixture corpus (the NVD and CSAF fixtures of test/fixtures; not the 367k corpus).
// The assets are drawn from the stored ranges (vendor and product as a user would type them, versions at, below
// and above the stated bounds) plus unknown products. Never part of `npm test`.
// Usage: nice -n 10 node --import tsx bench/correlate.ts   (BENCH_ROUNDS, default 60)
import { sql } from 'kysely';
import { testApp, seedOrg } from '../test/helpers/app.ts';
import { importPaths } from '../src/ingest/pipeline.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from '../test/helpers/ingest.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 60);
const t = await testApp({ rateProfiles: { correlation: { requests: { points: 1_000_000, durationSec: 60 }, units: { points: 1_000_000_000, durationSec: 60 } } } });
try {
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES, ...CSAF_FIXTURES])], { log: { info() {}, warn() {} } });
  const org = await seedOrg(t.store, { tier: 'enterprise' });
  const rows = (await sql<{ vendor: string; product: string; v: string | null }>`
    SELECT DISTINCT range->>'vendor' AS vendor, range->>'product' AS product, coalesce(range->>'version', range->'end'->>'version', range->'start'->>'version') AS v
    FROM cve_ranges ORDER BY 1, 2, 3`.execute(t.store.db)).rows;
  const ranges = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM cve_ranges`.execute(t.store.db)).rows[0].n;
  const assets = Array.from({ length: 200 }, (_, i) => {
    if (i % 10 === 9) return { asset_id: `bench-${i}`, vendor: 'Unknown Vendor', product: `Product ${i}`, version: '1.0' };
    const r = rows[i % rows.length];
    const version = [r.v, '0.1', '99.0', ''][i % 4] ?? '';
    return { asset_id: `bench-${i}`, vendor: i % 2 ? r.vendor.toUpperCase() : r.vendor, product: r.product, version };
  });
  const time = async (url: string) => {
    const ms: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const t0 = performance.now();
      const r = await t.app.inject({ method: 'POST', url, headers: org.auth, payload: { assets } });
      ms.push(performance.now() - t0);
      if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode} ${r.body.slice(0, 300)}`);
    }
    ms.sort((a, b) => a - b);
    return { p50: ms[Math.floor(ms.length * 0.5)], p99: ms[Math.min(ms.length - 1, Math.floor(ms.length * 0.99))] };
  };
  await time('/api/v1/assets/correlate-cves'); // warm-up
  const full = await time('/api/v1/assets/correlate-cves');
  const check = await time('/api/v1/assets/correlate-cves/check');
  const sample = (await t.app.inject({ method: 'POST', url: '/api/v1/assets/correlate-cves', headers: org.auth, payload: { assets } })).json().data.counts;
  console.log(JSON.stringify({ corpus_ranges: ranges, distinct_products: rows.length, rounds, counts: sample, correlate_ms: full, check_ms: check }));
} finally {
  await t.close();
}
