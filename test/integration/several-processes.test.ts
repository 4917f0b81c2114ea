// Several processes on one database (docs/deploy.md): two API processes (`vulnintel serve`, VULNINTEL_WORKERS=0) and
// two job workers (`vulnintel worker`), real child processes, on a primary and a streaming replica on loopback
// (test/helpers/replica-cluster.ts). Per-key limits are exact across the API processes; the monthly usage counter is
// exact and each process reports the other's calls; both processes' response caches follow an import; an alert run
// queued from both processes at once runs once, and each webhook gets each alert once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import pino from 'pino';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from '../../src/store/kysely.ts';
import { openStore, type Store } from '../../src/store/db.ts';
import { startCommand } from '../helpers/cli.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { fixture } from '../helpers/feeds.ts';
import { feedDir } from '../helpers/ingest.ts';
import { seedOrg } from '../helpers/app.ts';
import { startReplicaCluster, type ReplicaCluster } from '../helpers/replica-cluster.ts';
import { loadConfig } from '../../src/config.ts';
import { startJobQueue } from '../../src/jobs/queue.ts';
import { JOBS } from '../../src/jobs/registry.ts';
import { freePort } from '../helpers/net.ts';

const quiet = { info() {}, warn() {} };
const nvd = (...ids: string[]) => ids.map((c) => fixture('nvd', `${c}.json`));
const SECRET_KEY = randomBytes(32).toString('hex');

let cluster: ReplicaCluster;
let store: Store;
let dataDir: string;
const children: ChildProcess[] = [];
let api: string[] = [];
/** The loopback webhook receiver: every body it was sent. */
const received: string[] = [];
let receiver: http.Server;
let rxPort = 0;

async function start(args: string[], env: Record<string, string>, ready: RegExp): Promise<ChildProcess> {
  const child = await startCommand(args, env, ready);
  children.push(child);
  return child;
}

before(async () => {
  cluster = await startReplicaCluster();
  store = openStore(cluster.primaryUrl, { max: 4 });
  await importPaths(store.db, [feedDir(nvd('CVE-2023-0228', 'CVE-2023-28489'))], { log: quiet });
  await cluster.caughtUp();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'vi-procs-'));
  receiver = http.createServer((req, res) => {
    let b = '';
    req.on('data', (d: Buffer) => {
      b += d.toString();
    });
    req.on('end', () => {
      received.push(b);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  rxPort = (receiver.address() as net.AddressInfo).port;
  const env = {
    DATABASE_URL: cluster.primaryUrl,
    DATABASE_REPLICA_URL: cluster.replicaUrl,
    VULNINTEL_REPLICA_CHECK_MS: '200',
    VULNINTEL_SECRET_KEY: SECRET_KEY,
    VULNINTEL_DATA_DIR: dataDir,
    VULNINTEL_AUTO_IMPORT: 'false',
    VULNINTEL_PUBLIC_URL: 'http://vulnintel.test',
    VULNINTEL_EDGE_LIMIT_PER_MINUTE: '0',
    VULNINTEL_SEARCH_INDEX: 'false',
    VULNINTEL_WEBHOOK_EGRESS_ALLOW: `127.0.0.1:${rxPort}`,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
  };
  const ports = [await freePort(), await freePort()];
  // Everything starts at once on the empty database: the two workers' queue setup takes turns (JOB_SETUP_LOCK).
  await Promise.all([
    ...ports.map((p) => start(['serve'], { ...env, PORT: String(p), VULNINTEL_WORKERS: '0' }, /"msg":"ready"/)),
    start(['worker'], env, /Job workers running/),
    start(['worker'], env, /Job workers running/),
  ]);
  api = ports.map((p) => `http://127.0.0.1:${p}`);
});

after(async () => {
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
  await store?.close();
  await cluster?.close();
  receiver?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function call(base: string, method: string, url: string, headers: Record<string, string> = {}, body?: unknown) {
  const r = await fetch(`${base}${url}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, headers: r.headers, json: (await r.json()) as Record<string, any> };
}

async function eventually(what: string, check: () => Promise<boolean>, ms = 20_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`not within ${ms} ms: ${what}`);
}

test('per-key limits are exact across the two API processes: 60 of 80 parallel correlation calls pass', async () => {
  const k = await seedOrg(store, { tier: 'professional' });
  const body = { assets: [{ asset_id: 'plc-1', vendor: 'Siemens', product: 'SIMATIC S7-1500', version: 'V2.9.2' }] };
  const rs = await Promise.all(
    Array.from({ length: 80 }, (_, i) => call(api[i % 2], 'POST', '/api/v1/assets/correlate-cves', k.auth, body)),
  );
  const by = (s: number) => rs.filter((r) => r.status === s).length;
  assert.equal(by(200), 60, JSON.stringify(rs.filter((r) => r.status !== 200 && r.status !== 429).map((r) => r.json)));
  assert.equal(by(429), 20);
  for (const r of rs.filter((x) => x.status === 429)) assert.equal(r.json.error.code, 'RATE_LIMITED');
});

test("the monthly usage counter: exact in the database, and each process reports the other's calls", async () => {
  const k = await seedOrg(store, { tier: 'professional' });
  const used = (r: { headers: Headers }) => Number(r.headers.get('x-ratelimit-used'));
  // 15 calls on each process, interleaved: each reports its own calls on top of what it last read.
  for (let i = 0; i < 30; i++) {
    const r = await call(api[i % 2], 'GET', '/api/v1/cves/CVE-2023-0228', k.auth);
    assert.equal(r.status, 200);
  }
  // Past the flush interval both processes have written their calls, and their totals are older than the interval.
  await new Promise((r) => setTimeout(r, 2500));
  const stored = async () =>
    (await sql<{ calls: number }>`SELECT calls FROM api_usage_monthly WHERE org_id = ${k.orgId}`.execute(store.db))
      .rows[0].calls;
  assert.equal(await stored(), 30);
  const a = await call(api[0], 'GET', '/api/v1/cves/CVE-2023-0228', k.auth);
  assert.equal(used(a), 31, 'process 1 reads the shared total again');
  const b = await call(api[1], 'GET', '/api/v1/cves/CVE-2023-0228', k.auth);
  assert.equal(used(b), 32, "process 2 too, with process 1's call");
  assert.equal(Number(b.headers.get('x-ratelimit-remaining')), Number(b.headers.get('x-ratelimit-limit')) - 32);
  await eventually('stored total 32', async () => (await stored()) === 32);
});

test("both processes' response caches follow an import (told by the primary; read on the replica once applied)", async () => {
  const list = async (base: string) =>
    (await call(base, 'GET', '/api/v1/cves?per_page=50')).json.data.map((c: { cve_id: string }) => c.cve_id).sort();
  for (const base of api) {
    assert.deepEqual(await list(base), ['CVE-2023-0228', 'CVE-2023-28489']);
    assert.deepEqual(await list(base), ['CVE-2023-0228', 'CVE-2023-28489'], 'served again (from the cache)');
  }
  await importPaths(store.db, [feedDir(nvd('CVE-2024-21338'))], { log: quiet });
  for (const base of api) {
    await eventually(`import visible on ${base}`, async () => (await list(base)).includes('CVE-2024-21338'));
    assert.equal((await call(base, 'GET', '/api/v1/cves/CVE-2024-21338')).status, 200);
  }
});

test('an alert run queued from two processes at once runs once at a time, and each webhook gets the alert once', async () => {
  const k = await seedOrg(store, { tier: 'professional' });
  assert.equal(
    (await call(api[0], 'POST', '/api/v1/watchlist', k.auth, { entity_type: 'cve', entity_id: 'CVE-2024-21338' }))
      .status,
    201,
  );
  const hook = await call(api[1], 'POST', '/api/v1/webhooks', k.auth, {
    label: 'loopback',
    url: `http://127.0.0.1:${rxPort}/hook`,
  });
  assert.equal(hook.status, 201, JSON.stringify(hook.json));
  // The change to alert on: CISA adds the watched CVE to KEV.
  await importPaths(store.db, [feedDir([fixture('kev', 'kev-cut.json')])], { log: quiet });
  const sentAt = new Date();
  // Two sending processes (as two schedule clocks or two operators) queue the run at once, three times.
  const config = loadConfig({ DATABASE_URL: cluster.primaryUrl, LOG_LEVEL: 'silent' });
  const senders = await Promise.all(
    [0, 1].map(() => startJobQueue({ config, store, log: pino({ level: 'silent' }), jobs: JOBS, workers: false })),
  );
  try {
    await Promise.all([senders[0].send('alert-run'), senders[1].send('alert-run'), senders[0].send('alert-run')]);
  } finally {
    await Promise.all(senders.map((q) => q.stop(1000)));
  }
  const forCve = () => received.filter((b) => b.includes('CVE-2024-21338'));
  await eventually('the alert delivered', async () => forCve().length >= 1, 60_000);
  // Every queued run has ended (the two workers took them one at a time).
  await eventually(
    'alert runs finished',
    async () =>
      (
        await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'alert-run' AND state IN ('created', 'retry', 'active')`.execute(
          store.db,
        )
      ).rows[0].n === 0,
    60_000,
  );
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(forCve().length, 1, 'one delivery of the alert to the webhook');
  const alerts = await sql<{
    n: number;
  }>`SELECT count(*)::int AS n FROM alerts WHERE org_id = ${k.orgId} AND cve_id = 'CVE-2024-21338'`.execute(store.db);
  assert.equal(alerts.rows[0].n, 1, 'one stored alert');
  const runs = (
    await sql<{ started_at: Date; finished_at: Date | null; alerts: number }>`
    SELECT started_at, finished_at, alerts FROM alert_runs WHERE started_at >= ${new Date(sentAt.getTime() - 1000)} ORDER BY started_at`.execute(
      store.db,
    )
  ).rows;
  assert.ok(runs.length >= 1);
  assert.equal(runs.filter((r) => r.alerts > 0).length, 1, 'one run stored the alert; any later one found nothing new');
  for (let i = 1; i < runs.length; i++) assert.ok(runs[i - 1].finished_at! <= runs[i].started_at, 'runs never overlap');
});
