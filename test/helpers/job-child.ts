// A job worker in a child process, for the job-queue tests (two workers on one database; a worker killed with
// SIGKILL mid-job). It runs the real queue (src/jobs/queue.ts) with a test job table, and reports on stdout:
// `ready`, then `run <job> <id> <retryCount>` each time a handler starts.
// Env: DATABASE_URL; TICK_CRON (schedule of test-tick, optional).
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { openStore } from '../../src/store/db.ts';
import { startJobQueue } from '../../src/jobs/queue.ts';
import { TEST_JOBS, FAST_TIMINGS } from './job-table.ts';

const store = openStore(process.env.DATABASE_URL!, { max: 2 });
const config = loadConfig({ DATABASE_URL: process.env.DATABASE_URL, LOG_LEVEL: 'silent' });
const queue = await startJobQueue({
  config,
  store,
  log: pino({ level: 'silent' }),
  workers: true,
  timings: FAST_TIMINGS,
  jobs: TEST_JOBS((line) => process.stdout.write(`${line}\n`), process.env.TICK_CRON ?? null),
});
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void queue
    .stop(1000)
    .then(() => store.close())
    .then(() => process.exit(0));
});
