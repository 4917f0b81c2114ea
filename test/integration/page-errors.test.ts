// Refusals as a browser reads them (docs/accounts.md "Pages"): a page, or a link followed from an email, refused for
// a browser (Accept preferring HTML) answers the error page — same status, the envelope's message and field
// problems, the request id, ways on — and API clients keep the §7 envelope. Signing out with a session that has
// already ended goes on to the sign-in page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, seedOrg, seedSession, type TestApp } from '../helpers/app.ts';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
let t: TestApp;
before(async () => {
  t = await testApp({ env: { VULNINTEL_PUBLIC_URL: 'http://vulnintel.test' } });
});
after(async () => {
  await t.close();
});

function assertErrorPage(
  r: Awaited<ReturnType<TestApp['app']['inject']>>,
  status: number,
  heading: string,
  message: string,
) {
  assert.equal(r.statusCode, status, r.body);
  assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(r.headers['cache-control'], 'no-store');
  assert.match(String(r.headers['content-security-policy']), /default-src 'none'/);
  assert.match(r.body, new RegExp(`<h1>${heading}</h1>`));
  assert.ok(r.body.includes(`<p class="danger">${message}</p>`), r.body);
  assert.ok(r.body.includes(`Request id ${r.headers['x-request-id']} (${status})`));
  assert.ok(r.body.includes('<a href="/login">Sign in</a>'));
}

test('a sign-in, invitation or address-change link that is used, expired or unknown: the error page in a browser, the envelope for API clients', async () => {
  for (const path of ['/api/v1/auth/callback', '/api/v1/auth/accept-invite', '/api/v1/auth/confirm-email']) {
    const url = `${path}?token=${'a'.repeat(43)}`;
    const page = await t.app.inject({ method: 'GET', url, headers: { accept: BROWSER } });
    assert.equal(page.statusCode, 401, `${path}: ${page.body}`);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8', path);
    assert.match(page.body, /<h1>Sign in again<\/h1>/);
    const api = await t.app.inject({ method: 'GET', url, headers: { accept: 'application/json' } });
    assert.equal(api.statusCode, 401);
    assert.equal(api.json().error.code, 'AUTH_REQUIRED', path);
    // No Accept at all (curl, scripts): the envelope.
    assert.equal(
      (await t.app.inject({ method: 'GET', url })).headers['content-type'],
      'application/json; charset=utf-8',
    );
  }
  const used = await t.app.inject({
    method: 'GET',
    url: `/api/v1/auth/callback?token=${'a'.repeat(43)}`,
    headers: { accept: BROWSER },
  });
  const { message } = (
    await t.app.inject({ method: 'GET', url: `/api/v1/auth/callback?token=${'a'.repeat(43)}` })
  ).json().error;
  assertErrorPage(used, 401, 'Sign in again', message);
});

test('a page form refused for its input lists the field problems; an unknown page is the not-found page; API paths stay JSON', async () => {
  const o = await seedOrg(t.store, { name: 'Page errors', tier: 'professional' });
  const s = await seedSession(t.store, o.orgId, o.memberId);
  const r = await t.app.inject({
    method: 'POST',
    url: '/account/team/invite',
    headers: {
      cookie: s.cookie,
      origin: 'http://vulnintel.test',
      accept: BROWSER,
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: `_csrf=${encodeURIComponent(s['x-csrf-token'])}&email=not-an-address&role=viewer`,
  });
  const json = await t.app.inject({
    method: 'POST',
    url: '/account/team/invite',
    headers: { cookie: s.cookie, origin: 'http://vulnintel.test', 'content-type': 'application/x-www-form-urlencoded' },
    payload: `_csrf=${encodeURIComponent(s['x-csrf-token'])}&email=not-an-address&role=viewer`,
  });
  assert.equal(json.statusCode, 422);
  const field = json.json().error.detail[0];
  assert.equal(field.field, 'body.email');
  assertErrorPage(r, 422, 'Please check what you sent', json.json().error.message);
  assert.ok(r.body.includes(`<li><code>${field.field}</code>: ${field.message}</li>`), r.body);

  // Text from the request is escaped on the page.
  const missing = await t.app.inject({
    method: 'GET',
    url: '/no-such-page/%3Cscript%3E',
    headers: { accept: BROWSER },
  });
  assertErrorPage(missing, 404, 'Not found', 'No route GET /no-such-page/%3Cscript%3E');
  assert.ok(!missing.body.includes('<script>'));
  const api = await t.app.inject({ method: 'GET', url: '/api/v1/no-such-route', headers: { accept: BROWSER } });
  assert.equal(api.statusCode, 404);
  assert.equal(api.json().error.code, 'NOT_FOUND');
});

test('signing out with a session that has already ended goes on to the sign-in page; another form says to sign in again', async () => {
  const stale = {
    cookie: 'vi_session=gone; vi_csrf=x',
    origin: 'http://vulnintel.test',
    'content-type': 'application/x-www-form-urlencoded',
  };
  for (const url of ['/logout', '/logout-all']) {
    const r = await t.app.inject({ method: 'POST', url, headers: { ...stale, accept: BROWSER }, payload: '_csrf=x' });
    assert.equal(r.statusCode, 303, `${url}: ${r.body}`);
    assert.equal(r.headers.location, '/login');
  }
  const form = await t.app.inject({
    method: 'POST',
    url: '/account/keys',
    headers: { ...stale, accept: BROWSER },
    payload: '_csrf=x&scope=read',
  });
  assertErrorPage(form, 401, 'Sign in again', 'Session expired; sign in again');
});

test('OpenAPI: the error responses of pages and emailed links have the HTML form too; API routes only the envelope', async () => {
  const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
  const kinds = (path: string, method: string, status: string) =>
    Object.keys(doc.paths[path][method].responses[status].content).sort();
  assert.deepEqual(kinds('/api/v1/auth/callback', 'get', '401'), ['application/json', 'text/html']);
  assert.deepEqual(kinds('/account/team/invite', 'post', '422'), ['application/json', 'text/html']);
  assert.deepEqual(kinds('/api/v1/account/team/invite', 'post', '422'), ['application/json']);
});

test('the notifications form reads the minimum BCS as a decimal people write: 0x5 and 1e1 are refused with the form again', async () => {
  const o = await seedOrg(t.store, { name: 'Page BCS', tier: 'professional' });
  const s = await seedSession(t.store, o.orgId, o.memberId);
  const post = (minBcs: string) =>
    t.app.inject({
      method: 'POST',
      url: '/account/notifications',
      headers: {
        cookie: s.cookie,
        origin: 'http://vulnintel.test',
        accept: BROWSER,
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: `_csrf=${encodeURIComponent(s['x-csrf-token'])}&min_bcs=${encodeURIComponent(minBcs)}&delivery=instant`,
    });
  const stored = async () =>
    (await t.app.inject({ method: 'GET', url: '/api/v1/account/notifications', headers: s })).json().data.min_bcs;
  for (const [text, value] of [
    ['7,5', 7.5],
    ['.5', 0.5],
    ['10', 10],
    ['0', 0],
    ['', null],
  ] as const) {
    const r = await post(text);
    assert.equal(r.statusCode, 303, `${text}: ${r.body}`);
    assert.equal(await stored(), value, text);
  }
  for (const text of ['0x5', '1e1', '5.', '-1', '10.5', 'five']) {
    const r = await post(text);
    assert.equal(r.statusCode, 422, text);
    assert.match(r.body, /Minimum BCS must be a number from 0 to 10, or blank for any\./);
    assert.equal(await stored(), null, `${text} stored nothing`);
  }
});
