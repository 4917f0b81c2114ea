// One API process's memory through a mixed load (docs/benchmarks.md "The read path against the ceiling"): the process as `npm start` runs it
// (the node flags of the checkout's package.json `start` script, `vulnintel serve`, default caches), on the full
// corpus. It samples the process's RSS (every thread: the search index lives in a worker thread) every 2 s:
//  1. idle after the start;
//  2. while the search index builds (started by the first broad search, awaited by harness.ts indexBuilt);
//  3. BENCH_MINUTES (default 10) of mixed load from BENCH_CONNECTIONS (default 12) clients: CVE detail with distinct
//     ids (anonymous and keyed), lists (filters, sorts, pages), broad full-text searches (distinct pages) and a few
//     v1 asset correlations of 200 nameplates each, rotating over four enterprise keys (within their rate limits).
// Reports idle, built, the peak sampled in each phase, the kernel's own peak (VmHWM), the steady RSS (median of the
// last half of the load) and the statuses. BENCH_BEFORE_DIR=<checkout> runs that checkout's service beside this one
// under the same load at the same time (before/after in one run). The bench seeds organizations and keys and
// deletes them at the end, so point it at a writable copy of the benchmark database (BENCH_NODE_ARGS: more node
// flags for the services, e.g. an --import that logs their heap):
//   createdb -h 127.0.0.1 -U postgres -T vi_bench vi_mem
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/vi_mem npx tsx bench/memory-run.ts
// Never part of `npm test`.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from '../src/store/kysely.ts';
import { openStore } from '../src/store/db.ts';
import { seedOrg } from '../test/helpers/app.ts';
import { PHRASES, indexBuilt, median, randomPort, waitUp } from './harness.ts';
import { assetsFrom } from './nameplates.ts';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/vi_mem';
const MINUTES = Number(process.env.BENCH_MINUTES ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 12);
const TARGET_MB = 700;

interface Service {
  name: string;
  base: string;
  proc: ChildProcess;
  samples: { at: number; phase: string; mb: number }[];
  statuses: Record<string, number>;
}

const status = (pid: number, field: string) =>
  Math.round(
    Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
  );

/** `vulnintel serve` with the node flags of the checkout's `npm start`. */
async function start(cwd: string, name: string): Promise<Service> {
  const script = (
    JSON.parse(readFileSync(path.join(cwd, 'package.json'), 'utf8')) as { scripts: { start: string } }
  ).scripts.start.split(' ');
  if (script[0] !== 'node') throw new Error(`unexpected start script: ${script.join(' ')}`);
  const port = randomPort();
  const log = openSync(`/tmp/memory-run-${name}.log`, 'w');
  const extra = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const proc = spawn(process.execPath, [...extra, ...script.slice(1)], {
    cwd,
    stdio: ['ignore', log, log],
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      VULNINTEL_AUTO_IMPORT: 'false',
      VULNINTEL_EDGE_LIMIT_PER_MINUTE: '0',
      VULNINTEL_PUBLIC_URL: 'http://vulnintel.test',
      VULNINTEL_DATA_DIR: `/tmp/memory-run-${name}`,
    },
  });
  const s: Service = { name, base: `http://127.0.0.1:${port}`, proc, samples: [], statuses: {} };
  await waitUp(s.base);
  return s;
}

const store = openStore(url, { max: 2 });
const orgs = await Promise.all(
  Array.from({ length: 4 }, (_, i) => seedOrg(store, { name: `memory-run ${i}`, tier: 'enterprise' })),
);
const services: Service[] = [];
try {
  const ids = (
    await sql<{
      cve_id: string;
    }>`SELECT cve_id FROM cves TABLESAMPLE SYSTEM (40) ORDER BY random() LIMIT 150000`.execute(store.db)
  ).rows.map((r) => r.cve_id);
  const vendors = (
    await sql<{ vendor: string }>`SELECT slug AS vendor FROM vendors ORDER BY md5(slug) LIMIT 200`
      .execute(store.db)
      .catch(() => ({ rows: [] }))
  ).rows.map((r) => r.vendor);
  const assets = JSON.stringify({ assets: await assetsFrom(store, true) });
  if (process.env.BENCH_BEFORE_DIR) services.push(await start(process.env.BENCH_BEFORE_DIR, 'before'));
  services.push(await start(process.cwd(), 'after'));
  let phase = 'idle';
  const sample = () => {
    for (const s of services) s.samples.push({ at: Date.now(), phase, mb: status(s.proc.pid!, 'VmRSS') });
  };
  const timer = setInterval(sample, 2000);
  await new Promise((r) => setTimeout(r, 10_000));
  phase = 'build';
  const built = await Promise.all(services.map((s) => indexBuilt(s, 900_000)));
  const hwmBuilt = services.map((s) => status(s.proc.pid!, 'VmHWM'));
  phase = 'load';
  let n = 0;
  const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
  const lists = [
    () => `severity=HIGH&sort_by=cvss&page=${1 + (n % 50)}`,
    () => `sort_by=epss&page=${1 + (n % 50)}`,
    () => `kev=true&page=${1 + (n % 20)}`,
    () => `cvss_min=7&date_from=2022-01-01&page=${1 + (n % 50)}`,
    () => (vendors.length ? `vendor=${pick(vendors)}` : 'has_exploit=true'),
  ];
  const request = (): [string, RequestInit, number] => {
    const i = n++;
    const key = orgs[i % orgs.length].auth;
    const r = i % 20;
    if (r < 7) return [`/api/v1/cves/${ids[i % ids.length]}`, {}, 0];
    if (r < 9) return [`/api/v1/cves/${ids[(i * 7) % ids.length]}`, { headers: key }, 0];
    if (r < 14) return [`/api/v1/cves?${pick(lists)()}`, r === 13 ? { headers: key } : {}, 0];
    if (r < 19)
      return [
        `/api/v1/cves?q=${encodeURIComponent(PHRASES[i % PHRASES.length])}&page=${1 + (Math.floor(i / PHRASES.length) % 200)}`,
        {},
        0,
      ];
    return [
      '/api/v1/assets/correlate-cves',
      { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: assets },
      1,
    ];
  };
  const end = Date.now() + MINUTES * 60_000;
  let correlations = 0;
  await Promise.all(
    services.flatMap((s) =>
      Array.from({ length: CONNECTIONS }, async () => {
        while (Date.now() < end) {
          const [p, init, corr] = request();
          // Correlations: at most 20 a minute per service (four keys, each allowed 25 calls of 200 assets a minute).
          if (corr && correlations >= ((Date.now() - end + MINUTES * 60_000) / 60_000 + 1) * 20 * services.length)
            continue;
          correlations += corr;
          let code: number;
          try {
            const r = await fetch(`${s.base}${p}`, init);
            await r.arrayBuffer();
            code = r.status;
          } catch {
            code = -1;
          }
          s.statuses[code] = (s.statuses[code] ?? 0) + 1;
        }
      }),
    ),
  );
  sample();
  clearInterval(timer);
  const loadStart = end - MINUTES * 60_000;
  process.stdout.write(
    `${JSON.stringify(
      {
        minutes: MINUTES,
        connections_per_service: CONNECTIONS,
        target_mb: TARGET_MB,
        services: services.map((s, k) => {
          const of = (ph: string) => s.samples.filter((x) => x.phase === ph).map((x) => x.mb);
          const load = of('load');
          const steady = s.samples
            .filter((x) => x.phase === 'load' && x.at >= loadStart + (MINUTES * 60_000) / 2)
            .map((x) => x.mb);
          const peak = Math.max(...s.samples.map((x) => x.mb));
          const hwm = status(s.proc.pid!, 'VmHWM');
          return {
            name: s.name,
            idle_mb: median(of('idle')),
            index_build_s: built[k],
            build_peak_mb: Math.max(...of('build')),
            hwm_after_build_mb: hwmBuilt[k],
            load_peak_mb: Math.max(...load),
            steady_mb: median(steady),
            end_mb: load.at(-1),
            peak_mb: peak,
            hwm_mb: hwm,
            within_target: hwm <= TARGET_MB,
            requests: Object.values(s.statuses).reduce((a, b) => a + b, 0),
            statuses: s.statuses,
            rss_per_minute: Array.from({ length: MINUTES }, (_, m) =>
              Math.max(
                0,
                ...s.samples
                  .filter(
                    (x) => x.phase === 'load' && x.at >= loadStart + m * 60_000 && x.at < loadStart + (m + 1) * 60_000,
                  )
                  .map((x) => x.mb),
              ),
            ),
          };
        }),
      },
      null,
      2,
    )}\n`,
  );
} finally {
  for (const s of services) s.proc.kill('SIGTERM');
  const org = orgs.map((o) => o.orgId);
  await sql`DELETE FROM api_keys WHERE org_id = ANY(${org}::bigint[])`.execute(store.db);
  await sql`DELETE FROM members WHERE org_id = ANY(${org}::bigint[])`.execute(store.db);
  await sql`DELETE FROM organizations WHERE id = ANY(${org}::bigint[])`.execute(store.db).catch(() => undefined);
  await store.close();
}
