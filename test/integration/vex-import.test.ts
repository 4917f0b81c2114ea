// VEX import (docs/vex.md "Import"): our OpenVEX, CycloneDX and CSAF exports of one environment imported into
// another (a test plant into production), a newer decision never overwritten, and real VEX documents imported where
// their products and versions match: CycloneDX (CISA use case 6) and CSAF 2.0 (the VEX profile's own examples).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { CATALOGS, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import { fixture } from '../helpers/feeds.ts';

let t: TestApp;
let o: Awaited<ReturnType<typeof seedOrg>>;
const envs: Record<string, number> = {};
const ABB_CPE = 'cpe:2.3:a:hitachienergy:symphony_plus_s\\+_operations:3.3:*:*:*:*:*:*:*';
const fixtureJson = (path: string) => JSON.parse(readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8'));
const case6 = fixtureJson('vex/cyclonedx/cisa-case-6-vex.json');

async function call(method: 'GET' | 'PUT' | 'POST', url: string, body?: unknown) {
  return t.app.inject({
    method,
    url,
    headers: body ? { ...o.auth, 'content-type': 'application/json' } : o.auth,
    payload: body ? JSON.stringify(body) : undefined,
  });
}
const WS = { asset_id: 'eng-ws', vendor: 'Microsoft', product: 'Windows 10', version: null };
const ABB = { asset_id: 'abb-1', vendor: 'ABB', product: 'Symphony Plus S+ Operations', version: '3.3', cpe: ABB_CPE };
async function environment(name: string, assets: unknown[]) {
  envs[name] = (await call('POST', '/api/v1/environments', { name })).json().data.id;
  const r = await call('POST', '/api/v1/assets/correlate-cves', { environment_id: envs[name], assets });
  assert.equal(r.statusCode, 200, r.body);
}
const decision = async (env: string, cve: string) =>
  (await call('GET', `/api/v1/environments/${envs[env]}/decisions/${cve}`)).json().data;
const importInto = async (env: string, doc: unknown, dry = false) =>
  call('POST', `/api/v1/environments/${envs[env]}/vex/import${dry ? '?dry_run=true' : ''}`, doc);

before(async () => {
  t = await testApp();
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES, fixture('csaf', 'icsa-22-034-01.json')])], {
    log: { info() {}, warn() {} },
  });
  o = await seedOrg(t.store, { name: 'Integrator' });
  await environment('test', [WS, ABB]);
  await environment('prod', [WS, ABB, { asset_id: 'hmi-9', vendor: 'Siemens', product: 'SIMATIC HMI', version: '17' }]);
  await environment('client', [WS]);
  await environment('abc', [{ asset_id: 'abc-42', vendor: 'Example Company', product: 'ABC', version: '4.2' }, WS]);
  await environment('abc-mixed', [
    { asset_id: 'abc-42', vendor: 'Example Company', product: 'ABC', version: '4.2' },
    { asset_id: 'abc-24', vendor: 'Example Company', product: 'ABC', version: '2.4' },
  ]);
  const put = async (cve: string, body: unknown) =>
    assert.equal((await call('PUT', `/api/v1/environments/${envs.test}/decisions/${cve}`, body)).statusCode, 201);
  await put('CVE-2024-21338', {
    status: 'not_affected',
    justification: 'vulnerable_code_not_in_execute_path',
    impact_statement: 'Driver not loaded',
    asset_ids: ['eng-ws'],
  });
  await put('CVE-2023-0228', {
    status: 'affected',
    action_statement: 'Segmented; patch at the March outage',
    due_date: '2027-03-15',
  });
  await put('CVE-2024-49138', { status: 'under_investigation' });
});
after(async () => {
  await t.close();
});

test('OpenVEX of the test plant into production: each decision with its fields, on the assets the document names; history action import', async () => {
  const doc = (await call('GET', `/api/v1/environments/${envs.test}/vex?format=openvex`)).json();
  const dry = await importInto('prod', doc, true);
  assert.equal(dry.statusCode, 200, dry.body);
  assert.deepEqual(
    { ...dry.json().data, document_id: null },
    { format: 'openvex', document_id: null, statements: 3, created: 3, updated: 0, skipped: [], dry_run: true },
  );
  assert.equal(
    (await call('GET', `/api/v1/environments/${envs.prod}/decisions`)).json().data.length,
    0,
    'a dry run writes nothing',
  );

  const r = await importInto('prod', doc);
  assert.equal(r.statusCode, 200, r.body);
  assert.equal(r.json().data.created, 3);
  const na = await decision('prod', 'CVE-2024-21338');
  assert.deepEqual(
    [na.status, na.justification, na.impact_statement, na.asset_ids, na.source],
    ['not_affected', 'vulnerable_code_not_in_execute_path', 'Driver not loaded', ['eng-ws'], 'import'],
  );
  const aff = await decision('prod', 'CVE-2023-0228');
  assert.deepEqual(
    [aff.status, aff.action_statement, aff.due_date],
    ['affected', 'Segmented; patch at the March outage', '2027-03-15'],
    'the due date read back from "(due …)"',
  );
  assert.deepEqual(aff.asset_ids, ['abb-1', 'eng-ws'], "the test plant's assets, not production's HMI it never named");
  const h = (await call('GET', `/api/v1/environments/${envs.prod}/decisions/CVE-2023-0228/history`)).json().data;
  assert.deepEqual(
    h.map((x: { action: string }) => x.action),
    ['import'],
  );
  assert.match(h[0].comment, /^Imported from OpenVEX http:\/\/vulnintel\.test\/environments\/\d+\/vex\/openvex\/\d+$/);
});

test('a newer decision is never overwritten; a statement changed after it is imported', async () => {
  assert.equal(
    (
      await call('PUT', `/api/v1/environments/${envs.prod}/decisions/CVE-2024-49138`, {
        status: 'affected',
        action_statement: 'Patch in production first',
      })
    ).statusCode,
    200,
  );
  const again = await importInto(
    'prod',
    (await call('GET', `/api/v1/environments/${envs.test}/vex?format=openvex`)).json(),
  );
  assert.equal(again.json().data.created + again.json().data.updated, 0);
  assert.deepEqual(
    again.json().data.skipped.map((s: { cve_id: string; reason: string }) => `${s.cve_id}: ${s.reason}`),
    [
      'CVE-2023-0228: the decision here is newer than the statement: kept',
      'CVE-2024-21338: the decision here is newer than the statement: kept',
      'CVE-2024-49138: the decision here is newer than the statement: kept',
    ],
  );
  assert.equal((await decision('prod', 'CVE-2024-49138')).status, 'affected');

  assert.equal(
    (
      await call('PUT', `/api/v1/environments/${envs.test}/decisions/CVE-2024-49138`, {
        status: 'fixed',
        impact_statement: 'Updated at the outage',
      })
    ).statusCode,
    200,
  );
  const later = await importInto(
    'prod',
    (await call('GET', `/api/v1/environments/${envs.test}/vex?format=openvex`)).json(),
  );
  assert.equal(later.json().data.updated, 1, later.body);
  assert.equal((await decision('prod', 'CVE-2024-49138')).status, 'fixed');
});

test("CycloneDX of the test plant into a client: the environment reference is environment-wide, CISA's justification kept exactly", async () => {
  const doc = (await call('GET', `/api/v1/environments/${envs.test}/vex?format=cyclonedx`)).json();
  const r = await importInto('client', doc);
  assert.equal(r.statusCode, 200, r.body);
  assert.deepEqual([r.json().data.format, r.json().data.created], ['cyclonedx', 3]);
  assert.deepEqual((await decision('client', 'CVE-2023-0228')).asset_ids, []);
  const na = await decision('client', 'CVE-2024-21338');
  assert.deepEqual(
    [na.justification, na.asset_ids],
    ['vulnerable_code_not_in_execute_path', []],
    "eng-ws is every asset of the client's environment: environment-wide",
  );
  assert.equal((await decision('client', 'CVE-2024-49138')).status, 'fixed');
});

test("CISA's CycloneDX use case 6: placed by product and version; statuses that disagree for one environment's assets are left out", async () => {
  const r = await importInto('abc', case6);
  assert.equal(r.statusCode, 200, r.body);
  assert.equal(r.json().data.created, 1);
  assert.deepEqual(
    r.json().data.skipped.map((s: { index: number; reason: string }) => `${s.index}: ${s.reason}`),
    ['0: no product of the statement matches an asset of this environment'],
  );
  const d = await decision('abc', 'CVE-2021-44228');
  assert.deepEqual(
    [d.status, d.justification, d.asset_ids],
    ['not_affected', 'vulnerable_code_not_present', ['abc-42']],
    "ABC 4.2 is stated unaffected; code_not_present read as CISA's",
  );
  assert.match(d.impact_statement, /^These versions of Product ABC are not affected/);

  const mixed = await importInto('abc-mixed', case6);
  assert.equal(mixed.json().data.created, 0);
  assert.deepEqual(
    mixed.json().data.skipped.map((s: { reason: string }) => s.reason),
    [
      'the document states affected and not_affected for assets of this environment; a decision holds one status',
      'the document states affected and not_affected for assets of this environment; a decision holds one status',
    ],
  );
});

test('a document of neither format is 422 and stores nothing', async () => {
  const r = await importInto('client', { document: { category: 'csaf_vex' } });
  assert.equal(r.statusCode, 422);
  assert.equal(r.json().error.code, 'VALIDATION_ERROR');
  assert.deepEqual(
    r.json().error.detail.map((f: { field: string }) => f.field),
    ['body'],
  );
});

test('CSAF of the test plant into production: the asset IRIs of the product tree, flags, threats and remediations read back; dry run first', async () => {
  await environment('prod-csaf', [
    WS,
    ABB,
    { asset_id: 'hmi-9', vendor: 'Siemens', product: 'SIMATIC HMI', version: '17' },
  ]);
  const doc = (await call('GET', `/api/v1/environments/${envs.test}/vex?format=csaf`)).json();
  const dry = await importInto('prod-csaf', doc, true);
  assert.equal(dry.statusCode, 200, dry.body);
  assert.deepEqual(
    { ...dry.json().data, document_id: null },
    { format: 'csaf', document_id: null, statements: 3, created: 3, updated: 0, skipped: [], dry_run: true },
  );
  assert.equal(
    (await call('GET', `/api/v1/environments/${envs['prod-csaf']}/decisions`)).json().data.length,
    0,
    'a dry run writes nothing',
  );

  const r = await importInto('prod-csaf', doc);
  assert.equal(r.json().data.created, 3, r.body);
  const na = await decision('prod-csaf', 'CVE-2024-21338');
  assert.deepEqual(
    [na.status, na.justification, na.impact_statement, na.asset_ids, na.source],
    ['not_affected', 'vulnerable_code_not_in_execute_path', 'Driver not loaded', ['eng-ws'], 'import'],
  );
  const aff = await decision('prod-csaf', 'CVE-2023-0228');
  assert.deepEqual(
    [aff.status, aff.action_statement, aff.due_date, aff.asset_ids],
    ['affected', 'Segmented; patch at the March outage', '2027-03-15', ['abb-1', 'eng-ws']],
    'an environment-wide decision of the test plant names its two assets, not the HMI production has besides',
  );
  const h = (await call('GET', `/api/v1/environments/${envs['prod-csaf']}/decisions/CVE-2023-0228/history`)).json()
    .data;
  assert.deepEqual(
    h.map((x: { action: string; comment: string }) => [x.action, x.comment]),
    [['import', `Imported from CSAF ${doc.document.tracking.id}`]],
  );
  // Once more: every decision here is as new as the statements, and is kept.
  const again = await importInto('prod-csaf', doc);
  assert.deepEqual([again.json().data.created, again.json().data.updated], [0, 0]);
  assert.deepEqual(
    again.json().data.skipped.map((s: { reason: string }) => s.reason),
    Array(3).fill('the decision here is newer than the statement: kept'),
  );
});

test("the CSAF VEX profile's examples: a flag as the justification, an impact threat as the statement, versions and ranges of the product tree", async () => {
  await environment('secvisogram', [
    { asset_id: 'sv', vendor: 'Secvisogram', product: 'Secvisogram', version: '1.13.0' },
  ]);
  const sv = await importInto('secvisogram', fixtureJson('vex/csaf/sec-vex-2022-0001.json'));
  assert.equal(sv.statusCode, 200, sv.body);
  assert.deepEqual(
    [sv.json().data.format, sv.json().data.document_id, sv.json().data.created],
    ['csaf', 'SEC-VEX-2022-0001', 1],
  );
  assert.deepEqual(
    sv.json().data.skipped.map((s: { cve_id: string; reason: string }) => `${s.cve_id}: ${s.reason}`),
    ['CVE-2021-45046: not in the corpus', 'CVE-2021-45105: not in the corpus'],
  );
  const d = await decision('secvisogram', 'CVE-2021-44228');
  assert.deepEqual(
    [d.status, d.justification, d.impact_statement, d.asset_ids],
    ['not_affected', 'component_not_present', 'Secvisogram is written in JavaScript. No Java is included.', []],
  );

  // Use case 4: ABC 2.4, 2.6 and the range >=2.9|<=4.1 known_affected, the vendor's fix as the action statement.
  await environment('abc-csaf', [
    { asset_id: 'abc-42', vendor: 'Example Company', product: 'ABC', version: '4.2' },
    { asset_id: 'abc-30', vendor: 'Example Company', product: 'ABC', version: '3.0' },
    { asset_id: 'abc-24', vendor: 'Example Company', product: 'ABC', version: '2.4' },
  ]);
  const uc4 = await importInto('abc-csaf', fixtureJson('vex/csaf/2022-evd-uc-04-001.json'));
  assert.equal(uc4.json().data.created, 1, uc4.body);
  const a = await decision('abc-csaf', 'CVE-2021-44228');
  assert.deepEqual(
    [a.status, a.action_statement, a.asset_ids],
    ['affected', 'Update to version 4.2 or later.', ['abc-24', 'abc-30']],
    '4.2 is outside the range',
  );

  // Use case 6: ABC 4.2 known_not_affected with an impact threat but no flag: a decision needs a justification.
  await environment('abc-42-csaf', [{ asset_id: 'abc-42', vendor: 'Example Company', product: 'ABC', version: '4.2' }]);
  const uc6 = await importInto('abc-42-csaf', fixtureJson('vex/csaf/2022-evd-uc-06-001.json'));
  assert.equal(uc6.json().data.created, 0);
  assert.deepEqual(
    uc6.json().data.skipped.map((s: { reason: string }) => s.reason),
    [
      'no product of the statement matches an asset of this environment',
      'justification: not_affected needs a justification (CISA minimum VEX requirements)',
    ],
  );
});

test('a CSAF document outside the VEX profile, or of another CSAF version, is 422 with why, and stores nothing', async () => {
  const advisory = fixtureJson('csaf/icsa-22-034-01.json');
  const r = await importInto('client', advisory);
  assert.equal(r.statusCode, 422);
  assert.deepEqual(
    r.json().error.detail.map((f: { field: string; message: string }) => [f.field, f.message]),
    [['body.document.category', 'a CSAF document of the VEX profile (category csaf_vex), not csaf_security_advisory']],
  );
  const v21 = await importInto('client', {
    ...fixtureJson('vex/csaf/sec-vex-2022-0001.json'),
    document: { category: 'csaf_vex', csaf_version: '2.1' },
  });
  assert.deepEqual(
    v21.json().error.detail.map((f: { field: string }) => f.field),
    ['body.document.csaf_version'],
  );
  const noVulns = await importInto('client', { document: { category: 'csaf_vex', csaf_version: '2.0' } });
  assert.deepEqual(
    noVulns.json().error.detail.map((f: { field: string }) => f.field),
    ['body.vulnerabilities'],
  );
  assert.equal((await call('GET', `/api/v1/environments/${envs.client}/decisions/CVE-2021-44228`)).statusCode, 404);
});
