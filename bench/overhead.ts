// Per-request overhead of the service against a bare Fastify server, side by side in one run:
// the bare server's ping, the service's ping and the service's CVE detail with distinct ids and the response
// cache off (every request reads PostgreSQL). Each process is separate; every scenario uses the same
// autocannon settings (50 connections, BENCH_DURATION seconds), interleaved over BENCH_ROUNDS rounds, and each
// figure is the median of its rounds; the ratio is to the bare server's median.
// Usage: DATABASE_URL=postgres://postgres@127.0.0.1:5432/vi_bench npx tsx bench/overhead.ts [label]
//        BENCH_LOG_LEVEL (default info, the service default); BENCH_BEFORE_DIR=/path/to/other/checkout adds that
//        checkout's service (e.g. the code before a change) to the same run.
import { mkdirSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { cpuSeconds, load, median, startBare, startService, stop, type Target } from './harness.ts';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/vi_bench';
const label = process.argv[2] ?? 'overhead';
const seconds = Number(process.env.BENCH_DURATION ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = 50;

const c = new pg.Client({ connectionString: url });
await c.connect();
const ids = (await c.query<{ cve_id: string }>(`SELECT cve_id FROM cves TABLESAMPLE SYSTEM (25) LIMIT 80000`)).rows.map(
  (r) => r.cve_id,
);
await c.end();
let next = 0;

let bare: Target | undefined;
let svc: Target | undefined;
let before: Target | undefined;
try {
  bare = await startBare();
  const env = { VULNINTEL_CVE_CACHE_ENTRIES: '0', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' };
  svc = await startService(url, env);
  if (process.env.BENCH_BEFORE_DIR) before = await startService(url, env, '/dev/null', process.env.BENCH_BEFORE_DIR);
  const ping = () => '/api/v1/health/ping';
  const detail = () => `/api/v1/cves/${ids[next++ % ids.length]}`;
  const scenarios = [
    { name: 'bare fastify: ping', t: bare, path: ping },
    { name: 'service: ping', t: svc, path: ping },
    { name: 'service: detail, distinct ids, uncached', t: svc, path: detail },
    ...(before
      ? [
          { name: 'before: ping', t: before, path: ping },
          { name: 'before: detail, distinct ids, uncached', t: before, path: detail },
        ]
      : []),
  ];
  for (const s of scenarios) await load(s.t.base, { connections: 10, seconds: 2, path: s.path }); // warm-up
  const rps = new Map<string, number[]>(scenarios.map((s) => [s.name, []]));
  const p99 = new Map<string, number[]>(scenarios.map((s) => [s.name, []]));
  const cpuUs = new Map<string, number[]>(scenarios.map((s) => [s.name, []]));
  let bad = 0;
  for (let r = 0; r < rounds; r++) {
    for (const s of scenarios) {
      const cpu0 = cpuSeconds(s.t.proc.pid!);
      const res = await load(s.t.base, { connections, seconds, path: s.path });
      cpuUs.get(s.name)!.push(((cpuSeconds(s.t.proc.pid!) - cpu0) * 1e6) / Math.max(1, res.requests.total));
      rps.get(s.name)!.push(res.requests.average);
      p99.get(s.name)!.push(res.latency.p99);
      bad += res.non2xx + res.errors;
    }
  }
  const baseRps = median(rps.get(scenarios[0].name)!);
  const baseCpu = median(cpuUs.get(scenarios[0].name)!);
  const rows = scenarios.map((s) => ({
    scenario: s.name,
    req_per_s: Math.round(median(rps.get(s.name)!)),
    rounds: rps.get(s.name)!.map(Math.round),
    p99_ms: median(p99.get(s.name)!),
    ratio_to_bare: Number((median(rps.get(s.name)!) / baseRps).toFixed(3)),
    // Server-process CPU per request (node only: PostgreSQL's share of a detail read is not in it).
    cpu_us_per_req: Math.round(median(cpuUs.get(s.name)!)),
    bare_cpu_over_cpu: Number((baseCpu / median(cpuUs.get(s.name)!)).toFixed(3)),
  }));
  for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`);
  if (bad) process.stdout.write(`non-2xx or errors: ${bad}\n`);
  mkdirSync('bench/out', { recursive: true });
  writeFileSync(
    `bench/out/overhead-${label}.json`,
    JSON.stringify({ label, at: new Date().toISOString(), seconds, rounds, connections, rows }, null, 2),
  );
} finally {
  stop(bare, svc, before);
}
