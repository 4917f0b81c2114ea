// Per-request CPU of the framework path, in one process, without sockets: the service's app (this checkout and,
// with BENCH_BEFORE_DIR, another one) and a bare Fastify app answer `/api/v1/health/ping` through `inject()`,
// interleaved over rounds; the figure is CPU microseconds per request (process.cpuUsage), the median of the rounds.
// Sockets and HTTP parsing are left out (the same for every server); hooks, logging, request ids, validation and
// serialization are in. Steadier than a rate on a shared machine: the interleaving gives every app the same load.
// Usage: DATABASE_URL=… npx tsx bench/overhead-inject.ts > /dev/null   (results go to stderr; the apps log to stdout)
import Fastify, { type FastifyInstance } from 'fastify';
import path from 'node:path';
import { median } from './harness.ts';

const N = Number(process.env.BENCH_REQUESTS ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
process.env.LOG_LEVEL ??= 'info';

async function serviceApp(dir: string): Promise<FastifyInstance> {
  const { loadConfig } = await import(path.join(dir, 'src/config.ts'));
  const { createLogger } = await import(path.join(dir, 'src/lib/logger.ts'));
  const { openStore } = await import(path.join(dir, 'src/store/db.ts'));
  const { buildApp } = await import(path.join(dir, 'src/app.ts'));
  const config = loadConfig();
  const app = await buildApp({
    config,
    store: openStore(config.databaseUrl, { max: 2 }),
    logger: createLogger(config.logLevel),
  });
  await app.ready();
  return app;
}

const bare = Fastify({ logger: false });
bare.get('/api/v1/health/ping', async () => ({ ping: 'pong' }));
await bare.ready();
const apps: { name: string; app: FastifyInstance }[] = [
  { name: 'bare fastify', app: bare },
  { name: 'service', app: await serviceApp(process.cwd()) },
];
if (process.env.BENCH_BEFORE_DIR)
  apps.push({ name: 'before', app: await serviceApp(path.resolve(process.env.BENCH_BEFORE_DIR)) });

const cpu = new Map(apps.map((a) => [a.name, [] as number[]]));
for (let r = 0; r < ROUNDS + 1; r++) {
  for (const { name, app } of apps) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < N; i++) {
      const res = await app.inject({ method: 'GET', url: '/api/v1/health/ping' });
      if (res.statusCode !== 200) throw new Error(`${name}: ${res.statusCode}`);
    }
    const c = process.cpuUsage(c0);
    if (r > 0) cpu.get(name)!.push((c.user + c.system) / N); // round 0 warms up
  }
}
const base = median(cpu.get('bare fastify')!);
for (const { name } of apps) {
  const us = median(cpu.get(name)!);
  process.stderr.write(
    `${JSON.stringify({ app: name, cpu_us_per_ping: Number(us.toFixed(1)), bare_over_app: Number((base / us).toFixed(3)) })}\n`,
  );
}
process.exit(0);
