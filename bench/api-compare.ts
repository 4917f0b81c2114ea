// Side by side: two builds of the server (e.g. before and after a change) on the same database, each in its own
// process on 127.0.0.1, measured in interleaved rounds (A, B, A, B, ...) so the load of a shared machine hits
// both alike; each figure is the median of its rounds and the ratio B/A is per scenario. Never part of `npm test`.
// Usage: DATABASE_URL=… npx tsx bench/api-compare.ts <dirA> <dirB>   (each dir holds a checkout with node_modules)
//        BENCH_DURATION (s, default 4), BENCH_ROUNDS (default 5), BENCH_CONNECTIONS (default 20)
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/vulnintel_bench';
const [dirA, dirB] = process.argv.slice(2).map((d) => path.resolve(d));
if (!dirA || !dirB) throw new Error('usage: api-compare.ts <dirA> <dirB>');
const duration = Number(process.env.BENCH_DURATION ?? 4);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);

const c = new pg.Client({ connectionString: url });
await c.connect();
const ids = (await c.query(`SELECT cve_id FROM cves TABLESAMPLE SYSTEM (50) LIMIT 40000`)).rows.map(
  (r) => r.cve_id as string,
);
const oneId = ids[0];
await c.end();

function start(dir: string, port: number, cache: boolean): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: dir,
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      VULNINTEL_AUTO_IMPORT: 'false',
      VULNINTEL_CVE_CACHE_ENTRIES: cache ? '20000' : '0',
      NODE_ENV: 'production',
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

async function waitUp(port: number) {
  for (let i = 0; i < 1200; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/v1/health/ping`)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server on ${port} did not start`);
}

let next = 0;
function run(port: number, p: string, rotate: boolean): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: `http://127.0.0.1:${port}`,
        connections,
        duration,
        pipelining: 1,
        requests: [
          {
            method: 'GET',
            setupRequest: (req) => ({ ...req, path: rotate ? p.replace('{id}', ids[next++ % ids.length]) : p }),
          },
        ],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
  });
}

// Uncached (cache off) so every detail is serialized from a fresh document; cached figures follow the same path.
const scenarios = [
  { name: 'ping', path: '/api/v1/health/ping', rotate: false },
  { name: 'detail, distinct ids (uncached)', path: '/api/v1/cves/{id}', rotate: true },
  { name: 'detail, one id', path: `/api/v1/cves/${oneId}`, rotate: false },
  { name: 'list, no filter', path: '/api/v1/cves', rotate: false },
  { name: 'list, severity=CRITICAL', path: '/api/v1/cves?severity=CRITICAL', rotate: false },
];

const cache = process.env.BENCH_CACHE !== '0';
const ports = [19100 + Math.floor(Math.random() * 400), 19600 + Math.floor(Math.random() * 400)];
const servers = [start(dirA, ports[0], cache), start(dirB, ports[1], cache)];
try {
  await Promise.all(ports.map(waitUp));
  const samples = scenarios.map(() => [[] as number[], [] as number[]]);
  const p50s = scenarios.map(() => [[] as number[], [] as number[]]);
  for (const s of scenarios) for (const port of ports) await run(port, s.path, s.rotate); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const [i, s] of scenarios.entries()) {
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      for (const k of order) {
        const res = await run(ports[k], s.path, s.rotate);
        if (res.non2xx || res.errors)
          throw new Error(`${s.name} on ${k ? 'B' : 'A'}: ${res.non2xx} non-2xx, ${res.errors} errors`);
        samples[i][k].push(res.requests.average);
        p50s[i][k].push(res.latency.p50);
      }
    }
  }
  const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  for (const [i, s] of scenarios.entries()) {
    const [a, b] = samples[i].map(median);
    console.log(
      JSON.stringify({
        scenario: s.name,
        a_req_per_s: Math.round(a),
        b_req_per_s: Math.round(b),
        ratio_b_to_a: Number((b / a).toFixed(3)),
        a_p50_ms: median(p50s[i][0]),
        b_p50_ms: median(p50s[i][1]),
        a_rounds: samples[i][0].map(Math.round),
        b_rounds: samples[i][1].map(Math.round),
      }),
    );
  }
} finally {
  for (const s of servers) s.kill('SIGTERM');
}
