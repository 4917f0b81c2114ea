// The job queue's own edges (src/jobs/queue.ts):
// - processes starting at the same moment on a database without pg-boss's schema all start (the setup lock);
// - a job whose outcome cannot be stored leaves the process running, logs it, and the job stays active (it
//   expires and its policy retries it), where pg-boss alone would end the process with an unhandled rejection;
// - a stop waits for the job a worker is running, and closes nothing under it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { freshDb } from '../helpers/db.ts';
import { FAST_TIMINGS } from '../helpers/job-table.ts';
import { loadConfig } from '../../src/config.ts';
import { startJobQueue, JOB_SCHEMA, type JobDefinition, type JobQueue } from '../../src/jobs/queue.ts';

function recordingLog() {
  const lines: { msg: string; err?: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as { msg: string; err?: string });
      cb();
    },
  });
  return { log: pino({ level: 'info' }, stream), lines };
}

const job = (name: string, run: JobDefinition['run']): JobDefinition => ({
  name,
  summary: name,
  policy: { retryLimit: 0, retryDelaySeconds: 0, expireInSeconds: 60, singleFlight: false },
  schedule: () => null,
  run,
});

async function until<T>(
  what: string,
  fn: () => Promise<T | null | undefined> | T | null | undefined,
  ms = 20_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== null && v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('three queues starting at once on an empty database all start, and pg-boss is installed once', async () => {
  const db = await freshDb();
  const queues: JobQueue[] = [];
  try {
    const config = loadConfig({ DATABASE_URL: db.url });
    const started = await Promise.allSettled(
      [0, 1, 2].map(() =>
        startJobQueue({
          config,
          store: db.store,
          log: pino({ level: 'silent' }),
          workers: true,
          timings: FAST_TIMINGS,
          jobs: [job('setup-probe', async () => {})],
        }),
      ),
    );
    for (const s of started) if (s.status === 'fulfilled') queues.push(s.value);
    assert.deepEqual(
      started.map((s) => (s.status === 'rejected' ? String(s.reason) : 'started')),
      ['started', 'started', 'started'],
    );
    const v = await db.store.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${JOB_SCHEMA}.version`);
    assert.equal(v.rows[0].n, 1);
    const q = await db.store.pool.query<{ name: string }>(
      `SELECT name FROM ${JOB_SCHEMA}.queue WHERE name = 'setup-probe'`,
    );
    assert.equal(q.rows.length, 1);
  } finally {
    for (const q of queues) await q.stop(2000);
    await db.drop();
  }
});

test('a job outcome that cannot be stored is logged, the process lives on, and the job stays active', async () => {
  const db = await freshDb();
  const { log, lines } = recordingLog();
  let queue: JobQueue | null = null;
  try {
    queue = await startJobQueue({
      config: loadConfig({ DATABASE_URL: db.url }),
      store: db.store,
      log,
      workers: true,
      timings: FAST_TIMINGS,
      jobs: [
        job('outcome-lost', async (ctx) => {
          // The job table is gone by the time pg-boss stores the outcome.
          await ctx.store.pool.query(`ALTER TABLE ${JOB_SCHEMA}.job RENAME TO job_away`);
        }),
      ],
    });
    const id = await queue.send('outcome-lost');
    assert.ok(id);
    const warned = await until('the outcome warning', () =>
      lines.find((l) => /job outcome was not stored/.test(l.msg)),
    );
    assert.match(warned.err ?? '', /job" does not exist/);
    await db.store.pool.query(`ALTER TABLE ${JOB_SCHEMA}.job_away RENAME TO job`);
    const r = await db.store.pool.query<{ state: string }>(`SELECT state FROM ${JOB_SCHEMA}.job WHERE id = $1`, [id]);
    assert.deepEqual(r.rows, [{ state: 'active' }]);
  } finally {
    await queue?.stop(2000);
    await db.drop();
  }
});

test('a stop waits for the running job, which completes on an open pool', async () => {
  const db = await freshDb();
  const { log, lines } = recordingLog();
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let started = false;
  let queue: JobQueue | null = null;
  try {
    queue = await startJobQueue({
      config: loadConfig({ DATABASE_URL: db.url }),
      store: db.store,
      log,
      workers: true,
      timings: FAST_TIMINGS,
      jobs: [
        job('slow', async (ctx) => {
          started = true;
          await gate;
          await ctx.store.pool.query('SELECT 1');
        }),
      ],
    });
    const id = await queue.send('slow');
    await until('the job to start', () => started);
    const stopping = queue.stop(10_000);
    let stopped = false;
    void stopping.then(() => {
      stopped = true;
    });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(stopped, false, 'the stop waits for the running job');
    release();
    await stopping;
    queue = null;
    const r = await db.store.pool.query<{ state: string }>(
      `SELECT state FROM ${JOB_SCHEMA}.job WHERE id = $1 UNION ALL SELECT state FROM ${JOB_SCHEMA}.archive WHERE id = $1`,
      [id],
    );
    assert.deepEqual(r.rows, [{ state: 'completed' }]);
    assert.equal(
      lines.some((l) => /not stored|job failed/.test(l.msg)),
      false,
    );
  } finally {
    release();
    await queue?.stop(2000);
    await db.drop();
  }
});
