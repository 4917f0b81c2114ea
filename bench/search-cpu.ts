// CPU time of the in-memory full-text index's own work per broad search (FullTextIndex.search: match, rank, page),
// without HTTP or PostgreSQL: the index is built once from DATABASE_URL (src/store/fulltext-index.ts, as the API's
// index thread builds it), then the ceiling bench's ten broad phrases, pages 1 to 40, are searched in rounds. With
// BENCH_BEFORE_DIR, that checkout's FullTextIndex evaluates the same built arrays in the same process, round by round
// with this one, after a check that both answer the same pages. CPU time (process.cpuUsage) is steadier than a rate
// on a shared machine. Never part of `npm test`.
// Usage: DATABASE_URL=postgres://…/vi_bench [BENCH_BEFORE_DIR=/path/to/checkout] npx tsx bench/search-cpu.ts
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { loadFullTextIndex } from '../src/store/fulltext-index.ts';
import { parseTsQuery, type TsNode } from '../src/domain/fulltext/tsquery.ts';
import type { FullTextIndex, IndexQuery } from '../src/domain/fulltext/query.ts';
import { PHRASES, median } from './harness.ts';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/vi_bench';
const idx = await loadFullTextIndex(url, { aborted: false });
if (!idx) throw new Error('no index built');
type Searcher = Pick<FullTextIndex, 'search'>;
const targets: { name: string; index: Searcher }[] = [{ name: 'this checkout', index: idx }];
if (process.env.BENCH_BEFORE_DIR) {
  const mod = (await import(
    pathToFileURL(path.join(process.env.BENCH_BEFORE_DIR, 'src/domain/fulltext/query.ts')).href
  )) as { FullTextIndex: new (d: unknown) => Searcher };
  // The built arrays (a private field) handed to the other checkout's class: the same data, its evaluation.
  targets.unshift({ name: 'before', index: new mod.FullTextIndex((idx as unknown as { d: unknown }).d) });
}
const c = new pg.Client({ connectionString: url });
await c.connect();
const queries: TsNode[] = [];
for (const p of PHRASES) {
  const t = (
    await c.query<{ t: string }>(
      `SELECT (websearch_to_tsquery('english', $1) || websearch_to_tsquery('simple', $1))::text AS t`,
      [p],
    )
  ).rows[0].t;
  const q = parseTsQuery(t);
  if (q === null || q === 'empty') throw new Error(`"${p}" is not evaluated by the index`);
  queries.push(q);
}
await c.end();
const requests: IndexQuery[] = Array.from({ length: 400 }, (_, i) => ({
  query: queries[i % queries.length],
  sort: 'rank',
  offset: 10 * Math.floor(i / queries.length),
  limit: 10,
}));
for (const r of requests) {
  const answers = targets.map((t) => JSON.stringify(t.index.search(r)));
  if (answers.some((a) => a !== answers[0])) throw new Error('the checkouts answer a page differently');
}
const cpuMs: number[][] = targets.map(() => []);
for (let round = 0; round < 5; round++) {
  for (const [k, t] of targets.entries()) {
    const t0 = process.cpuUsage();
    for (const r of requests) t.index.search(r);
    const u = process.cpuUsage(t0);
    cpuMs[k].push((u.user + u.system) / 1000 / requests.length);
  }
}
for (const [k, t] of targets.entries()) {
  process.stdout.write(
    `${JSON.stringify({ target: t.name, documents: idx.size, cpu_ms_per_search: Number(median(cpuMs[k]).toFixed(2)), rounds: cpuMs[k].map((x) => Number(x.toFixed(2))) })}\n`,
  );
}
