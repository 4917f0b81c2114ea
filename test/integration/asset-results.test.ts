// GET /api/v1/assets/results (docs/correlation.md "Stored assets"): the assets stored in an environment by
// correlate-cves, a page at a time by asset_id, each decided again against the corpus of now. Real fixtures
// (test/fixtures/PROVENANCE.md): the Siemens SIMATIC Drive Controller's only advisory (ICSA-24-284-01,
// CVE-2024-46886, fixed in V3.1.4) is imported after the assets were stored, and the stored assets' answer has it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { testApp, seedOrg, seedKey, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import { StoredResultsResponse } from '../../src/http/routes/v1/asset-schemas.ts';

const DRIVE = 'SIMATIC Drive Controller CPU 1504D TF (6ES7615-4DF10-0AB0)';
const LATER = CSAF_FIXTURES.find((f) => f.endsWith('icsa-24-284-01.json'))!;
const quiet = { log: { info() {}, warn() {} } };
let t: TestApp;
let o: Awaited<ReturnType<typeof seedOrg>>;
let env: number;
before(async () => {
  t = await testApp();
  await importPaths(
    t.store.db,
    [feedDir([...CATALOGS, ...NVD_FIXTURES, ...CSAF_FIXTURES.filter((f) => f !== LATER)])],
    quiet,
  );
  o = await seedOrg(t.store, { tier: 'professional' });
  env = (
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/environments',
      headers: o.auth,
      payload: { name: 'Drives hall' },
    })
  ).json().data.id;
});
after(async () => {
  await t.close();
});

const results = (qs: string, headers: Record<string, string> = o.auth) =>
  t.app.inject({ method: 'GET', url: `/api/v1/assets/results?${qs}`, headers });
const validate = new Ajv.default({ strict: false, allErrors: true });
addFormats.default(validate);
const conforms = validate.compile(StoredResultsResponse);

test('stored assets are answered as correlate-cves answers them, and again after the corpus changed underneath', async () => {
  const assets = [
    { asset_id: 'drive-b', vendor: 'Siemens AG', product: DRIVE, version: 'V3.1.4' },
    { asset_id: 'drive-a', vendor: 'Siemens', product: DRIVE, version: 'V3.1.3' },
    { asset_id: 'abb-1', vendor: 'ABB', product: 'Symphony Plus S+ Operations', version: '3.3' },
  ];
  const posted = await t.app.inject({
    method: 'POST',
    url: '/api/v1/assets/correlate-cves',
    headers: o.auth,
    payload: { environment_id: env, assets },
  });
  assert.equal(posted.statusCode, 200, posted.body);
  const before = await results(`environment_id=${env}`);
  assert.equal(before.statusCode, 200, before.body);
  const b = before.json();
  assert.ok(conforms(b), JSON.stringify(conforms.errors));
  // By asset_id; the same answer per asset as the call that stored them (sorted the same way).
  assert.deepEqual(
    b.data.assets.map((a: { asset_id: string }) => a.asset_id),
    ['abb-1', 'drive-a', 'drive-b'],
  );
  const byId = (list: { asset_id: string }[]) => Object.fromEntries(list.map((a) => [a.asset_id, a]));
  assert.deepEqual(byId(b.data.assets), byId(posted.json().data.assets));
  assert.deepEqual(b.data.counts, posted.json().data.counts);
  assert.equal(b.data.environment_id, env);
  assert.deepEqual(b.data.rejected, []);
  assert.deepEqual([b.pagination.total, b.pagination.page, b.pagination.per_page], [3, 1, 50]);
  const drive = (
    body: { data: { assets: { asset_id: string; cves: { cve_id: string; status: string }[] }[] } },
    id: string,
  ) => body.data.assets.find((a) => a.asset_id === id)!.cves.map((c) => `${c.cve_id} ${c.status}`);
  assert.deepEqual(drive(b, 'drive-a'), [], 'no advisory names the drive yet');

  // The advisory arrives (a sync, an import): the stored assets are decided against it, without resending them.
  await importPaths(t.store.db, [feedDir([LATER])], quiet);
  const now = (await results(`environment_id=${env}`)).json();
  assert.deepEqual(drive(now, 'drive-a'), ['CVE-2024-46886 affected'], 'V3.1.3 is below the fix');
  assert.deepEqual(drive(now, 'drive-b'), [], 'V3.1.4 is the fixed version');
  assert.equal(now.data.counts.affected, b.data.counts.affected + 1);
  // The stored copy is as of the call that stored it.
  const [stored] = (await t.app.services.assets.stored(o.orgId, env)).filter((s) => s.asset_id === 'drive-a');
  assert.deepEqual((stored.result as unknown as { cves: unknown[] }).cves, []);
  // Options as query parameters: the not-affected verdicts too.
  const all = (await results(`environment_id=${env}&asset_id=drive-b&include_not_affected=true`)).json();
  assert.deepEqual(drive(all, 'drive-b'), ['CVE-2024-46886 not_affected']);
  assert.equal(all.pagination.total, 1);
});

test('paged by asset_id; one asset; an empty page past the end', async () => {
  const e2 = (
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/environments',
      headers: o.auth,
      payload: { name: 'Paging hall' },
    })
  ).json().data.id;
  const assets = Array.from({ length: 5 }, (_, i) => ({
    asset_id: `plc-${i}`,
    vendor: 'Siemens',
    product: DRIVE,
    version: `V3.1.${i}`,
  }));
  assert.equal(
    (
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/assets/correlate-cves',
        headers: o.auth,
        payload: { environment_id: e2, assets },
      })
    ).statusCode,
    200,
  );
  const ids = async (qs: string) => (await results(`environment_id=${e2}&${qs}`)).json();
  const p2 = await ids('page=2&per_page=2');
  assert.deepEqual(
    p2.data.assets.map((a: { asset_id: string }) => a.asset_id),
    ['plc-2', 'plc-3'],
  );
  assert.deepEqual(
    [p2.pagination.total, p2.pagination.page, p2.pagination.per_page, p2.pagination.has_next],
    [5, 2, 2, true],
  );
  const past = await ids('page=4&per_page=2');
  assert.deepEqual(past.data?.assets, [], JSON.stringify(past));
  assert.deepEqual(
    (await ids('asset_id=plc-4')).data.assets.map((a: { version: string }) => a.version),
    ['V3.1.4'],
  );
  assert.deepEqual((await ids('asset_id=nope')).data.assets, []);
  // A viewer reads them (read scope).
  const viewer = await seedKey(t.store, o.orgId, null, { role: 'viewer', scopes: ['read'] });
  assert.equal((await results(`environment_id=${e2}`, viewer.auth)).json().pagination.total, 5);
});

test('refusals: environment_id required and an environment of the organization; options and numbers as correlate reads them', async () => {
  const field = async (qs: string) => {
    const r = await results(qs);
    assert.equal(r.statusCode, 422, `${qs}: ${r.body}`);
    return r.json().error.detail.map((d: { field: string; type: string }) => `${d.field} ${d.type}`);
  };
  assert.deepEqual(await field(''), ['query.environment_id value_error.missing']);
  assert.deepEqual(await field('environment_id=x'), ['query.environment_id type_error.integer']);
  assert.deepEqual(await field(`environment_id=${env}&page=0x2&per_page=201`), [
    'query.page type_error.integer',
    'query.per_page type_error.integer',
  ]);
  assert.deepEqual(await field(`environment_id=${env}&sort=worst&include_not_affected=yes&cve_page_size=1001`), [
    'query.sort value_error.enum',
    'query.include_not_affected type_error.bool',
    'query.cve_page_size type_error.integer',
  ]);
  const other = await seedOrg(t.store, { tier: 'professional' });
  const r = await results(`environment_id=${env}`, other.auth);
  assert.equal(r.statusCode, 404);
  assert.equal(r.json().error.detail.error, 'environment_not_found');
  assert.equal((await results('environment_id=999999999999999')).json().error.detail.error, 'environment_not_found');
});
