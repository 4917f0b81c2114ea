// date_from / date_to of GET /api/v1/cves are UTC days (docs/cve-api.md), whatever PostgreSQL's TimeZone setting:
// a bare date compared with published_at (timestamptz) would be midnight in the session's zone, so on a server
// whose `timezone` is not UTC the window shifted (Pacific/Auckland: date_from=date_to=2024-02-29 listed a CVE
// published 2024-02-28T16:37Z and left out one published 2024-02-29T20:00Z).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openStore, type Store } from '../../src/store/db.ts';
import { fixedClock } from '../../src/lib/clock.ts';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { buildCve, seedCves } from '../helpers/cve-docs.ts';
import type { FastifyInstance } from 'fastify';

let db: TestDb;
let store: Store;
let app: FastifyInstance;

before(async () => {
  db = await freshDb();
  await seedCves(db.store, [
    buildCve({ id: 'CVE-2024-1001', published: '2024-02-28T16:37:01Z' }),
    buildCve({ id: 'CVE-2024-1002', published: '2024-02-29T00:00:00Z' }),
    buildCve({ id: 'CVE-2024-1003', published: '2024-02-29T20:00:00Z' }),
    buildCve({ id: 'CVE-2024-1004', published: '2024-03-01T00:00:00Z' }),
  ]);
  // Every connection of the app's store runs with a session TimeZone 13 hours ahead of UTC.
  const u = new URL(db.url);
  u.searchParams.set('options', '-c timezone=Pacific/Auckland');
  store = openStore(u.toString(), { max: 3 });
  const zone = await store.pool.query<{ tz: string }>("SELECT current_setting('TimeZone') AS tz");
  assert.equal(zone.rows[0].tz, 'Pacific/Auckland');
  const config = loadConfig({
    DATABASE_URL: u.toString(),
    VULNINTEL_PUBLIC_URL: 'http://vulnintel.test',
    VULNINTEL_AUTO_IMPORT: 'false',
    LOG_LEVEL: 'silent',
    VULNINTEL_EDGE_LIMIT_PER_MINUTE: '0',
  });
  app = await buildApp({ config, store, clock: fixedClock('2026-11-21T12:00:00Z') });
  await app.ready();
});
after(async () => {
  await app?.close();
  await store?.close();
  await db.drop();
});

async function ids(qs: string): Promise<{ total: number; ids: string[] }> {
  const r = await app.inject({ method: 'GET', url: `/api/v1/cves?${qs}` });
  assert.equal(r.statusCode, 200, r.body);
  const b = r.json();
  return { total: b.pagination.total, ids: b.data.map((c: { cve_id: string }) => c.cve_id) };
}

test('date_from and date_to are inclusive UTC days under a non-UTC session TimeZone', async () => {
  assert.deepEqual(await ids('date_from=2024-02-29&date_to=2024-02-29'), {
    total: 2,
    ids: ['CVE-2024-1003', 'CVE-2024-1002'],
  });
  assert.deepEqual(await ids('date_from=2024-02-29'), {
    total: 3,
    ids: ['CVE-2024-1004', 'CVE-2024-1003', 'CVE-2024-1002'],
  });
  assert.deepEqual(await ids('date_to=2024-02-28'), { total: 1, ids: ['CVE-2024-1001'] });
  // The same bounds with another filter and a sort (another SQL path).
  assert.deepEqual(await ids('date_from=2024-02-29&date_to=2024-02-29&sort_by=cvss&kev=false'), {
    total: 2,
    ids: ['CVE-2024-1003', 'CVE-2024-1002'],
  });
});
