#!/usr/bin/env node
// `npm test`: finds a PostgreSQL for the tests (TEST_DATABASE_URL, else the local server at 127.0.0.1:5432,
// else an embedded one under the system temp dir), clears databases left by killed runs, then runs node's test runner
// over test/{unit,integration,security,contract}. Benchmarks in bench/ are never part of it.
import { spawn } from 'node:child_process';
import { readdirSync, statSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { createHash } from 'node:crypto';
import pg from 'pg';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

async function canConnect(url) {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

let embedded = null;
let url = process.env.TEST_DATABASE_URL;
if (!url) {
  const local = 'postgres://postgres@127.0.0.1:5432/postgres';
  // VULNINTEL_TEST_EMBEDDED=1 forces the embedded fallback (to test it on a machine that has a server).
  if (process.env.VULNINTEL_TEST_EMBEDDED !== '1' && await canConnect(local)) url = local;
  else {
    const { startEmbedded } = await import('tsx/esm/api').then(({ register }) => { register(); return import('../src/store/embedded.ts'); });
    // Under the system temp dir, not the checkout: as root the cluster runs as the postgres OS user, which
    // cannot enter a checkout under /root. One directory per checkout, reused across runs (warm).
    const dir = path.join(os.tmpdir(), `vulnintel-test-pg-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`);
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    console.log(`No PostgreSQL at 127.0.0.1:5432; starting an embedded one for the tests in ${dir}`);
    embedded = await startEmbedded(dir, { info: (m) => console.log(m), error: (m) => console.error(m) }, 54339);
    url = embedded.url.replace(/\/vulnintel$/, '/postgres');
  }
}

{
  // Drop test databases left by killed runs: those named after a runner pid that is gone (vi_t_<pid>_<rand>),
  // and unnamed older ones nobody is connected to. Never those of a run going on next to this one on a shared
  // server (its pid is alive), and never a template being built (ensureTemplate clears that under its lock).
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const alive = (pid) => { try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
  const stale = await c.query(`SELECT datname, EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = d.datname) AS busy
    FROM pg_database d WHERE datname LIKE 'vi\\_t\\_%'`);
  for (const r of stale.rows) {
    const m = /^vi_t_(\d+)_[0-9a-f]+$/.exec(r.datname);
    const dead = m ? !alive(Number(m[1])) : !r.busy;
    if (dead) await c.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`).catch(() => {});
  }
  await c.end();
}

function collect(dir) {
  let out = [];
  let entries;
  try { entries = readdirSync(dir); } catch { return out; }
  for (const e of entries) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) out = out.concat(collect(p));
    else if (e.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const only = process.argv.slice(2);
const files = only.length ? only : ['unit', 'integration', 'security', 'contract'].flatMap((d) => collect(path.join(root, 'test', d))).sort();
const concurrency = Math.max(2, Math.min(4, os.availableParallelism()));
// CI runs property tests on a fixed seed (reproducible); locally they explore new inputs each run.
const fcSeed = process.env.FC_SEED ?? (process.env.CI ? '20261121' : '');
if (fcSeed) console.log(`fast-check seed: ${fcSeed} (FC_SEED)`);
const child = spawn(process.execPath, ['--import', 'tsx', '--import', './test/helpers/fc-setup.ts', '--test', `--test-concurrency=${concurrency}`, ...files], {
  stdio: 'inherit',
  env: { ...process.env, FC_SEED: fcSeed, TEST_DATABASE_URL: url, VULNINTEL_TEST_RUN: String(process.pid) },
  cwd: root,
});
child.on('exit', async (code, signal) => {
  if (embedded) await embedded.stop();
  process.exit(code ?? (signal ? 1 : 0));
});
