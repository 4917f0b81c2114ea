// Relevance check for docs/search.md: the top 10 of five searches from two checkouts of the service (before and
// after a change) on the same database, printed as a Markdown table per query, with whether the lists are equal.
// Usage: DATABASE_URL=… BENCH_BEFORE_DIR=/path/to/other/checkout npx tsx bench/search-top10.ts
import { startService, stop, type Target } from './harness.ts';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/vi_bench';
const QUERIES = [
  'CVE-2021-44228',
  'remote code execution',
  'siemens simatic',
  'modbus denial of service',
  'out-of-bounds',
];
const env = { VULNINTEL_CVE_CACHE_ENTRIES: '0', LOG_LEVEL: 'warn' };
let before: Target | undefined;
let after: Target | undefined;
try {
  if (process.env.BENCH_BEFORE_DIR) before = await startService(url, env, '/dev/null', process.env.BENCH_BEFORE_DIR);
  after = await startService(url, env);
  for (const q of QUERIES) {
    const get = async (t: Target) =>
      (await (await fetch(`${t.base}/api/v1/cves?q=${encodeURIComponent(q)}`)).json()) as {
        data: { cve_id: string; title: string }[];
        pagination: { total: number };
      };
    const a = await get(after);
    const b = before ? await get(before) : null;
    const same = b
      ? JSON.stringify(b.data.map((x) => x.cve_id)) === JSON.stringify(a.data.map((x) => x.cve_id)) &&
        b.pagination.total === a.pagination.total
      : null;
    process.stdout.write(
      `\n**q=${q}** — total ${a.pagination.total}${b ? ` (before: ${b.pagination.total}); top 10 ${same ? 'identical before and after' : 'DIFFERENT'}` : ''}\n\n`,
    );
    process.stdout.write(`| # | after | title |${b ? ' before |' : ''}\n|---|---|---|${b ? '---|' : ''}\n`);
    a.data.forEach((x, i) =>
      process.stdout.write(
        `| ${i + 1} | ${x.cve_id} | ${x.title.replace(/\|/g, '/').slice(0, 90)} |${b ? ` ${b.data[i]?.cve_id ?? ''} |` : ''}\n`,
      ),
    );
  }
} finally {
  stop(before, after);
}
