// The scheduled sync (the `sync` job of src/jobs/registry.ts, run by the job workers): off by default; the
// interval maps to a cron slot; a round that finds another sync running is skipped.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { loadConfig } from '../../src/config.ts';
import { syncOnce } from '../../src/jobs/sync-schedule.ts';
import { JOBS, syncCron, syncJob } from '../../src/jobs/registry.ts';
import { tryAcquireSyncLock } from '../../src/store/sync-state.ts';

let db: TestDb;
const log = pino({ level: 'silent' });
before(async () => { db = await freshDb(); });
after(async () => { await db.drop(); });

test('no schedule unless VULNINTEL_SYNC_INTERVAL_HOURS is set; out-of-range values are refused by name', () => {
  const config = loadConfig({ DATABASE_URL: db.url });
  assert.equal(config.syncIntervalHours, 0);
  assert.equal(syncJob.schedule(config), null);
  assert.ok(JOBS.includes(syncJob));
  assert.throws(() => loadConfig({ VULNINTEL_SYNC_INTERVAL_HOURS: '500' }), /VULNINTEL_SYNC_INTERVAL_HOURS/);
  // Intervals without a fixed slot in the day (5 h, 48 h) are refused rather than drifting.
  assert.throws(() => loadConfig({ VULNINTEL_SYNC_INTERVAL_HOURS: '5' }), /VULNINTEL_SYNC_INTERVAL_HOURS: must be 0 \(off\), a divisor of 24/);
  assert.throws(() => loadConfig({ VULNINTEL_SYNC_INTERVAL_HOURS: '48' }), /VULNINTEL_SYNC_INTERVAL_HOURS/);
  assert.equal(loadConfig({ VULNINTEL_SYNC_INTERVAL_HOURS: '24' }).syncIntervalHours, 24);
  assert.equal(syncJob.schedule(loadConfig({ VULNINTEL_SYNC_INTERVAL_HOURS: '24' })), '0 0 * * *');
  assert.deepEqual([1, 6, 12, 168].map(syncCron), ['0 * * * *', '0 */6 * * *', '0 */12 * * *', '0 0 * * 0']);
  // Single-flight, retried once after a lost worker, expiring long after a full first sync could take.
  assert.deepEqual(syncJob.policy, { retryLimit: 1, retryDelaySeconds: 300, expireInSeconds: 6 * 3600, singleFlight: true });
});

test('a scheduled round skips (no run recorded) while another sync holds the lock', async () => {
  const config = loadConfig({ DATABASE_URL: db.url, VULNINTEL_SYNC_INTERVAL_HOURS: '24' });
  const lock = await tryAcquireSyncLock(db.store.pool);
  assert.ok(!('held' in lock), 'the test holds the sync lock');
  try {
    assert.equal(await syncOnce(config, db.store, log), 'busy');
  } finally {
    await lock.release();
  }
  const runs = await db.store.db.selectFrom('ingest_runs').select('id').execute();
  assert.equal(runs.length, 0);
});
