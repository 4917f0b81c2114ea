// bin/vulnintel.js runs `import` and `sync` in a child Node started with a larger young generation (docs/decisions.md
// 44). The child is the command: its output and exit code are the command's, SIGTERM given to the visible process
// reaches it, and when the visible process is killed outright the child dies with it. Other commands run in place.
// The process tree is read from /proc (Linux, as on the reference and CI machines).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { snapshotFile } from '../helpers/feeds.ts';
import { feedDir } from '../helpers/ingest.ts';

const BIN = fileURLToPath(new URL('../../bin/vulnintel.js', import.meta.url));
const KEV = feedDir([snapshotFile('kev', 'known_exploited_vulnerabilities.json')]);
const dbs: TestDb[] = [];
const spawned: ChildProcess[] = [];
after(async () => {
  for (const c of spawned) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dbs) await d.drop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
const childrenOf = (pid: number) => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
const cmdline = (pid: number) => (existsSync(`/proc/${pid}/cmdline`) ? readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\u0000').filter(Boolean) : []);

function run(args: string[], url: string) {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: url, LOG_LEVEL: 'silent', VULNINTEL_AUTO_IMPORT: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, exited };
}

/**
 * The Node child the wrapper started (waits for it to appear, and to have replaced the wrapper's command line: a
 * process just forked shows its parent's until it executes its own).
 */
async function relaunched(pid: number): Promise<number> {
  const own = cmdline(pid).join(' ');
  for (let i = 0; i < 500; i++) {
    const kids = childrenOf(pid).filter((k) => cmdline(k).includes(BIN) && cmdline(k).join(' ') !== own);
    if (kids.length) return kids[0];
    await sleep(10);
  }
  throw new Error(`no child of ${pid} runs ${BIN}`);
}

const kevRows = async (t: TestDb) => (await sql<{ n: number }>`SELECT count(*)::int AS n FROM cve_sources WHERE source = 'kev'`.execute(t.store.db)).rows[0].n;

test('import runs in a child Node with the larger young generation; its output and exit code are the command\'s', async () => {
  const t = await freshDb();
  dbs.push(t);
  const { child, exited } = run(['import', KEV], t.url);
  const kid = await relaunched(child.pid!);
  assert.ok(cmdline(kid).includes('--max-semi-space-size=32'), cmdline(kid).join(' '));
  assert.deepEqual(childrenOf(kid).filter((k) => cmdline(k).includes(BIN)), [], 'the child does not start another');
  const end = await exited;
  assert.equal(end.code, 0, end.stderr);
  assert.match(end.stdout, /Imported 1 file\(s\), 1663 records; 1662 CVE documents written/);
  assert.equal(await kevRows(t), 1662);
});

test('a usage error keeps its exit code through the wrapper; other commands run in place', async () => {
  const t = await freshDb();
  dbs.push(t);
  const bad = await run(['import', '--no-such-option'], t.url).exited;
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /Usage: vulnintel import/);
  const { child, exited } = run(['key', 'list', '--org', '999999', '--json'], t.url);
  const end = await exited;
  assert.equal(end.code, 1);
  assert.deepEqual(JSON.parse(end.stdout).error.code, 'org_not_found');
  assert.equal(child.spawnargs.length, 7);
});

test('SIGTERM to the visible process stops the import in the child; SIGKILL of it kills the child too', async () => {
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    const t = await freshDb();
    dbs.push(t);
    const { child, exited } = run(['import', '--batch-size', '5', KEV], t.url);
    const kid = await relaunched(child.pid!);
    for (;;) {
      if ((await kevRows(t)) >= 100) break;
      assert.equal(child.exitCode, null, 'the import ended before the signal');
      await sleep(20);
    }
    child.kill(signal);
    const end = await exited;
    if (signal === 'SIGTERM') {
      assert.equal(end.code, 143, `${signal}: ${JSON.stringify(end)}`);
      assert.match(end.stderr, /Stopped by SIGTERM\.\n$/);
    }
    else assert.equal(end.signal, 'SIGKILL');
    for (let i = 0; i < 500 && alive(kid); i++) await sleep(10);
    assert.equal(alive(kid), false, `${signal}: the child ended with the visible process`);
    const n = await kevRows(t);
    assert.ok(n < 1662, `${signal}: stopped mid-import (${n} of 1,662)`);
    await sleep(300);
    assert.equal(await kevRows(t), n, `${signal}: nothing is written after the stop`);
  }
});
