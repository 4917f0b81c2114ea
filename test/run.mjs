#!/usr/bin/env node
// The test loop. `npm test` runs every test file (test/{unit,integration,security,contract}); `npm run test:unit` the
// unit tests only, without any database; `npm run test:integration` the rest (integration, security, contract), which
// need PostgreSQL; `node test/run.mjs FILE…` the files named. Benchmarks in bench/ are never part of it.
//
// PostgreSQL for the database tests: TEST_DATABASE_URL, else the local server at 127.0.0.1:5432, else an embedded one
// under the system temp dir. Every database a run creates is named vi_t_<run id><random> (test/helpers/db.ts; the run
// id is <runner pid>_<10 hex>), and the run id is written in this checkout's ledger (under the system temp dir) while
// the run goes on. A run drops only databases of its own run id (at its end) and those of ledger runs of this
// checkout whose process is gone: never a database of another checkout or machine sharing the server.
//
// Each file runs in its own node process (as `node --test` does), at most `concurrency` at a time, the slowest files
// of the previous run first (so the last process to finish is a short one). A passing file prints one line; a failing
// one prints its whole output. At the end: the per-file durations (slowest first) and the totals.
import { spawn } from 'node:child_process';
import { readdirSync, statSync, mkdirSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { createHash, randomBytes } from 'node:crypto';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const checkoutTag = createHash('sha256').update(root).digest('hex').slice(0, 12);

const args = process.argv.slice(2);
const flag = (f) => {
  const i = args.indexOf(f);
  if (i < 0) return false;
  args.splice(i, 1);
  return true;
};
const unitOnly = flag('--unit');
const integrationOnly = flag('--integration');
const verbose = flag('--verbose') || process.env.TEST_VERBOSE === '1';

function collect(dir) {
  let out = [];
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) out = out.concat(collect(p));
    else if (e.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const groups = unitOnly
  ? ['unit']
  : integrationOnly
    ? ['integration', 'security', 'contract']
    : ['unit', 'integration', 'security', 'contract'];
const files = (
  args.length ? args.map((f) => path.resolve(f)) : groups.flatMap((d) => collect(path.join(root, 'test', d)))
).map((f) => path.relative(root, f));
const missing = files.filter((f) => {
  try {
    return !statSync(path.join(root, f)).isFile();
  } catch {
    return true;
  }
});
if (missing.length) {
  console.error(`No such test file: ${missing.join(', ')}`);
  process.exit(2);
}
const needsDb = files.some((f) => !f.startsWith(`test${path.sep}unit${path.sep}`));

// ---- durations of the previous run (scheduling only) -------------------------------------------------------------
const timesFile = path.join(os.tmpdir(), `vulnintel-test-times-${checkoutTag}.json`);
let lastTimes = {};
try {
  lastTimes = JSON.parse(readFileSync(timesFile, 'utf8'));
} catch {
  /* first run on this checkout */
}
// Unknown files: database files before unit files, bigger before smaller (a rough proxy for slower).
const estimate = (f) =>
  lastTimes[f] ?? (f.startsWith(`test${path.sep}unit`) ? 0 : 5000) + statSync(path.join(root, f)).size / 10;
const queue = [...files].sort((a, b) => estimate(b) - estimate(a));

// ---- the database server and this run's ledger entry -------------------------------------------------------------
const runId = `${process.pid}_${randomBytes(5).toString('hex')}`;
const ledgerFile = path.join(os.tmpdir(), `vulnintel-test-runs-${checkoutTag}.json`);
const readLedger = () => {
  try {
    return JSON.parse(readFileSync(ledgerFile, 'utf8'));
  } catch {
    return {};
  }
};
const writeLedger = (l) => {
  const tmp = `${ledgerFile}.${process.pid}`;
  writeFileSync(tmp, JSON.stringify(l));
  renameSync(tmp, ledgerFile);
};
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
};

let pg = null;
let embedded = null;
let url = process.env.TEST_DATABASE_URL;

async function canConnect(u) {
  const c = new pg.Client({ connectionString: u, connectionTimeoutMillis: 3000 });
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

/** Drops the databases of the given run ids (named vi_t_<run id><12 hex>). */
async function dropRuns(ids) {
  if (ids.length === 0) return;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query(`SELECT datname FROM pg_database WHERE datname LIKE 'vi\\_t\\_%'`);
    for (const { datname } of rows) {
      const m = /^vi_t_(\d+_[0-9a-f]{10})[0-9a-f]{12}$/.exec(datname);
      if (m && ids.includes(m[1])) await c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`).catch(() => {});
    }
  } finally {
    await c.end();
  }
}

if (needsDb) {
  pg = (await import('pg')).default;
  if (!url) {
    const local = 'postgres://postgres@127.0.0.1:5432/postgres';
    // VULNINTEL_TEST_EMBEDDED=1 forces the embedded fallback (to test it on a machine that has a server).
    if (process.env.VULNINTEL_TEST_EMBEDDED !== '1' && (await canConnect(local))) url = local;
    else {
      const { startEmbedded } = await import('tsx/esm/api').then(({ register }) => {
        register();
        return import('../src/store/embedded.ts');
      });
      // Under the system temp dir, not the checkout: as root the cluster runs as the postgres OS user, which
      // cannot enter a checkout under /root. One directory per checkout, reused across runs (warm).
      const dir = path.join(os.tmpdir(), `vulnintel-test-pg-${checkoutTag}`);
      mkdirSync(dir, { recursive: true, mode: 0o755 });
      console.log(`No PostgreSQL at 127.0.0.1:5432; starting an embedded one for the tests in ${dir}`);
      embedded = await startEmbedded(dir, { info: (m) => console.log(m), error: (m) => console.error(m) }, 54339);
      url = embedded.url.replace(/\/vulnintel$/, '/postgres');
    }
  }
  // Runs of this checkout that were killed (their runner is gone) leave their databases: drop those, and only those.
  const ledger = readLedger();
  const dead = Object.entries(ledger)
    .filter(([, e]) => e.host === os.hostname() && !alive(e.pid))
    .map(([id]) => id);
  await dropRuns(dead);
  for (const id of dead) delete ledger[id];
  ledger[runId] = { pid: process.pid, host: os.hostname(), started: new Date().toISOString() };
  writeLedger(ledger);
}

// ---- run the files ---------------------------------------------------------------------------------------------
const concurrency = Number(process.env.TEST_CONCURRENCY) || Math.max(2, Math.min(4, os.availableParallelism()));
// CI runs property tests on a fixed seed (reproducible); locally they explore new inputs each run.
const fcSeed = process.env.FC_SEED ?? (process.env.CI ? '20261121' : '');
if (fcSeed) console.log(`fast-check seed: ${fcSeed} (FC_SEED)`);
console.log(`${files.length} test files, ${concurrency} at a time${needsDb ? ` (run ${runId})` : ' (no database)'}`);

const env = { ...process.env, FC_SEED: fcSeed, VULNINTEL_TEST_RUN: runId, ...(url ? { TEST_DATABASE_URL: url } : {}) };
const results = [];
const children = new Set();
const started = Date.now();

function runFile(file) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--import', './test/helpers/fc-setup.ts', '--test-reporter=spec', file],
      { env, cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.add(child);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('close', (code, signal) => {
      children.delete(child);
      const ms = Date.now() - t0;
      const count = (k) => Number((new RegExp(`^ℹ ${k} (\\d+)$`, 'm').exec(out) ?? [])[1] ?? 0);
      const r = {
        file,
        ms,
        code,
        signal,
        tests: count('tests'),
        pass: count('pass'),
        fail: count('fail'),
        skipped: count('skipped') + count('todo'),
        cancelled: count('cancelled'),
      };
      r.ok = code === 0 && r.fail === 0 && r.cancelled === 0;
      results.push(r);
      const line = `${r.ok ? 'ok    ' : 'FAILED'} ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}  (${r.pass}/${r.tests} passed${r.skipped ? `, ${r.skipped} skipped` : ''})`;
      if (!r.ok || verbose) console.log(`\n──── ${file}\n${out.trimEnd()}\n`);
      console.log(line + (!r.ok && signal ? ` killed by ${signal}` : !r.ok ? ` exit ${code}` : ''));
      resolve();
    });
  });
}

async function worker() {
  for (let f = queue.shift(); f; f = queue.shift()) await runFile(f);
}

let interrupted = false;
async function finish(code) {
  if (needsDb) {
    await dropRuns([runId]).catch((e) => console.error(`could not drop this run's databases: ${e.message}`));
    const ledger = readLedger();
    delete ledger[runId];
    writeLedger(ledger);
  }
  if (embedded) await embedded.stop();
  process.exit(code);
}
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    if (interrupted) return;
    interrupted = true;
    for (const c of children) c.kill('SIGTERM');
    setTimeout(() => void finish(1), 2000).unref();
  });
}

await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));

// ---- the report ------------------------------------------------------------------------------------------------
const wall = Date.now() - started;
const sum = (k) => results.reduce((n, r) => n + r[k], 0);
results.sort((a, b) => b.ms - a.ms);
console.log('\nPer-file durations (slowest first):');
for (const r of results) console.log(`${(r.ms / 1000).toFixed(1).padStart(7)} s  ${r.ok ? '' : 'FAILED '}${r.file}`);
const failed = results.filter((r) => !r.ok);
console.log(
  `\n${results.length} files, ${sum('tests')} tests: ${sum('pass')} passed, ${sum('fail')} failed, ${sum('skipped')} skipped, ${sum('cancelled')} cancelled`,
);
console.log(
  `wall ${(wall / 1000).toFixed(1)} s with ${concurrency} at a time; load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
if (failed.length) console.log(`\nFailed files:\n${failed.map((r) => `  ${r.file}`).join('\n')}`);
// Durations feed the next run's order.
if (!interrupted) {
  let all = {};
  try {
    all = JSON.parse(readFileSync(timesFile, 'utf8'));
  } catch {
    /* none yet */
  }
  for (const r of results) all[r.file] = r.ms;
  try {
    writeFileSync(timesFile, JSON.stringify(all));
  } catch {
    /* scheduling hint only */
  }
}
await finish(failed.length || interrupted ? 1 : 0);
