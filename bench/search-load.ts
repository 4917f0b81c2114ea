// Broad full-text search on the full corpus, side by side in one run, for each service checkout given:
//  1. uncached single-client latency: BENCH_SEQ (100) sequential broad searches (ten phrases × pages 1–10), server
//     response cache off, so every request ranks and counts its matches in PostgreSQL;
//  2. 40 connections of distinct broad searches (ten phrases × 200 pages) for BENCH_DURATION s, while one client
//     reads a CVE detail every 50 ms and times it; once with the response cache off, once with it on (the
//     default: pages of one search are then sliced from its cached window of ranked ids);
//  3. the machine baseline: a bare Fastify server's ping rate (bench/bare-fastify.ts, own process, 40 connections).
// Each service runs three ways in the same run: the in-memory full-text index off (every search in PostgreSQL)
// with the response cache off, the index on with the cache off, and both on (the default). With the index on, the
// service is first warmed until the index is built (its build time and the server's RSS are reported).
// Usage: DATABASE_URL=postgres://postgres@127.0.0.1:5432/vi_bench npx tsx bench/search-load.ts [label]
//        BENCH_BEFORE_DIR=/path/to/checkout adds that checkout's service (e.g. the code before a change);
//        BENCH_MODES=off,index,index+cache selects the ways to run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { PHRASES, load, pct, sequential, startBare, startService, stop, type Target } from './harness.ts';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/vi_bench';
const label = process.argv[2] ?? 'search';
const seconds = Number(process.env.BENCH_DURATION ?? 12);
const SEQ = Number(process.env.BENCH_SEQ ?? 100);
const searchPath = (i: number, pages: number) =>
  `/api/v1/cves?q=${encodeURIComponent(PHRASES[i % PHRASES.length])}&page=${1 + (Math.floor(i / PHRASES.length) % pages)}`;
const DETAIL_IDS = ['CVE-2021-44228', 'CVE-2024-3400', 'CVE-2023-4966', 'CVE-2022-22965', 'CVE-2019-0708'];

async function contention(t: Target) {
  let i = 0;
  const run = load(t.base, { connections: 40, seconds, path: () => searchPath(i++, 200) });
  const lat: number[] = [];
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, 2000));
  for (let k = 0; Date.now() - t0 < (seconds - 1) * 1000; k++) {
    const s = performance.now();
    const res = await fetch(`${t.base}/api/v1/cves/${DETAIL_IDS[k % DETAIL_IDS.length]}`);
    await res.arrayBuffer();
    lat.push(performance.now() - s);
    await new Promise((r) => setTimeout(r, 50));
  }
  const r = await run;
  lat.sort((a, b) => a - b);
  return {
    search_rps: Math.round(r.requests.average),
    search_p50_ms: r.latency.p50,
    search_p99_ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    detail_samples: lat.length,
    detail_p50_ms: Number(pct(lat, 0.5).toFixed(1)),
    detail_p99_ms: Number(pct(lat, 0.99).toFixed(1)),
  };
}

const targets: { name: string; dir: string }[] = [{ name: 'after', dir: process.cwd() }];
if (process.env.BENCH_BEFORE_DIR) targets.unshift({ name: 'before', dir: process.env.BENCH_BEFORE_DIR });
const rows: Record<string, unknown>[] = [];
const out = (row: Record<string, unknown>) => {
  rows.push(row);
  process.stdout.write(`${JSON.stringify(row)}\n`);
};
let bare: Target | undefined;
try {
  bare = await startBare();
  await load(bare.base, { connections: 10, seconds: 2, path: () => '/api/v1/health/ping' });
  const bareRps = (await load(bare.base, { connections: 40, seconds: 5, path: () => '/api/v1/health/ping' })).requests
    .average;
  out({ scenario: 'bare fastify: ping, 40 connections', req_per_s: Math.round(bareRps) });
  const MODES: Record<string, Record<string, string>> = {
    off: { VULNINTEL_SEARCH_INDEX: 'false', VULNINTEL_CVE_CACHE_ENTRIES: '0' },
    index: { VULNINTEL_SEARCH_INDEX: 'true', VULNINTEL_CVE_CACHE_ENTRIES: '0' },
    'index+cache': { VULNINTEL_SEARCH_INDEX: 'true', VULNINTEL_CVE_CACHE_ENTRIES: '20000' },
  };
  const modes = (process.env.BENCH_MODES ?? 'off,index,index+cache').split(',');
  for (const { name, dir } of targets) {
    for (const mode of modes) {
      const svc = await startService(url, { ...MODES[mode], LOG_LEVEL: 'warn' }, '/dev/null', dir);
      try {
        if (MODES[mode].VULNINTEL_SEARCH_INDEX === 'true') {
          // The index is built on the first plain search (in its own thread, while PostgreSQL answers): warm until
          // a broad search (tens of thousands of matches, slow in PostgreSQL; a new one each time, so the response
          // cache cannot answer it) answers fast three times running.
          const t0 = Date.now();
          let fast = 0;
          for (let n = 1; fast < 3 && Date.now() - t0 < 600_000; n++) {
            const [ms] = await sequential(
              svc.base,
              1,
              () => `/api/v1/cves?q=${encodeURIComponent(`remote or execution or warmup${n}`)}`,
            );
            fast = ms < 50 ? fast + 1 : 0;
            if (fast === 0) await new Promise((r) => setTimeout(r, 500));
          }
          const rss =
            Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${svc.proc.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
          out({
            code: name,
            mode,
            scenario: 'index warm-up (first search until built)',
            seconds: Math.round((Date.now() - t0) / 100) / 10,
            rss_mb: Math.round(rss),
          });
        }
        if (MODES[mode].VULNINTEL_CVE_CACHE_ENTRIES === '0') {
          let j = 0;
          const seq = await sequential(svc.base, SEQ, () => searchPath(j++, SEQ / PHRASES.length));
          out({
            code: name,
            mode,
            scenario: 'single client, distinct broad q',
            p50_ms: Number(pct(seq, 0.5).toFixed(1)),
            p99_ms: Number(pct(seq, 0.99).toFixed(1)),
          });
        }
        const c = await contention(svc);
        out({
          code: name,
          mode,
          scenario: '40 connections, distinct broad q + detail probe',
          ...c,
          search_rps_over_bare_ping: Number((c.search_rps / bareRps).toFixed(4)),
        });
      } finally {
        stop(svc);
      }
    }
  }
  mkdirSync('bench/out', { recursive: true });
  writeFileSync(
    `bench/out/search-load-${label}.json`,
    JSON.stringify({ label, at: new Date().toISOString(), seconds, rows }, null, 2),
  );
} finally {
  stop(bare);
}
