// Ranked CVE lists (GET /api/v1/cves?ranked=true, docs/watchlists.md "Ranking") on a large corpus, in process:
// `listCves` with an organization's watchlist, for the watchlists people keep (none; the largest vendor; the second
// largest and its most named product; a mix of vendors, products, protocols and CVEs), at page 1, at a deep page, and with a filter. Each case is
// run BENCH_ROUNDS times after one warm-up; prints the median and the p90 in ms, and a digest of the ids each case
// answered, so two checkouts can be compared on the same database (same digest = same pages).
// Usage: DATABASE_URL=postgres://…/vi_big BENCH_ROUNDS=15 npx tsx bench/ranked.ts
// Creates one organization named "bench ranked" (and its entries) in that database and removes it at the end.
import { createHash } from 'node:crypto';
import { sql } from '../src/store/kysely.ts';
import { openStore } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { createOrganization } from '../src/store/identity.ts';
import type { CveFilter } from '../src/store/cve-filters.ts';
import { listCves } from '../src/store/cve-lists.ts';
import { median, pct } from './harness.ts';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');
const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
const store = openStore(url, { max: 4, statementTimeoutMs: 0 });
await migrate(store.pool);

// The largest vendor, the second largest and its most named product in the catalog.
const vendors = (
  await sql<{
    slug: string;
  }>`SELECT key AS slug FROM cve_facet_counts WHERE scope = 'vendor' GROUP BY key ORDER BY sum(n) DESC, key LIMIT 2`.execute(
    store.db,
  )
).rows.map((x) => x.slug);
const [big, second] = vendors;
const product = (
  await sql<{
    id: string;
  }>`SELECT vendor_slug || '/' || product_key AS id FROM products WHERE vendor_slug = ${second} ORDER BY cve_count DESC, product_key LIMIT 1`.execute(
    store.db,
  )
).rows[0].id;
const others = (
  await sql<{
    id: string;
  }>`SELECT vendor_slug || '/' || product_key AS id FROM products ORDER BY cve_count DESC, vendor_slug, product_key LIMIT 20 OFFSET 5`.execute(
    store.db,
  )
).rows.map((x) => x.id);
const someCves = (
  await sql<{ id: string }>`SELECT cve_id AS id FROM cves ORDER BY cve_id LIMIT 30`.execute(store.db)
).rows.map((x) => x.id);
const watchlists: Record<string, [string, string][]> = {
  empty: [],
  [`vendor ${big}`]: [['vendor', big]],
  [`vendor ${second}`]: [['vendor', second]],
  [`product ${product}`]: [['product', product]],
  mixed: [
    ['vendor', 'siemens'],
    ['protocol', 'modbus'],
    ...others.map((id): [string, string] => ['product', id]),
    ...someCves.map((id): [string, string] => ['cve', id]),
  ],
};
const pages: { name: string; f: CveFilter; offset: number }[] = [
  { name: 'page 1', f: {}, offset: 0 },
  { name: 'page 50', f: {}, offset: 49 * 20 },
  { name: 'page 1, severity HIGH', f: { severities: ['HIGH'] }, offset: 0 },
];

await sql`DELETE FROM organizations WHERE name = 'bench ranked'`.execute(store.db);
const org = await createOrganization(store.db, 'bench ranked', 'professional');
console.log(
  `corpus ${(await sql<{ n: number }>`SELECT count(*)::int AS n FROM cves`.execute(store.db)).rows[0].n} CVEs; ${rounds} rounds`,
);
try {
  for (const [name, entries] of Object.entries(watchlists)) {
    await sql`DELETE FROM watchlist_entries WHERE org_id = ${org.id}`.execute(store.db);
    for (const [type, key] of entries) {
      await sql`INSERT INTO watchlist_entries (org_id, entity_type, entity_key) VALUES (${org.id}, ${type}, ${key})`.execute(
        store.db,
      );
    }
    for (const p of pages) {
      const run = () => listCves(store, p.f, { rankedForOrg: org.id }, 20, p.offset);
      const first = await run();
      const ms: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const t0 = performance.now();
        await run();
        ms.push(performance.now() - t0);
      }
      const digest = createHash('sha1')
        .update(first.rows.map((r) => r.cve_id).join(','))
        .digest('hex')
        .slice(0, 10);
      const sorted = [...ms].sort((a, b) => a - b);
      console.log(
        `${name.padEnd(34)} ${p.name.padEnd(22)} median ${median(ms).toFixed(1).padStart(7)} ms  p90 ${pct(sorted, 0.9).toFixed(1).padStart(7)} ms  total ${first.total}  ids ${digest}`,
      );
    }
  }
} finally {
  await sql`DELETE FROM organizations WHERE id = ${org.id}`.execute(store.db);
  await store.close();
}
