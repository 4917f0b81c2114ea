// CPU profile of the service under load on one path: starts src/main.ts with `--cpu-prof`, runs autocannon
// (50 connections, 10 s), stops the server (the profile is written at exit), then prints where the time went
// (self time by package and by function, inclusive time by function) with bench/cpuprofile-summary.ts.
// Usage: DATABASE_URL=… npx tsx bench/profile-request.ts [/api/v1/health/ping] [outDir=bench/out/profile]
//        `{n}` in the path is a counter, `{id}` a distinct CVE id of the corpus per request.
//        BENCH_LOG_LEVEL (default info), BENCH_CACHE=0 to disable the response cache, BENCH_DURATION (s, default 10).
//        The summary counts the samples of the load only (not the start-up).
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { load, startService, stop } from './harness.ts';
import { summarize } from './cpuprofile-summary.ts';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/vi_bench';
const target = process.argv[2] ?? '/api/v1/health/ping';
const dir = path.resolve(process.argv[3] ?? 'bench/out/profile');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
process.env.BENCH_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${dir}`;
const svc = await startService(url, {
  VULNINTEL_CVE_CACHE_ENTRIES: process.env.BENCH_CACHE === '0' ? '0' : '20000',
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
});
let n = 0;
let ids: string[] = [];
if (target.includes('{id}')) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  ids = (
    await c.query<{ cve_id: string }>(`SELECT cve_id FROM cves TABLESAMPLE SYSTEM (40) ORDER BY random() LIMIT 100000`)
  ).rows.map((x) => x.cve_id);
  await c.end();
}
const loadFrom = Number(process.hrtime.bigint() / 1000n);
const r = await load(svc.base, {
  connections: 50,
  seconds: Number(process.env.BENCH_DURATION ?? 10),
  path: () => {
    const k = n++;
    return target.replace('{n}', String(k)).replace('{id}', ids[k % Math.max(1, ids.length)]);
  },
});
process.stdout.write(`${Math.round(r.requests.average)} req/s, non-2xx ${r.non2xx}\n`);
const exited = new Promise((res) => svc.proc.once('exit', res));
stop(svc);
await exited;
// The main thread's profile is the largest (tsx's loader thread writes a second one).
const file = readdirSync(dir)
  .filter((f) => f.endsWith('.cpuprofile'))
  .sort((a, b) => statSync(path.join(dir, b)).size - statSync(path.join(dir, a)).size)[0];
if (!file) throw new Error('no profile written');
process.stdout.write(summarize(path.join(dir, file), 30, loadFrom));
