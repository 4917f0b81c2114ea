// A database that refuses new connections, or stops answering, answers 503 ERROR (database unavailable),
// retry 30, and health stays 200 `degraded` (spec §7; docs/reliability.md D4), whatever the
// reason the database refuses connections. Refusals are produced twice: by the fault proxy answering each connection
// with the server's own FATAL ErrorResponse for each SQLSTATE class, and by a real PostgreSQL setting
// (ALTER DATABASE … ALLOW_CONNECTIONS false). Then recovery.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { testApp, seedOrg, TEST_INTERNAL_KEY, PROXY_QUERY_DEADLINE_MS, type TestApp } from '../helpers/app.ts';
import { faultRoutes } from '../helpers/test-routes.ts';
import { ADMIN_URL } from '../helpers/db.ts';
import { loadConfig, DB_DEADLINE_MARGIN_MS } from '../../src/config.ts';
import { isConnectionError } from '../../src/lib/db-errors.ts';

const INTERNAL = { 'x-internal-key': TEST_INTERNAL_KEY };

function assertUnavailable(
  r: { statusCode: number; body: string; headers: Record<string, unknown>; json(): any },
  what: string,
) {
  assert.equal(r.statusCode, 503, `${what}: ${r.body}`);
  const e = r.json().error;
  assert.equal(e.code, 'ERROR', what);
  assert.equal(e.detail.error, 'database_unavailable', what);
  assert.equal(e.retryable, true);
  assert.equal(e.retry_after_seconds, 30);
  assert.equal(e.action, 'retry_later');
  assert.equal(r.headers['retry-after'], '30');
}

async function assertDegraded(t: TestApp) {
  const h = await t.app.inject({ method: 'GET', url: '/api/v1/health', headers: INTERNAL });
  assert.equal(h.statusCode, 200, h.body);
  assert.equal(h.json().data.status, 'degraded');
  assert.equal(h.json().data.database, 'unavailable');
  assert.equal(h.json().data.counts.total_cves, null);
}

async function assertRecovered(t: TestApp, auth: { authorization: string }, org: string) {
  const r = await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: auth });
  assert.equal(r.statusCode, 200, r.body);
  assert.equal(r.json().data.org_name, org);
  const h = await t.app.inject({ method: 'GET', url: '/api/v1/health', headers: INTERNAL });
  assert.equal(h.json().data.status, 'healthy');
  assert.equal(h.json().data.database, 'connected');
}

/** Waits until the pool holds no connection (after the proxy cut them), so the next query must connect anew. */
async function poolDrained(t: TestApp) {
  while (t.store.pool.totalCount > 0) await new Promise((r) => setTimeout(r, 10));
}

test('the default query deadline is the statement timeout plus a fixed margin, and can be set', () => {
  assert.equal(DB_DEADLINE_MARGIN_MS, 5_000);
  assert.equal(loadConfig({}).dbDeadlineMs, 15_000 + 5_000);
  assert.equal(loadConfig({ VULNINTEL_STATEMENT_TIMEOUT_MS: '2000' }).dbDeadlineMs, 7_000);
  assert.equal(loadConfig({ VULNINTEL_DB_DEADLINE_MS: '900' }).dbDeadlineMs, 900);
  assert.throws(() => loadConfig({ VULNINTEL_DB_DEADLINE_MS: '5' }), /VULNINTEL_DB_DEADLINE_MS/);
});

test('connection refusals by SQLSTATE are "database unavailable"; other 55000 errors are not', () => {
  assert.equal(isConnectionError({ code: '57P03', message: 'the database system is starting up' }), true);
  assert.equal(isConnectionError({ code: '53300', message: 'sorry, too many clients already' }), true);
  assert.equal(
    isConnectionError({ code: '55000', message: 'database "x" is not currently accepting connections' }),
    true,
  );
  assert.equal(
    isConnectionError({ code: '55000', message: 'cannot execute nextval() in a read-only transaction' }),
    false,
  );
  assert.equal(isConnectionError(new Error('Query read timeout')), true);
});

describe('refused connections through the fault proxy', () => {
  let t: TestApp;
  let key: { authorization: string };
  before(async () => {
    t = await testApp({ viaProxy: true, testRoutes: faultRoutes });
    key = (await seedOrg(t.db.store, { name: 'Refused' })).auth;
  });
  after(async () => {
    await t.close();
  });

  const refusals = [
    { code: '57P03', message: 'the database system is starting up', what: 'cannot connect now' },
    { code: '53300', message: 'sorry, too many clients already', what: 'too many connections' },
    {
      code: '55000',
      message: 'database "vulnintel" is not currently accepting connections',
      what: 'database not accepting connections',
    },
  ];
  for (const r of refusals) {
    test(`${r.code} (${r.what}) → 503 ERROR retry 30; health 200 degraded; then recovery`, async () => {
      const warm = await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: key });
      assert.equal(warm.statusCode, 200);
      t.proxy!.set('reset');
      await poolDrained(t);
      t.proxy!.set('refuse', { code: r.code, message: r.message });
      // The refusal reaches the caller as pg reports it, with its SQLSTATE.
      const direct = await t.store.pool.query('SELECT 1').then(
        () => null,
        (e: { code?: string }) => e,
      );
      assert.equal(direct?.code, r.code);
      assertUnavailable(await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: key }), r.what);
      await assertDegraded(t);
      const ping = await t.app.inject({ method: 'GET', url: '/api/v1/health/ping' });
      assert.deepEqual(ping.json(), { ping: 'pong' });
      t.proxy!.set('pass');
      await assertRecovered(t, key, 'Refused');
    });
  }

  test('a database that stops answering mid-query (half-open) → 503 at the query deadline, not a hang; then recovery', async () => {
    const warm = await t.app.inject({ method: 'GET', url: '/api/v1/__test/pause' });
    assert.deepEqual(warm.json().data, { n: 1 });
    const inFlight = t.app.inject({ method: 'GET', url: '/api/v1/__test/pause' });
    // Let the query reach the server, then stop all traffic both ways: its answer never arrives.
    await new Promise((r) => setTimeout(r, 100));
    t.proxy!.set('blackhole');
    const started = Date.now();
    const r = await inFlight;
    assertUnavailable(r, 'black hole');
    // It ended through the client deadline (not a connect timeout or a reset): at least the deadline passed.
    assert.ok(Date.now() - started >= PROXY_QUERY_DEADLINE_MS - 150, 'failed by the deadline');
    // An idle pooled connection is black-holed too: a new request also ends at the deadline, and health degrades.
    assertUnavailable(
      await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: key }),
      'black hole, pooled connection',
    );
    await assertDegraded(t);
    t.proxy!.set('pass');
    await assertRecovered(t, key, 'Refused');
    const after = await t.app.inject({ method: 'GET', url: '/api/v1/__test/pause' });
    assert.deepEqual(after.json().data, { n: 1 });
  });
});

describe('a real database with ALLOW_CONNECTIONS false (SQLSTATE 55000)', () => {
  let t: TestApp;
  let key: { authorization: string };
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  before(async () => {
    t = await testApp();
    key = (await seedOrg(t.db.store, { name: 'Closed' })).auth;
    await admin.connect();
  });
  after(async () => {
    await admin.query(`ALTER DATABASE ${t.db.name} ALLOW_CONNECTIONS true`).catch(() => {});
    await admin.end();
    await t.close();
  });

  test('503 ERROR retry 30 and health degraded while connections are disallowed; recovery once allowed', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: key })).statusCode, 200);
    await admin.query(`ALTER DATABASE ${t.db.name} ALLOW_CONNECTIONS false`);
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [t.db.name],
    );
    await poolDrained(t);
    const direct = await t.store.pool.query('SELECT 1').then(
      () => null,
      (e: { code?: string; message?: string }) => e,
    );
    assert.equal(direct?.code, '55000');
    assert.match(direct?.message ?? '', /not currently accepting connections/);
    assertUnavailable(
      await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: key }),
      'ALLOW_CONNECTIONS false',
    );
    await assertDegraded(t);
    await admin.query(`ALTER DATABASE ${t.db.name} ALLOW_CONNECTIONS true`);
    await assertRecovered(t, key, 'Closed');
  });
});
