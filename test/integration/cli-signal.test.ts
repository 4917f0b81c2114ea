// A CLI command stopped by a signal (src/cli.ts): the runtime is closed under the running command, and the exit
// code says why (143 for SIGTERM, 130 for SIGINT) with "Stopped by …" on stderr, not the error the closed
// connections caused in the command. The import stops between batches and writes nothing afterwards.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sql } from '../../src/store/kysely.ts';
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
const kevRows = async (t: TestDb) =>
  (await sql<{ n: number }>`SELECT count(*)::int AS n FROM cve_sources WHERE source = 'kev'`.execute(t.store.db))
    .rows[0].n;

const runErrors = async (t: TestDb) =>
  (await sql<{ error: string | null }>`SELECT error FROM ingest_runs ORDER BY id`.execute(t.store.db)).rows.map(
    (r) => r.error,
  );

for (const [signal, code] of [
  ['SIGTERM', 143],
  ['SIGINT', 130],
] as const) {
  test(`${signal} mid-import: exit ${code}, "Stopped by ${signal}.", nothing written after`, async () => {
    const t = await freshDb();
    dbs.push(t);
    const child = spawn(process.execPath, [BIN, 'import', '--batch-size', '5', KEV], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: t.url, LOG_LEVEL: 'silent', VULNINTEL_AUTO_IMPORT: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    spawned.push(child);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (c, s) => resolve({ code: c, signal: s })),
    );
    for (;;) {
      if ((await kevRows(t)) >= 100) break;
      assert.equal(child.exitCode, null, `the import ended before the signal: ${stderr}`);
      await sleep(20);
    }
    child.kill(signal);
    assert.deepEqual(await exited, { code, signal: null }, stderr);
    assert.match(stderr, new RegExp(`Stopped by ${signal}\\.\\n$`));
    assert.doesNotMatch(stderr, /Error:/);
    const n = await kevRows(t);
    assert.ok(n < 1662, `stopped mid-import (${n} of 1,662)`);
    assert.deepEqual(
      await runErrors(t),
      [`interrupted by ${signal}`, `interrupted by ${signal}`],
      'the run is recorded as stopped by the signal',
    );
    await sleep(300);
    assert.equal(await kevRows(t), n, 'nothing is written after the stop');
  });
}

// A feed read on a feed thread (the snapshot's CVE Record 5 file): the command waits on the thread's next items, not
// on a query; closing the database under it would end the process before the command noticed: no "Stopped by"
// line, and the run recorded as failed with "driver has already been destroyed". The import stops at its next check
// and records why.
test('SIGTERM during a feed-thread import: "Stopped by SIGTERM.", the run recorded as interrupted', async () => {
  const t = await freshDb();
  dbs.push(t);
  const cve5 = feedDir([snapshotFile('cve5', 'vulnrichment-cve5.jsonl.gz')]);
  const child = spawn(process.execPath, [BIN, 'import', cve5], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: t.url, LOG_LEVEL: 'silent', VULNINTEL_AUTO_IMPORT: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.push(child);
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (c, s) => resolve({ code: c, signal: s })),
  );
  for (;;) {
    const n = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM cve_sources`.execute(t.store.db)).rows[0].n;
    if (n >= 1000) break;
    assert.equal(child.exitCode, null, `the import ended before the signal: ${stderr}`);
    await sleep(20);
  }
  child.kill('SIGTERM');
  assert.deepEqual(await exited, { code: 143, signal: null }, stderr);
  assert.match(stderr, /Stopped by SIGTERM\.\n$/);
  assert.doesNotMatch(stderr, /Error:|destroyed/);
  assert.deepEqual(await runErrors(t), ['interrupted by SIGTERM', 'interrupted by SIGTERM']);
});
