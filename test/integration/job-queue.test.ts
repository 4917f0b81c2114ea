// The background job queue (src/jobs/queue.ts, pg-boss) across real processes on one database:
// - two worker processes and one schedule: the slot runs exactly once (docs/reliability.md D5);
// - a worker killed with SIGKILL mid-job: the job is retried or failed as its policy says, never lost (D3).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import pino from 'pino';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { FAST_TIMINGS, TEST_JOBS } from '../helpers/job-table.ts';
import { loadConfig } from '../../src/config.ts';
import { startJobQueue, JOB_SCHEMA, type JobQueue } from '../../src/jobs/queue.ts';

const root = path.resolve(import.meta.dirname, '../..');
let db: TestDb;
let sender: JobQueue;
const children: ChildProcess[] = [];

before(async () => {
  db = await freshDb();
  // A process that only sends jobs (an API replica with VULNINTEL_WORKERS=0); it also installs pg-boss's schema.
  sender = await startJobQueue({
    config: loadConfig({ DATABASE_URL: db.url }),
    store: db.store,
    log: pino({ level: 'silent' }),
    workers: false,
    jobs: TEST_JOBS(() => {}, null),
    timings: FAST_TIMINGS,
  });
});
after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await sender.stop(1000);
  await db.drop();
});

interface Worker {
  child: ChildProcess;
  lines: string[];
  waitFor(re: RegExp): Promise<string>;
  stop(): Promise<void>;
}

function worker(env: Record<string, string> = {}): Worker {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'test/helpers/job-child.ts')], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: db.url, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const lines: string[] = [];
  const waiters: { re: RegExp; resolve(l: string): void }[] = [];
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      lines.push(line);
      for (const w of [...waiters])
        if (w.re.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
    }
  });
  return {
    child,
    lines,
    waitFor: (re) => {
      const seen = lines.find((l) => re.test(l));
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ re, resolve }));
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

interface JobRow {
  id: string;
  state: string;
  retry_count: number;
  output: { message?: string } | null;
}

async function jobs(name: string): Promise<JobRow[]> {
  const r = await db.store.pool.query<JobRow>(
    `SELECT id, state, retry_count, output FROM ${JOB_SCHEMA}.job WHERE name = $1
    UNION ALL SELECT id, state, retry_count, output FROM ${JOB_SCHEMA}.archive WHERE name = $1`,
    [name],
  );
  return r.rows;
}

async function until<T>(fn: () => Promise<T | null>): Promise<T> {
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('two worker processes, one schedule: the slot runs exactly once', async () => {
  // A daily slot at the current minute (or the next one when this minute is nearly over): it is due during the
  // test and not again for a day, so every run the workers make belongs to this one slot.
  const now = new Date((await db.store.pool.query<{ t: Date }>('SELECT now() AS t')).rows[0].t);
  if (now.getUTCSeconds() > 40) now.setUTCMinutes(now.getUTCMinutes() + 1);
  const cron = `${now.getUTCMinutes()} ${now.getUTCHours()} * * *`;
  const a = worker({ TICK_CRON: cron });
  const b = worker({ TICK_CRON: cron });
  await Promise.all([a.waitFor(/^ready$/), b.waitFor(/^ready$/)]);
  await Promise.race([a.waitFor(/^run test-tick /), b.waitFor(/^run test-tick /)]);
  const done = await until(async () => {
    const rows = await jobs('test-tick');
    return rows.some((r) => r.state === 'completed') ? rows : null;
  });
  // Both workers keep checking the clock every second for the rest of the slot's minute: give them a few
  // rounds to (wrongly) add a second run before counting.
  await new Promise((r) => setTimeout(r, 4000));
  await Promise.all([a.stop(), b.stop()]);
  const rows = await jobs('test-tick');
  assert.equal(rows.length, 1, `one job for the slot, got ${JSON.stringify(rows)}`);
  assert.equal(rows[0].id, done[0].id);
  assert.equal(rows[0].state, 'completed');
  const runs = [...a.lines, ...b.lines].filter((l) => l.startsWith('run test-tick '));
  assert.deepEqual(runs, [`run test-tick ${rows[0].id} 0`], 'one handler run across both processes');
  const schedules = await db.store.pool.query(
    `SELECT name, cron, timezone FROM ${JOB_SCHEMA}.schedule WHERE name = 'test-tick'`,
  );
  assert.deepEqual(schedules.rows, [{ name: 'test-tick', cron, timezone: 'UTC' }]);
});

test('a worker killed mid-job: the job with a retry left runs again elsewhere; the one without is failed, not lost', async () => {
  const a = worker();
  await a.waitFor(/^ready$/);
  const retried = await sender.send('test-retried');
  const once = await sender.send('test-once');
  assert.ok(retried && once);
  await Promise.all([
    a.waitFor(new RegExp(`^run test-retried ${retried} 0$`)),
    a.waitFor(new RegExp(`^run test-once ${once} 0$`)),
  ]);
  a.child.kill('SIGKILL');
  await new Promise((r) => a.child.once('exit', r));
  // Both jobs are still `active`, held by a process that no longer exists.
  assert.deepEqual(
    (await jobs('test-retried')).map((r) => r.state),
    ['active'],
  );
  assert.deepEqual(
    (await jobs('test-once')).map((r) => r.state),
    ['active'],
  );

  const b = worker();
  await b.waitFor(/^ready$/);
  // After its expiry (2 s), the retried job goes back to the queue and worker B runs it as attempt 2.
  await b.waitFor(new RegExp(`^run test-retried ${retried} 1$`));
  const finalRetried = await until(async () => {
    const [r] = await jobs('test-retried');
    return r.state === 'completed' ? r : null;
  });
  assert.equal(finalRetried.retry_count, 1);
  const finalOnce = await until(async () => {
    const [r] = await jobs('test-once');
    return r.state === 'failed' ? r : null;
  });
  assert.equal(finalOnce.retry_count, 0);
  assert.match(JSON.stringify(finalOnce.output), /timeout/i, 'failed because it expired in the active state');
  await b.stop();
  assert.deepEqual(
    b.lines.filter((l) => l.startsWith('run ')),
    [`run test-retried ${retried} 1`],
    'the job without a retry never ran again',
  );
});

test("warm(): each job's hook is called once when a process starts working it; a failing warm-up is logged and the queue runs on", async () => {
  const calls: string[] = [];
  const logged: string[] = [];
  const policy = { retryLimit: 0, retryDelaySeconds: 1, expireInSeconds: 60, singleFlight: true };
  const q = await startJobQueue({
    config: loadConfig({ DATABASE_URL: db.url }),
    store: db.store,
    workers: true,
    timings: FAST_TIMINGS,
    log: pino(
      { level: 'warn' },
      {
        write: (l: string) => {
          logged.push(l);
        },
      },
    ),
    jobs: [
      {
        name: 'warm-ok',
        summary: 'warms',
        policy,
        schedule: () => null,
        run: async () => {},
        warm: async () => {
          calls.push('warm-ok');
        },
      },
      {
        name: 'warm-bad',
        summary: 'fails to warm',
        policy,
        schedule: () => null,
        run: async () => {
          calls.push('ran');
        },
        warm: async () => {
          throw new Error('index unavailable');
        },
      },
    ],
  });
  try {
    await until(async () => (logged.some((l) => l.includes('job warm-up failed')) ? true : null));
    assert.deepEqual(calls, ['warm-ok']);
    const line = JSON.parse(logged.find((l) => l.includes('job warm-up failed'))!);
    assert.deepEqual([line.job, line.err], ['warm-bad', 'index unavailable']);
    // The job whose warm-up failed still runs.
    await q.send('warm-bad');
    await until(async () => (calls.includes('ran') ? true : null));
  } finally {
    await q.stop(1000);
  }
});
