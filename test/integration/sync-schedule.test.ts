// The optional in-process sync schedule: off by default; a round that finds another sync running is skipped.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { loadConfig } from '../../src/config.ts';
import { syncOnce, startSyncSchedule } from '../../src/jobs/sync-schedule.ts';
import { tryAcquireSyncLock } from '../../src/store/sync-state.ts';

let db: TestDb;
const log = pino({ level: 'silent' });
before(async () => { db = await freshDb(); });
after(async () => { await db.drop(); });

test('no schedule unless VULNINTEL_SYNC_INTERVAL_HOURS is set; out-of-range values are refused by name', () => {
  const config = loadConfig({ DATABASE_URL: db.url });
  assert.equal(config.syncIntervalHours, 0);
  assert.equal(startSyncSchedule(config, db.store, log), null);
  assert.throws(() => loadConfig({ VULNINTEL_SYNC_INTERVAL_HOURS: '500' }), /VULNINTEL_SYNC_INTERVAL_HOURS/);
  assert.equal(loadConfig({ VULNINTEL_SYNC_INTERVAL_HOURS: '24' }).syncIntervalHours, 24);
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
