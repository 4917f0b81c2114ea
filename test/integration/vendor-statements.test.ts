// Vendor statements (docs/triage.md): a CISA ICS advisory's fixed and known_not_affected product statuses, shown
// beside the team's decision, marked as the vendor's, and adopted as the team's decision in one call. Real advisories:
// ICSA-24-289-02 (Schneider Electric Data Center Expert 8.2 fixed) and ICSA-23-243-04 (two Digi products not affected).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, seedOrg, seedKey, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { CATALOGS, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import { fixture } from '../helpers/feeds.ts';
import { assertAnswer } from '../helpers/answer-schemas.ts';

let t: TestApp;
let o: Awaited<ReturnType<typeof seedOrg>>;
let viewer: Awaited<ReturnType<typeof seedKey>>;
let env: number;

async function call(method: 'GET' | 'PUT' | 'POST', url: string, body?: unknown, auth = o.auth) {
  return t.app.inject({
    method,
    url,
    headers: body ? { ...auth, 'content-type': 'application/json' } : auth,
    payload: body ? JSON.stringify(body) : undefined,
  });
}

before(async () => {
  t = await testApp();
  await importPaths(
    t.store.db,
    [
      feedDir([
        ...CATALOGS,
        ...NVD_FIXTURES,
        fixture('csaf', 'icsa-24-289-02.json'),
        fixture('csaf', 'icsa-23-243-04.json'),
      ]),
    ],
    { log: { info() {}, warn() {} } },
  );
  o = await seedOrg(t.store, { name: 'Data Hall' });
  viewer = await seedKey(t.store, o.orgId, null, { role: 'viewer', scopes: ['read'] });
  env = (await call('POST', '/api/v1/environments', { name: 'DC 1' })).json().data.id;
  const assets = [
    { asset_id: 'dce', vendor: 'Schneider Electric', product: 'Data Center Expert', version: '8.2' },
    { asset_id: 'dce-old', vendor: 'Schneider Electric', product: 'Data Center Expert', version: '8.1.1.3' },
    { asset_id: 'digi', vendor: 'Digi International', product: 'Digi 6350-SR', version: '22.5' },
  ];
  const stored = await call('POST', '/api/v1/assets/correlate-cves', { environment_id: env, assets });
  assert.equal(stored.statusCode, 200, stored.body);
});
after(async () => {
  await t.close();
});

test("a fixed statement: marked as the vendor's, with its advisory and the assets it names (the stated version only)", async () => {
  const r = await call(
    'GET',
    `/api/v1/environments/${env}/decisions/CVE-2024-8531/vendor-statements`,
    undefined,
    viewer.auth,
  );
  assert.equal(r.statusCode, 200, r.body);
  const items = r.json().data;
  assert.equal(items.length, 1);
  assert.deepEqual(
    { ...items[0], advisory_title: undefined, advisory_url: undefined },
    {
      id: 'ICSA-24-289-02#1',
      by: 'vendor',
      advisory_id: 'ICSA-24-289-02',
      advisory_title: undefined,
      advisory_url: undefined,
      status: 'fixed',
      vendor: 'Schneider Electric',
      product: 'Data Center Expert',
      version: '8.2',
      product_name: 'Schneider Electric Data Center Expert 8.2',
      justification: null,
      impact_statement: null,
      action_statement: null,
      asset_ids: ['dce'],
    },
  );
  assert.match(items[0].advisory_url, /cisa\.gov/);
});

test('not_affected statements of all versions name every matching asset; none for a product the environment lacks', async () => {
  const r = await call('GET', `/api/v1/environments/${env}/decisions/CVE-2023-4299/vendor-statements`);
  const items = r.json().data;
  assert.deepEqual(
    items.map((x: { id: string; status: string; product: string; version: string; asset_ids: string[] }) => [
      x.id,
      x.status,
      x.product,
      x.version,
      x.asset_ids,
    ]),
    [
      ['ICSA-23-243-04#1', 'not_affected', 'Digi 6350-SR', 'vers:all/*', ['digi']],
      ['ICSA-23-243-04#2', 'not_affected', 'Digi ConnectCore 8X products', 'vers:all/*', []],
    ],
  );
});

test('adopting a not_affected statement the vendor justifies not: the team must give a justification; nothing is stored without it', async () => {
  const r = await call('POST', `/api/v1/environments/${env}/decisions/CVE-2023-4299/adopt`, {
    statement_id: 'ICSA-23-243-04#1',
  });
  assert.equal(r.statusCode, 422, r.body);
  assert.equal(r.json().error.code, 'VALIDATION_ERROR');
  assert.deepEqual(
    r.json().error.detail.map((f: { field: string; type: string }) => [f.field, f.type]),
    [['body.justification', 'value_error.missing']],
  );
  assert.equal((await call('GET', `/api/v1/environments/${env}/decisions/CVE-2023-4299`)).statusCode, 404);
  assert.equal(
    (await call('GET', `/api/v1/environments/${env}/decisions/CVE-2023-4299/history`)).json().data.length,
    0,
  );
});

test("adopting in one call: the vendor's status, narrowed to the assets it names, the advisory named; shown beside the decision afterwards", async () => {
  const r = await call('POST', `/api/v1/environments/${env}/decisions/CVE-2023-4299/adopt`, {
    statement_id: 'ICSA-23-243-04#1',
    justification: 'component_not_present',
    comment: 'RealPort not installed',
  });
  assert.equal(r.statusCode, 201, r.body);
  const d = r.json().data;
  assert.equal(d.status, 'not_affected');
  assert.equal(d.open, false);
  assert.equal(d.justification, 'component_not_present');
  assert.deepEqual(d.asset_ids, ['digi']);
  assert.equal(d.impact_statement, 'ICSA-23-243-04: Digi International, Inc. states Digi 6350-SR: * not affected.');
  assert.deepEqual(
    d.vendor_statements.map((x: { id: string; by: string }) => `${x.id} ${x.by}`),
    ['ICSA-23-243-04#1 vendor', 'ICSA-23-243-04#2 vendor'],
  );
  const h = (await call('GET', `/api/v1/environments/${env}/decisions/CVE-2023-4299/history`)).json().data;
  assert.equal(h.length, 1);
  assert.equal(
    h[0].comment,
    "Adopted the vendor's statement ICSA-23-243-04#1 (Digi 6350-SR: *). RealPort not installed",
  );

  const fixed = await call('POST', `/api/v1/environments/${env}/decisions/CVE-2024-8531/adopt`, {
    statement_id: 'ICSA-24-289-02#1',
  });
  assert.equal(fixed.statusCode, 201, fixed.body);
  assert.equal(fixed.json().data.status, 'fixed');
  assert.deepEqual(fixed.json().data.asset_ids, ['dce'], 'the asset still on 8.1.1.3 is not declared fixed');

  const list = (await call('GET', `/api/v1/environments/${env}/decisions`)).json().data;
  const byCve = new Map(
    list.map((x: { cve_id: string; vendor_statements: { id: string }[] }) => [
      x.cve_id,
      x.vendor_statements.map((s) => s.id),
    ]),
  );
  assert.deepEqual(byCve.get('CVE-2024-8531'), ['ICSA-24-289-02#1']);
  assert.deepEqual(byCve.get('CVE-2023-4299'), ['ICSA-23-243-04#1', 'ICSA-23-243-04#2']);
});

test('adopting: an unknown statement is 404 statement_not_found; a viewer may read but not adopt', async () => {
  const r = await call('POST', `/api/v1/environments/${env}/decisions/CVE-2024-8531/adopt`, {
    statement_id: 'ICSA-23-243-04#1',
  });
  assert.equal(r.statusCode, 404);
  assert.equal(r.json().error.detail.error, 'statement_not_found');
  const v = await call(
    'POST',
    `/api/v1/environments/${env}/decisions/CVE-2024-8531/adopt`,
    { statement_id: 'ICSA-24-289-02#1' },
    viewer.auth,
  );
  assert.equal(v.statusCode, 403, v.body);
});

test("correlation answers in an environment show the vendor's statements beside the team's decision, on the assets they name only", async () => {
  type Entry = { cve_id: string; status: string; decision: { status: string } | null; vendor_statements?: object[] };
  const entries = (assets: { asset_id: string; cves: Entry[] }[]) =>
    Object.fromEntries(assets.map((a) => [a.asset_id, Object.fromEntries(a.cves.map((c) => [c.cve_id, c]))]));
  const fixed = {
    id: 'ICSA-24-289-02#1',
    by: 'vendor',
    status: 'fixed',
    advisory_id: 'ICSA-24-289-02',
    product_name: 'Schneider Electric Data Center Expert 8.2',
    justification: null,
  };

  const r = await call(
    'GET',
    `/api/v1/assets/results?environment_id=${env}&include_not_affected=true`,
    undefined,
    viewer.auth,
  );
  assert.equal(r.statusCode, 200, r.body);
  assertAnswer('stored', r.json());
  const stored = entries(r.json().data.assets);
  // 8.2 is the version the vendor states fixed: the statement is shown beside the team's decision (adopted above),
  // and beside no decision on the other CVE of the advisory, which the team has not decided.
  assert.deepEqual(stored.dce['CVE-2024-8531'].vendor_statements, [fixed]);
  assert.equal(stored.dce['CVE-2024-8531'].decision?.status, 'fixed');
  assert.deepEqual(stored.dce['CVE-2024-8530'].vendor_statements, [fixed]);
  assert.equal(stored.dce['CVE-2024-8530'].decision, null);
  // The Digi router: the statement about its product only, not the one about ConnectCore 8X.
  assert.deepEqual(stored.digi['CVE-2023-4299'].vendor_statements, [
    {
      id: 'ICSA-23-243-04#1',
      by: 'vendor',
      status: 'not_affected',
      advisory_id: 'ICSA-23-243-04',
      product_name: 'Digi 6350-SR: *',
      justification: null,
    },
  ]);
  // 8.1.1.3 is not the version stated: no statement on it.
  assert.equal(stored['dce-old']['CVE-2024-8531'].vendor_statements, undefined);

  const answer = await call('POST', '/api/v1/assets/correlate-cves', {
    environment_id: env,
    options: { include_not_affected: true },
    assets: [{ asset_id: 'dce', vendor: 'Schneider Electric', product: 'Data Center Expert', version: '8.2' }],
  });
  assertAnswer('correlate', answer.json());
  assert.deepEqual(entries(answer.json().data.assets).dce['CVE-2024-8531'].vendor_statements, [fixed]);
  // Without an environment there is no decision, and nothing beside it.
  const plain = await call('POST', '/api/v1/assets/correlate-cves', {
    options: { include_not_affected: true },
    assets: [{ asset_id: 'dce', vendor: 'Schneider Electric', product: 'Data Center Expert', version: '8.2' }],
  });
  assert.ok(plain.json().data.assets[0].cves.every((c: object) => !('vendor_statements' in c) && !('decision' in c)));
});
