// The shared per-key limiter (src/http/limits.ts) over HTTP, with small test windows: exact counts under
// parallel load, weighted units with refused units not charged, independence of keys, the monthly allowance
// headers left alone, the window's end, and the in-process insurance when PostgreSQL cannot answer.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { testApp, seedOrg, seedKey, type TestApp } from '../helpers/app.ts';
import { ok } from '../../src/http/envelope.ts';
import { createProfile } from '../../src/http/limits.ts';
import { postgresLimiters } from '../../src/store/rate-limits.ts';
import { openStore } from '../../src/store/db.ts';
import type { Principal } from '../../src/http/auth.ts';

function limitedRoute(app: FastifyInstance) {
  app.post(
    '/api/v1/__test/limited',
    {
      schema: { hide: true, querystring: Type.Object({}), body: Type.Object({ units: Type.Integer({ minimum: 0 }) }) },
      config: { auth: { mode: 'key' } },
    },
    async (req) => {
      await app.limits.correlation.check(req.caller, (req.body as { units: number }).units);
      return ok(req, { processed: (req.body as { units: number }).units });
    },
  );
}

let t: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
before(async () => {
  t = await testApp({
    testRoutes: limitedRoute,
    rateProfiles: {
      correlation: { requests: { points: 5, durationSec: 30 }, units: { points: 100, durationSec: 30 } },
    },
  });
  org = await seedOrg(t.store, { name: 'Limited' });
});
after(async () => {
  await t.close();
});

const send = (auth: { authorization: string }, units: number) =>
  t.app.inject({ method: 'POST', url: '/api/v1/__test/limited', headers: auth, payload: { units } });

describe('correlation profile', () => {
  test('exactly the allowed number of requests pass under parallel load; the rest get 429 with consistent retry values', async () => {
    const k = await seedKey(t.store, org.orgId, org.memberId, {});
    const rs = await Promise.all(Array.from({ length: 12 }, () => send(k.auth, 1)));
    const passed = rs.filter((r) => r.statusCode === 200);
    const limited = rs.filter((r) => r.statusCode === 429);
    assert.equal(passed.length, 5);
    assert.equal(limited.length, 7);
    for (const r of limited) {
      const e = r.json().error;
      assert.equal(e.code, 'RATE_LIMITED');
      assert.equal(e.detail.error, 'rate_limited');
      assert.equal(e.retryable, true);
      assert.equal(e.action, 'retry_later');
      assert.ok(
        Number.isInteger(e.retry_after_seconds) && e.retry_after_seconds >= 1 && e.retry_after_seconds <= 30,
        String(e.retry_after_seconds),
      );
      assert.equal(e.detail.retry_after, e.retry_after_seconds);
      assert.equal(r.headers['retry-after'], String(e.retry_after_seconds));
      // The monthly allowance headers keep their meaning on a 429.
      assert.equal(r.headers['x-ratelimit-limit'], '25000');
    }
  });

  test('weighted units: a request that would pass the budget is refused whole and not charged for its units', async () => {
    const k = await seedKey(t.store, org.orgId, org.memberId, {});
    assert.equal((await send(k.auth, 60)).statusCode, 200);
    const over = await send(k.auth, 60);
    assert.equal(over.statusCode, 429);
    assert.match(over.json().error.message, /100 assets or hosts per 30 seconds/);
    assert.equal((await send(k.auth, 40)).statusCode, 200, 'the refused 60 were given back');
    assert.equal((await send(k.auth, 1)).statusCode, 429, 'budget now exactly used');
  });

  test('keys have separate budgets', async () => {
    const a = await seedKey(t.store, org.orgId, org.memberId, {});
    const b = await seedKey(t.store, org.orgId, org.memberId, {});
    for (let i = 0; i < 5; i++) assert.equal((await send(a.auth, 0)).statusCode, 200);
    assert.equal((await send(a.auth, 0)).statusCode, 429);
    assert.equal((await send(b.auth, 0)).statusCode, 200);
  });
});

test('the end of the window restores the budget (1-second window, Postgres store)', async () => {
  const p = createProfile(postgresLimiters(t.store), 'reset', { requests: { points: 2, durationSec: 1 }, units: null });
  const principal = { keyId: 424242, memberId: 1 } as Principal;
  await p.check(principal);
  await p.check(principal);
  const refused = await p.check(principal).then(
    () => null,
    (e: { opts: { retryAfterSeconds: number } }) => e,
  );
  assert.ok(refused, 'third request refused');
  await new Promise((r) => setTimeout(r, refused.opts.retryAfterSeconds * 1000 + 100));
  await p.check(principal);
  const rows = await t.store.pool.query(`SELECT points FROM rate_limits WHERE key = 'reset_req:k424242'`);
  assert.equal(rows.rows[0].points, 1, 'a new window counted from one');
});

test('PostgreSQL unreachable: the in-process insurance limiter applies the same limits (never unlimited)', async () => {
  const dead = openStore('postgres://postgres@127.0.0.1:1/none', { connectionTimeoutMs: 200, max: 1 });
  try {
    const p = createProfile(postgresLimiters(dead), 'insured', {
      requests: { points: 3, durationSec: 60 },
      units: null,
    });
    const principal = { keyId: 999, memberId: 1 } as Principal;
    for (let i = 0; i < 3; i++) await p.check(principal);
    await assert.rejects(p.check(principal), (e: { key?: string }) => e.key === 'RATE_LIMITED');
  } finally {
    await dead.close();
  }
});
