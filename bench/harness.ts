// Shared pieces of the HTTP benchmarks: start the service (src/main.ts) or the bare Fastify baseline
// (bench/bare-fastify.ts) as child processes on 127.0.0.1, wait for them, and run autocannon with one set of
// settings for every target, so ratios between them compare like with like.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import pg from 'pg';

export interface Target {
  name: string;
  base: string;
  proc: ChildProcess;
}

export const randomPort = () => 18080 + Math.floor(Math.random() * 1800);

export async function waitUp(base: string, path = '/api/v1/health/ping'): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      const r = await fetch(`${base}${path}`);
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${base} did not start`);
}

/**
 * The service as `npm start` runs it, against DATABASE_URL. Its log goes to `logFile` (default /dev/null): at the
 * default level `info` pino still formats and writes each line, which is part of the per-request cost. `cwd`: another
 * checkout of the service (for a before/after comparison in one run).
 */
export async function startService(
  url: string,
  env: Record<string, string> = {},
  logFile = '/dev/null',
  cwd = process.cwd(),
): Promise<Target> {
  const port = randomPort();
  const out = openSync(logFile, 'a');
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), 'src/main.ts'],
    {
      env: {
        ...process.env,
        DATABASE_URL: url,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        VULNINTEL_AUTO_IMPORT: 'false',
        NODE_ENV: 'production',
        // The load generator is one address: the edge limit (60 a minute) would refuse it. bench/edge-limit.ts
        // measures the limiter's own cost; callers may pass the variable in `env` to turn it back on.
        VULNINTEL_EDGE_LIMIT_PER_MINUTE: '0',
        ...env,
      },
      stdio: ['ignore', out, 'inherit'],
      cwd,
    },
  );
  const t = { name: cwd === process.cwd() ? 'service' : `service at ${cwd}`, base: `http://127.0.0.1:${port}`, proc };
  await waitUp(t.base);
  return t;
}

/** A bare Fastify server (no logger, no hooks) in its own process: the machine baseline. */
export async function startBare(): Promise<Target> {
  const port = randomPort();
  const proc = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-fastify.ts'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const t = { name: 'bare fastify', base: `http://127.0.0.1:${port}`, proc };
  await waitUp(t.base);
  return t;
}

export function stop(...targets: (Target | undefined)[]): void {
  for (const t of targets) t?.proc.kill('SIGTERM');
}

export interface LoadOptions {
  connections: number;
  seconds: number;
  headers?: Record<string, string>;
  /** Path of each request (called once per request: distinct ids, pages). */
  path: () => string;
}

export function load(base: string, o: LoadOptions): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: base,
        connections: o.connections,
        duration: o.seconds,
        pipelining: 1,
        headers: o.headers ?? {},
        requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: o.path() }) }],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
  });
}

/** The broad searches of the search benchmarks (bench/search-load.ts, bench/fulltext-index.ts). */
export const PHRASES = [
  'out-of-bounds',
  'buffer overflow',
  'remote code execution',
  'denial of service',
  'memory corruption',
  'use after free',
  'privilege escalation',
  'information disclosure',
  'authentication bypass',
  'command injection',
];

export const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

/** Sequential single-client latencies (ms) of `n` requests, sorted. */
export async function sequential(base: string, n: number, path: () => string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await fetch(`${base}${path()}`);
    await r.arrayBuffer();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b);
}

/**
 * Waits until the in-memory search index answers: a broad search never asked before answers three times running in
 * under a quarter of the first one's time (answered by PostgreSQL while the index builds) or under 50 ms. A fixed
 * threshold alone never passes on a loaded machine. Answers the seconds waited (at most `maxMs`).
 */
export async function indexBuilt(t: { base: string }, maxMs = 600_000): Promise<number> {
  const t0 = Date.now();
  const ask = async (k: number) =>
    (await sequential(t.base, 1, () => `/api/v1/cves?q=${encodeURIComponent(`remote or execution or warmup${k}`)}`))[0];
  const limit = Math.max(50, (await ask(0)) / 4);
  let fast = 0;
  for (let k = 1; fast < 3 && Date.now() - t0 < maxMs; k++) {
    fast = (await ask(k)) < limit ? fast + 1 : 0;
    if (fast === 0) await new Promise((r) => setTimeout(r, 1000));
  }
  return (Date.now() - t0) / 1000;
}

export const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

/**
 * CPU seconds (user + system) a process has used so far, from /proc (Linux). CPU per request is steadier than a
 * rate on a machine shared with other work: other processes slow a server down but do not add to its CPU time.
 */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/** Drops and creates database `name` on the local server; returns its URL. */
export async function freshDatabase(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return `postgres://postgres@127.0.0.1:5432/${name}`;
}
