// `npm run bench:ceiling`: the read path against the machine's ceiling, in one run. The ceiling is a bare Fastify
// "hello" (bench/bare-fastify.ts) in its own process; the service (src/main.ts) runs with the response cache off
// (VULNINTEL_CVE_CACHE_ENTRIES=0) and the in-memory search index on, built before the first measurement. Every
// target is measured with the same load (autocannon, 50 connections, BENCH_DURATION s) in interleaved rounds
// (ceiling, then each scenario, BENCH_ROUNDS times) so the load of a shared machine hits all alike; each figure is
// the median of its rounds, and its share of the ceiling is the ratio of medians. Prints the read-path table with
// the targets, and the service's RSS (index built, idle; and after the load). Never part of `npm test`.
// Usage: DATABASE_URL=postgres://…/vi_bench npm run bench:ceiling
//        BENCH_BEFORE_DIR=/path/to/checkout also runs that checkout's service (e.g. the code before a change) in the
//        same rounds, as the "before" column; BENCH_DURATION (s, default 8), BENCH_ROUNDS (default 3).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import autocannon from 'autocannon';
import { PHRASES, indexBuilt, load, median, startBare, startService, stop, type Target } from './harness.ts';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/vi_bench';
const seconds = Number(process.env.BENCH_DURATION ?? 8);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 50;

const c = new pg.Client({ connectionString: url });
await c.connect();
// Distinct ids, shuffled (TABLESAMPLE keeps page order): more than a run requests, so no id repeats.
const ids = (
  await c.query<{ cve_id: string }>(`SELECT cve_id FROM cves TABLESAMPLE SYSTEM (40) ORDER BY random() LIMIT 120000`)
).rows.map((r) => r.cve_id);
const corpus = Number((await c.query(`SELECT count(*) AS n FROM cves`)).rows[0].n);
await c.end();

interface Scenario {
  name: string;
  path: () => string;
  target?: { share?: number; p99?: number };
}
let n = 0;
let pageN = 0;
const scenarios: Scenario[] = [
  { name: '`GET /api/v1/health/ping`', path: () => '/api/v1/health/ping', target: { share: 0.8 } },
  {
    name: 'CVE detail, distinct ids',
    path: () => `/api/v1/cves/${ids[n++ % ids.length]}`,
    target: { share: 0.2, p99: 50 },
  },
  {
    name: 'list `severity=HIGH&sort_by=cvss`',
    path: () => '/api/v1/cves?severity=HIGH&sort_by=cvss',
    target: { share: 0.15 },
  },
  {
    name: 'broad full-text `q`, distinct pages',
    // Ten broad phrases × 200 pages: each request a phrase and page not asked just before.
    path: () => {
      const i = pageN++;
      return `/api/v1/cves?q=${encodeURIComponent(PHRASES[i % PHRASES.length])}&page=${1 + (Math.floor(i / PHRASES.length) % 200)}`;
    },
    target: { share: 0.03, p99: 250 },
  },
];

const rssMb = (pid: number) =>
  Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);

interface Sample {
  rps: number[];
  p50: number[];
  p99: number[];
  bad: number;
}
const sample = (): Sample => ({ rps: [], p50: [], p99: [], bad: 0 });
const add = (s: Sample, r: autocannon.Result) => {
  s.rps.push(r.requests.average);
  s.p50.push(r.latency.p50);
  s.p99.push(r.latency.p99);
  s.bad += r.non2xx + r.errors;
};

const services: { name: string; dir: string }[] = [{ name: 'after', dir: process.cwd() }];
if (process.env.BENCH_BEFORE_DIR) services.unshift({ name: 'before', dir: process.env.BENCH_BEFORE_DIR });
const started: Target[] = [];
try {
  const bare = await startBare();
  started.push(bare);
  const svcs: Target[] = [];
  for (const s of services) {
    const t = await startService(url, { VULNINTEL_CVE_CACHE_ENTRIES: '0', LOG_LEVEL: 'warn' }, '/dev/null', s.dir);
    started.push(t);
    svcs.push(t);
  }
  const build = await Promise.all(svcs.map((t) => indexBuilt(t)));
  const rssIdle = svcs.map((t) => rssMb(t.proc.pid!));
  const ceiling = sample();
  const results = svcs.map(() => scenarios.map(sample));
  // Warm-up: every target once, briefly.
  await load(bare.base, { connections: 10, seconds: 2, path: () => '/api/v1/health/ping' });
  for (const t of svcs) for (const s of scenarios) await load(t.base, { connections: 10, seconds: 2, path: s.path });
  for (let r = 0; r < rounds; r++) {
    add(ceiling, await load(bare.base, { connections: CONNECTIONS, seconds, path: () => '/api/v1/health/ping' }));
    for (const [i, s] of scenarios.entries()) {
      // Alternate which service goes first, round by round.
      const order = svcs.map((_, k) => k);
      if (r % 2 === 1) order.reverse();
      for (const k of order)
        add(results[k][i], await load(svcs[k].base, { connections: CONNECTIONS, seconds, path: s.path }));
    }
    process.stderr.write(`round ${r + 1}/${rounds} done\n`);
  }
  const rssLoaded = svcs.map((t) => rssMb(t.proc.pid!));
  const top = median(ceiling.rps);
  const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
  const cell = (s: Sample) => `${fmt(median(s.rps))} req/s; p50 ${median(s.p50)} ms, p99 ${median(s.p99)} ms`;
  const share = (s: Sample) => `${((median(s.rps) / top) * 100).toFixed(1)} %`;
  const met = (sc: Scenario, s: Sample) => {
    if (!sc.target) return '';
    const okShare = sc.target.share === undefined || median(s.rps) / top >= sc.target.share;
    const okP99 = sc.target.p99 === undefined || median(s.p99) <= sc.target.p99;
    return okShare && okP99 ? 'met' : 'not met';
  };
  const targetText = (sc: Scenario) =>
    [
      sc.target?.share !== undefined ? `≥ ${sc.target.share * 100} %` : '',
      sc.target?.p99 !== undefined ? `p99 ≤ ${sc.target.p99} ms` : '',
    ]
      .filter(Boolean)
      .join(', ');
  const lines: string[] = [];
  const head =
    svcs.length === 2
      ? '| work | before | share | after | share | target | after meets |'
      : '| work | now | share of the ceiling | target | |';
  lines.push(head, head.replace(/[^|]+/g, '---'));
  lines.push(
    svcs.length === 2
      ? `| bare Fastify hello (ceiling) | ${cell(ceiling)} | 100 % | | | | |`
      : `| bare Fastify hello (ceiling) | ${cell(ceiling)} | 100 % | | |`,
  );
  for (const [i, sc] of scenarios.entries()) {
    const cols = results.map((x) => `${cell(x[i])} | ${share(x[i])}`).join(' | ');
    lines.push(`| ${sc.name} | ${cols} | ${targetText(sc)} | ${met(sc, results[results.length - 1][i])} |`);
  }
  const rssText = (k: number) =>
    `${rssIdle[k]} MB idle (index built in ${build[k].toFixed(0)} s), ${rssLoaded[k]} MB after the load`;
  lines.push(`| one API process's RSS | ${svcs.map((_, k) => `${rssText(k)} | `).join(' | ')} | ≤ 700 MB | |`);
  const bad = results.flat().reduce((a, s) => a + s.bad, 0) + ceiling.bad;
  const header = `corpus ${corpus.toLocaleString('en-US')} CVEs; ${CONNECTIONS} connections, ${seconds} s × ${rounds} rounds (medians); cache off; non-2xx or errors: ${bad}`;
  process.stdout.write(`${header}\n\n${lines.join('\n')}\n`);
  mkdirSync('bench/out', { recursive: true });
  writeFileSync(
    'bench/out/ceiling.json',
    JSON.stringify(
      {
        at: new Date().toISOString(),
        corpus,
        seconds,
        rounds,
        connections: CONNECTIONS,
        ceiling,
        services: services.map((s) => s.name),
        results: results.map((x) => Object.fromEntries(scenarios.map((sc, i) => [sc.name, x[i]]))),
        rssIdle,
        rssLoaded,
        indexBuildSeconds: build,
      },
      null,
      2,
    ),
  );
  if (bad > 0) process.exitCode = 1;
} finally {
  stop(...started);
}
