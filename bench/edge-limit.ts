// The edge limit's cost on anonymous CVE detail (target: at most 10 % of its throughput), side by side in one
// run: the same service twice, as `npm start` runs it, against the same database: A with the edge limit off
// (VULNINTEL_EDGE_LIMIT_PER_MINUTE=0), B with it on and a limit no load reaches (every request is counted by
// the limiter, none is refused, so B pays the whole per-request cost and serves the same 200s). Anonymous GET
// /api/v1/cves/{id} over distinct ids, response cache on (the default). Rounds interleave A and B; each figure
// is the median of its rounds. On a loaded machine the throughput rounds spread widely, so the script also
// measures the limiter's own CPU per request in this process (the hook's work: address resolution and one
// consume, over as many distinct addresses as CVEs) and states it as a share of the detail's CPU per request.
// A third process, the limit off again, is the control: the spread between two processes of one build.
// Usage: DATABASE_URL=postgres://postgres@127.0.0.1:5432/vi_train_edge npx tsx bench/edge-limit.ts
//        (a small corpus: sh bench/import-fresh.sh vi_train_edge <dir of bench/generate-corpus.ts output>)
//        BENCH_DURATION (s, default 5), BENCH_ROUNDS (default 5), BENCH_CONNECTIONS (default 50).
import pg from 'pg';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { cpuSeconds, load, median, startService, stop, type Target } from './harness.ts';
import { clientAddressResolver, parseTrustedProxies } from '../src/domain/client-address.ts';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/vi_train_edge';
const seconds = Number(process.env.BENCH_DURATION ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);

const c = new pg.Client({ connectionString: url });
await c.connect();
const ids = (await c.query<{ cve_id: string }>('SELECT cve_id FROM cves ORDER BY cve_id')).rows.map((r) => r.cve_id);
await c.end();
if (ids.length === 0) throw new Error('no CVEs in the database: import a corpus first');
let next = 0;
const detail = () => `/api/v1/cves/${ids[next++ % ids.length]}`;

let off: Target | undefined;
let on: Target | undefined;
let off2: Target | undefined;
try {
  off = await startService(url, { VULNINTEL_EDGE_LIMIT_PER_MINUTE: '0' });
  on = await startService(url, { VULNINTEL_EDGE_LIMIT_PER_MINUTE: '1000000000' });
  // The control: a second process with the limit off. Two processes of the same build differ by several percent
  // (JIT and heap state); the cost is only what the limit adds beyond that spread.
  off2 = await startService(url, { VULNINTEL_EDGE_LIMIT_PER_MINUTE: '0' });
  const targets = [
    { name: 'edge limit off', t: off },
    { name: 'edge limit on', t: on },
    { name: 'edge limit off (control process)', t: off2 },
  ];
  for (const s of targets) await load(s.t.base, { connections: 10, seconds: 3, path: detail }); // warm-up (caches, JIT)
  const rps = new Map(targets.map((s) => [s.name, [] as number[]]));
  const p99 = new Map(targets.map((s) => [s.name, [] as number[]]));
  const cpu = new Map(targets.map((s) => [s.name, [] as number[]]));
  let bad = 0;
  for (let r = 0; r < rounds; r++) {
    for (const s of [...targets.slice(r % 3), ...targets.slice(0, r % 3)]) {
      const c0 = cpuSeconds(s.t.proc.pid!);
      const res = await load(s.t.base, { connections, seconds, path: detail });
      cpu.get(s.name)!.push(((cpuSeconds(s.t.proc.pid!) - c0) * 1e6) / Math.max(1, res.requests.total));
      rps.get(s.name)!.push(res.requests.average);
      p99.get(s.name)!.push(res.latency.p99);
      bad += res.non2xx + res.errors;
    }
  }
  const a = median(rps.get('edge limit off')!);
  const b = median(rps.get('edge limit on')!);
  const a2 = median(rps.get('edge limit off (control process)')!);
  for (const s of targets) {
    console.log(
      `${s.name}: ${Math.round(median(rps.get(s.name)!))} req/s (rounds ${rps.get(s.name)!.map(Math.round).join(' / ')}), p99 ${median(p99.get(s.name)!)} ms, CPU ${Math.round(median(cpu.get(s.name)!))} µs/request`,
    );
  }
  console.log(
    `cost of the edge limit: ${((1 - (2 * b) / (a + a2)) * 100).toFixed(1)} % of throughput against the mean of the two limit-off processes (on/off = ${(b / a).toFixed(3)}, on/control = ${(b / a2).toFixed(3)}; control/off = ${(a2 / a).toFixed(3)} is the spread between two processes of the same build); non-2xx or errors: ${bad}`,
  );
  // The limiter's own work per request, CPU time in this process.
  const limiter = new RateLimiterMemory({ keyPrefix: 'edge', points: 1_000_000_000, duration: 60 });
  const resolve = clientAddressResolver(parseTrustedProxies(''));
  const n = 200_000;
  const u0 = process.cpuUsage();
  for (let i = 0; i < n; i++)
    await limiter.consume(resolve(`198.51.${((i >> 8) % ids.length) % 256}.${i & 255}`, undefined), 1);
  const u1 = process.cpuUsage(u0);
  const hookUs = (u1.user + u1.system) / n;
  const detailUs = median(cpu.get('edge limit off')!);
  console.log(
    `limiter alone: ${hookUs.toFixed(2)} µs CPU per request = ${((hookUs / detailUs) * 100).toFixed(2)} % of the detail's ${Math.round(detailUs)} µs CPU per request`,
  );
  console.log(
    `corpus ${ids.length} CVEs, ${connections} connections, ${rounds} rounds of ${seconds} s, load average ${(
      await import('node:os')
    )
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
} finally {
  stop(off, on, off2);
}
