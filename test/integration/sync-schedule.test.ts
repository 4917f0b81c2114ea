// The scheduled sync (the `sync` job of src/jobs/registry.ts, run by the job workers): daily by default, 0 turns it
// off; the interval maps to a cron slot; a round that finds another sync running is skipped; a round without network
// keeps the corpus, logs one warning, and health shows each feed's age.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { loadConfig } from '../../src/config.ts';
import { syncOnce } from '../../src/jobs/sync-schedule.ts';
import { JOBS, syncCron, syncJob } from '../../src/jobs/registry.ts';
import { tryAcquireSyncLock } from '../../src/store/sync-state.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { healthFacts } from '../../src/store/health.ts';
import { buildHealth, FEED_NAMES } from '../../src/domain/health.ts';
import { DEFAULT_FEED_URLS } from '../../src/config.ts';

let db: TestDb;
const log = pino({ level: 'silent' });
before(async () => {
  db = await freshDb();
});
after(async () => {
  await db.drop();
});

test('daily by default (00:00 UTC); 0 turns it off; out-of-range values are refused by name', () => {
  const config = loadConfig({ DATABASE_URL: db.url });
  assert.equal(config.syncIntervalHours, 24);
  assert.equal(syncJob.schedule(config), '0 0 * * *');
  const off = loadConfig({ DATABASE_URL: db.url, VULNINTEL_SYNC_INTERVAL_HOURS: '0' });
  assert.equal(off.syncIntervalHours, 0);
  assert.equal(syncJob.schedule(off), null);
  assert.ok(JOBS.includes(syncJob));
  assert.throws(() => loadConfig({ VULNINTEL_SYNC_INTERVAL_HOURS: '500' }), /VULNINTEL_SYNC_INTERVAL_HOURS/);
  // Intervals without a fixed slot in the day (5 h, 48 h) are refused rather than drifting.
  assert.throws(
    () => loadConfig({ VULNINTEL_SYNC_INTERVAL_HOURS: '5' }),
    /VULNINTEL_SYNC_INTERVAL_HOURS: must be 0 \(off\), a divisor of 24/,
  );
  assert.throws(() => loadConfig({ VULNINTEL_SYNC_INTERVAL_HOURS: '48' }), /VULNINTEL_SYNC_INTERVAL_HOURS/);
  assert.equal(loadConfig({ VULNINTEL_SYNC_INTERVAL_HOURS: '24' }).syncIntervalHours, 24);
  assert.equal(syncJob.schedule(loadConfig({ VULNINTEL_SYNC_INTERVAL_HOURS: '24' })), '0 0 * * *');
  assert.deepEqual([1, 6, 12, 168].map(syncCron), ['0 * * * *', '0 */6 * * *', '0 */12 * * *', '0 0 * * 0']);
  // Single-flight, retried once after a lost worker, expiring long after a full first sync could take.
  assert.deepEqual(syncJob.policy, {
    retryLimit: 1,
    retryDelaySeconds: 300,
    expireInSeconds: 6 * 3600,
    singleFlight: true,
  });
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

test("without network: the corpus stays as it is, the run logs exactly one warning, health shows each feed's age", async () => {
  const fixture = fileURLToPath(new URL('../fixtures/cve5/CVE-2019-0714.json', import.meta.url));
  await importPaths(db.store.db, [fixture], { source: 'import' });
  const corpus = async () =>
    (await db.store.pool.query('SELECT cve_id, md5(doc::text) AS doc FROM cves ORDER BY cve_id')).rows;
  const before = await corpus();
  assert.equal(before.length, 1);
  // One feed synced two days ago, as an older successful run.
  const twoDaysAgo = new Date(Date.now() - 50 * 3_600_000);
  await db.store.db
    .insertInto('ingest_runs')
    .values({
      stage: 'ingest',
      source: 'sync:kev',
      status: 'succeeded',
      started_at: twoDaysAgo,
      finished_at: twoDaysAgo,
      rows: 3,
    })
    .execute();
  // Every feed at an allow-listed address where nothing listens: what a machine without network sees.
  const closed = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    VULNINTEL_EGRESS_ALLOW: `127.0.0.1:${closed}`,
    VULNINTEL_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'contract-sync-')),
  };
  for (const k of Object.keys(DEFAULT_FEED_URLS))
    env[`VULNINTEL_FEED_URL_${k.toUpperCase()}`] = `http://127.0.0.1:${closed}/${k}`;
  const config = loadConfig(env);
  const lines: { level: number; msg: string; failed?: { source: string; error: string }[]; held_warnings?: number }[] =
    [];
  const capture = pino(
    { level: 'debug' },
    {
      write: (s: string) => {
        lines.push(JSON.parse(s));
      },
    },
  );
  const report = await syncOnce(config, db.store, capture, { retry: { maxAttempts: 2 }, sleep: async () => {} });
  assert.ok(report !== 'busy');
  assert.equal(report.ok, false);
  assert.equal(report.sources.length, FEED_NAMES.length);
  const warnings = lines.filter((l) => l.level === 40);
  assert.equal(warnings.length, 1, JSON.stringify(warnings.map((w) => w.msg)));
  assert.match(
    warnings[0].msg,
    /^scheduled sync: no feed could be reached \(8 of 8 failed; no network\?\); the corpus is kept as it is/,
  );
  assert.deepEqual(
    warnings[0].failed!.map((f) => f.source),
    [...FEED_NAMES],
  );
  assert.match(warnings[0].failed![0].error, /ECONNREFUSED on all 2 attempts/);
  assert.ok(warnings[0].held_warnings! >= FEED_NAMES.length, 'each retry was held back into the one warning');
  // The retries are still there for whoever reads debug.
  assert.ok(lines.some((l) => l.level === 20 && l.msg === 'feed request failed; retrying'));
  assert.deepEqual(await corpus(), before, 'the corpus is untouched');
  const f = await healthFacts(db.store.db);
  const h = buildHealth({
    now: new Date(),
    db: {
      sizeBytes: f.dbSizeBytes,
      runs: f.runs,
      totalCves: f.totalCves,
      pendingEnrichment: f.pendingEnrichment,
      feeds: f.feeds,
    },
    diskFreeBytes: null,
  });
  assert.deepEqual(Object.keys(h.feeds!), [...FEED_NAMES]);
  assert.equal(h.feeds!.kev.status, 'stale');
  assert.equal(h.feeds!.kev.last_success, twoDaysAgo.toISOString());
  assert.ok(h.feeds!.kev.age_hours! >= 50 && h.feeds!.kev.age_hours! < 51, String(h.feeds!.kev.age_hours));
  assert.equal(h.feeds!.kev.last_attempt_status, 'failed');
  assert.deepEqual(h.feeds!.nvd, {
    status: 'never_synced',
    last_success: null,
    age_hours: null,
    last_attempt: h.feeds!.nvd.last_attempt,
    last_attempt_status: 'failed',
  });
  assert.ok(Date.parse(h.feeds!.nvd.last_attempt!) > twoDaysAgo.getTime());
});
