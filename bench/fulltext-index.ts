// The in-memory full-text index on its own (docs/search.md): build time from the database, memory, and the CPU
// time of broad searches in process (no HTTP, no card read), beside the same searches in PostgreSQL (the SQL path's
// `searchIds`, ranked ids plus exact total) in the same run.
// Usage: DATABASE_URL=postgres://postgres@127.0.0.1:5432/vi_bench npx tsx bench/fulltext-index.ts [sqlRuns=1]
import { loadFullTextIndex } from '../src/store/fulltext-index.ts';
import { parseTsQuery } from '../src/domain/fulltext/tsquery.ts';
import { openStore } from '../src/store/db.ts';
import { searchIds } from '../src/store/cve-lists.ts';
import { PHRASES, median } from './harness.ts';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/vi_bench';
const sqlRuns = Number(process.argv[2] ?? 1);
const store = openStore(url, { max: 2 });
const mb = () => Math.round(process.memoryUsage().rss / 2 ** 20);
const rss0 = mb();
const t0 = performance.now();
const c0 = process.cpuUsage();
const idx = (await loadFullTextIndex(url, { aborted: false }))!;
const cpu = process.cpuUsage(c0);
globalThis.gc?.();
const row = (o: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(o)}\n`);
row({
  scenario: 'build',
  cves: idx.size,
  wall_s: Number(((performance.now() - t0) / 1000).toFixed(1)),
  cpu_s: Number(((cpu.user + cpu.system) / 1e6).toFixed(1)),
  rss_before_mb: rss0,
  rss_after_mb: mb(),
  heap_used_mb: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
  array_buffers_mb: Math.round(process.memoryUsage().arrayBuffers / 2 ** 20),
});
for (const q of PHRASES) {
  const r = await store.pool.query<{ t: string }>(
    `SELECT (websearch_to_tsquery('english', $1) || websearch_to_tsquery('simple', $1))::text AS t`,
    [q],
  );
  const node = parseTsQuery(r.rows[0].t);
  if (node === null || node === 'empty') {
    row({ q, index: 'not evaluated' });
    continue;
  }
  const times: number[] = [];
  let total = 0;
  for (let page = 0; page < 10; page++) {
    const s = performance.now();
    total = idx.search({ query: node, sort: 'rank', offset: page * 20, limit: 20 })!.total;
    times.push(performance.now() - s);
  }
  const sqlTimes: number[] = [];
  for (let i = 0; i < sqlRuns; i++) {
    const s = performance.now();
    const x = await searchIds(store, { q }, {}, 20, i * 20);
    sqlTimes.push(performance.now() - s);
    if (x.total !== total) throw new Error(`${q}: totals differ (${x.total} vs ${total})`);
  }
  row({
    q,
    matches: total,
    index_median_ms: Number(median(times).toFixed(2)),
    index_max_ms: Number(Math.max(...times).toFixed(2)),
    sql_median_ms: sqlRuns ? Number(median(sqlTimes).toFixed(0)) : null,
  });
}
await store.close();
