// The auth matrix of spec §5 and §7 over HTTP: every credential state and guard, on test-only guarded routes and
// on the real GET /api/v1/account/me; the profile per tier (§2.8); two organizations never see each other's
// data; the monthly allowance headers (§8) on every API-key response.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, seedOrg, seedKey, seedSession, seedTwoOrgs, type TestApp } from '../helpers/app.ts';
import { guardRoutes } from '../helpers/test-routes.ts';
import { generateApiKey } from '../../src/lib/crypto.ts';

let t: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
const NOW = new Date('2026-11-21T12:00:00Z');

before(async () => {
  t = await testApp({ testRoutes: guardRoutes, now: NOW.toISOString() });
  org = await seedOrg(t.store, { name: 'Matrix Org', tier: 'professional' });
});
after(async () => {
  await t.close();
});

type Headers = Record<string, string>;
async function call(method: 'GET' | 'POST', url: string, headers: Headers = {}) {
  const r = await t.app.inject({ method, url, headers });
  return { status: r.statusCode, body: r.json(), headers: r.headers };
}

function expectError(
  r: { status: number; body: any; headers: Record<string, unknown> },
  status: number,
  code: string,
  error: string,
  message?: string | RegExp,
) {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.error.code, code);
  assert.equal(r.body.error.detail.error, error);
  assert.equal(r.body.error.retryable, false);
  assert.equal(r.body.error.retry_after_seconds, null);
  assert.equal(r.headers['retry-after'], undefined);
  if (typeof message === 'string') assert.equal(r.body.error.message, message);
  else if (message) assert.match(r.body.error.message, message);
}

describe('401 AUTH_REQUIRED: missing, invalid, expired, revoked', () => {
  test('no credential', async () => {
    const r = await call('GET', '/api/v1/account/me');
    expectError(r, 401, 'AUTH_REQUIRED', 'auth_required', /API key required/);
    assert.equal(r.body.error.action, 'use_different_key');
  });
  test('malformed key (bad checksum or shape)', async () => {
    for (const bad of ['abc', 'vi_live_short_123456', org.key.slice(0, -1) + (org.key.endsWith('A') ? 'B' : 'A')]) {
      expectError(
        await call('GET', '/api/v1/account/me', { authorization: `Bearer ${bad}` }),
        401,
        'AUTH_REQUIRED',
        'invalid_api_key',
        'Invalid API key',
      );
    }
  });
  test('a malformed key is refused without touching the database', async () => {
    let acquired = 0;
    const count = () => {
      acquired++;
    };
    t.store.pool.on('acquire', count);
    try {
      const r = await call('GET', '/api/v1/account/me', {
        authorization: `Bearer ${org.key.slice(0, -1)}${org.key.endsWith('A') ? 'B' : 'A'}`,
      });
      assert.equal(r.status, 401);
      assert.equal(acquired, 0);
      await call('GET', '/api/v1/account/me', org.auth);
      assert.ok(acquired > 0, 'the counter does see queries');
    } finally {
      t.store.pool.off('acquire', count);
    }
  });
  test('not a Bearer credential', async () => {
    expectError(
      await call('GET', '/api/v1/account/me', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }),
      401,
      'AUTH_REQUIRED',
      'invalid_api_key',
      /Invalid API key/,
    );
  });
  test('well-formed but unknown key', async () => {
    expectError(
      await call('GET', '/api/v1/account/me', { authorization: `Bearer ${generateApiKey().key}` }),
      401,
      'AUTH_REQUIRED',
      'invalid_api_key',
      'Invalid API key',
    );
  });
  test('revoked key', async () => {
    const k = await seedKey(t.store, org.orgId, org.memberId, { revoked: true });
    expectError(
      await call('GET', '/api/v1/account/me', k.auth),
      401,
      'AUTH_REQUIRED',
      'api_key_revoked',
      'API key revoked',
    );
  });
  test('expired key (expiry against the injected clock)', async () => {
    const k = await seedKey(t.store, org.orgId, org.memberId, { expiresAt: new Date(NOW.getTime() - 1000) });
    expectError(
      await call('GET', '/api/v1/account/me', k.auth),
      401,
      'AUTH_REQUIRED',
      'api_key_expired',
      'API key expired',
    );
    const live = await seedKey(t.store, org.orgId, org.memberId, { expiresAt: new Date(NOW.getTime() + 60_000) });
    assert.equal((await call('GET', '/api/v1/account/me', live.auth)).status, 200);
  });
  test('key of a deactivated organization', async () => {
    const o = await seedOrg(t.store, { name: 'Gone Org' });
    await t.store.db.updateTable('organizations').set({ status: 'deactivated' }).where('id', '=', o.orgId).execute();
    expectError(
      await call('GET', '/api/v1/account/me', o.auth),
      401,
      'AUTH_REQUIRED',
      'invalid_api_key',
      'Invalid API key',
    );
  });
  test('expired session', async () => {
    const s = await seedSession(t.store, org.orgId, org.memberId, new Date('2020-01-01T00:00:00Z'));
    expectError(await call('GET', '/api/v1/account/me', s), 401, 'AUTH_REQUIRED', 'session_expired', /Session expired/);
  });
  test('a key in the query string is not a credential', async () => {
    const r = await call('GET', `/api/v1/account/me?api_key=${encodeURIComponent(org.key)}`);
    expectError(r, 401, 'AUTH_REQUIRED', 'auth_required', /API key required/);
  });
});

describe('403 guards: role, scope, kind, credential type', () => {
  test('viewer writing → viewer_role (even with the write scope)', async () => {
    const v = await seedKey(t.store, org.orgId, null, { role: 'viewer', scopes: ['read', 'write'] });
    expectError(await call('POST', '/api/v1/__test/guard/write', v.auth), 403, 'FORBIDDEN', 'viewer_role');
    assert.equal((await call('GET', '/api/v1/__test/guard/read', v.auth)).status, 200);
  });
  test('admin writing is allowed; owner too', async () => {
    const a = await seedKey(t.store, org.orgId, null, { role: 'admin' });
    const r = await call('POST', '/api/v1/__test/guard/write', a.auth);
    assert.equal(r.status, 200);
    assert.equal(r.body.data.org_id, org.orgId);
    assert.equal((await call('POST', '/api/v1/__test/guard/write', org.auth)).status, 200);
  });
  test('wrong scope → insufficient_scope', async () => {
    const ro = await seedKey(t.store, org.orgId, null, { role: 'admin', scopes: ['read'] });
    const r = await call('POST', '/api/v1/__test/guard/write', ro.auth);
    expectError(r, 403, 'FORBIDDEN', 'insufficient_scope', /write scope/);
    assert.equal(r.body.error.detail.required_scope, 'write');
  });
  test('partner key outside its scope → PARTNER_SCOPE; inside → allowed', async () => {
    const p = await seedKey(t.store, org.orgId, null, { role: 'admin', kind: 'partner', scopes: ['read'] });
    const r = await call('GET', '/api/v1/account/me', p.auth);
    expectError(r, 403, 'PARTNER_SCOPE', 'partner_scope');
    assert.equal(r.body.error.action, 'contact_us');
    expectError(await call('POST', '/api/v1/__test/guard/write', p.auth), 403, 'PARTNER_SCOPE', 'partner_scope');
    const okr = await call('GET', '/api/v1/__test/guard/partner', p.auth);
    assert.equal(okr.status, 200);
    assert.equal(okr.body.data.kind, 'partner');
  });
  test('trial key outside its scope → TRIAL_SCOPE with contact_url; inside → allowed', async () => {
    const tr = await seedKey(t.store, org.orgId, null, {
      role: 'admin',
      kind: 'trial',
      expiresAt: new Date(NOW.getTime() + 86_400_000),
    });
    const r = await call('GET', '/api/v1/account/me', tr.auth);
    expectError(r, 403, 'TRIAL_SCOPE', 'trial_scope');
    assert.equal(r.body.error.action, 'contact_us');
    assert.equal(typeof r.body.error.detail.contact_url, 'string');
    const okr = await call('POST', '/api/v1/__test/guard/trial', tr.auth);
    assert.equal(okr.status, 200);
    assert.equal(okr.body.data.kind, 'trial');
  });
  test('trial key after 14 days → 403 TRIAL_ENDED reason expired; after the trial ended → reason ended', async () => {
    const o = await seedOrg(t.store, { name: 'Trial Org', tier: 'free' });
    const tr = await seedKey(t.store, o.orgId, null, {
      role: 'admin',
      kind: 'trial',
      expiresAt: new Date(NOW.getTime() - 1),
    });
    const r = await call('POST', '/api/v1/__test/guard/trial', tr.auth);
    assert.equal(r.status, 403);
    assert.equal(r.body.error.code, 'TRIAL_ENDED');
    assert.equal(r.body.error.detail.reason, 'expired');
    assert.equal(r.body.error.action, 'contact_us');
    const live = await seedKey(t.store, o.orgId, null, {
      role: 'admin',
      kind: 'trial',
      expiresAt: new Date(NOW.getTime() + 86_400_000),
    });
    assert.equal((await call('POST', '/api/v1/__test/guard/trial', live.auth)).status, 200);
    await t.store.db.insertInto('trial_usage').values({ org_id: o.orgId, ended_at: NOW, started_at: NOW }).execute();
    const ended = await call('POST', '/api/v1/__test/guard/trial', live.auth);
    assert.equal(ended.status, 403);
    assert.equal(ended.body.error.detail.reason, 'ended');
  });
  test('session on a key-only route → API_KEY_REQUIRED; key on a session-only route → session_required', async () => {
    const s = await seedSession(t.store, org.orgId, org.memberId);
    expectError(await call('GET', '/api/v1/__test/guard/key_only', s), 403, 'API_KEY_REQUIRED', 'api_key_required');
    expectError(await call('GET', '/api/v1/__test/guard/session_only', org.auth), 403, 'FORBIDDEN', 'session_required');
    const okr = await call('GET', '/api/v1/__test/guard/session_only', s);
    assert.equal(okr.status, 200);
    assert.equal(okr.body.data.via, 'session');
  });
});

describe('GET /api/v1/account/me', () => {
  // spec §2.8 tier permissions, written out here (not imported) so a wrong table in src fails the test.
  const SPEC: Record<
    string,
    {
      search_max_results: number;
      sage_visible: boolean;
      virtual_patch: boolean;
      api_keys: boolean;
      webhook_delivery: boolean;
    }
  > = {
    free: {
      search_max_results: 10,
      sage_visible: false,
      virtual_patch: false,
      api_keys: false,
      webhook_delivery: false,
    },
    standard: {
      search_max_results: 1000,
      sage_visible: false,
      virtual_patch: false,
      api_keys: false,
      webhook_delivery: true,
    },
    professional: {
      search_max_results: 5000,
      sage_visible: true,
      virtual_patch: true,
      api_keys: true,
      webhook_delivery: true,
    },
    api: { search_max_results: -1, sage_visible: true, virtual_patch: true, api_keys: true, webhook_delivery: true },
    enterprise: {
      search_max_results: -1,
      sage_visible: true,
      virtual_patch: true,
      api_keys: true,
      webhook_delivery: true,
    },
  };
  for (const tier of Object.keys(SPEC)) {
    test(`profile and permissions on ${tier} (by session)`, async () => {
      const o = await seedOrg(t.store, { name: `Tier ${tier}`, tier: tier as never });
      const s = await seedSession(t.store, o.orgId, o.memberId);
      const r = await call('GET', '/api/v1/account/me', s);
      assert.equal(r.status, 200);
      const d = r.body.data;
      assert.deepEqual(Object.keys(d).sort(), [
        'created_at',
        'email',
        'id',
        'name',
        'org_id',
        'org_name',
        'permissions',
        'tier',
      ]);
      assert.equal(d.id, o.memberId);
      assert.equal(d.email, o.ownerEmail);
      assert.equal(d.name, 'Owner');
      assert.equal(d.tier, tier);
      assert.equal(d.org_id, o.orgId);
      assert.equal(d.org_name, `Tier ${tier}`);
      assert.match(d.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.deepEqual(d.permissions, SPEC[tier]);
      assert.equal(r.body.api.version, '1.0.0');
      assert.deepEqual(r.body.meta, {});
    });
  }
  test('a key inherits its member: a viewer key reads the viewer profile', async () => {
    const v = await seedKey(t.store, org.orgId, null, { role: 'viewer' });
    const r = await call('GET', '/api/v1/account/me', v.auth);
    assert.equal(r.status, 200);
    assert.equal(r.body.data.id, v.memberId);
    assert.match(r.body.data.email, /^viewer-/);
  });
});

describe('two organizations', () => {
  test('each credential sees only its own organization through /account/me', async () => {
    const { a, b } = await seedTwoOrgs(t.store);
    const sa = await seedSession(t.store, a.orgId, a.memberId);
    const ra = await call('GET', '/api/v1/account/me', a.auth);
    const rb = await call('GET', '/api/v1/account/me', b.auth);
    const rsa = await call('GET', '/api/v1/account/me', sa);
    assert.deepEqual(
      [ra.body.data.org_id, ra.body.data.org_name, ra.body.data.email],
      [a.orgId, 'Org A', a.ownerEmail],
    );
    assert.deepEqual(
      [rb.body.data.org_id, rb.body.data.org_name, rb.body.data.email],
      [b.orgId, 'Org B', b.ownerEmail],
    );
    assert.equal(rsa.body.data.org_id, a.orgId);
    assert.doesNotMatch(JSON.stringify(ra.body), new RegExp(`Org B|${b.ownerEmail}`));
    assert.doesNotMatch(JSON.stringify(rb.body), new RegExp(`Org A|${a.ownerEmail}`));
  });
});

describe('monthly allowance headers (spec §8)', () => {
  test('every API-key response carries Limit/Used/Remaining; the count is per organization and month', async () => {
    const o = await seedOrg(t.store, { name: 'Counted', tier: 'professional' });
    const second = await seedKey(t.store, o.orgId, null, { role: 'viewer' });
    const r1 = await call('GET', '/api/v1/account/me', o.auth);
    assert.deepEqual(
      [r1.headers['x-ratelimit-limit'], r1.headers['x-ratelimit-used'], r1.headers['x-ratelimit-remaining']],
      ['25000', '1', '24999'],
    );
    // An error answer (unknown parameter, 400) and a 404 are API-key responses too.
    const r2 = await call('GET', '/api/v1/account/me?nope=1', second.auth);
    assert.equal(r2.status, 400);
    assert.deepEqual([r2.headers['x-ratelimit-used'], r2.headers['x-ratelimit-remaining']], ['2', '24998']);
    const r3 = await call('GET', '/api/v1/no-such-route', o.auth);
    assert.equal(r3.status, 404);
    assert.equal(r3.headers['x-ratelimit-used'], '3');
    // Counted write-behind: the first call went to the database, the next two are written by the flush.
    await t.app.usageMeter.flush();
    const row = await t.store.db.selectFrom('api_usage_monthly').selectAll().where('org_id', '=', o.orgId).execute();
    assert.equal(row.length, 1);
    assert.equal(row[0].calls, 3);
    const key = await t.store.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', o.keyId)
      .executeTakeFirstOrThrow();
    assert.equal(key.last_used_at?.toISOString(), NOW.toISOString());
  });
  test("concurrent calls are each counted once; another replica's flushed calls show up in Used", async () => {
    const o = await seedOrg(t.store, { name: 'Busy', tier: 'professional' });
    const first = await call('GET', '/api/v1/account/me', o.auth);
    assert.equal(first.headers['x-ratelimit-used'], '1');
    const rs = await Promise.all(Array.from({ length: 40 }, () => call('GET', '/api/v1/account/me', o.auth)));
    const used = rs.map((r) => Number(r.headers['x-ratelimit-used'])).sort((x, y) => x - y);
    assert.deepEqual(
      used,
      Array.from({ length: 40 }, (_, i) => i + 2),
      'every call got its own count',
    );
    // Another replica wrote 100 calls for the same month.
    await t.store.db
      .updateTable('api_usage_monthly')
      .set((eb) => ({ calls: eb('calls', '+', 100) }))
      .where('org_id', '=', o.orgId)
      .execute();
    // This replica learns the database total when it next writes its own calls: one more call, then the flush.
    // (The meter's one-second timer may already have written the 40 calls before the other replica's 100, or not:
    // either way the total after this flush is 142, so the test does not depend on the timer.)
    await call('GET', '/api/v1/account/me', o.auth);
    await t.app.usageMeter.flush();
    const row = await t.store.db
      .selectFrom('api_usage_monthly')
      .select('calls')
      .where('org_id', '=', o.orgId)
      .executeTakeFirstOrThrow();
    assert.equal(row.calls, 142);
    const next = await call('GET', '/api/v1/account/me', o.auth);
    assert.equal(next.headers['x-ratelimit-used'], '143');
  });
  test('a new calendar month (UTC) starts from zero; Enterprise is unlimited (-1)', async () => {
    const o = await seedOrg(t.store, { name: 'Monthly', tier: 'enterprise' });
    t.clock.set('2026-11-30T23:59:59Z');
    const r1 = await call('GET', '/api/v1/account/me', o.auth);
    await call('GET', '/api/v1/account/me', o.auth);
    t.clock.set('2026-12-01T00:00:00Z');
    const r3 = await call('GET', '/api/v1/account/me', o.auth);
    t.clock.set(NOW);
    assert.deepEqual(
      [r1.headers['x-ratelimit-limit'], r1.headers['x-ratelimit-used'], r1.headers['x-ratelimit-remaining']],
      ['-1', '1', '-1'],
    );
    assert.equal(r3.headers['x-ratelimit-used'], '1');
  });
  test('session and anonymous responses carry no allowance headers', async () => {
    const s = await seedSession(t.store, org.orgId, org.memberId);
    const r = await call('GET', '/api/v1/account/me', s);
    assert.equal(r.status, 200);
    assert.equal(r.headers['x-ratelimit-limit'], undefined);
    assert.equal((await call('GET', '/api/v1/health/ping')).headers['x-ratelimit-limit'], undefined);
  });
});

describe('training, notification preferences, usage: role × scope × key kind × tier × endpoint', () => {
  const M = 'incident-response-for-ics';
  const PREFS = { email_enabled: true, min_severity: 'HIGH', min_bcs: null, kev_only: false, delivery: 'instant' };
  const ENDPOINTS: { method: 'GET' | 'POST' | 'PUT'; url: string; payload?: object; write: boolean }[] = [
    { method: 'GET', url: '/api/v1/training/modules', write: false },
    { method: 'GET', url: `/api/v1/training/modules/${M}`, write: false },
    { method: 'POST', url: `/api/v1/training/modules/${M}/start`, write: true },
    { method: 'POST', url: `/api/v1/training/modules/${M}/complete`, write: true },
    { method: 'GET', url: '/api/v1/training/progress', write: false },
    { method: 'GET', url: '/api/v1/account/notifications', write: false },
    { method: 'PUT', url: '/api/v1/account/notifications', payload: PREFS, write: true },
    { method: 'GET', url: '/api/v1/account/usage', write: false },
    { method: 'GET', url: `/training/${M}`, write: false },
  ];
  const send = (e: (typeof ENDPOINTS)[number], headers: Headers) =>
    t.app.inject({ method: e.method, url: e.url, headers, ...(e.payload ? { payload: e.payload } : {}) });

  test('no credential → 401 on each (a page: 303 to sign-in); partner → PARTNER_SCOPE; trial → TRIAL_SCOPE', async () => {
    const p = await seedKey(t.store, org.orgId, null, { role: 'admin', kind: 'partner', scopes: ['read'] });
    const tr = await seedKey(t.store, org.orgId, null, {
      role: 'admin',
      kind: 'trial',
      expiresAt: new Date(NOW.getTime() + 86_400_000),
    });
    for (const e of ENDPOINTS) {
      const anon = await send(e, {});
      if (e.url.startsWith('/api/')) {
        assert.equal(anon.statusCode, 401, `${e.method} ${e.url}`);
        assert.equal(anon.json().error.code, 'AUTH_REQUIRED');
      } else {
        // A page: the browser is sent to sign in, and brought back afterwards.
        assert.equal(anon.statusCode, 303, `${e.method} ${e.url}`);
        assert.equal(anon.headers.location, `/login?next=${encodeURIComponent(e.url)}`);
      }
      assert.equal((await send(e, p.auth)).json().error.code, 'PARTNER_SCOPE', `${e.method} ${e.url}`);
      assert.equal((await send(e, tr.auth)).json().error.code, 'TRIAL_SCOPE', `${e.method} ${e.url}`);
    }
  });

  for (const tier of ['free', 'enterprise'] as const) {
    test(`${tier}: every role reads; writes (own data) need the write scope, not admin`, async () => {
      const o = await seedOrg(t.store, { name: `Matrix training ${tier}`, tier });
      for (const role of ['owner', 'admin', 'viewer'] as const) {
        for (const scopes of [['read'], ['read', 'write']] as const) {
          const k =
            role === 'owner'
              ? await seedKey(t.store, o.orgId, o.memberId, { scopes: [...scopes] })
              : await seedKey(t.store, o.orgId, null, { role, scopes: [...scopes] });
          for (const e of ENDPOINTS) {
            const r = await send(e, k.auth);
            const label = `${tier} ${role} [${scopes.join(',')}] ${e.method} ${e.url}`;
            if (e.write && !scopes.includes('write' as never)) {
              assert.equal(r.statusCode, 403, label);
              assert.equal(r.json().error.detail.error, 'insufficient_scope', label);
            } else {
              // start comes before complete in ENDPOINTS, so every write-scope member completes a started module.
              assert.equal(r.statusCode, 200, `${label}: ${r.body.slice(0, 200)}`);
            }
          }
        }
      }
    });
  }

  test('session: a viewer writes its own training and preferences with the Origin; each member sees only its own', async () => {
    const o = await seedOrg(t.store, { name: 'Matrix sessions' });
    const v = await seedKey(t.store, o.orgId, null, { role: 'viewer' });
    const sv = await seedSession(t.store, o.orgId, v.memberId);
    const so = await seedSession(t.store, o.orgId, o.memberId);
    const origin = { origin: 'http://vulnintel.test' };
    assert.equal((await send(ENDPOINTS[2], { ...sv, ...origin })).statusCode, 200);
    assert.equal((await send(ENDPOINTS[6], { ...sv, ...origin })).statusCode, 200);
    assert.equal((await send(ENDPOINTS[4], sv)).json().data.started, 1);
    assert.equal((await send(ENDPOINTS[4], so)).json().data.started, 0);
    assert.equal((await send(ENDPOINTS[5], so)).json().data.customized, false);
    assert.equal((await send(ENDPOINTS[5], sv)).json().data.delivery, 'instant');
  });
});

describe('webhook routes: plan × role × key kind (spec §2.8 webhook_delivery, §5.6–5.8)', () => {
  // Expected answer of GET /api/v1/webhooks (read) and POST /api/v1/webhooks/{id}/rotate-secret (write) per case.
  // The route policy (kind → scope → role) is applied before the plan gate, so a Free viewer writing is told
  // viewer_role first.
  type Case = {
    tier: 'free' | 'standard' | 'professional' | 'enterprise';
    role: 'owner' | 'admin' | 'viewer';
    kind?: 'partner' | 'trial';
    scopes?: ('read' | 'write')[];
    read: string;
    write: string;
  };
  const cases: Case[] = [
    { tier: 'free', role: 'owner', read: '403 upgrade_required', write: '403 upgrade_required' },
    { tier: 'free', role: 'viewer', read: '403 upgrade_required', write: '403 viewer_role' },
    ...(['standard', 'professional', 'enterprise'] as const).flatMap((tier): Case[] => [
      { tier, role: 'owner', read: '200', write: '200' },
      { tier, role: 'admin', read: '200', write: '200' },
      { tier, role: 'viewer', read: '200', write: '403 viewer_role' },
      { tier, role: 'admin', scopes: ['read'], read: '200', write: '403 insufficient_scope' },
    ]),
    {
      tier: 'professional',
      role: 'admin',
      kind: 'partner',
      scopes: ['read'],
      read: '403 partner_scope',
      write: '403 partner_scope',
    },
    { tier: 'professional', role: 'admin', kind: 'trial', read: '403 trial_scope', write: '403 trial_scope' },
  ];
  const outcome = (r: { status: number; body: any }) =>
    r.status === 200 ? '200' : `${r.status} ${r.body.error.detail.error}`;

  test('the matrix', async () => {
    const seen: string[] = [];
    for (const c of cases) {
      const o = await seedOrg(t.store, { name: `Hooks ${c.tier}`, tier: c.tier });
      let id = 1;
      if (c.tier !== 'free') {
        const w = await t.app.services.webhooks.create(
          { orgId: o.orgId, tier: c.tier },
          { label: 'matrix', url: 'https://93.184.216.34/hook' },
        );
        id = w.webhook.id;
      }
      // The seeded owner holds the owner role; other roles are added members.
      const k = await seedKey(t.store, o.orgId, c.role === 'owner' ? o.memberId : null, {
        role: c.role,
        kind: c.kind,
        scopes: c.scopes,
        expiresAt: c.kind === 'trial' ? new Date('2026-12-01T00:00:00Z') : null,
      });
      const read = outcome(await call('GET', '/api/v1/webhooks', k.auth));
      const write = outcome(await call('POST', `/api/v1/webhooks/${id}/rotate-secret`, k.auth));
      seen.push(
        `${c.tier}/${c.role}/${c.kind ?? 'standard'}/${(c.scopes ?? ['read', 'write']).join('+')}: ${read} | ${write}`,
      );
      assert.deepEqual([read, write], [c.read, c.write], seen.at(-1));
    }
    assert.equal(seen.length, cases.length);
    expectError(await call('GET', '/api/v1/webhooks'), 401, 'AUTH_REQUIRED', 'auth_required');
    expectError(await call('POST', '/api/v1/webhooks/1/test'), 401, 'AUTH_REQUIRED', 'auth_required');
  });
});

describe('the account routes: credential kind × role × tier on every one', () => {
  // Every account and auth route of the route table with a credential: no route added later escapes the matrix.
  const accountRoutes = () =>
    t.app
      .routeTable()
      .filter(
        (r) =>
          ((r.url.startsWith('/api/v1/account') || r.url.startsWith('/api/v1/auth/')) &&
            r.policy &&
            r.policy.mode !== 'none' &&
            !r.url.endsWith('/account/me')) ||
          (r.url === '/api/v1/account/me' && r.method === 'PUT'),
      );
  const urlOf = (u: string) => u.replace(/:\w+/g, '1');
  const inject = (method: string, url: string, headers: Headers) =>
    t.app.inject({
      method: method as 'GET',
      url: urlOf(url),
      headers: { ...headers, ...(method === 'GET' ? {} : { 'content-type': 'application/json' }) },
      ...(method === 'GET' ? {} : { payload: '{}' }),
    });

  test('there are account routes, all of them with a credential', () => {
    assert.ok(
      accountRoutes().length >= 18,
      accountRoutes()
        .map((r) => r.url)
        .join(', '),
    );
  });

  test('no credential → 401; partner and trial keys → PARTNER_SCOPE / TRIAL_SCOPE; session-only routes refuse keys', async () => {
    const partner = await seedKey(t.store, org.orgId, org.memberId, { kind: 'partner', scopes: ['read'] });
    const trial = await seedKey(t.store, org.orgId, org.memberId, {
      kind: 'trial',
      expiresAt: new Date('2026-12-01T00:00:00Z'),
    });
    for (const r of accountRoutes()) {
      const label = `${r.method} ${r.url}`;
      const anon = await inject(r.method, r.url, {});
      assert.equal(anon.statusCode, 401, label);
      assert.equal(anon.json().error.code, 'AUTH_REQUIRED', label);
      const sessionOnly = r.policy!.mode === 'session';
      const p = await inject(r.method, r.url, partner.auth);
      assert.equal(p.statusCode, 403, label);
      assert.equal(p.json().error.code, sessionOnly ? 'FORBIDDEN' : 'PARTNER_SCOPE', label);
      const tr = await inject(r.method, r.url, trial.auth);
      assert.equal(tr.json().error.code, sessionOnly ? 'FORBIDDEN' : 'TRIAL_SCOPE', label);
      if (sessionOnly) assert.equal(tr.json().error.detail.error, 'session_required', label);
    }
  });

  test('a viewer session: reads pass, writes → 403 viewer_role except its own profile, session and organization switch', async () => {
    const v = await seedKey(t.store, org.orgId, null, { role: 'viewer' });
    const s = await seedSession(t.store, org.orgId, v.memberId);
    for (const r of accountRoutes()) {
      if (r.url.endsWith('/logout') || r.url.endsWith('/logout-all')) continue; // would end the session under test
      const res = await inject(r.method, r.url, { ...s, origin: 'http://vulnintel.test' });
      const label = `${r.method} ${r.url}: ${res.body.slice(0, 200)}`;
      const e = res.statusCode >= 400 ? res.json().error.detail.error : null;
      if (r.policy!.self || (r.method === 'GET' && (r.policy!.role ?? 'viewer') === 'viewer'))
        assert.notEqual(e, 'viewer_role', label);
      else assert.equal(e, 'viewer_role', label);
    }
  });

  test('keys over HTTP by tier: Standard → upgrade_required, Professional passes; DELETE /account needs the owner', async () => {
    const std = await seedOrg(t.store, { name: 'Matrix Std', tier: 'standard' });
    for (const [method, url] of [
      ['GET', '/api/v1/account/keys'],
      ['POST', '/api/v1/account/keys'],
      ['DELETE', '/api/v1/account/keys/:key_id'],
      ['POST', '/api/v1/account/keys/:key_id/rotate'],
    ]) {
      const r = await inject(method, url, std.auth);
      assert.equal(r.json().error.detail.error, 'upgrade_required', `${method} ${url}`);
      const pro = await inject(method, url, org.auth);
      assert.notEqual(pro.json().error?.detail?.error, 'upgrade_required', `${method} ${url}`);
    }
    const admin = await seedKey(t.store, org.orgId, null, { role: 'admin' });
    const s = await seedSession(t.store, org.orgId, admin.memberId);
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/api/v1/account',
      headers: { ...s, origin: 'http://vulnintel.test' },
      payload: {},
    });
    assert.equal(del.statusCode, 403);
    assert.equal(del.json().error.detail.required_role, 'owner');
  });
});

describe('v1 asset correlation routes (spec §5.8, §7): who may call correlate-cves, its /check and check-windows', () => {
  const ASSET = { asset_id: 'matrix-plc-1', vendor: 'Siemens', product: 'SIMATIC S7-1500', version: 'V2.9.2' };
  const HOST = {
    asset_id: 'matrix-srv-1',
    os_product: 'Windows Server 2019 Standard',
    edition_id: 'ServerStandard',
    os_build: '10.0.17763.6189',
    architecture: 'x64',
    installation_type: 'Server',
    collected_at: '2026-11-20T08:00:00Z',
  };
  const ROUTES = [
    ['/api/v1/assets/correlate-cves', { assets: [ASSET] }],
    ['/api/v1/assets/correlate-cves/check', { assets: [ASSET] }],
    ['/api/v1/assets/check-windows', { windows_hosts: [HOST] }],
  ] as const;
  const post = (url: string, body: unknown, headers: Headers) =>
    t.app.inject({ method: 'POST', url, headers, payload: body as object });

  test('each credential kind on each route', async () => {
    const free = await seedOrg(t.store, { name: 'Free Matrix Org', tier: 'free' });
    const kinds: [string, Headers, [number, string | null][]][] = [
      // A key of its own: other describes of this file revoke and rotate the shared org's keys.
      [
        'standard admin key',
        (await seedKey(t.store, org.orgId, null, { role: 'admin' })).auth,
        [
          [200, null],
          [200, null],
          [200, null],
        ],
      ],
      [
        'read-only partner key',
        (await seedKey(t.store, org.orgId, null, { role: 'admin', kind: 'partner', scopes: ['read'] })).auth,
        [
          [200, null],
          [200, null],
          [200, null],
        ],
      ],
      [
        'trial key',
        (
          await seedKey(t.store, free.orgId, null, {
            role: 'admin',
            kind: 'trial',
            expiresAt: new Date(NOW.getTime() + 86_400_000),
          })
        ).auth,
        [
          [200, null],
          [200, null],
          [403, 'trial_scope'],
        ],
      ],
      [
        'free account key',
        free.auth,
        [
          [403, 'trial_required'],
          [403, 'trial_required'],
          [200, null],
        ],
      ],
      [
        'viewer key',
        (await seedKey(t.store, org.orgId, null, { role: 'viewer', scopes: ['read', 'write'] })).auth,
        [
          [403, 'viewer_role'],
          [403, 'viewer_role'],
          [403, 'viewer_role'],
        ],
      ],
      [
        'no credential',
        {},
        [
          [401, 'auth_required'],
          [401, 'auth_required'],
          [401, 'auth_required'],
        ],
      ],
    ];
    for (const [label, headers, expected] of kinds) {
      for (let i = 0; i < ROUTES.length; i++) {
        const [url, body] = ROUTES[i];
        const r = await post(url, body, headers);
        assert.equal(r.statusCode, expected[i][0], `${label} ${url}: ${r.body}`);
        if (expected[i][1]) assert.equal(r.json().error.detail.error, expected[i][1], `${label} ${url}`);
      }
    }
    const required = (await post(ROUTES[0][0], ROUTES[0][1], free.auth)).json().error;
    assert.deepEqual(
      [required.code, required.action, required.detail.trial_url, required.detail.contact_url],
      [
        'TRIAL_REQUIRED',
        'use_different_key',
        'http://vulnintel.test/api/v1/account/trial',
        'mailto:support@vulnintel.local',
      ],
    );
  });

  test('a read-only partner key correlates but cannot store into an environment (insufficient_scope)', async () => {
    const p = await seedKey(t.store, org.orgId, null, { role: 'admin', kind: 'partner', scopes: ['read'] });
    const env = await t.app.services.environments.create(org.orgId, { name: 'Matrix plant' });
    const r = await post(ROUTES[0][0], { assets: [ASSET], environment_id: env.id }, p.auth);
    expectError(
      { status: r.statusCode, body: r.json(), headers: r.headers },
      403,
      'FORBIDDEN',
      'insufficient_scope',
      /write scope/,
    );
  });
});

describe('req.caller: the principal, non-null by type', () => {
  test('is the signed-in caller, and a 401 (never a null) where no principal was resolved', async () => {
    const mine = await call('GET', '/api/v1/__test/caller', org.auth);
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    assert.deepEqual(mine.body.data, { org_id: org.orgId, member_id: org.memberId });
    expectError(
      await call('GET', '/api/v1/__test/caller'),
      401,
      'AUTH_REQUIRED',
      'auth_required',
      'Valid session or API key required',
    );
  });
});
