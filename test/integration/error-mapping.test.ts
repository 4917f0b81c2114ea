// Explicit mappings of spec §7 over HTTP: every catalogue entry renders the envelope with Retry-After from the
// same value; malformed JSON (v1 400 / v2 422), oversized bodies (413), statement timeout (500, retry 5),
// unexpected errors (500 without internals), database unreachable (503, retry 30) and recovery.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, seedOrg, TEST_INTERNAL_KEY, type TestApp } from '../helpers/app.ts';
import { faultRoutes, DYNAMIC_RETRY } from '../helpers/test-routes.ts';
import { ERRORS } from '../../src/http/errors.ts';
import { REQUEST_ID_RE } from '../../src/lib/ids.ts';
import { JSON_BODY_LIMIT, SMALL_JSON_BODY_LIMIT } from '../../src/app.ts';

function assertEnvelope(
  r: { statusCode: number; headers: Record<string, unknown>; json(): any },
  status: number,
  code: string,
  error: string,
) {
  assert.equal(r.statusCode, status);
  const b = r.json();
  assert.equal(b.error.code, code);
  assert.equal(b.error.detail.error ?? (Array.isArray(b.error.detail) ? 'validation_error' : undefined), error);
  assert.match(b.api.request_id, REQUEST_ID_RE);
  assert.equal(b.api.request_id, r.headers['x-request-id']);
  assert.equal(typeof b.api.timestamp, 'string');
  assert.equal(typeof b.error.message, 'string');
  return b;
}

describe('error envelope and framework mappings', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp({ testRoutes: faultRoutes });
  });
  after(async () => {
    await t.close();
  });

  for (const [key, e] of Object.entries(ERRORS)) {
    test(`${key} renders ${e.status} ${e.code} (${e.error})`, async () => {
      const r = await t.app.inject({ method: 'GET', url: `/api/v1/__test/error/${key}` });
      const b = assertEnvelope(r, e.status, e.code, e.error);
      const retry = e.retryAfter === 'dynamic' ? DYNAMIC_RETRY : e.retryAfter;
      assert.equal(b.error.retryable, e.retryable);
      assert.equal(b.error.retry_after_seconds, retry);
      assert.equal(b.error.action, e.action);
      assert.equal(r.headers['retry-after'], retry === null ? undefined : String(retry));
      if (e.retryAfter === 'dynamic') assert.equal(b.error.detail.retry_after, DYNAMIC_RETRY);
    });
  }

  test('malformed JSON on v1 → 400 BAD_REQUEST (invalid_json)', async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/v1/__test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"n": 1,',
    });
    const b = assertEnvelope(r, 400, 'BAD_REQUEST', 'invalid_json');
    assert.equal(b.error.action, 'fix_input');
    assert.equal(b.api.version, '1.0.0');
  });

  test('malformed JSON on v2 → 422 VALIDATION_ERROR with a body field', async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/v2/__test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{oops',
    });
    assert.equal(r.statusCode, 422);
    const b = r.json();
    assert.equal(b.error.code, 'VALIDATION_ERROR');
    assert.deepEqual(b.error.detail, [{ field: 'body', message: 'malformed JSON', type: 'value_error.jsondecode' }]);
  });

  test('a body field outside the schema → 422 naming the field', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/api/v1/__test/echo', payload: { n: 1, extra: true } });
    assert.equal(r.statusCode, 422);
    assert.deepEqual(r.json().error.detail, [
      { field: 'body.extra', message: 'field is not accepted', type: 'value_error.extra' },
    ]);
  });

  test('non-finite or unsafe numbers (1e309, 2^60) → 422 on their field, never a 500 downstream', async () => {
    for (const [q, field] of [
      ['page=1e309', 'query.page'],
      ['page=1152921504606846976', 'query.page'],
      ['x=-1e400', 'query.x'],
    ]) {
      const r = await t.app.inject({ method: 'GET', url: `/api/v1/__test/query?${q}` });
      assert.equal(r.statusCode, 422, q);
      assert.equal(r.json().error.detail[0].field, field);
      assert.equal(r.json().error.detail[0].type, 'type_error.number');
    }
    const ok = await t.app.inject({ method: 'GET', url: '/api/v1/__test/query?page=9007199254740991&x=2.5' });
    assert.deepEqual(ok.json().data, { page: 9007199254740991, x: 2.5 });
    const body = await t.app.inject({
      method: 'POST',
      url: '/api/v1/__test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"n": 1e309}',
    });
    assert.equal(body.statusCode, 422);
    assert.equal(body.json().error.detail[0].field, 'body.n');
  });

  test('a valid body passes through unchanged', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/api/v1/__test/echo', payload: { n: 42 } });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json().data, { n: 42 });
  });

  test('oversized body → 413 in the envelope, with the limit: 64 KiB on a route of small bodies, 8 MiB on a batch route', async () => {
    // With 8 MiB on every route, one anonymous sign-in body of that size would hold the event loop for seconds.
    const small = JSON.stringify({ n: 1, pad: 'x'.repeat(SMALL_JSON_BODY_LIMIT) });
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/v1/__test/echo',
      headers: { 'content-type': 'application/json' },
      payload: small,
    });
    const b = assertEnvelope(r, 413, 'BATCH_TOO_LARGE', 'body_too_large');
    assert.equal(b.error.detail.max_bytes, SMALL_JSON_BODY_LIMIT);
    assert.equal(b.error.action, 'reduce_batch');
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: `${'x'.repeat(SMALL_JSON_BODY_LIMIT)}@example.test` }),
    });
    assert.equal(
      assertEnvelope(login, 413, 'BATCH_TOO_LARGE', 'body_too_large').error.detail.max_bytes,
      SMALL_JSON_BODY_LIMIT,
    );
    // A batch route takes more than 64 KiB (here refused by its schema, not its size), and 413s past 8 MiB.
    const org = await seedOrg(t.db.store, { name: 'Big Bodies', tier: 'professional' });
    const mid = await t.app.inject({
      method: 'POST',
      url: '/api/v1/assets/correlate-cves',
      headers: { ...org.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ assets: [], pad: 'x'.repeat(SMALL_JSON_BODY_LIMIT * 2) }),
    });
    assert.equal(mid.statusCode, 422, mid.body);
    const huge = await t.app.inject({
      method: 'POST',
      url: '/api/v1/assets/correlate-cves',
      headers: { ...org.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ assets: [], pad: 'x'.repeat(JSON_BODY_LIMIT) }),
    });
    assert.equal(
      assertEnvelope(huge, 413, 'BATCH_TOO_LARGE', 'body_too_large').error.detail.max_bytes,
      JSON_BODY_LIMIT,
    );
  });

  test('malformed URL (bad percent-encoding) → 400 in the envelope, not the framework default', async () => {
    for (const url of ['/api/v1/health/%zz', '/docs/static/%E0%A4%A']) {
      const r = await t.app.inject({ method: 'GET', url });
      assertEnvelope(r, 400, 'BAD_REQUEST', 'invalid_url');
    }
  });

  test('an over-long path parameter is judged by its route, not refused as a malformed URL', async () => {
    // The router's own limit would refuse a parameter over 200 characters: 400 invalid_url for a well-formed URL.
    const r = await t.app.inject({ method: 'GET', url: `/api/v1/cves/CVE-2026-${'9'.repeat(400)}` });
    const b = assertEnvelope(r, 404, 'NOT_FOUND', 'not_found');
    assert.equal(b.error.message, 'CVE not found.');
  });

  test('unsupported content type → 400 (other bad input)', async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/api/v1/__test/echo',
      headers: { 'content-type': 'text/csv' },
      payload: 'a,b',
    });
    assertEnvelope(r, 400, 'BAD_REQUEST', 'unsupported_media_type');
  });

  test('statement timeout → 500 INTERNAL_ERROR, retry 5, and the query is gone from the server', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/v1/__test/sleep' });
    const b = assertEnvelope(r, 500, 'INTERNAL_ERROR', 'database_timeout');
    assert.equal(b.error.retryable, true);
    assert.equal(b.error.retry_after_seconds, 5);
    assert.equal(r.headers['retry-after'], '5');
    const active = await t.store.pool.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%vi-test-sleep%' AND state = 'active' AND pid <> pg_backend_pid()`,
    );
    assert.equal(active.rows[0].n, 0);
  });

  test('unexpected error → 500 INTERNAL_ERROR without internals', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/api/v1/__test/boom' });
    const b = assertEnvelope(r, 500, 'INTERNAL_ERROR', 'internal_error');
    assert.equal(b.error.retry_after_seconds, 5);
    assert.equal(b.error.message, `Internal server error (request ${b.api.request_id})`);
    assert.doesNotMatch(r.body, /secret|password|SELECT|stack|at .*\.ts/);
  });
});

describe('database unreachable', () => {
  let t: TestApp;
  let key: { authorization: string };
  before(async () => {
    t = await testApp({ viaProxy: true });
    key = (await seedOrg(t.db.store, { name: 'Proxied' })).auth;
  });
  after(async () => {
    await t.close();
  });

  test('connections reset → 503 ERROR, retry_after_seconds 30 and Retry-After: 30; health degraded; then recovery', async () => {
    const okBefore = await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: key });
    assert.equal(okBefore.statusCode, 200);

    t.proxy!.set('reset');
    const r = await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: key });
    const b = assertEnvelope(r, 503, 'ERROR', 'database_unavailable');
    assert.equal(b.error.retryable, true);
    assert.equal(b.error.retry_after_seconds, 30);
    assert.equal(b.error.action, 'retry_later');
    assert.equal(r.headers['retry-after'], '30');

    const h = await t.app.inject({
      method: 'GET',
      url: '/api/v1/health',
      headers: { 'x-internal-key': TEST_INTERNAL_KEY },
    });
    assert.equal(h.statusCode, 200);
    assert.equal(h.json().data.status, 'degraded');
    assert.equal(h.json().data.database, 'unavailable');
    assert.equal(h.json().data.counts.total_cves, null);
    assert.equal(h.json().data.db_size_mb, null);

    const ping = await t.app.inject({ method: 'GET', url: '/api/v1/health/ping' });
    assert.deepEqual(ping.json(), { ping: 'pong' });

    t.proxy!.set('pass');
    const again = await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: key });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().data.org_name, 'Proxied');
    const h2 = await t.app.inject({
      method: 'GET',
      url: '/api/v1/health',
      headers: { 'x-internal-key': TEST_INTERNAL_KEY },
    });
    assert.equal(h2.json().data.status, 'healthy');
  });

  test('black-holed database (half-open) → 503 once the connect timeout passes', async () => {
    t.proxy!.set('blackhole');
    const r = await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: key });
    assertEnvelope(r, 503, 'ERROR', 'database_unavailable');
    t.proxy!.set('pass');
    const again = await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: key });
    assert.equal(again.statusCode, 200);
  });
});
