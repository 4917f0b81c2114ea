// Two tenants, every tenant route (docs/reliability.md D8). The routes come from the app's own route table
// (onRoute), filtered by their `config.auth.tenant` declaration; organization A attacks B's ids with its API key
// and its session. A foreign id answers the declared 404 code (environment_not_found, ...) or an empty result;
// a route on the caller's own data answers without any of B's data; B's rows are unchanged after every attack.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { testApp, type TestApp } from '../helpers/app.ts';
import {
  attacks,
  coverageProblems,
  OWN_DATA_REFUSALS,
  RESOURCES,
  seedTenant,
  tenantRoutes,
  tenantRowCounts,
  type SeededTenant,
  type TenantRoute,
} from '../helpers/tenant-runner.ts';

let t: TestApp;
let routes: TenantRoute[];
let a: SeededTenant;
let b: SeededTenant;

before(async () => {
  // The webhooks fixture and the example bodies use hooks.example.com: listed, so creating them needs no DNS.
  t = await testApp({ now: '2026-07-10T12:00:00Z', env: { VULNINTEL_WEBHOOK_EGRESS_ALLOW: 'hooks.example.com' } });
  routes = tenantRoutes(t.app.routeTable());
  const resources = Object.keys(RESOURCES);
  a = await seedTenant(t, 'A', resources);
  b = await seedTenant(t, 'B', resources);
});
after(async () => {
  await t.close();
});

test('the runner knows how to attack every tenant route (a new one without a fixture fails here)', async () => {
  assert.deepEqual(await coverageProblems(t, routes), []);
  // The tenant routes of today, so a declaration dropped by mistake shows up too.
  assert.deepEqual(
    routes.map((r) => `${r.method} ${r.url}`).sort(),
    [
      'DELETE /api/v1/account',
      'DELETE /api/v1/account/keys/:key_id',
      'DELETE /api/v1/account/team/:member_id',
      'DELETE /api/v1/account/team/invitations/:invitation_id',
      'DELETE /api/v1/assets/:asset_id',
      'DELETE /api/v1/environments/:environment_id',
      'DELETE /api/v1/environments/:environment_id/decisions/:cve_id',
      'GET /api/v1/environments/:environment_id/decisions',
      'GET /api/v1/environments/:environment_id/decisions/:cve_id',
      'GET /api/v1/environments/:environment_id/decisions/:cve_id/history',
      'POST /api/v1/environments/:environment_id/decisions/bulk',
      'GET /api/v1/environments/:environment_id/decisions/:cve_id/vendor-statements',
      'POST /api/v1/environments/:environment_id/decisions/:cve_id/adopt',
      'POST /api/v1/environments/:environment_id/vex/import',
      'PUT /api/v1/environments/:environment_id/decisions/:cve_id',
      'GET /api/v1/environments/:environment_id/vex',
      'GET /api/v1/environments/:environment_id/exposure-history',
      'GET /api/v1/environments/:environment_id/report',
      'GET /api/v1/account/report-schedule',
      'PUT /api/v1/account/report-schedule',
      'DELETE /api/v1/feeds/tokens/:token_id',
      'DELETE /api/v1/watchlist/:entry_id',
      'DELETE /api/v1/webhooks/:id',
      'GET /account',
      'GET /account/notifications',
      'GET /api/v1/account/clients',
      'GET /api/v1/account/keys',
      'GET /api/v1/account/me',
      'GET /api/v1/account/notifications',
      'GET /api/v1/account/org',
      'GET /api/v1/account/team',
      'GET /api/v1/account/trial',
      'GET /api/v1/account/usage',
      'GET /api/v1/alerts',
      'GET /api/v1/assets/results',
      'GET /api/v1/environments',
      'GET /api/v1/feeds/tokens',
      'GET /api/v1/training/modules',
      'GET /api/v1/training/modules/:module_id',
      'GET /api/v1/training/progress',
      'GET /api/v1/watchlist',
      'GET /api/v1/webhooks',
      'GET /api/v1/webhooks/:id',
      'GET /api/v1/webhooks/:id/deliveries',
      'GET /api/v2/assets/results',
      'GET /training',
      'GET /training/:module_id',
      'PATCH /api/v1/webhooks/:id',
      'POST /account/delete',
      'POST /account/keys',
      'POST /account/keys/:key_id/revoke',
      'POST /account/notifications',
      'POST /account/profile',
      'POST /account/team/:member_id/remove',
      'POST /account/team/invitations/:invitation_id/withdraw',
      'POST /account/team/invite',
      'POST /account/trial',
      'POST /api/v1/account/clients/:client_id/deactivate',
      'POST /api/v1/account/clients/:client_id/restore',
      'POST /api/v1/account/keys',
      'POST /api/v1/account/keys/:key_id/rotate',
      'POST /api/v1/account/team/invite',
      'POST /api/v1/account/trial',
      'POST /api/v1/assets/correlate-cves',
      'POST /api/v1/assets/correlate-cves/check',
      'POST /api/v1/environments',
      'POST /api/v1/feeds/tokens',
      'POST /api/v1/training/modules/:module_id/complete',
      'POST /api/v1/training/modules/:module_id/start',
      'POST /api/v1/watchlist',
      'POST /api/v1/webhooks',
      'POST /api/v1/webhooks/:id/enable',
      'POST /api/v1/webhooks/:id/rotate-secret',
      'POST /api/v1/webhooks/:id/test',
      'POST /api/v2/assets/correlate',
      'POST /api/v2/assets/correlate-csv',
      'POST /training/:module_id/complete',
      'POST /training/:module_id/start',
      'PUT /api/v1/account/me',
      'PUT /api/v1/account/notifications',
      'PUT /api/v1/account/org',
      'GET /overview',
      'GET /environments',
      'POST /environments',
      'POST /environments/:environment_id/delete',
      'GET /environments/:environment_id',
      'GET /environments/:environment_id/export.csv',
      'GET /environments/:environment_id/inventory.csv',
      'POST /environments/:environment_id/assets',
      'POST /environments/:environment_id/upload',
      'GET /environments/:environment_id/decisions',
      'POST /environments/:environment_id/decisions/bulk',
      'GET /environments/:environment_id/decisions/:cve_id',
      'POST /environments/:environment_id/decisions/:cve_id',
      'POST /environments/:environment_id/decisions/:cve_id/clear',
      'POST /assets/:asset_id/delete',
      'POST /assets/:asset_id/edit',
      'GET /cves',
      'GET /alerts',
      'POST /alerts/:alert_id/read',
      'POST /alerts/:alert_id/unread',
      'POST /alerts/read-all',
      'GET /watchlist',
      'POST /watchlist',
      'POST /watchlist/:entry_id/delete',
      'GET /webhooks',
      'POST /webhooks',
      'POST /webhooks/:id/edit',
      'POST /webhooks/:id/enable',
      'POST /webhooks/:id/rotate',
      'POST /webhooks/:id/test',
      'POST /webhooks/:id/delete',
    ].sort(),
  );
});

test('a tenant route the runner cannot attack is reported', async () => {
  const x = await testApp({
    testRoutes: (app) => {
      app.get(
        '/api/v1/__test/gadgets/:id',
        {
          schema: { hide: true, params: Type.Object({ id: Type.String() }), querystring: Type.Object({}) },
          config: {
            auth: {
              mode: 'key_or_session',
              role: 'viewer',
              scope: 'read',
              tenant: { resource: 'gadgets', ids: [{ in: 'params', name: 'id', foreign: 'not_found' }] },
            },
          },
        },
        async () => ({}),
      );
      app.post(
        '/api/v1/__test/notes/:note_id',
        {
          schema: { hide: true, querystring: Type.Object({}) },
          config: {
            auth: {
              mode: 'key_or_session',
              role: 'admin',
              scope: 'write',
              tenant: { resource: 'environments', ids: [] },
            },
          },
        },
        async () => ({}),
      );
    },
  });
  try {
    const problems = await coverageProblems(
      x,
      tenantRoutes(x.app.routeTable()).filter((r) => r.url.includes('__test')),
    );
    assert.deepEqual(problems.sort(), [
      'GET /api/v1/__test/gadgets/:id: no fixture for tenant resource "gadgets" (add one to RESOURCES in test/helpers/tenant-runner.ts)',
      'POST /api/v1/__test/notes/:note_id: a write route needs schema.body.examples (or a FALLBACK_BODIES entry) for the runner to build its request',
      'POST /api/v1/__test/notes/:note_id: route parameter :note_id is not declared in tenant.ids',
    ]);
  } finally {
    await x.close();
  }
});

test("organization A's key and session against B's ids: the declared 404 or an empty result, B unchanged", async () => {
  const origin = new URL(t.config.publicUrl).origin;
  let attacked = 0;
  for (const r of routes) {
    for (const atk of attacks(r, a, b, origin)) {
      const before = await tenantRowCounts(t, b.orgId);
      const res = await t.app.inject({
        method: atk.method as 'GET',
        url: atk.url,
        headers: atk.headers,
        payload: atk.payload,
      });
      const text = res.body;
      if (atk.id === null) {
        // The caller's own data: served (or a conflict within A's own data, e.g. the example name taken by A's
        // previous call), never refused for A's valid credentials, never a 5xx.
        const refusal = OWN_DATA_REFUSALS[`${r.method} ${r.url}`]?.[atk.via];
        if (refusal)
          assert.equal(
            res.json().error?.detail?.error,
            refusal,
            `${atk.label}: ${res.statusCode} ${text.slice(0, 300)}`,
          );
        // 303: a page's form, done, sending the browser back to its page.
        else
          assert.ok(
            res.statusCode < 300 || res.statusCode === 303 || res.statusCode === 409,
            `${atk.label}: ${res.statusCode} ${text.slice(0, 300)}`,
          );
      } else if (atk.id.foreign === 'empty') {
        assert.ok(
          res.statusCode >= 200 && res.statusCode < 300,
          `${atk.label}: ${res.statusCode} ${text.slice(0, 300)}`,
        );
      } else {
        assert.equal(res.statusCode, 404, `${atk.label}: ${text.slice(0, 300)}`);
        assert.equal(res.json().error.detail.error, atk.id.foreign, atk.label);
      }
      if (atk.id?.foreign === 'empty') {
        const body = res.json();
        assert.equal(body.pagination?.total ?? 0, 0, atk.label);
      }
      // A's own request may be echoed (meta.filters, error detail); nothing else of B may appear.
      const sent = atk.id ? String(b.ids[atk.id.name]) : null;
      for (const m of b.markers.filter((x) => x !== sent))
        assert.ok(!text.includes(m), `${atk.label}: the response holds B's ${m}`);
      // B's own ids never come back (an id in A's request may be echoed only inside filters/detail of an error).
      // Random 15-digit ids and string ids are looked for anywhere; small sequence ids (members, keys,
      // organizations) would match unrelated numbers, so they are looked for under their own field name.
      for (const [name, v] of Object.entries(b.ids)) {
        if (res.statusCode >= 300) continue;
        const data = String(res.headers['content-type']).includes('json')
          ? JSON.stringify(res.json().data ?? {})
          : res.body;
        const held =
          typeof v === 'number' && v < 1e12
            ? new RegExp(`"${name}":${v}(?![0-9])`).test(data)
            : data.includes(String(v));
        assert.ok(!held, `${atk.label}: data holds B's ${name} ${v}`);
      }
      assert.deepEqual(await tenantRowCounts(t, b.orgId), before, `${atk.label}: B's rows changed`);
      attacked++;
    }
  }
  // Every declared id by key and by session (session-only routes: by session); own-data routes once each way.
  const expected = routes.reduce((n, r) => n + (r.sessionOnly ? 1 : 2) * Math.max(1, r.tenant.ids.length), 0);
  assert.equal(attacked, expected);
});

test("B's data is intact and visible to B after the attacks", async () => {
  const envs = await t.app.inject({ method: 'GET', url: '/api/v1/environments', headers: b.key });
  assert.equal(envs.statusCode, 200);
  assert.ok(envs.json().data.some((e: { id: number }) => e.id === b.ids.environment_id));
  assert.ok(!envs.body.includes(a.name));
});
