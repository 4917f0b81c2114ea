// Environment and asset caps are enforced, not only reported (docs/account-preferences.md "Caps"):
// past the effective cap (plan or override) → 403 cap_exceeded with resource, limit and used, nothing stored;
// replacing a stored asset_id costs nothing; v1 correlated assets and v2 hosts share one asset count, the one
// /account/usage reports; parallel calls at cap − 1: exactly one passes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { FALLBACK_BODIES } from '../helpers/tenant-runner.ts';

let t: TestApp;
before(async () => {
  t = await testApp({ now: '2026-11-21T12:00:00Z' });
});
after(async () => {
  await t.close();
});

const createEnv = (auth: Record<string, string>, name: string) =>
  t.app.inject({ method: 'POST', url: '/api/v1/environments', headers: auth, payload: { name } });
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
const stored = async (orgId: number) =>
  (
    await sql<{ n: number }>`SELECT
  (SELECT count(*) FROM asset_correlations WHERE org_id = ${orgId}) + (SELECT count(*) FROM windows_host_results WHERE org_id = ${orgId}) AS n`.execute(
      t.store.db,
    )
  ).rows[0].n;
const usage = async (auth: Record<string, string>) =>
  (await t.app.inject({ method: 'GET', url: '/api/v1/account/usage', headers: auth })).json().data;

test('environments: the cap is the last one created; one more → 403 cap_exceeded, nothing created', async () => {
  const o = await seedOrg(t.store, { tier: 'professional' });
  await t.app.services.accountPreferences.setCapOverrides(o.orgId, { environments: 2 });
  assert.equal((await createEnv(o.auth, 'Plant 1')).statusCode, 201);
  assert.equal((await createEnv(o.auth, 'Plant 2')).statusCode, 201);
  const r = await createEnv(o.auth, 'Plant 3');
  assert.equal(r.statusCode, 403, r.body);
  const e = r.json().error;
  assert.deepEqual(
    [e.code, e.detail.error, e.detail.resource, e.detail.limit, e.detail.used],
    ['FORBIDDEN', 'cap_exceeded', 'environments', 2, 2],
  );
  assert.match(e.message, /allows 2 environments; 2 exist/);
  const list = (await t.app.inject({ method: 'GET', url: '/api/v1/environments', headers: o.auth })).json().data;
  assert.deepEqual(
    list.map((x: { name: string }) => x.name),
    ['Plant 1', 'Plant 2'],
  );
  assert.deepEqual([(await usage(o.auth)).environments.used, (await usage(o.auth)).environments.remaining], [2, 0]);
  // Unlimited (-1) never refuses.
  await t.app.services.accountPreferences.setCapOverrides(o.orgId, { environments: -1 });
  assert.equal((await createEnv(o.auth, 'Plant 3')).statusCode, 201);
});

test('environments: ten parallel creates at cap − 1, exactly one passes', async () => {
  const o = await seedOrg(t.store, { tier: 'professional' });
  await t.app.services.accountPreferences.setCapOverrides(o.orgId, { environments: 3 });
  for (const n of ['A', 'B']) assert.equal((await createEnv(o.auth, n)).statusCode, 201);
  const rs = await Promise.all(Array.from({ length: 10 }, (_, i) => createEnv(o.auth, `Parallel ${i}`)));
  assert.deepEqual(rs.map((r) => r.statusCode).sort(), [201, ...Array(9).fill(403)]);
  assert.equal(
    (
      await sql<{ n: number }>`SELECT count(*)::int AS n FROM environments WHERE org_id = ${o.orgId}`.execute(
        t.store.db,
      )
    ).rows[0].n,
    3,
  );
});

test('assets: v1 and v2 share the cap; a replaced asset_id is free; past it → 403, nothing of the call stored', async () => {
  const o = await seedOrg(t.store, { tier: 'professional' });
  await t.app.services.accountPreferences.setCapOverrides(o.orgId, { assets: 3 });
  const env = (await createEnv(o.auth, 'Line A')).json().data.id as number;
  assert.equal((await correlate(o.auth, env, ['plc-1', 'plc-2'])).statusCode, 200);
  assert.equal((await correlate(o.auth, env, ['plc-2', 'plc-3'])).statusCode, 200, 'plc-2 replaced, plc-3 new: 3 of 3');
  assert.equal((await correlate(o.auth, env, ['plc-1'])).statusCode, 200, 'replacing costs nothing at the cap');
  const over = await correlate(o.auth, env, ['plc-3', 'plc-4']);
  assert.equal(over.statusCode, 403, over.body);
  const e = over.json().error;
  assert.deepEqual(
    [e.detail.error, e.detail.resource, e.detail.limit, e.detail.used, e.detail.requested],
    ['cap_exceeded', 'assets', 3, 3, 1],
  );
  assert.equal(await stored(o.orgId), 3, 'plc-3 is not re-stored either: the call stores nothing');
  const win = await t.app.inject({
    method: 'POST',
    url: '/api/v2/assets/correlate',
    headers: o.auth,
    payload: { environment_id: env, windows_hosts: [host('win-host-0001')] },
  });
  assert.equal(win.statusCode, 403, 'a v2 host counts against the same cap');
  assert.equal(win.json().error.detail.resource, 'assets');
  assert.equal(await stored(o.orgId), 3);
  const csv = FALLBACK_BODIES['POST /api/v2/assets/correlate-csv']({ environment_id: env });
  const csvOver = await t.app.inject({
    method: 'POST',
    url: '/api/v2/assets/correlate-csv',
    headers: { ...o.auth, ...csv.headers },
    payload: csv.payload,
  });
  assert.equal(csvOver.statusCode, 403, 'a CSV upload stores hosts too: same cap');
  assert.deepEqual([csvOver.json().error.detail.resource, csvOver.json().error.detail.used], ['assets', 3]);
  assert.equal(await stored(o.orgId), 3);
  await t.app.services.accountPreferences.setCapOverrides(o.orgId, { assets: 4 });
  const ok = await t.app.inject({
    method: 'POST',
    url: '/api/v2/assets/correlate',
    headers: o.auth,
    payload: { environment_id: env, windows_hosts: [host('win-host-0001')] },
  });
  assert.equal(ok.statusCode, 200, ok.body);
  assert.deepEqual(
    [(await usage(o.auth)).assets.used, (await usage(o.auth)).assets.limit, (await usage(o.auth)).assets.remaining],
    [4, 4, 0],
  );
  // The same asset_id in another environment is the same asset: no new cost.
  const env2 = (await createEnv(o.auth, 'Line B')).json().data.id as number;
  assert.equal((await correlate(o.auth, env2, ['plc-1'])).statusCode, 200);
  assert.equal((await usage(o.auth)).assets.used, 4);
});

test('assets: ten parallel stores of one new asset each at cap − 1, exactly one passes', async () => {
  const o = await seedOrg(t.store, { tier: 'professional' });
  await t.app.services.accountPreferences.setCapOverrides(o.orgId, { assets: 2 });
  const env = (await createEnv(o.auth, 'Race')).json().data.id as number;
  assert.equal((await correlate(o.auth, env, ['first'])).statusCode, 200);
  const rs = await Promise.all(Array.from({ length: 10 }, (_, i) => correlate(o.auth, env, [`racer-${i}`])));
  assert.deepEqual(rs.map((r) => r.statusCode).sort(), [200, ...Array(9).fill(403)]);
  assert.equal(await stored(o.orgId), 2);
});
