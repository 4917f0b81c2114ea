import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, type TestApp } from '../helpers/app.ts';
import { REQUEST_ID_RE } from '../../src/lib/ids.ts';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(async () => {
  await t.close();
});

test('ping answers pong with a request id header', async () => {
  const r = await t.app.inject({ method: 'GET', url: '/api/v1/health/ping' });
  assert.equal(r.statusCode, 200);
  assert.deepEqual(r.json(), { ping: 'pong' });
  assert.match(String(r.headers['x-request-id']), REQUEST_ID_RE);
});

test('unknown route → 404 NOT_FOUND in the error envelope', async () => {
  const r = await t.app.inject({ method: 'GET', url: '/api/v1/no-such-thing' });
  assert.equal(r.statusCode, 404);
  const b = r.json();
  assert.equal(b.error.code, 'NOT_FOUND');
  assert.equal(b.error.retryable, false);
  assert.equal(b.error.retry_after_seconds, null);
  assert.equal(b.error.action, 'fix_input');
  assert.equal(b.error.detail.error, 'not_found');
  assert.equal(b.api.version, '1.0.0');
  assert.equal(b.api.request_id, r.headers['x-request-id']);
  assert.equal(r.headers['retry-after'], undefined);
});

test('known path with a wrong method → 405 with Allow', async () => {
  const r = await t.app.inject({ method: 'DELETE', url: '/api/v1/health/ping' });
  assert.equal(r.statusCode, 405);
  assert.equal(r.json().error.code, 'METHOD_NOT_ALLOWED');
  // A GET route answers HEAD too, and Allow says so.
  assert.deepEqual(r.json().error.detail.allowed, ['GET', 'HEAD']);
  assert.equal(r.headers.allow, 'GET, HEAD');
  assert.equal((await t.app.inject({ method: 'HEAD', url: '/api/v1/health/ping' })).statusCode, 200);
});

test('unknown query parameter → 400 UNKNOWN_PARAMETER listing accepted ones', async () => {
  const r = await t.app.inject({ method: 'GET', url: '/api/v1/health/ping?foo=1&bar=2' });
  assert.equal(r.statusCode, 400);
  const e = r.json().error;
  assert.equal(e.code, 'UNKNOWN_PARAMETER');
  assert.deepEqual(e.detail.unknown, ['foo', 'bar']);
  assert.deepEqual(e.detail.accepted, []);
});

test('OpenAPI 3.1 document is served and lists the ping route', async () => {
  const r = await t.app.inject({ method: 'GET', url: '/api/openapi.json' });
  assert.equal(r.statusCode, 200);
  const doc = r.json();
  assert.equal(doc.openapi, '3.1.0');
  assert.ok(doc.paths['/api/v1/health/ping'].get);
});

test('405 comes before body parsing: a wrong method with a JSON content type and an empty or broken body', async () => {
  // Before the fix: 400 invalid_json (the body was parsed for the not-found route first).
  for (const payload of ['', '{not json', '{"a":1}']) {
    const r = await t.app.inject({
      method: 'DELETE',
      url: '/api/v1/health/ping',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    assert.equal(r.statusCode, 405, `payload ${JSON.stringify(payload)}: ${r.body}`);
    const b = r.json();
    assert.equal(b.error.code, 'METHOD_NOT_ALLOWED');
    assert.equal(b.error.detail.error, 'method_not_allowed');
    assert.deepEqual(b.error.detail.allowed, ['GET', 'HEAD']);
    assert.equal(r.headers.allow, 'GET, HEAD');
  }
  // An unsupported content type on an unknown path is a 404, not a 400 unsupported_media_type.
  const r = await t.app.inject({
    method: 'POST',
    url: '/api/v1/nowhere',
    headers: { 'content-type': 'application/xml' },
    payload: '<a/>',
  });
  assert.equal(r.statusCode, 404);
  assert.equal(r.json().error.code, 'NOT_FOUND');
});
