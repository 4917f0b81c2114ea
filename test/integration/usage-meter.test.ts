// The monthly usage counter shared by several API processes (each with its own write-behind meter on one
// database): the stored total is exact, and each process's reported total is read again once it is older than the
// flush interval, so calls counted by other processes show up in it (store/usage-meter.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import { UsageMeter } from '../../src/store/usage-meter.ts';
import { createOrganization } from '../../src/store/identity.ts';
import { freshDb, type TestDb } from '../helpers/db.ts';

let t: TestDb;
before(async () => {
  t = await freshDb();
});
after(async () => {
  await t.drop();
});

const MONTH = '2026-11-01';
const INTERVAL = 150;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const stored = async (orgId: number) =>
  (
    await sql<{ calls: number }>`
  SELECT calls FROM api_usage_monthly WHERE org_id = ${orgId} AND month = ${MONTH}::date`.execute(t.store.db)
  ).rows[0]?.calls ?? 0;

test("two processes' meters: each reports the other's calls once its total is older than the interval; the stored total is exact", async () => {
  const org = await createOrganization(t.store.db, 'Meter org', 'professional');
  const now = new Date('2026-11-21T12:00:00Z');
  const a = new UsageMeter(t.store.db, INTERVAL);
  const b = new UsageMeter(t.store.db, INTERVAL);
  try {
    // A counts 5 calls (the first in the database, 4 in memory): it reports 1..5.
    const seenA: number[] = [];
    for (let i = 0; i < 5; i++) seenA.push(await a.record(org.id, 1, MONTH, now));
    assert.deepEqual(seenA, [1, 2, 3, 4, 5]);
    await a.flush();
    assert.equal(await stored(org.id), 5);
    // B's first call reads the shared total: 6.
    assert.equal(await b.record(org.id, 2, MONTH, now), 6);
    for (let i = 0; i < 9; i++) await b.record(org.id, 2, MONTH, now);
    await b.flush();
    assert.equal(await stored(org.id), 15);
    // A has been idle past the interval: its next call reads the total again (15 + this call), not 5 + 1.
    await sleep(INTERVAL + 50);
    assert.equal(await a.record(org.id, 1, MONTH, now), 16);
    // Within the interval A counts in memory on top of that total.
    assert.equal(await a.record(org.id, 1, MONTH, now), 17);
    // Interleaved bursts from both, concurrently: nothing lost or counted twice.
    await Promise.all([
      ...Array.from({ length: 40 }, () => a.record(org.id, 1, MONTH, now)),
      ...Array.from({ length: 60 }, () => b.record(org.id, 2, MONTH, now)),
    ]);
  } finally {
    await a.close();
    await b.close();
  }
  assert.equal(await stored(org.id), 117);
});

test('a meter drops nothing when an entry is read again while a flush is under way', async () => {
  const org = await createOrganization(t.store.db, 'Meter org 2', 'professional');
  const now = new Date('2026-11-21T12:00:00Z');
  const a = new UsageMeter(t.store.db, 20);
  try {
    for (let round = 0; round < 10; round++) {
      await Promise.all(Array.from({ length: 10 }, () => a.record(org.id, 1, MONTH, now)));
      await sleep(25);
    }
  } finally {
    await a.close();
  }
  assert.equal(await stored(org.id), 100);
});
