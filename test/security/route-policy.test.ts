// The route policy (house style pattern 8): every route declares it, one hook enforces it, and the OpenAPI
// document matches the route table. Writes need the write scope and an admin; session writes
// need the service's own Origin; the session cookie's attributes; random environment ids.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, seedOrg, seedKey, seedSession, type TestApp } from '../helpers/app.ts';
import { tenantRowCounts } from '../helpers/tenant-runner.ts';

/** The organization's stored data; its monthly call counter (api_usage_monthly) counts refused calls too. */
async function stored(orgId: number) {
  const { api_usage_monthly: _calls, ...rest } = await tenantRowCounts(t, orgId);
  return rest;
}
import { requirements, type RouteAuth } from '../../src/http/auth.ts';
import { buildApp } from '../../src/app.ts';
import { roleAtLeast } from '../../src/services/identity.ts';

let t: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
before(async () => {
  t = await testApp();
  org = await seedOrg(t.store, { name: 'Policy Org', tier: 'professional' });
});
after(async () => {
  await t.close();
});

const CREDENTIALED = new Set(['key', 'session', 'key_or_session']);
/** Documented exclusions from the OpenAPI inventory: the reference UI's own assets and the document itself. */
const UNDOCUMENTED = (url: string) => url.startsWith('/docs') || url === '/api/openapi.json';

describe('meta-test: declarations', () => {
  test('every registered route declares a policy: mode and tenant; credentialed routes also role and scope', () => {
    const problems: string[] = [];
    for (const r of t.app.routeTable()) {
      const label = `${r.method} ${r.url}`;
      const p = r.policy;
      if (!p) {
        problems.push(`${label}: no config.auth`);
        continue;
      }
      if (p.tenant === undefined) problems.push(`${label}: tenant not declared (false or { resource, ids })`);
      if (CREDENTIALED.has(p.mode)) {
        if (p.role === undefined) problems.push(`${label}: role not declared`);
        if (p.scope === undefined) problems.push(`${label}: scope not declared`);
      }
      if (r.method !== 'GET' && p.mode !== 'none') {
        // A computing POST (auth.query: v1 asset correlation, which read-only partner keys may call, spec §5.8)
        // declares read; every other non-GET declares write.
        if (p.scope !== (p.query ? 'read' : 'write'))
          problems.push(`${label}: a ${p.query ? 'query' : 'write'} declares scope ${p.scope}`);
        // `self` writes (the caller's own session or profile) are open to viewers by declaration.
        if (!roleAtLeast(p.role ?? 'viewer', 'admin') && !p.self)
          problems.push(`${label}: a write declares role ${p.role}`);
      }
      if (p.tenant && p.mode !== 'key_or_session' && p.mode !== 'key' && p.mode !== 'session')
        problems.push(`${label}: a tenant route must need a credential`);
    }
    assert.deepEqual(problems, []);
  });

  test('a write can never be opened to read-only keys or viewers by its declaration', () => {
    const lax: RouteAuth = { mode: 'key_or_session', role: 'viewer', scope: 'read', tenant: false };
    assert.deepEqual(requirements('POST', lax), { role: 'admin', scope: 'write' });
    assert.deepEqual(requirements('DELETE', { mode: 'key' }), { role: 'admin', scope: 'write' });
    assert.deepEqual(requirements('PUT', { mode: 'session', role: 'owner' }), { role: 'owner', scope: 'write' });
    assert.deepEqual(requirements('GET', lax), { role: 'viewer', scope: 'read' });
    // A self-service write keeps its declared role, never drops the write scope.
    assert.deepEqual(requirements('POST', { ...lax, self: true }), { role: 'viewer', scope: 'write' });
    assert.deepEqual(requirements('PUT', { mode: 'key', role: 'viewer', scope: 'read', self: true }), {
      role: 'viewer',
      scope: 'write',
    });
    // A computing POST needs its declared scope, and still the admin role (viewers are read-only, spec §5.6).
    assert.deepEqual(requirements('POST', { ...lax, query: true }), { role: 'admin', scope: 'read' });
  });

  test('OpenAPI document and route table agree both ways (exclusions: /docs assets, /api/openapi.json)', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    const served = t.app
      .routeTable()
      .filter((r) => !UNDOCUMENTED(r.url))
      .map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`)
      .sort();
    const documented = Object.entries(doc.paths)
      .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))
      .sort();
    assert.deepEqual(
      documented.filter((x) => !served.includes(x)),
      [],
      'documented but not served',
    );
    assert.deepEqual(
      served.filter((x) => !documented.includes(x)),
      [],
      'served but not documented',
    );
  });

  test('an /api/ route without a policy is refused at startup', async () => {
    await assert.rejects(
      buildApp({
        config: t.config,
        store: t.store,
        testRoutes: (app) => {
          app.get('/api/v1/__test/undeclared', async () => ({}));
        },
      }),
      /GET \/api\/v1\/__test\/undeclared declares no policy/,
    );
  });

  test('every v1 API route has a response schema; routes with parameters a params schema; every route a query schema', () => {
    const missing: string[] = [];
    for (const r of t.app.routeTable()) {
      if (!r.url.startsWith('/api/v1/') && !r.url.startsWith('/cve/')) continue;
      const s = r.schema ?? {};
      if (!s.response) missing.push(`${r.method} ${r.url}: response`);
      if (!s.querystring) missing.push(`${r.method} ${r.url}: querystring`);
      if (r.url.includes(':') && !s.params) missing.push(`${r.method} ${r.url}: params`);
      if (r.method !== 'GET' && !s.body) missing.push(`${r.method} ${r.url}: body`);
    }
    assert.deepEqual(missing, []);
  });
});

describe('writes need the write scope and an admin, on every write route', () => {
  // Session-only writes refuse every key before its scope or role is looked at (403 session_required: the auth
  // matrix and test/integration/accounts.test.ts); here: every write a key can reach.
  const writeRoutes = () =>
    t.app
      .routeTable()
      .filter(
        (r) => r.method !== 'GET' && r.policy?.mode !== 'none' && r.policy?.mode !== 'session' && !r.policy?.query,
      );
  const nonGetRoutes = () =>
    t.app.routeTable().filter((r) => r.method !== 'GET' && r.policy?.mode !== 'none' && r.policy?.mode !== 'session');

  test('there are write routes to check', () => {
    assert.ok(writeRoutes().length >= 3, JSON.stringify(writeRoutes().map((r) => r.url)));
  });

  test('a read-scope key (admin) → 403 insufficient_scope on each; nothing stored', async () => {
    const ro = await seedKey(t.store, org.orgId, null, { role: 'admin', scopes: ['read'] });
    for (const r of writeRoutes()) {
      const before = await stored(org.orgId);
      const res = await t.app.inject({
        method: r.method as 'POST',
        url: r.url,
        headers: { ...ro.auth, 'content-type': 'application/json' },
        payload: JSON.stringify({ name: 'Read-only plant' }),
      });
      assert.equal(res.statusCode, 403, `${r.method} ${r.url}: ${res.body}`);
      const e = res.json().error;
      assert.equal(e.code, 'FORBIDDEN');
      assert.equal(e.detail.error, 'insufficient_scope');
      assert.equal(e.detail.required_scope, 'write');
      assert.equal(e.action, 'use_different_key');
      assert.deepEqual(await stored(org.orgId), before);
    }
  });

  test('a viewer key holding the write scope → 403 viewer_role on each (self-service writes excepted)', async () => {
    const v = await seedKey(t.store, org.orgId, null, { role: 'viewer', scopes: ['read', 'write'] });
    // `self` writes (the caller's own profile) are open to viewers by declaration: test/integration/accounts.test.ts.
    for (const r of nonGetRoutes().filter((x) => !x.policy?.self)) {
      const res = await t.app.inject({
        method: r.method as 'POST',
        url: r.url,
        headers: { ...v.auth, 'content-type': 'application/json' },
        payload: '{}',
      });
      assert.equal(res.statusCode, 403, `${r.method} ${r.url}`);
      assert.equal(res.json().error.detail.error, 'viewer_role');
    }
  });

  test('self-service writes (own training, own preferences): a viewer with the write scope may; exactly these routes', async () => {
    const selfRoutes = writeRoutes()
      .filter((x) => x.policy?.self)
      .map((r) => `${r.method} ${r.url}`)
      .sort();
    assert.deepEqual(selfRoutes, [
      'POST /api/v1/training/modules/:module_id/complete',
      'POST /api/v1/training/modules/:module_id/start',
      'POST /training/:module_id/complete',
      'POST /training/:module_id/start',
      'PUT /api/v1/account/me',
      'PUT /api/v1/account/notifications',
      'PUT /api/v1/account/report-schedule',
    ]);
    const v = await seedKey(t.store, org.orgId, null, { role: 'viewer', scopes: ['read', 'write'] });
    const start = await t.app.inject({
      method: 'POST',
      url: '/api/v1/training/modules/ics-ot-security-fundamentals/start',
      headers: v.auth,
    });
    assert.equal(start.statusCode, 200, start.body);
    assert.equal(start.json().data.status, 'in_progress');
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/account/notifications',
      headers: v.auth,
      payload: { email_enabled: false, min_severity: null, min_bcs: null, kev_only: true, delivery: 'instant' },
    });
    assert.equal(put.statusCode, 200, put.body);
    const ro = await seedKey(t.store, org.orgId, v.memberId, { scopes: ['read'] });
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/v1/training/modules/ics-ot-security-fundamentals/complete',
      headers: ro.auth,
    });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().error.detail.error, 'insufficient_scope');
  });

  test('the same read-scope key still reads, and a write-scope admin key writes', async () => {
    const ro = await seedKey(t.store, org.orgId, null, { role: 'admin', scopes: ['read'] });
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/environments', headers: ro.auth })).statusCode,
      200,
    );
    const rw = await t.app.inject({
      method: 'POST',
      url: '/api/v1/environments',
      headers: org.auth,
      payload: { name: 'Written plant' },
    });
    assert.equal(rw.statusCode, 201, rw.body);
    assert.equal(rw.json().data.name, 'Written plant');
  });
});

describe('session writes check Origin and the CSRF token', () => {
  test("a session write without the CSRF token, or with another session's, → 403 csrf and nothing stored", async () => {
    const s = await seedSession(t.store, org.orgId, org.memberId);
    const other = await seedSession(t.store, org.orgId, org.memberId);
    const before = await stored(org.orgId);
    for (const [headers, code] of [
      [{ cookie: s.cookie }, 'csrf_token_missing'],
      [{ cookie: s.cookie, 'x-csrf-token': other['x-csrf-token'] }, 'csrf_token_invalid'],
      [{ cookie: s.cookie, 'x-csrf-token': '' }, 'csrf_token_missing'],
    ] as const) {
      const r = await t.app.inject({
        method: 'POST',
        url: '/api/v1/environments',
        headers: { ...headers, origin: 'http://vulnintel.test' },
        payload: { name: `Csrf plant ${code}` },
      });
      assert.equal(r.statusCode, 403, r.body);
      assert.equal(r.json().error.code, 'FORBIDDEN');
      assert.equal(r.json().error.detail.error, code);
    }
    assert.deepEqual(await stored(org.orgId), before);
    const ok = await t.app.inject({
      method: 'POST',
      url: '/api/v1/environments',
      headers: { ...s, origin: 'http://vulnintel.test' },
      payload: { name: 'Csrf plant ok' },
    });
    assert.equal(ok.statusCode, 201, ok.body);
  });

  test('missing or foreign Origin → 403 origin_refused and nothing stored; the public URL origin → 201', async () => {
    const s = await seedSession(t.store, org.orgId, org.memberId);
    const post = (headers: Record<string, string>, name: string) =>
      t.app.inject({ method: 'POST', url: '/api/v1/environments', headers: { ...s, ...headers }, payload: { name } });
    const before = await stored(org.orgId);
    for (const [headers, label] of [
      [{}, 'missing'],
      [{ origin: 'https://evil.example' }, 'foreign'],
      [{ origin: 'http://vulnintel.test:8080' }, 'other port'],
      [{ origin: 'null' }, 'opaque'],
    ] as const) {
      const r = await post(headers, `Session plant ${label}`);
      assert.equal(r.statusCode, 403, label);
      const e = r.json().error;
      assert.equal(e.code, 'FORBIDDEN');
      assert.equal(e.detail.error, 'origin_refused');
      assert.equal(e.detail.expected_origin, 'http://vulnintel.test');
      assert.equal(r.json().api.request_id, r.headers['x-request-id']);
    }
    assert.deepEqual(await stored(org.orgId), before);
    const ok = await post({ origin: 'http://vulnintel.test' }, 'Session plant same origin');
    assert.equal(ok.statusCode, 201, ok.body);
    assert.equal(ok.json().data.name, 'Session plant same origin');
  });

  test('session reads need no Origin; key writes are not browser requests and need none', async () => {
    const s = await seedSession(t.store, org.orgId, org.memberId);
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/environments', headers: s })).statusCode, 200);
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/environments',
          headers: org.auth,
          payload: { name: 'Key plant' },
        })
      ).statusCode,
      201,
    );
  });
});

describe('session cookie (@fastify/cookie)', () => {
  test('a stale session cookie is cleared: HttpOnly, SameSite=Lax, Path=/, no Secure over http', async () => {
    const r = await t.app.inject({
      method: 'GET',
      url: '/api/v1/cves/stats/summary',
      headers: { cookie: 'vi_session=stale-token' },
    });
    assert.equal(r.statusCode, 200);
    const c = String(r.headers['set-cookie']);
    assert.match(c, /^vi_session=;/);
    assert.match(c, /Expires=Thu, 01 Jan 1970/);
    assert.match(c, /HttpOnly/);
    assert.match(c, /SameSite=Lax/);
    assert.match(c, /Path=\//);
    assert.doesNotMatch(c, /Secure/);
    const denied = await t.app.inject({
      method: 'GET',
      url: '/api/v1/account/me',
      headers: { cookie: 'vi_session=stale-token' },
    });
    assert.equal(denied.statusCode, 401);
    assert.equal(denied.json().error.detail.error, 'session_expired');
    assert.match(String(denied.headers['set-cookie']), /HttpOnly; SameSite=Lax/);
  });

  test('Secure when the public URL is https; the cookie is read among others and percent-decoded', async () => {
    const h = await testApp({ env: { VULNINTEL_PUBLIC_URL: 'https://vulnintel.example' } });
    try {
      const r = await h.app.inject({
        method: 'GET',
        url: '/api/v1/cves/stats/summary',
        headers: { cookie: 'a=1; vi_session=stale' },
      });
      assert.match(String(r.headers['set-cookie']), /; Secure/);
      const o = await seedOrg(h.store, { name: 'Cookie Org' });
      const s = await seedSession(h.store, o.orgId, o.memberId);
      const me = await h.app.inject({
        method: 'GET',
        url: '/api/v1/account/me',
        headers: { cookie: `theme=dark; ${s.cookie}; other=%zz` },
      });
      assert.equal(me.statusCode, 200);
      assert.equal(me.json().data.org_id, o.orgId);
      assert.equal(me.headers['set-cookie'], undefined);
      // Origin is checked against the https origin.
      const w = await h.app.inject({
        method: 'POST',
        url: '/api/v1/environments',
        headers: { ...s, origin: 'https://vulnintel.example' },
        payload: { name: 'Https plant' },
      });
      assert.equal(w.statusCode, 201, w.body);
    } finally {
      await h.close();
    }
  });
});

describe('environment ids reveal nothing across organizations', () => {
  test('ids are random 15-digit integers, not a shared sequence', async () => {
    const other = await seedOrg(t.store, { name: 'Other Org' });
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) {
      const who = i % 2 === 0 ? org : other;
      const r = await t.app.inject({
        method: 'POST',
        url: '/api/v1/environments',
        headers: who.auth,
        payload: { name: `Seq probe ${i}` },
      });
      assert.equal(r.statusCode, 201, r.body);
      ids.push(r.json().data.id);
    }
    for (const id of ids) {
      assert.ok(Number.isSafeInteger(id) && id >= 2 ** 48 && id < 2 ** 49, `id ${id} is 15 digits`);
      assert.match(String(id), /^\d{15}$/);
    }
    assert.equal(new Set(ids).size, ids.length);
    // Consecutive creations (across both organizations) are not neighbours: no sequence to read volume from.
    const gaps = ids.slice(1).map((id, i) => Math.abs(id - ids[i]));
    assert.ok(
      gaps.every((g) => g > 1000),
      `gaps ${gaps.join(', ')}`,
    );
  });

  test('an environment kept from before the migration (sequential id) still works', async () => {
    await t.store.db
      .insertInto('environments')
      .values({ id: 7, org_id: org.orgId, name: 'Legacy plant', description: null })
      .execute();
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/environments', headers: org.auth });
    assert.ok(list.json().data.some((e: { id: number; name: string }) => e.id === 7 && e.name === 'Legacy plant'));
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v2/assets/results?environment_id=7',
      headers: org.auth,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().meta.filters.environment_id, 7);
  });
});
