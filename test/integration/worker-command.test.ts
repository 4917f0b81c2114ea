// Where the job workers run: inside `vulnintel serve` by default, alone with `vulnintel worker`, and nowhere in
// a server started with VULNINTEL_WORKERS=0 (an API replica). Spawned processes on one fresh database.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { JOB_SCHEMA } from '../../src/jobs/queue.ts';
import { ALERT_DIGEST_CRON, ALERT_RUN_CRON } from '../../src/jobs/alerts.ts';
import { EXPOSURE_SNAPSHOT_CRON, PLANT_REPORT_CRON } from '../../src/jobs/reports.ts';

/** The slots every worker registers whatever the sync setting: the hourly account purge, the alert digest, the alert run, the daily exposure snapshot, the plant reports and the read-model upkeep. */
const ALWAYS = [
  { name: 'account-purge', cron: '0 * * * *' },
  { name: 'alert-digest', cron: ALERT_DIGEST_CRON },
  { name: 'alert-run', cron: ALERT_RUN_CRON },
  { name: 'exposure-snapshot', cron: EXPOSURE_SNAPSHOT_CRON },
  { name: 'plant-report', cron: PLANT_REPORT_CRON },
  { name: 'read-model-vacuum', cron: '30 * * * *' },
];

const bin = path.resolve(import.meta.dirname, '../../bin/vulnintel.js');
let db: TestDb;
before(async () => {
  db = await freshDb();
});
after(async () => {
  await db.drop();
});

/** Starts `vulnintel <args>`, waits for `ready` on stdout or stderr, runs `check`, then SIGTERM; returns the exit code. */
async function run(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  check: () => Promise<void>,
): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, DATABASE_URL: db.url, VULNINTEL_AUTO_IMPORT: 'false', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      if (ready.test(out)) resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (c) => reject(new Error(`exited ${c} before ready: ${out}`)));
  });
  let failed: unknown = null;
  try {
    await check();
  } catch (e) {
    failed = e;
  }
  // Stopped whether the check passed or not: a child left running would hold the test run open. One that has not
  // exited 60 s after SIGTERM (the worker's own bound is 45 s) is killed, and the test fails with its output.
  const code = await new Promise<number | null | 'hung'>((resolve) => {
    child.removeAllListeners('exit');
    const hung = setTimeout(() => {
      child.kill('SIGKILL');
      resolve('hung');
    }, 60_000);
    // 'close': after the exit and the end of its output (the stopping line comes last).
    child.once('close', (c) => {
      clearTimeout(hung);
      resolve(c);
    });
    child.kill('SIGTERM');
  });
  if (failed) throw failed;
  if (code === 'hung') throw new Error(`still running 60 s after SIGTERM; its output:\n${out}`);
  return { code, out };
}

async function schedules(): Promise<{ name: string; cron: string }[] | null> {
  const installed = await db.store.pool.query(`SELECT 1 FROM information_schema.schemata WHERE schema_name = $1`, [
    JOB_SCHEMA,
  ]);
  if (installed.rowCount === 0) return null;
  return (await db.store.pool.query(`SELECT name, cron FROM ${JOB_SCHEMA}.schedule ORDER BY name`)).rows;
}

test('serve with VULNINTEL_WORKERS=0 starts no job queue at all', async () => {
  const r = await run(
    ['serve'],
    { VULNINTEL_WORKERS: '0', VULNINTEL_SYNC_INTERVAL_HOURS: '24' },
    /job workers off in this process/,
    async () => {
      assert.equal(await schedules(), null, 'no pgboss schema: nothing polls from an API-only replica');
    },
  );
  assert.match(r.out, /job workers off in this process/);
  assert.equal(r.code, 0);
});

test('vulnintel worker runs the workers alone and registers the daily sync slot by default; SIGTERM stops it cleanly', async () => {
  const r = await run(['worker'], {}, /Job workers running/, async () => {
    assert.deepEqual(await schedules(), [...ALWAYS, { name: 'sync', cron: '0 0 * * *' }]);
    const q = await db.store.pool.query(
      `SELECT name, policy, retry_limit, expire_seconds FROM ${JOB_SCHEMA}.queue WHERE name = 'sync'`,
    );
    assert.deepEqual(q.rows, [{ name: 'sync', policy: 'singleton', retry_limit: 1, expire_seconds: 6 * 3600 }]);
  });
  assert.match(r.out, /jobs: sync/);
  assert.match(r.out, /Stopping the job workers \(SIGTERM\)\./);
  assert.equal(r.code, 0);
});

test('serve runs the workers by default; VULNINTEL_SYNC_INTERVAL_HOURS=0 turns the sync schedule off and removes its slot', async () => {
  const r = await run(['serve'], { VULNINTEL_SYNC_INTERVAL_HOURS: '0' }, /"msg":"job workers started"/, async () => {
    assert.deepEqual(await schedules(), ALWAYS);
  });
  assert.equal(r.code, 0);
});
