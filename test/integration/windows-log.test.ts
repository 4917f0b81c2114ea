// Spec §5.9: each v2 call logs time, key, path, status, host count and duration; never a body.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { loadConfig } from '../../src/config.ts';
import { buildApp } from '../../src/app.ts';
import { fixedClock } from '../../src/lib/clock.ts';
import { freshDb } from '../helpers/db.ts';
import { seedOrg, TEST_INTERNAL_KEY } from '../helpers/app.ts';
import { importMsrcDocuments } from '../../src/services/import/msrc-documents.ts';
import { FIXTURE_DIR } from '../unit/windows/fixture-index.ts';

test('a v2 call leaves one log line with time, key id, path, status, host count and duration, and no body', async () => {
  const db = await freshDb();
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _e, cb) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      cb();
    },
  });
  const config = loadConfig({
    DATABASE_URL: db.url,
    VULNINTEL_INTERNAL_KEY: TEST_INTERNAL_KEY,
    VULNINTEL_PUBLIC_URL: 'http://vulnintel.test',
    VULNINTEL_AUTO_IMPORT: 'false',
    LOG_LEVEL: 'info',
  });
  const app = await buildApp({
    config,
    store: db.store,
    clock: fixedClock('2026-07-10T12:00:00Z'),
    logger: pino({ level: 'info' }, sink),
  });
  try {
    await app.ready();
    await importMsrcDocuments(db.store.db, [`${FIXTURE_DIR}/2026-Jun.xml.gz`]);
    const org = await seedOrg(db.store);
    const secretKb = 'KB5094123';
    const host = {
      asset_id: 'log-test-asset-7f3a9c',
      os_product: 'Windows Server 2019 Datacenter',
      edition_id: 'ServerDatacenter',
      os_build: '10.0.17763.8755',
      architecture: 'x64',
      installation_type: 'Server',
      installed_kbs: [secretKb],
      kb_source: 'Get-HotFix',
      collected_at: '2026-07-01T08:00:00Z',
    };
    const r = await app.inject({
      method: 'POST',
      url: '/api/v2/assets/correlate',
      headers: org.auth,
      payload: { windows_hosts: [host, { ...host, asset_id: 'second-host-00000001' }] },
    });
    assert.equal(r.statusCode, 200);
    const bad = await app.inject({
      method: 'POST',
      url: '/api/v2/assets/correlate',
      headers: org.auth,
      payload: { windows_hosts: Array(201).fill(host) },
    });
    assert.equal(bad.statusCode, 413);
    const calls = lines.map((l) => JSON.parse(l)).filter((o) => o.v2 === true);
    assert.equal(calls.length, 2);
    assert.equal(calls[0].key_id, org.keyId);
    assert.equal(calls[0].path, '/api/v2/assets/correlate');
    assert.equal(calls[0].status, 200);
    assert.equal(calls[0].hosts, 2);
    assert.equal(typeof calls[0].duration_ms, 'number');
    assert.equal(typeof calls[0].time, 'number');
    assert.deepEqual([calls[1].status, calls[1].hosts], [413, 201]);
    const all = lines.join('\n');
    assert.ok(!all.includes('log-test-asset-7f3a9c'), 'no host record in the logs');
    assert.ok(!all.includes(secretKb), 'no KB list in the logs');
    assert.ok(!all.includes(org.key), 'no API key in the logs');
  } finally {
    await app.close();
    await db.drop();
  }
});
