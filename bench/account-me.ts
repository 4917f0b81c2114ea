// Session-authenticated `GET /api/v1/account/me` (target: ≥ 3,000 req/s), side by side in one run with a bare
// Fastify server's ping (the machine's baseline, own process, same autocannon settings). The service runs as
// `npm start` runs it (src/main.ts) on a fresh database of its own (migrations at start, then one organization,
// its owner and one browser session seeded through the store); every request carries the session cookie, so each
// one looks the session up, checks its idle and absolute expiry and reads the member. Rounds interleave the two
// servers; each figure is the median of its rounds, with the service's CPU per request. Then the same route in this
// process through inject() against a bare ping (CPU µs per request; meaningful on a loaded machine too).
// Usage: npx tsx bench/account-me.ts   (PostgreSQL at 127.0.0.1:5432; BENCH_DURATION s, default 5; BENCH_ROUNDS, 5;
//        BENCH_CONNECTIONS, 50; BENCH_INJECT_REQUESTS per in-process round, 3000)
import Fastify from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { cpuSeconds, freshDatabase, load, median, startBare, startService, stop, type Target } from './harness.ts';
import { openStore } from '../src/store/db.ts';
import { createMember, createOrganization, insertSession } from '../src/store/identity.ts';
import { randomToken, sha256Hex } from '../src/lib/crypto.ts';
import { CSRF_COOKIE, SESSION_COOKIE, csrfTokenFor } from '../src/http/session-cookies.ts';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/lib/logger.ts';

const seconds = Number(process.env.BENCH_DURATION ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DB = 'vi_bench_account_me';
const url = await freshDatabase(DB);

let svc: Target | undefined;
let bare: Target | undefined;
try {
  svc = await startService(url, { VULNINTEL_EDGE_LIMIT_PER_MINUTE: '0' }); // runs the migrations
  bare = await startBare();
  const store = openStore(url, { max: 2 });
  const org = await createOrganization(store.db, 'Bench Org', 'professional');
  const m = await createMember(store.db, org.id, 'owner@bench.example.test', 'owner', 'Bench Owner');
  const token = randomToken();
  await insertSession(store.db, org.id, m.id, sha256Hex(token), new Date(Date.now() + 86_400_000));
  await store.close();
  const cookie = `${SESSION_COOKIE}=${token}; ${CSRF_COOKIE}=${csrfTokenFor(token)}`;
  const check = await fetch(`${svc.base}/api/v1/account/me`, { headers: { cookie } });
  const body = (await check.json()) as { data?: { email?: string } };
  if (check.status !== 200 || body.data?.email !== 'owner@bench.example.test')
    throw new Error(`account/me answered ${check.status}`);

  const scenarios = [
    { name: 'bare fastify: ping', t: bare, path: '/api/v1/health/ping', headers: {} as Record<string, string> },
    { name: 'service: GET /api/v1/account/me with a session', t: svc, path: '/api/v1/account/me', headers: { cookie } },
  ];
  for (const s of scenarios)
    await load(s.t.base, { connections: 10, seconds: 2, path: () => s.path, headers: s.headers });
  const rps = scenarios.map(() => [] as number[]);
  const cpu = scenarios.map(() => [] as number[]);
  let bad = 0;
  for (let r = 0; r < rounds; r++) {
    for (const [i, s] of scenarios.entries()) {
      const c0 = cpuSeconds(s.t.proc.pid!);
      const res = await load(s.t.base, { connections, seconds, path: () => s.path, headers: s.headers });
      const c1 = cpuSeconds(s.t.proc.pid!);
      rps[i].push(res.requests.average);
      cpu[i].push(((c1 - c0) * 1e6) / Math.max(1, res.requests.total));
      bad += res.non2xx + res.errors;
    }
  }
  const base = median(rps[0]);
  for (const [i, s] of scenarios.entries()) {
    console.log(
      JSON.stringify({
        scenario: s.name,
        req_per_s: Math.round(median(rps[i])),
        rounds: rps[i].map(Math.round),
        ratio_to_bare: Math.round((median(rps[i]) / base) * 1000) / 1000,
        cpu_us_per_req: Math.round(median(cpu[i])),
      }),
    );
  }
  console.log(JSON.stringify({ non2xx_or_errors: bad, connections, rounds, seconds }));
  await inProcess(cookie);
} finally {
  stop(svc, bare);
  // The bench's own database goes with it (the service is stopping: force its connections closed).
  await new Promise((r) => setTimeout(r, 500));
  const c = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await c.end();
}

/**
 * The route's CPU per request in this process, through `inject()` (no sockets, no HTTP parsing): the service's
 * app on the same database against a bare Fastify ping, interleaved over rounds (round 0 warms up). CPU time is
 * what the request costs the process, so the figure holds on a loaded machine, unlike a rate; the access log is
 * in, written to /dev/null.
 */
async function inProcess(cookie: string): Promise<void> {
  const n = Number(process.env.BENCH_INJECT_REQUESTS ?? 3000);
  process.env.DATABASE_URL = url;
  process.env.VULNINTEL_EDGE_LIMIT_PER_MINUTE = '0';
  const config = loadConfig();
  const store = openStore(url, { max: 4 });
  const app = await buildApp({ config, store, logger: createLogger('info', pino.destination('/dev/null')) });
  const bareApp = Fastify({ logger: false });
  bareApp.get('/api/v1/health/ping', async () => ({ ping: 'pong' }));
  await Promise.all([app.ready(), bareApp.ready()]);
  const apps = [
    { name: 'bare fastify: ping (inject)', app: bareApp, url: '/api/v1/health/ping', headers: {} },
    {
      name: 'service: GET /api/v1/account/me with a session (inject)',
      app,
      url: '/api/v1/account/me',
      headers: { cookie },
    },
  ];
  const cpuUs = apps.map(() => [] as number[]);
  for (let r = 0; r <= rounds; r++) {
    for (const [i, a] of apps.entries()) {
      const c0 = process.cpuUsage();
      for (let k = 0; k < n; k++) {
        const res = await a.app.inject({ method: 'GET', url: a.url, headers: a.headers });
        if (res.statusCode !== 200) throw new Error(`${a.name}: ${res.statusCode}`);
      }
      const c = process.cpuUsage(c0);
      if (r > 0) cpuUs[i].push((c.user + c.system) / n);
    }
  }
  for (const [i, a] of apps.entries()) {
    console.log(
      JSON.stringify({
        scenario: a.name,
        cpu_us_per_req: Number(median(cpuUs[i]).toFixed(1)),
        rounds: cpuUs[i].map(Math.round),
        requests_per_round: n,
      }),
    );
  }
  await Promise.all([app.close(), bareApp.close()]);
  await store.close();
}
