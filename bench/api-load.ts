// Load benchmark of the CVE API v1 over the loaded bench corpus (bench/load-corpus.ts). Starts the real server
// (src/main.ts) as a child process on 127.0.0.1, then per scenario runs autocannon with 50 connections for 10 s,
// and measures the unloaded single-client p50 of detail and list. Results go to stdout and
// bench/out/api-load-<label>.json. Never part of `npm test`.
// Usage: DATABASE_URL=postgres://postgres@127.0.0.1:5432/vulnintel_bench npx tsx bench/api-load.ts [label]
//        env BENCH_CACHE=0 runs the server with the response cache disabled; BENCH_DURATION (s), BENCH_ONLY (substrings, |-separated).
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { generateApiKey } from '../src/lib/crypto.ts';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/vulnintel_bench';
const label = process.argv[2] ?? (process.env.BENCH_CACHE === '0' ? 'nocache' : 'cache');
const PORT = 18080 + Math.floor(Math.random() * 1000);
const base = `http://127.0.0.1:${PORT}`;
const duration = Number(process.env.BENCH_DURATION ?? 10);
// BENCH_ROUNDS (default 3): rounds per scenario, interleaved.

// A paid (professional) key for the keyed scenarios (page size up to 100).
async function paidKey(): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const g = generateApiKey();
  const org = await c.query(`INSERT INTO organizations (name, tier) VALUES ('bench', 'professional') RETURNING id`);
  const m = await c.query(`INSERT INTO members (org_id, email, role) VALUES ($1, $2, 'owner') RETURNING id`, [
    org.rows[0].id,
    `bench-${Date.now()}@example.test`,
  ]);
  await c.query(
    `INSERT INTO api_keys (org_id, member_id, key_hash, key_start, kind, scopes) VALUES ($1, $2, $3, $4, 'standard', '{read}')`,
    [org.rows[0].id, m.rows[0].id, g.hash, g.start],
  );
  const sample = await c.query(`SELECT cve_id FROM cves TABLESAMPLE SYSTEM (25) LIMIT 80000`);
  detailIds = sample.rows.map((r) => r.cve_id as string);
  await c.end();
  return g.key;
}
let detailIds: string[] = [];

async function waitUp() {
  for (let i = 0; i < 200; i++) {
    try {
      const r = await fetch(`${base}/api/v1/health/ping`);
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not start');
}

// Anonymous by default: every API-key request also writes the monthly allowance counter and last_used_at
// (foundation, spec §8), one hot row per organization; the `keyed` scenarios measure that path separately.
interface Scenario {
  name: string;
  path: string;
  matches?: string;
  rotate?: boolean;
  keyed?: boolean;
}

const scenarios: Scenario[] = [
  { name: 'ping (machine baseline, no database)', path: '/api/v1/health/ping' },
  // Ids are never repeated within a run (80k distinct, fewer requests than that): every detail is a cache miss.
  { name: 'detail, distinct ids', path: '/api/v1/cves/{id}', rotate: true },
  { name: 'detail (one id)', path: '/api/v1/cves/CVE-2021-44228' },
  { name: 'list, no filter', path: '/api/v1/cves' },
  { name: 'list, severity=CRITICAL', path: '/api/v1/cves?severity=CRITICAL' },
  { name: 'list, kev=true', path: '/api/v1/cves?kev=true' },
  { name: 'list, vendor=moxa', path: '/api/v1/cves?vendor=moxa' },
  { name: 'list, q=out-of-bounds', path: '/api/v1/cves?q=out-of-bounds' },
  { name: 'list, sort_by=epss', path: '/api/v1/cves?sort_by=epss' },
  { name: 'list, page=500', path: '/api/v1/cves?page=500' },
  { name: 'list, page=500 per_page=100', path: '/api/v1/cves?page=500&per_page=100' },
  {
    name: 'list, severity=HIGH&kev=false&has_exploit=true',
    path: '/api/v1/cves?severity=HIGH&kev=false&has_exploit=true',
  },
  { name: 'list, cvss_min=9.5&date_from=2020-01-01', path: '/api/v1/cves?cvss_min=9.5&date_from=2020-01-01' },
  { name: 'keyed: list, no filter, per_page=20 (professional key)', path: '/api/v1/cves', keyed: true },
  { name: 'keyed: list, page=500, per_page=100', path: '/api/v1/cves?page=500&per_page=100', keyed: true },
  { name: 'keyed: detail, distinct ids', path: '/api/v1/cves/{id}', rotate: true, keyed: true },
];

let next = 0;
function run(s: Scenario, key: string, connections: number, seconds: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: base,
        connections,
        duration: seconds,
        pipelining: 1,
        headers: s.keyed ? { authorization: `Bearer ${key}` } : {},
        requests: [
          {
            method: 'GET',
            setupRequest: (req) => ({
              ...req,
              path: s.rotate ? s.path.replace('{id}', detailIds[next++ % detailIds.length]) : s.path,
            }),
          },
        ],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
  });
}

async function p50(s: Scenario, key: string, n = 400): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = s.rotate ? s.path.replace('{id}', detailIds[next++ % detailIds.length]) : s.path;
    const t0 = performance.now();
    const r = await fetch(`${base}${p}`, { headers: s.keyed ? { authorization: `Bearer ${key}` } : {} });
    await r.arrayBuffer();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(n / 2)], p99: times[Math.floor(n * 0.99)] };
}

const key = await paidKey();
const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
  env: {
    ...process.env,
    DATABASE_URL: url,
    PORT: String(PORT),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    VULNINTEL_AUTO_IMPORT: 'false',
    VULNINTEL_CVE_CACHE_ENTRIES: process.env.BENCH_CACHE === '0' ? '0' : '20000',
    NODE_ENV: 'production',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
try {
  await waitUp();
  const only = process.env.BENCH_ONLY;
  // BENCH_ONLY: one substring, or several separated by '|' (ping, the machine baseline, is always kept first).
  const wanted = only ? only.split('|') : null;
  const chosen = scenarios.filter((x, i) => !wanted || i === 0 || wanted.some((w) => x.name.includes(w)));
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  // On a shared machine the load of other processes moves in bursts: scenarios are interleaved over several
  // rounds and each figure is the median of its rounds; ratios are against ping measured in the same rounds.
  const samples = new Map<string, { rps: number[]; p50: number[]; p99: number[]; non2xx: number; errors: number }>();
  const probes = new Map<string, { total: number; per_page: number } | undefined>();
  for (const s of chosen) {
    const probe = (await (
      await fetch(`${base}${s.path.replace('{id}', detailIds[0])}`, {
        headers: s.keyed ? { authorization: `Bearer ${key}` } : {},
      })
    ).json()) as { pagination?: { total: number; per_page: number } };
    probes.set(s.name, probe.pagination);
    await run(s, key, 10, 2); // warm-up (fills the cache when it is on)
    samples.set(s.name, { rps: [], p50: [], p99: [], non2xx: 0, errors: 0 });
  }
  for (let round = 0; round < rounds; round++) {
    for (const s of chosen) {
      const r = await run(s, key, 50, duration);
      const x = samples.get(s.name)!;
      x.rps.push(r.requests.average);
      x.p50.push(r.latency.p50);
      x.p99.push(r.latency.p99);
      x.non2xx += r.non2xx;
      x.errors += r.errors;
    }
  }
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  const pingRps = median(samples.get(chosen[0].name)!.rps);
  const results: Record<string, unknown>[] = [];
  for (const s of chosen) {
    const x = samples.get(s.name)!;
    const single = await p50(s, key);
    const row = {
      scenario: s.name,
      path: s.path,
      matches: probes.get(s.name)?.total ?? 1,
      per_page: probes.get(s.name)?.per_page ?? null,
      req_per_s: Math.round(median(x.rps)),
      rounds_req_per_s: x.rps.map(Math.round),
      ratio_to_ping: Number((median(x.rps) / pingRps).toFixed(3)),
      p50_ms: median(x.p50),
      p99_ms: median(x.p99),
      non2xx: x.non2xx,
      errors: x.errors,
      single_p50_ms: Number(single.p50.toFixed(2)),
      single_p99_ms: Number(single.p99.toFixed(2)),
    };
    results.push(row);
    process.stdout.write(`${JSON.stringify(row)}\n`);
  }
  mkdirSync('bench/out', { recursive: true });
  writeFileSync(
    path.join('bench/out', `api-load-${label}.json`),
    JSON.stringify({ label, at: new Date().toISOString(), duration, rounds, connections: 50, results }, null, 2),
  );
} finally {
  server.kill('SIGTERM');
}
