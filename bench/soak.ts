// Soak: mixed traffic through two API processes on a primary and a streaming replica (docs/deploy.md), with one job
// worker and a loopback webhook receiver; an import in the middle, followed by an alert run. Reports the 5xx count,
// the statuses, p99 latency of the first and the last window, and each API process's RSS slope after warm-up.
//
//   npx tsx bench/soak.ts [--minutes 30] [--connections 8]
//
// The target (30 minutes): no 5xx, RSS slope under 1 MB per minute after warm-up, p99 the same in the last 5 minutes
// as in the first 5. A shorter run compares windows of a third of the run (at most 5 minutes each).
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { openStore } from '../src/store/db.ts';
import { importPaths } from '../src/services/import/pipeline.ts';
import { loadConfig } from '../src/config.ts';
import { startJobQueue } from '../src/jobs/queue.ts';
import { JOBS } from '../src/jobs/registry.ts';
import { startReplicaCluster } from '../test/helpers/replica-cluster.ts';
import { feedDir, NVD_FIXTURES, CSAF_FIXTURES } from '../test/helpers/ingest.ts';
import { fixture } from '../test/helpers/feeds.ts';
import { seedOrg } from '../test/helpers/app.ts';
import { freePort } from '../test/helpers/net.ts';
import { startCommand } from '../test/helpers/cli.ts';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const MINUTES = arg('minutes', 30);
const CONNECTIONS = arg('connections', 8);
const quiet = { info() {}, warn() {} };

const children: ChildProcess[] = [];
async function start(args: string[], env: Record<string, string>, ready: RegExp): Promise<ChildProcess> {
  const child = await startCommand(args, env, ready);
  children.push(child);
  return child;
}

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

function p99(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))];
}

/** Least-squares slope of (minute, MB). */
function slope(points: [number, number][]): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((a, p) => a + p[0], 0) / n;
  const my = points.reduce((a, p) => a + p[1], 0) / n;
  const num = points.reduce((a, p) => a + (p[0] - mx) * (p[1] - my), 0);
  const den = points.reduce((a, p) => a + (p[0] - mx) ** 2, 0);
  return num / den;
}

async function main() {
  const cluster = await startReplicaCluster();
  const store = openStore(cluster.primaryUrl, { max: 4 });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'vi-soak-'));
  const deliveries: number[] = [];
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      deliveries.push(Date.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const rxPort = (receiver.address() as net.AddressInfo).port;
  try {
    await importPaths(store.db, [feedDir(NVD_FIXTURES.slice(0, 6))], { log: quiet });
    await cluster.caughtUp();
    const orgs = await Promise.all(
      Array.from({ length: 4 }, (_, i) => seedOrg(store, { name: `Soak ${i}`, tier: 'professional' })),
    );
    const env = {
      DATABASE_URL: cluster.primaryUrl,
      DATABASE_REPLICA_URL: cluster.replicaUrl,
      VULNINTEL_SECRET_KEY: randomBytes(32).toString('hex'),
      VULNINTEL_DATA_DIR: dataDir,
      VULNINTEL_AUTO_IMPORT: 'false',
      VULNINTEL_PUBLIC_URL: 'http://vulnintel.test',
      VULNINTEL_EDGE_LIMIT_PER_MINUTE: '0',
      VULNINTEL_WEBHOOK_EGRESS_ALLOW: `127.0.0.1:${rxPort}`,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    };
    const ports = [await freePort(), await freePort()];
    const apis = await Promise.all(
      ports.map((p) =>
        start(['serve'], { ...env, LOG_LEVEL: 'info', PORT: String(p), VULNINTEL_WORKERS: '0' }, /"msg":"ready"/),
      ),
    );
    await start(['worker'], env, /Job workers running/);
    const bases = ports.map((p) => `http://127.0.0.1:${p}`);
    for (const o of orgs) {
      await fetch(`${bases[0]}/api/v1/watchlist`, {
        method: 'POST',
        headers: { ...o.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ entity_type: 'vendor', entity_id: 'microsoft' }),
      });
      await fetch(`${bases[1]}/api/v1/webhooks`, {
        method: 'POST',
        headers: { ...o.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ label: 'soak', url: `http://127.0.0.1:${rxPort}/hook` }),
      });
    }
    const ids = [
      'CVE-2023-0228',
      'CVE-2023-28489',
      'CVE-2022-45793',
      'CVE-2024-21338',
      'CVE-2024-8531',
      'CVE-2024-3506',
      'CVE-2099-0001',
    ];
    const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
    const scenarios: (() => [string, RequestInit])[] = [
      () => [`/api/v1/cves/${pick(ids)}`, {}],
      () => [`/api/v1/cves?per_page=10&page=${1 + Math.floor(Math.random() * 3)}`, {}],
      () => [`/api/v1/cves?q=${pick(['overflow', 'windows', 'remote code', 'siemens'])}`, {}],
      () => ['/api/v1/catalog/vendors', {}],
      () => [`/api/v1/cves/${pick(ids)}`, { headers: pick(orgs).auth }],
      () => ['/api/v1/cves/kev', { headers: pick(orgs).auth }],
      () => [
        '/api/v1/assets/correlate-cves',
        {
          method: 'POST',
          headers: { ...pick(orgs).auth, 'content-type': 'application/json' },
          body: JSON.stringify({
            assets: [{ asset_id: 'plc-1', vendor: 'Siemens', product: 'SIMATIC S7-1500', version: 'V2.9.2' }],
          }),
        },
      ],
      () => [
        '/api/v2/assets/correlate',
        {
          method: 'POST',
          headers: { ...pick(orgs).auth, 'content-type': 'application/json' },
          body: JSON.stringify({ windows_hosts: [] }),
        },
      ],
      () => ['/api/v1/health/ping', {}],
    ];
    const t0 = Date.now();
    const end = t0 + MINUTES * 60_000;
    const samples: { at: number; ms: number; status: number }[] = [];
    const rss: { at: number; mb: number[] }[] = [];
    const rssTimer = setInterval(() => rss.push({ at: Date.now(), mb: apis.map((c) => rssMb(c.pid!)) }), 10_000);
    let imported = false;
    const importer = setTimeout(
      () => {
        void (async () => {
          await importPaths(
            store.db,
            [feedDir([...NVD_FIXTURES.slice(6), ...CSAF_FIXTURES, fixture('kev', 'kev-cut.json')])],
            { log: quiet },
          );
          const q = await startJobQueue({
            config: loadConfig({ DATABASE_URL: cluster.primaryUrl, LOG_LEVEL: 'silent' }),
            store,
            log: pino({ level: 'silent' }),
            jobs: JOBS,
            workers: false,
          });
          await q.send('alert-run');
          await q.stop(1000);
          imported = true;
        })();
      },
      (MINUTES * 60_000) / 2,
    );
    let i = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (Date.now() < end) {
          const [url, init] = pick(scenarios)();
          const base = bases[i++ % 2];
          const s = performance.now();
          let status: number;
          try {
            const r = await fetch(`${base}${url}`, init);
            await r.arrayBuffer();
            status = r.status;
          } catch {
            status = -1;
          }
          samples.push({ at: Date.now(), ms: performance.now() - s, status });
        }
      }),
    );
    clearInterval(rssTimer);
    clearTimeout(importer);
    const windowMs = Math.min(5 * 60_000, (MINUTES * 60_000) / 3);
    const first = samples.filter((x) => x.at < t0 + windowMs).map((x) => x.ms);
    const last = samples.filter((x) => x.at >= end - windowMs).map((x) => x.ms);
    const statuses: Record<string, number> = {};
    for (const x of samples) statuses[x.status] = (statuses[x.status] ?? 0) + 1;
    const warm = rss.filter((r) => r.at >= t0 + windowMs);
    console.log(
      JSON.stringify(
        {
          minutes: MINUTES,
          connections: CONNECTIONS,
          requests: samples.length,
          errors_5xx: samples.filter((x) => x.status >= 500).length,
          failed_connections: samples.filter((x) => x.status === -1).length,
          statuses,
          import_in_the_middle: imported,
          webhook_deliveries: deliveries.length,
          window_minutes: windowMs / 60_000,
          p99_first_ms: Math.round(p99(first) * 10) / 10,
          p99_last_ms: Math.round(p99(last) * 10) / 10,
          rss_mb_start: rss[0]?.mb.map(Math.round),
          rss_mb_end: rss.at(-1)?.mb.map(Math.round),
          rss_slope_mb_per_min_after_warmup: apis.map(
            (_, k) => Math.round(slope(warm.map((r) => [(r.at - t0) / 60_000, r.mb[k]])) * 100) / 100,
          ),
        },
        null,
        2,
      ),
    );
  } finally {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once('exit', () => resolve());
            c.kill('SIGTERM');
          }),
      ),
    );
    receiver.close();
    await store.close();
    await cluster.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
