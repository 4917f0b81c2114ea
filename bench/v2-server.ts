// The v2 benches' server process and probes (bench/windows-v2-stream.ts, bench/windows-v2-size.ts): a v2 server of a
// checkout (bench/windows-v2-server.ts) on a database, the /health/ping prober that runs beside a call, and quantiles.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface Server {
  proc: ChildProcess;
  port: number;
  auth: Record<string, string>;
}

/** The v2 server of the checkout at `root` on `dbUrl`, once it listens. */
export async function startServer(root: string, dbUrl: string): Promise<Server> {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.resolve('bench/windows-v2-server.ts'), root, dbUrl], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', resolve);
    proc.once('exit', (c) => reject(new Error(`server exited ${c}`)));
  });
  return { proc, ...JSON.parse(line) };
}

export async function stopServer(s: Server): Promise<void> {
  s.proc.kill('SIGTERM');
  await new Promise((r) => s.proc.once('exit', r));
}

/** Pings /health/ping every 25 ms until stopped; returns the latencies, sorted. */
export function pinger(s: Server): () => Promise<number[]> {
  const lat: number[] = [];
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const t = performance.now();
      await fetch(`http://127.0.0.1:${s.port}/api/v1/health/ping`)
        .then((r) => r.arrayBuffer())
        .catch(() => {});
      lat.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  return async () => {
    stop = true;
    await loop;
    return lat.sort((a, b) => a - b);
  };
}

/** The p-quantile of sorted values, rounded; null when there are none. */
export const q = (xs: number[], p: number): number | null =>
  xs.length ? Math.round(xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]) : null;
