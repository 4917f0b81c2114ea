// Deleting an environment (docs/account-preferences.md "Caps", docs/windows-engine.md §4): the environment goes with
// everything stored in it (v1 correlated assets, v2 Windows hosts and their software), which frees its room under
// the plan caps: after a downgrade below the environments in use, "Delete one or raise the cap" is something a user
// can do. Another organization's id, or one already deleted, is 404 environment_not_found with nothing touched; a
// store racing the deletion answers 404, never a foreign-key 500.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import { testApp, seedOrg, seedKey, type TestApp } from '../helpers/app.ts';

let t: TestApp;
before(async () => {
  t = await testApp({ now: '2026-11-21T12:00:00Z' });
});
after(async () => {
  await t.close();
});

const createEnv = (auth: Record<string, string>, name: string) =>
  t.app.inject({ method: 'POST', url: '/api/v1/environments', headers: auth, payload: { name } });
const deleteEnv = (auth: Record<string, string>, id: number | string) =>
  t.app.inject({ method: 'DELETE', url: `/api/v1/environments/${id}`, headers: auth });
const correlate = (auth: Record<string, string>, environmentId: number, ids: string[]) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/assets/correlate-cves',
    headers: auth,
    payload: {
      environment_id: environmentId,
      assets: ids.map((id) => ({ asset_id: id, vendor: 'Siemens', product: 'SIMATIC S7-1500', version: 'V2.9.2' })),
    },
  });
const host = (id: string) => ({
  asset_id: id,
  os_product: 'Windows Server 2019 Datacenter',
  edition_id: 'ServerDatacenter',
  os_build: '10.0.17763.8755',
  architecture: 'x64',
  installation_type: 'Server',
  installed_kbs: ['KB5094123'],
  kb_source: 'Get-HotFix',
  collected_at: '2026-11-01T08:00:00Z',
});
const windows = (auth: Record<string, string>, environmentId: number, ids: string[]) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v2/assets/correlate',
    headers: auth,
    payload: {
      environment_id: environmentId,
      windows_hosts: ids.map(host),
      installed_software: ids.map((id) => ({ asset_id: id, name: 'WinCC', publisher: 'Siemens', version: '8.0' })),
    },
  });
const usage = async (auth: Record<string, string>) =>
  (await t.app.inject({ method: 'GET', url: '/api/v1/account/usage', headers: auth })).json().data;
const rows = async (orgId: number) =>
  (
    await sql<{ a: number; h: number; s: number; e: number }>`SELECT
  (SELECT count(*)::int FROM asset_correlations WHERE org_id = ${orgId}) AS a,
  (SELECT count(*)::int FROM windows_host_results WHERE org_id = ${orgId}) AS h,
  (SELECT count(*)::int FROM windows_installed_software WHERE org_id = ${orgId}) AS s,
  (SELECT count(*)::int FROM environments WHERE org_id = ${orgId}) AS e`.execute(t.store.db)
  ).rows[0];

test('after a downgrade below the environments in use, deleting environments frees room; their assets go with them', async () => {
  const o = await seedOrg(t.store, { tier: 'professional' });
  const ids: number[] = [];
  for (const n of ['Substation 1', 'Substation 2', 'Substation 3', 'Substation 4']) {
    const r = await createEnv(o.auth, n);
    assert.equal(r.statusCode, 201, r.body);
    ids.push(r.json().data.id);
  }
  assert.equal((await correlate(o.auth, ids[0], ['plc-1', 'plc-2'])).statusCode, 200);
  assert.equal((await windows(o.auth, ids[0], ['win-host-0001'])).statusCode, 200);
  assert.equal(
    (await correlate(o.auth, ids[1], ['plc-2', 'rtu-9'])).statusCode,
    200,
    'plc-2 stored in two environments',
  );
  await sql`UPDATE organizations SET tier = 'standard' WHERE id = ${o.orgId}`.execute(t.store.db);
  const refused = await createEnv(o.auth, 'Substation 5');
  assert.equal(refused.statusCode, 403, refused.body);
  assert.match(refused.json().error.message, /allows 3 environments; 4 exist/);
  assert.deepEqual((await usage(o.auth)).assets.used, 4, 'plc-1, plc-2, rtu-9, win-host-0001');

  const del = await deleteEnv(o.auth, ids[0]);
  assert.equal(del.statusCode, 200, del.body);
  const d = del.json().data;
  assert.deepEqual([d.id, d.name, d.removed], [ids[0], 'Substation 1', { assets: 2, windows_hosts: 1 }]);
  const list = (await t.app.inject({ method: 'GET', url: '/api/v1/environments', headers: o.auth })).json().data;
  assert.deepEqual(
    list.map((x: { name: string }) => x.name),
    ['Substation 2', 'Substation 3', 'Substation 4'],
  );
  assert.deepEqual(await rows(o.orgId), { a: 2, h: 0, s: 0, e: 3 }, "only Substation 2's assets stay");
  const u = await usage(o.auth);
  assert.deepEqual(
    [u.environments.used, u.environments.remaining, u.assets.used],
    [3, 0, 2],
    'plc-2 is still stored in Substation 2',
  );
  assert.equal((await createEnv(o.auth, 'Substation 5')).statusCode, 403, 'still at the cap of 3');
  assert.equal((await deleteEnv(o.auth, ids[3])).statusCode, 200);
  assert.equal((await createEnv(o.auth, 'Substation 5')).statusCode, 201, 'room again');

  // Deleted already: 404 in the envelope; storing into it: 404 too.
  const again = await deleteEnv(o.auth, ids[0]);
  assert.equal(again.statusCode, 404, again.body);
  assert.deepEqual(
    [again.json().error.code, again.json().error.detail.error, again.json().error.detail.environment_id],
    ['NOT_FOUND', 'environment_not_found', ids[0]],
  );
  assert.equal((await correlate(o.auth, ids[0], ['plc-1'])).json().error.detail.error, 'environment_not_found');
  for (const bad of ['0', '1234567890123456789']) {
    const r = await deleteEnv(o.auth, bad);
    assert.equal(r.statusCode, 404, `${bad}: ${r.body}`);
  }
});

test("another organization's environment: 404, nothing of it touched; a viewer and a read-only key are refused", async () => {
  const a = await seedOrg(t.store, { tier: 'professional' });
  const b = await seedOrg(t.store, { tier: 'professional' });
  const envB = (await createEnv(b.auth, 'B plant')).json().data.id as number;
  assert.equal((await correlate(b.auth, envB, ['b-plc'])).statusCode, 200);
  const before = await rows(b.orgId);
  const r = await deleteEnv(a.auth, envB);
  assert.equal(r.statusCode, 404, r.body);
  assert.equal(r.json().error.detail.error, 'environment_not_found');
  assert.doesNotMatch(r.body, /B plant/);
  const viewer = await seedKey(t.store, b.orgId, null, { role: 'viewer' });
  assert.equal((await deleteEnv(viewer.auth, envB)).json().error.detail.error, 'viewer_role');
  const readOnly = await seedKey(t.store, b.orgId, null, { role: 'admin', scopes: ['read'] });
  assert.equal((await deleteEnv(readOnly.auth, envB)).json().error.detail.error, 'insufficient_scope');
  assert.deepEqual(await rows(b.orgId), before);
});

test('a store into an environment deleted while the call runs answers 404 environment_not_found, not a 500', async () => {
  const o = await seedOrg(t.store, { tier: 'professional' });
  for (const call of ['v1', 'v2'] as const) {
    const env = (await createEnv(o.auth, `Racing ${call}`)).json().data.id as number;
    // The deletion holds the environment's row while the call checks it exists, evaluates and reaches its store.
    const conn = await t.store.pool.connect();
    try {
      await conn.query('BEGIN');
      await conn.query('SELECT id FROM environments WHERE id = $1 FOR UPDATE', [env]);
      const pending = call === 'v1' ? correlate(o.auth, env, ['plc-race']) : windows(o.auth, env, ['win-race-0001']);
      for (let i = 0; i < 200; i++) {
        const w = await t.store.pool.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`,
        );
        if (w.rows[0].n > 0) break;
        await new Promise((res) => setTimeout(res, 25));
      }
      await conn.query('DELETE FROM environments WHERE id = $1', [env]);
      await conn.query('COMMIT');
      const r = await pending;
      assert.equal(r.statusCode, 404, `${call}: ${r.body}`);
      assert.equal(r.json().error.detail.error, 'environment_not_found');
    } finally {
      conn.release();
    }
  }
  assert.deepEqual(await rows(o.orgId), { a: 0, h: 0, s: 0, e: 0 });
});

test('a stored asset is removed on its own: in an environment (its correlation, its Windows host and software), or among the hosts stored without one', async () => {
  const o = await seedOrg(t.store, { tier: 'professional' });
  const env = (await createEnv(o.auth, 'Line 7')).json().data.id as number;
  assert.equal((await correlate(o.auth, env, ['plc-7', 'hmi-7'])).statusCode, 200);
  assert.equal((await windows(o.auth, env, ['hmi-7'])).statusCode, 200, 'hmi-7 also a Windows host there');
  // v2 hosts stored without an environment: before, nothing could remove them, and they held the assets cap.
  const loose = await t.app.inject({
    method: 'POST',
    url: '/api/v2/assets/correlate',
    headers: o.auth,
    payload: { windows_hosts: [host('eng-ws-1'), host('eng-ws-2')] },
  });
  assert.equal(loose.statusCode, 200, loose.body);
  assert.equal((await usage(o.auth)).assets.used, 4);
  const del = (id: string, environmentId?: number | string) =>
    t.app.inject({
      method: 'DELETE',
      url: `/api/v1/assets/${encodeURIComponent(id)}${environmentId === undefined ? '' : `?environment_id=${environmentId}`}`,
      headers: o.auth,
    });

  const both = await del('hmi-7', env);
  assert.equal(both.statusCode, 200, both.body);
  assert.deepEqual(both.json().data, {
    asset_id: 'hmi-7',
    environment_id: env,
    removed: { correlations: 1, windows_hosts: 1 },
  });
  const free = await del('eng-ws-1');
  assert.deepEqual(free.json().data, {
    asset_id: 'eng-ws-1',
    environment_id: null,
    removed: { correlations: 0, windows_hosts: 1 },
  });
  assert.equal((await usage(o.auth)).assets.used, 2, 'plc-7 and eng-ws-2 are left');
  assert.deepEqual(await rows(o.orgId), { a: 1, h: 1, s: 0, e: 1 });
  // The stored results no longer hold it.
  const results = await t.app.inject({
    method: 'GET',
    url: '/api/v2/assets/results?asset_id=eng-ws-1',
    headers: o.auth,
  });
  assert.equal(results.json().pagination.total, 0);

  // Again, or under the wrong environment: 404 asset_not_found, nothing removed.
  for (const [id, e] of [
    ['hmi-7', env],
    ['eng-ws-1', undefined],
    ['plc-7', undefined],
    ['eng-ws-2', env],
  ] as const) {
    const r = await del(id, e);
    assert.equal(r.statusCode, 404, `${id} ${e}`);
    assert.equal(r.json().error.detail.error, 'asset_not_found');
  }
  for (const e of ['999999999999999', '1234567890123456789', '0']) {
    const r = await del('plc-7', e);
    assert.equal(r.statusCode, 404, e);
    assert.equal(r.json().error.detail.error, 'environment_not_found');
  }
  assert.deepEqual(await rows(o.orgId), { a: 1, h: 1, s: 0, e: 1 });
  // A viewer, or a read-only key, may not remove.
  const viewer = await seedKey(t.store, o.orgId, null, { role: 'viewer' });
  const reader = await seedKey(t.store, o.orgId, null, { role: 'admin', scopes: ['read'] });
  assert.equal(
    (
      await t.app.inject({ method: 'DELETE', url: `/api/v1/assets/plc-7?environment_id=${env}`, headers: viewer.auth })
    ).json().error.detail.error,
    'viewer_role',
  );
  assert.equal(
    (
      await t.app.inject({ method: 'DELETE', url: `/api/v1/assets/plc-7?environment_id=${env}`, headers: reader.auth })
    ).json().error.detail.error,
    'insufficient_scope',
  );
  assert.deepEqual(await rows(o.orgId), { a: 1, h: 1, s: 0, e: 1 });
});
