// SIGTERM during the first start's snapshot import: the import stops between batches and the
// server exits 0 (it printed `Error: driver has already been destroyed`, since the pool was closed under the
// running import); the run is recorded as interrupted, and the next start completes the import before listening.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sql } from '../../src/store/kysely.ts';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { feedDir } from '../helpers/ingest.ts';
import { snapshotFile } from '../helpers/feeds.ts';
import { freePort } from '../helpers/net.ts';

const BIN = fileURLToPath(new URL('../../bin/vulnintel.js', import.meta.url));
let db: TestDb;
before(async () => {
  db = await freshDb();
});
after(async () => {
  await db?.drop();
});

function serve(snapshotDir: string, port: number, extra: NodeJS.ProcessEnv = {}, url = db.url) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: url,
    VULNINTEL_SNAPSHOT_DIR: snapshotDir,
    VULNINTEL_AUTO_IMPORT: 'true',
    PORT: String(port),
    LOG_LEVEL: 'info',
    ...extra,
  };
  const child = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const waiters: { re: RegExp; resolve: () => void }[] = [];
  const onData = (d: Buffer) => {
    out += d;
    for (const w of [...waiters])
      if (w.re.test(out)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const seen = (re: RegExp) =>
    new Promise<void>((resolve, reject) => {
      if (re.test(out)) return resolve();
      waiters.push({ re, resolve });
      void exited.then(() => reject(new Error(`exited before ${re}:\n${out}`)));
    });
  return { child, exited, seen, output: () => out };
}

const snapshotRuns = async () =>
  (
    await sql<{ status: string; error: string | null }>`SELECT status, error FROM ingest_runs
  WHERE stage = 'ingest' AND source = 'snapshot' ORDER BY id`.execute(db.store.db)
  ).rows;

test('SIGTERM during the snapshot import: exit 0 without a database error; the next start completes the import', async () => {
  // A snapshot folder laid out like snapshot/ (real files): the catalogs first, then the KEV catalog.
  const dir = feedDir([
    [snapshotFile('cwe', 'cwec_v4.15.xml.gz'), 'cwe/cwec_v4.15.xml.gz'],
    [snapshotFile('capec', 'capec-3.9-stix21-objects.jsonl.gz'), 'capec/capec-3.9-stix21-objects.jsonl.gz'],
    [snapshotFile('kev', 'known_exploited_vulnerabilities.json'), 'kev/known_exploited_vulnerabilities.json'],
  ]);
  const port = await freePort();
  const first = serve(dir, port);
  await first.seen(/import: file 1\/3/);
  first.child.kill('SIGTERM');
  assert.equal(await first.exited, 0, first.output());
  assert.doesNotMatch(first.output(), /driver has already been destroyed|Failed to start|Error:/);
  assert.match(first.output(), /"msg":"startup work stopped"/);
  assert.deepEqual(await snapshotRuns(), [
    { status: 'failed', error: 'interrupted by SIGTERM; the next start completes it' },
  ]);
  assert.equal(
    (await sql<{ n: number }>`SELECT count(*)::int AS n FROM cves WHERE kev_flagged`.execute(db.store.db)).rows[0].n,
    0,
    'the KEV catalog was not reached',
  );

  const second = serve(dir, port);
  try {
    await second.seen(/completing the interrupted import of the bundled snapshot/);
    await second.seen(/"msg":"ready"/);
    const ping = await fetch(`http://127.0.0.1:${port}/api/v1/health/ping`);
    assert.equal(ping.status, 200);
    assert.deepEqual(
      (await snapshotRuns()).map((r) => r.status),
      ['failed', 'succeeded'],
    );
    assert.equal(
      (await sql<{ n: number }>`SELECT count(*)::int AS n FROM cves WHERE kev_flagged`.execute(db.store.db)).rows[0].n,
      1662,
    );
    second.child.kill('SIGTERM');
    assert.equal(await second.exited, 0, second.output());
  } finally {
    if (second.child.exitCode === null) second.child.kill('SIGKILL');
  }
});

test('the first start imports the snapshot without the API statement timeout: VULNINTEL_STATEMENT_TIMEOUT_MS=100 still starts', async () => {
  // On the API pool, the bulk load's index rebuild would run past the statement timeout: the start would fail with
  // "canceling statement due to statement timeout", and so would every later start.
  const own = await freshDb();
  const dir = feedDir([
    [snapshotFile('cwe', 'cwec_v4.15.xml.gz'), 'cwe/cwec_v4.15.xml.gz'],
    [snapshotFile('capec', 'capec-3.9-stix21-objects.jsonl.gz'), 'capec/capec-3.9-stix21-objects.jsonl.gz'],
    [snapshotFile('kev', 'known_exploited_vulnerabilities.json'), 'kev/known_exploited_vulnerabilities.json'],
  ]);
  const port = await freePort();
  const s = serve(dir, port, { VULNINTEL_STATEMENT_TIMEOUT_MS: '100', VULNINTEL_WORKERS: '0' }, own.url);
  try {
    await s.seen(/"msg":"ready"/);
    assert.doesNotMatch(s.output(), /statement timeout|Error:/);
    const runs = (
      await sql<{
        status: string;
        error: string | null;
      }>`SELECT status, error FROM ingest_runs WHERE source = 'snapshot' ORDER BY id`.execute(own.store.db)
    ).rows;
    assert.deepEqual(runs, [
      { status: 'succeeded', error: null },
      { status: 'succeeded', error: null },
    ]);
    const cve = await fetch(`http://127.0.0.1:${port}/api/v1/cves/CVE-2021-44228`);
    assert.equal(cve.status, 200);
    assert.equal(((await cve.json()) as { data: { cve_id: string } }).data.cve_id, 'CVE-2021-44228');
    s.child.kill('SIGTERM');
    assert.equal(await s.exited, 0, s.output());
  } finally {
    if (s.child.exitCode === null) s.child.kill('SIGKILL');
    await own.drop();
  }
});

test('two servers starting together on an empty database with a short statement timeout: both serve, the snapshot imported once', async () => {
  // Waiting on the API pool for the first one's migrations (and then its snapshot import), the second start would die
  // with "canceling statement due to statement timeout" at VULNINTEL_STATEMENT_TIMEOUT_MS=100.
  const own = await freshDb();
  // A start migrating meanwhile: the migration lock held for a second while both start.
  const migrating = await own.store.pool.connect();
  await migrating.query('SELECT pg_advisory_lock(7224001)');
  const dir = feedDir([
    [snapshotFile('cwe', 'cwec_v4.15.xml.gz'), 'cwe/cwec_v4.15.xml.gz'],
    [snapshotFile('kev', 'known_exploited_vulnerabilities.json'), 'kev/known_exploited_vulnerabilities.json'],
  ]);
  const extra = { VULNINTEL_STATEMENT_TIMEOUT_MS: '100', VULNINTEL_WORKERS: '0' };
  const [p1, p2] = [await freePort(), await freePort()];
  const a = serve(dir, p1, extra, own.url);
  const b = serve(dir, p2, extra, own.url);
  try {
    await new Promise((r) => setTimeout(r, 1000));
    await migrating.query('SELECT pg_advisory_unlock(7224001)');
    migrating.release();
    await Promise.all([a.seen(/"msg":"ready"/), b.seen(/"msg":"ready"/)]);
    assert.doesNotMatch(a.output() + b.output(), /statement timeout|Error:/);
    for (const p of [p1, p2])
      assert.equal((await fetch(`http://127.0.0.1:${p}/api/v1/cves/CVE-2021-44228`)).status, 200);
    const runs = (
      await sql<{ status: string }>`SELECT status FROM ingest_runs WHERE source = 'snapshot' ORDER BY id`.execute(
        own.store.db,
      )
    ).rows;
    assert.deepEqual(
      runs.map((r) => r.status),
      ['succeeded', 'succeeded'],
      'one import (its two stages)',
    );
    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    assert.deepEqual([await a.exited, await b.exited], [0, 0]);
  } finally {
    for (const s of [a, b]) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    await own.drop();
  }
});

// The job workers start right after the "ready" line (their module loads, then the queue starts). A SIGTERM in
// that moment waits for them to start, stops them, then closes the database: exit 0, never a worker started on a
// closed pool.
test('SIGTERM as the server logs ready, while its job workers start: exit 0, "stopped", no error', async () => {
  const own = await freshDb();
  const s = serve(
    feedDir([]),
    await freePort(),
    { VULNINTEL_AUTO_IMPORT: 'false', VULNINTEL_WORKERS: 'true' },
    own.url,
  );
  try {
    await s.seen(/"msg":"ready"/);
    s.child.kill('SIGTERM');
    assert.equal(await s.exited, 0, s.output());
    assert.match(s.output(), /"msg":"stopped"/);
    assert.doesNotMatch(s.output(), /Failed to start|Error:|"level":50/);
  } finally {
    if (s.child.exitCode === null) s.child.kill('SIGKILL');
    await own.drop();
  }
});
