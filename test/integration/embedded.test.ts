// The embedded PostgreSQL default, end to end with real processes: `node bin/vulnintel.js serve` with a fresh
// VULNINTEL_DATA_DIR and no DATABASE_URL starts and answers; a second server on the same data dir is refused with
// a clear message; the operator CLI joins the running cluster; SIGTERM stops cleanly (no orphan postmaster);
// a restart keeps the data; a SIGKILLed server's orphan postmaster is stopped by the next start.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { alive, ROOT_CLUSTER_BASE } from '../../src/store/embedded.ts';
import { freePort } from '../helpers/net.ts';

const BIN = fileURLToPath(new URL('../../bin/vulnintel.js', import.meta.url));
let dataDir: string;
let port: number;
const children: ChildProcess[] = [];

function env(dir = dataDir): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = {
    ...process.env,
    VULNINTEL_DATA_DIR: dir,
    PORT: String(port),
    LOG_LEVEL: 'info',
    VULNINTEL_AUTO_IMPORT: 'false',
  };
  delete e.DATABASE_URL;
  delete e.DATABASE_URL_FILE;
  return e;
}

interface Server {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function serve(dir = dataDir): Server {
  const child = spawn(process.execPath, [BIN, 'serve'], { env: env(dir), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function ping(): Promise<boolean> {
  try {
    const r = await fetch(`http://127.0.0.1:${port}/api/v1/health/ping`);
    return r.status === 200 && ((await r.json()) as { ping?: string }).ping === 'pong';
  } catch {
    return false;
  }
}

async function waitFor(what: string, cond: () => Promise<boolean> | boolean, timeoutMs: number, s?: Server) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}${s ? `\n${s.output()}` : ''}`);
}

const postmasterPid = (dir = dataDir) =>
  Number(readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...env(), LOG_LEVEL: 'silent' }, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function me(key: string) {
  const r = await fetch(`http://127.0.0.1:${port}/api/v1/account/me`, { headers: { authorization: `Bearer ${key}` } });
  return { status: r.status, body: (await r.json()) as any };
}

before(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'vi-embedded-'));
  // As root the cluster runs as the postgres OS user, which must be able to enter the data dir.
  chmodSync(dataDir, 0o755);
  port = await freePort();
});

after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  if (existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))) {
    const pid = postmasterPid();
    if (alive(pid)) process.kill(pid, 'SIGINT');
    await waitFor('postmaster exit', () => !alive(pid), 20_000).catch(() => {});
  }
  rmSync(dataDir, { recursive: true, force: true });
});

let apiKey = '';

test('start, refuse a second start, CLI joins, SIGTERM stops cleanly, restart keeps the data', async (t) => {
  const first = serve();
  const t0 = Date.now();
  await waitFor('first ping', ping, 180_000, first);
  t.diagnostic(`first start (initdb included): ping after ${Date.now() - t0} ms`);
  assert.ok(existsSync(path.join(dataDir, 'pg', 'PG_VERSION')), 'cluster under VULNINTEL_DATA_DIR/pg');

  // A second server on the same data dir is refused, and the first keeps serving.
  const second = serve();
  const code = await second.exited;
  assert.equal(code, 1);
  assert.match(
    second.output(),
    new RegExp(
      `The data directory ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by another Vulnintel process \\(pid ${first.child.pid}\\)`,
    ),
  );
  assert.ok(await ping());

  // The cluster runs with the bulk-write settings (EMBEDDED_SETTINGS), not PostgreSQL's defaults.
  const lock = readFileSync(path.join(dataDir, 'vulnintel.lock'), 'utf8').split('\n');
  const password = readFileSync(path.join(dataDir, 'pg-credentials'), 'utf8').trim();
  const client = new pg.Client({
    host: '127.0.0.1',
    port: Number(lock[1]),
    user: 'postgres',
    password,
    database: 'vulnintel',
  });
  await client.connect();
  try {
    const shown = await client.query<{ name: string; setting: string; unit: string | null }>(
      `SELECT name, setting, unit FROM pg_settings WHERE name IN ('shared_buffers', 'max_wal_size', 'checkpoint_timeout', 'max_connections', 'listen_addresses') ORDER BY name`,
    );
    assert.deepEqual(shown.rows, [
      { name: 'checkpoint_timeout', setting: '900', unit: 's' },
      { name: 'listen_addresses', setting: '127.0.0.1', unit: null },
      { name: 'max_connections', setting: '200', unit: null },
      { name: 'max_wal_size', setting: '2048', unit: 'MB' },
      { name: 'shared_buffers', setting: '32768', unit: '8kB' },
    ]);
  } finally {
    await client.end();
  }

  // The operator CLI joins the running server's cluster.
  const created = cli(
    'org',
    'create',
    '--name',
    'Embedded Org',
    '--tier',
    'professional',
    '--owner-email',
    'o@embedded.test',
    '--json',
  );
  assert.equal(created.code, 0, created.stderr);
  apiKey = JSON.parse(created.stdout).api_key.key;
  const m = await me(apiKey);
  assert.equal(m.status, 200);
  assert.equal(m.body.data.org_name, 'Embedded Org');

  // SIGTERM: exit 0, postmaster gone, lock released.
  const pm = postmasterPid();
  assert.ok(alive(pm));
  first.child.kill('SIGTERM');
  assert.equal(await first.exited, 0, first.output());
  await waitFor('postmaster exit', () => !alive(pm), 20_000);
  assert.equal(existsSync(path.join(dataDir, 'vulnintel.lock')), false);
  assert.equal(existsSync(path.join(dataDir, 'pg', 'postmaster.pid')), false);
  assert.doesNotMatch(first.output(), /idle database connection lost/);

  // Restart on the warm data dir: same data.
  const again = serve();
  const t1 = Date.now();
  await waitFor('restart ping', ping, 60_000, again);
  t.diagnostic(`warm restart: ping after ${Date.now() - t1} ms`);
  const m2 = await me(apiKey);
  assert.equal(m2.status, 200);
  assert.equal(m2.body.data.email, 'o@embedded.test');

  // A killed server leaves its postmaster behind; the next start stops that orphan and serves the same data.
  const orphan = postmasterPid();
  again.child.kill('SIGKILL');
  await again.exited;
  assert.ok(alive(orphan), 'the postmaster outlives a SIGKILLed server');
  const third = serve();
  await waitFor('ping after orphan', ping, 60_000, third);
  // Stopped once it is ready (its job workers starting), the moment a stop used to race the workers' start.
  await waitFor('ready line', () => third.output().includes('"msg":"ready"'), 60_000, third);
  assert.equal(alive(orphan), false, 'orphan postmaster stopped');
  assert.equal((await me(apiKey)).status, 200);
  const pm3 = postmasterPid();
  third.child.kill('SIGTERM');
  assert.equal(await third.exited, 0, third.output().slice(-3000));
  await waitFor('postmaster exit', () => !alive(pm3), 20_000);
});

test('a data dir under a private (0700) directory: works; as root the cluster lives under /var/lib/vulnintel, linked', async () => {
  const priv = mkdtempSync(path.join(os.tmpdir(), 'vi-private-')); // mode 0700, like /root
  const dir = path.join(priv, 'data');
  let target: string | null = null;
  try {
    for (let round = 0; round < 2; round++) {
      const s = serve(dir);
      await waitFor(`ping (round ${round})`, ping, 180_000, s);
      const link = path.join(dir, 'pg');
      const isRoot = process.getuid?.() === 0;
      assert.equal(lstatSync(link).isSymbolicLink(), isRoot);
      if (isRoot) {
        target = readlinkSync(link);
        assert.ok(target.startsWith(`${ROOT_CLUSTER_BASE}/`), target);
        assert.ok(existsSync(path.join(target, 'PG_VERSION')));
      }
      const pm = postmasterPid(dir);
      s.child.kill('SIGTERM');
      assert.equal(await s.exited, 0, s.output());
      await waitFor('postmaster exit', () => !alive(pm), 20_000);
    }
  } finally {
    rmSync(priv, { recursive: true, force: true });
    if (target) rmSync(path.dirname(target), { recursive: true, force: true });
  }
});
