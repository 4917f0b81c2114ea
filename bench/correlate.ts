// v1 asset correlation on the full corpus (docs/benchmarks.md "Asset correlation"):
//  1. in process (app.inject): BENCH_ROUNDS calls of POST /api/v1/assets/correlate-cves and of /check with the same
//     200 mixed ICS and IT assets: p50, p99 wall time and CPU per call (process.cpuUsage: steadier on a loaded box);
//     then `correlate_stream`: the full call again with the answer read as the route's stream (bytes counted, not
//     decoded into a string by light-my-request, which the figure above includes);
//  2. over HTTP: the same app in a child process (this file with `serve`, the correlation rate limit lifted),
//     sequential p50/p99 of both calls, then 20 concurrent clients (autocannon) sending 200-asset calls for
//     BENCH_DURATION s: requests/s, assets/s and server CPU per call;
//  3. the structured-range table: rows, table and index size.
// The 200 assets are drawn from the stored ranges as a nameplate would give them (bench/nameplates.ts).
// The bench seeds an enterprise organization and key in DATABASE_URL and deletes them at the end, so point it at
// a writable copy of the benchmark database:
//   psql -h 127.0.0.1 -U postgres -c "CREATE DATABASE corr_bench TEMPLATE vi_bench"
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/corr_bench nice -n 10 node --import tsx bench/correlate.ts
// BENCH_ROUNDS (default 60), BENCH_DURATION (s, default 15), BENCH_HTTP=0 skips part 2. Never part of `npm test`.
import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { sql } from '../src/store/kysely.ts';
import { loadConfig } from '../src/config.ts';
import { buildApp } from '../src/app.ts';
import { systemClock } from '../src/lib/clock.ts';
import { openStore, type Store } from '../src/store/db.ts';
import { seedOrg, TEST_INTERNAL_KEY } from '../test/helpers/app.ts';
import { pct, randomPort, waitUp, cpuSeconds } from './harness.ts';
import { assetsFrom } from './nameplates.ts';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/corr_bench';
const rounds = Number(process.env.BENCH_ROUNDS ?? 60);
const seconds = Number(process.env.BENCH_DURATION ?? 15);
const FULL = '/api/v1/assets/correlate-cves';
const CHECK = '/api/v1/assets/correlate-cves/check';
const unlimited = {
  correlation: { requests: { points: 1e9, durationSec: 60 }, units: { points: 1e12, durationSec: 60 } },
};

async function makeApp(store: Store) {
  const config = loadConfig({
    DATABASE_URL: url,
    VULNINTEL_INTERNAL_KEY: TEST_INTERNAL_KEY,
    VULNINTEL_PUBLIC_URL: 'http://vulnintel.test',
    VULNINTEL_AUTO_IMPORT: 'false',
    LOG_LEVEL: 'silent',
    VULNINTEL_EDGE_LIMIT_PER_MINUTE: '0',
  });
  const app = await buildApp({ config, store, clock: systemClock, rateProfiles: unlimited });
  await app.ready();
  return app;
}

if (process.argv[2] === 'serve') {
  const store = openStore(url);
  const app = await makeApp(store);
  await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
  // A clean exit on the parent's SIGTERM (a --cpu-prof given through BENCH_SERVE_ARGS is written at exit).
  process.once('SIGTERM', () => {
    void app
      .close()
      .then(() => store.close())
      .finally(() => process.exit(0));
  });
} else {
  await main();
}

async function main() {
  const store = openStore(url);
  const org = await seedOrg(store, { name: 'corr-bench', tier: 'enterprise' });
  const children: ReturnType<typeof spawn>[] = [];
  try {
    const assets = await assetsFrom(store);
    const size = (
      await sql<{ rows: string; table: string; indexes: string; total: string }>`
      SELECT (SELECT count(*) FROM cve_ranges)::text AS rows, pg_size_pretty(pg_table_size('cve_ranges')) AS table,
        pg_size_pretty(pg_indexes_size('cve_ranges')) AS indexes, pg_size_pretty(pg_total_relation_size('cve_ranges')) AS total`.execute(
        store.db,
      )
    ).rows[0];
    const corpus = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM cves`.execute(store.db)).rows[0].n;
    const app = await makeApp(store);
    const payload = { assets };
    // `stream`: the answer is taken as the stream the route writes and its bytes counted, not decoded into one
    // string by light-my-request (about 100 ms of the in-process figure for the 22 MB answer is that decoding: work
    // of the harness, which a client over HTTP does on its own side).
    const inproc = async (path: string, stream = false) => {
      const ms: number[] = [];
      const cpu: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const r = await app.inject({ method: 'POST', url: path, headers: org.auth, payload, payloadAsStream: stream });
        let bytes = 0;
        if (stream) for await (const chunk of r.stream()) bytes += (chunk as Buffer).length;
        ms.push(performance.now() - t0);
        const c = process.cpuUsage(c0);
        cpu.push((c.user + c.system) / 1000);
        if (r.statusCode !== 200) throw new Error(`${path}: ${r.statusCode} ${stream ? bytes : r.body.slice(0, 300)}`);
      }
      ms.sort((a, b) => a - b);
      cpu.sort((a, b) => a - b);
      const C = (globalThis as any).__C;
      if (C) {
        console.error(
          path,
          JSON.stringify(Object.fromEntries(Object.entries(C).map(([k, v]) => [k, Math.round((v as number) / C.n)]))),
        );
        (globalThis as any).__C = undefined;
      }
      return {
        p50_ms: +pct(ms, 0.5).toFixed(1),
        p99_ms: +pct(ms, 0.99).toFixed(1),
        cpu_p50_ms: +pct(cpu, 0.5).toFixed(1),
      };
    };
    await inproc(FULL); // warm-up (plans, caches, JIT)
    const full = process.env.BENCH_ONLY === 'check' ? null : await inproc(FULL);
    const check = await inproc(CHECK);
    const fullStream = process.env.BENCH_ONLY === 'check' ? null : await inproc(FULL, true);
    const res = await app.inject({ method: 'POST', url: FULL, headers: org.auth, payload });
    const body = res.json();
    if (process.env.BENCH_DUMP) (await import('node:fs')).writeFileSync(process.env.BENCH_DUMP, res.rawPayload);
    const matched = body.data.assets.filter((a: { cves: unknown[] }) => a.cves.length).length;
    const listed = body.data.assets.reduce((n: number, a: { cves: unknown[] }) => n + a.cves.length, 0);
    await app.close();
    const out: Record<string, unknown> = {
      corpus_cves: corpus,
      cve_ranges: size,
      assets: assets.length,
      assets_with_cves: matched,
      cves_listed: listed,
      response_bytes: res.rawPayload.length,
      rounds,
      in_process: { correlate: full, check, correlate_stream: fullStream },
    };
    if (process.env.BENCH_HTTP !== '0') {
      const port = randomPort();
      const child = spawn(
        process.execPath,
        [
          ...(process.env.BENCH_SERVE_ARGS ? process.env.BENCH_SERVE_ARGS.split(' ') : []),
          '--import',
          'tsx',
          'bench/correlate.ts',
          'serve',
        ],
        {
          env: { ...process.env, DATABASE_URL: url, PORT: String(port) },
          stdio: ['ignore', process.env.BENCH_SERVE_OUT ? 'inherit' : 'ignore', 'inherit'],
        },
      );
      children.push(child);
      const base = `http://127.0.0.1:${port}`;
      await waitUp(base);
      const text = JSON.stringify(payload);
      const headers = { ...org.auth, 'content-type': 'application/json' };
      const seq = async (path: string) => {
        const ms: number[] = [];
        for (let i = 0; i < rounds; i++) {
          const t0 = performance.now();
          const r = await fetch(base + path, { method: 'POST', headers, body: text });
          await r.arrayBuffer();
          if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
          ms.push(performance.now() - t0);
        }
        ms.sort((a, b) => a - b);
        return { p50_ms: +pct(ms, 0.5).toFixed(1), p99_ms: +pct(ms, 0.99).toFixed(1) };
      };
      await seq(FULL);
      const httpFull = await seq(FULL);
      const httpCheck = await seq(CHECK);
      const c0 = cpuSeconds(child.pid!);
      const r = await new Promise<autocannon.Result>((resolve, reject) =>
        autocannon(
          {
            url: base + FULL,
            connections: 20,
            duration: seconds,
            pipelining: 1,
            timeout: 120,
            method: 'POST',
            headers,
            body: text,
          },
          (err, res) => (err ? reject(err) : resolve(res)),
        ),
      );
      const calls = r.requests.total;
      out.http = {
        correlate: httpFull,
        check: httpCheck,
        concurrent_20: {
          seconds,
          calls,
          non_2xx: r.non2xx,
          errors: r.errors,
          calls_per_s: +(calls / seconds).toFixed(1),
          assets_per_s: Math.round((calls * assets.length) / seconds),
          latency_p50_ms: r.latency.p50,
          latency_p99_ms: r.latency.p99,
          server_cpu_ms_per_call: calls ? +(((cpuSeconds(child.pid!) - c0) * 1000) / calls).toFixed(1) : null,
        },
      };
    }
    console.log(JSON.stringify(out, null, 2));
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await sql`DELETE FROM api_keys WHERE org_id = ${org.orgId}`.execute(store.db);
    await sql`DELETE FROM members WHERE org_id = ${org.orgId}`.execute(store.db);
    await sql`DELETE FROM organizations WHERE id = ${org.orgId}`.execute(store.db).catch(() => undefined);
    await store.close();
  }
}
