// CSAF 2.0 (VEX profile) and CycloneDX 1.6 exports of an environment's decisions (docs/vex.md), each validated
// against its format's published JSON schema (test/fixtures/vex/csaf and test/fixtures/vex/cyclonedx, copied
// unchanged; test/fixtures/PROVENANCE.md). CycloneDX is validated as @cyclonedx/cyclonedx-library's
// JsonStrictValidator does for 1.6: ajv (draft-07), ajv-formats, its SPDX and JSF schemas under their ids.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { CATALOGS, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import {
  CYCLONEDX_JUSTIFICATION,
  JUSTIFICATION_OF_CYCLONEDX,
  CYCLONEDX_STATE,
  STATUS_OF_CYCLONEDX,
} from '../../src/domain/vex-formats.ts';
import { JUSTIFICATIONS, DECISION_STATUSES } from '../../src/domain/triage.ts';

const fixture = (p: string) => JSON.parse(readFileSync(new URL(`../fixtures/vex/${p}`, import.meta.url), 'utf8'));

// CSAF 2.0: draft 2020-12; its CVSS $refs name FIRST's schemas by id, loaded from the fixtures (no network).
const csafAjv = new Ajv2020.default({ allErrors: true, strict: false });
addFormats.default(csafAjv);
// FIRST's CVSS 2.0 and 3.0 schemas are draft-04 (their id in "id"): read as they are, with "id" as "$id" and their
// draft-04 "$schema" left out, for this draft 2020-12 validator (they use no keyword whose meaning changed since).
function cvssSchema(v: string) {
  const { id, $schema: _draft, ...rest } = fixture(`csaf/cvss-v${v}.json`);
  return id ? { $id: id, ...rest } : rest;
}
for (const v of ['2.0', '3.0', '3.1'])
  csafAjv.addSchema(cvssSchema(v), `https://www.first.org/cvss/cvss-v${v}.json`, undefined, false);
const validateCsaf = csafAjv.compile(fixture('csaf/csaf_json_schema.json'));

const cdxAjv = new Ajv.default({ allErrors: true, strict: false, strictSchema: false, useDefaults: false });
addFormats.default(cdxAjv);
cdxAjv.addFormat('idn-email', /^[^\s@]+@[^\s@]+$/);
cdxAjv.addFormat('iri-reference', true);
cdxAjv.addSchema(
  fixture('cyclonedx/spdx.SNAPSHOT.schema.json'),
  'http://cyclonedx.org/schema/spdx.SNAPSHOT.schema.json',
);
cdxAjv.addSchema(
  fixture('cyclonedx/jsf-0.82.SNAPSHOT.schema.json'),
  'http://cyclonedx.org/schema/jsf-0.82.SNAPSHOT.schema.json',
);
const validateCdx = cdxAjv.compile(fixture('cyclonedx/bom-1.6.SNAPSHOT.schema.json'));

/** A validator's answer without its type guard (the documents stay as read). */
const valid = (v: (d: unknown) => boolean, d: unknown): boolean => v(d);

let t: TestApp;
let o: Awaited<ReturnType<typeof seedOrg>>;
let env: number;
let bare: number;
const ABB_CPE = 'cpe:2.3:a:hitachienergy:symphony_plus_s\\+_operations:3.3:*:*:*:*:*:*:*';

async function call(method: 'GET' | 'PUT' | 'POST', url: string, body?: unknown) {
  return t.app.inject({
    method,
    url,
    headers: body ? { ...o.auth, 'content-type': 'application/json' } : o.auth,
    payload: body ? JSON.stringify(body) : undefined,
  });
}

before(async () => {
  t = await testApp();
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES])], { log: { info() {}, warn() {} } });
  o = await seedOrg(t.store, { name: 'VEX Plant' });
  env = (await call('POST', '/api/v1/environments', { name: 'Hall 3' })).json().data.id;
  bare = (await call('POST', '/api/v1/environments', { name: 'Empty hall' })).json().data.id;
  const assets = [
    { asset_id: 'eng-ws', vendor: 'Microsoft', product: 'Windows 10', version: null },
    { asset_id: 'abb-1', vendor: 'ABB', product: 'Symphony Plus S+ Operations', version: '3.3', cpe: ABB_CPE },
  ];
  const stored = await call('POST', '/api/v1/assets/correlate-cves', { environment_id: env, assets });
  assert.equal(stored.statusCode, 200, stored.body);
  const put = async (e: number, cve: string, body: unknown) =>
    assert.equal((await call('PUT', `/api/v1/environments/${e}/decisions/${cve}`, body)).statusCode, 201);
  await put(env, 'CVE-2024-21338', {
    status: 'not_affected',
    justification: 'vulnerable_code_not_in_execute_path',
    impact_statement: 'Driver not loaded',
    asset_ids: ['eng-ws'],
  });
  await put(env, 'CVE-2023-0228', {
    status: 'affected',
    action_statement: 'Segmented; patch at the March outage',
    due_date: '2027-03-15',
  });
  await put(env, 'CVE-2024-49138', { status: 'under_investigation' });
  await put(env, 'CVE-2023-28489', {
    status: 'fixed',
    impact_statement: 'Update installed at the November outage',
    asset_ids: ['eng-ws'],
  });
  await put(bare, 'CVE-2024-49138', { status: 'under_investigation' });
});
after(async () => {
  await t.close();
});

test("the copied schemas accept the formats' own examples (the validators are set up right)", () => {
  assert.ok(validateCsaf(fixture('csaf/2022-evd-uc-01-na-001.json')), JSON.stringify(validateCsaf.errors));
  assert.ok(validateCsaf(fixture('csaf/2022-evd-uc-01-a-001.json')), JSON.stringify(validateCsaf.errors));
  const cisa = fixture('cyclonedx/cisa-case-2-vex.json');
  assert.ok(validateCdx({ ...cisa, specVersion: '1.6' }), JSON.stringify(validateCdx.errors));
});

test('CSAF 2.0: a csaf_vex document, the assets as products, one vulnerability per decision in its status list; valid against the schema', async () => {
  const r = await call('GET', `/api/v1/environments/${env}/vex?format=csaf`);
  assert.equal(r.statusCode, 200, r.body);
  assert.match(String(r.headers['content-disposition']), /environment-\d+\.csaf\.json/);
  const doc = r.json();
  assert.ok(valid(validateCsaf, doc), JSON.stringify(validateCsaf.errors));
  assert.equal(doc.document.category, 'csaf_vex');
  assert.equal(doc.document.csaf_version, '2.0');
  assert.equal(doc.document.publisher.name, 'VEX Plant');
  assert.equal(doc.document.title, 'VEX of Hall 3');
  const products = doc.product_tree.full_product_names as any[];
  assert.equal(products.length, 2);
  const abb = products.find((p) => p.name === 'ABB Symphony Plus S+ Operations 3.3 (abb-1)');
  const ws = products.find((p) => p.name === 'Microsoft Windows 10 (eng-ws)');
  assert.equal(abb.product_identification_helper.cpe, ABB_CPE);
  assert.equal(ws.product_identification_helper.cpe, undefined);
  assert.equal(
    ws.product_identification_helper.x_generic_uris[0].uri,
    `http://vulnintel.test/environments/${env}/assets/eng-ws`,
  );
  const byCve = new Map((doc.vulnerabilities as any[]).map((v) => [v.cve, v]));
  assert.deepEqual([...byCve.keys()], ['CVE-2023-0228', 'CVE-2023-28489', 'CVE-2024-21338', 'CVE-2024-49138']);
  const affected = byCve.get('CVE-2023-0228');
  assert.deepEqual(affected.product_status, { known_affected: [abb.product_id, ws.product_id].sort() });
  assert.deepEqual(affected.remediations, [
    {
      category: 'mitigation',
      details: 'Segmented; patch at the March outage (due 2027-03-15)',
      date: affected.remediations[0].date,
      product_ids: affected.product_status.known_affected,
    },
  ]);
  const na = byCve.get('CVE-2024-21338');
  assert.deepEqual(na.product_status, { known_not_affected: [ws.product_id] });
  assert.deepEqual(
    na.flags.map((f: any) => [f.label, f.product_ids]),
    [['vulnerable_code_not_in_execute_path', [ws.product_id]]],
  );
  assert.deepEqual(
    na.threats.map((x: any) => [x.category, x.details]),
    [['impact', 'Driver not loaded']],
  );
  assert.deepEqual(byCve.get('CVE-2023-28489').product_status, { fixed: [ws.product_id] });
  assert.deepEqual(Object.keys(byCve.get('CVE-2024-49138').product_status), ['under_investigation']);
  for (const v of byCve.values())
    assert.ok(v.notes.length >= 1, 'the VEX profile asks for a note on each vulnerability');

  // The schema holds the rules: a status list naming no product is refused.
  const broken = structuredClone(doc);
  broken.vulnerabilities[0].product_status = { known_affected: [] };
  assert.equal(valid(validateCsaf, broken), false);
});

test("CycloneDX 1.6: the environment as metadata component, the assets as components; analysis in CycloneDX words with CISA's justification kept; valid against the schema", async () => {
  const r = await call('GET', `/api/v1/environments/${env}/vex?format=cyclonedx`);
  assert.equal(r.statusCode, 200, r.body);
  assert.match(String(r.headers['content-type']), /^application\/vnd\.cyclonedx\+json/);
  const doc = r.json();
  assert.ok(valid(validateCdx, doc), JSON.stringify(validateCdx.errors));
  assert.equal(doc.specVersion, '1.6');
  assert.match(doc.serialNumber, /^urn:uuid:[0-9a-f-]{36}$/);
  const envRef = `http://vulnintel.test/environments/${env}`;
  assert.equal(doc.metadata.component['bom-ref'], envRef);
  assert.equal(doc.metadata.component.name, 'Hall 3');
  const abb = (doc.components as any[]).find((c) => c['bom-ref'] === `${envRef}/assets/abb-1`);
  assert.equal(abb.cpe, ABB_CPE);
  assert.equal(abb.manufacturer.name, 'ABB');
  assert.equal(abb.version, '3.3');
  const byId = new Map((doc.vulnerabilities as any[]).map((v) => [v.id, v]));
  const affected = byId.get('CVE-2023-0228');
  assert.equal(affected.analysis.state, 'exploitable');
  assert.equal(affected.recommendation, 'Segmented; patch at the March outage (due 2027-03-15)');
  assert.deepEqual(affected.affects, [{ ref: envRef }], 'an environment-wide decision affects the environment');
  const na = byId.get('CVE-2024-21338');
  assert.deepEqual(na.analysis.state, 'not_affected');
  assert.equal(na.analysis.justification, 'code_not_reachable');
  assert.equal(na.analysis.detail, 'Driver not loaded');
  assert.deepEqual(na.properties, [
    { name: 'vulnintel:cisa_justification', value: 'vulnerable_code_not_in_execute_path' },
  ]);
  assert.deepEqual(na.affects, [{ ref: `${envRef}/assets/eng-ws` }]);
  assert.equal(byId.get('CVE-2023-28489').analysis.state, 'resolved');
  assert.equal(byId.get('CVE-2024-49138').analysis.state, 'in_triage');

  const broken = structuredClone(doc);
  broken.vulnerabilities[0].analysis.justification = 'vulnerable_code_not_in_execute_path';
  assert.equal(valid(validateCdx, broken), false, "CISA's words are not CycloneDX's: the schema refuses them");
});

test('the mapping between CISA and CycloneDX words goes both ways without loss for what we write', () => {
  for (const j of JUSTIFICATIONS) assert.equal(JUSTIFICATION_OF_CYCLONEDX[CYCLONEDX_JUSTIFICATION[j]], j);
  for (const s of DECISION_STATUSES) assert.equal(STATUS_OF_CYCLONEDX[CYCLONEDX_STATE[s]], s);
  assert.equal(JUSTIFICATION_OF_CYCLONEDX.protected_at_perimeter, 'inline_mitigations_already_exist');
  assert.equal(STATUS_OF_CYCLONEDX.false_positive, 'not_affected');
});

test('CSAF of an environment without assets: 404 no_products; CycloneDX of it still answers, valid', async () => {
  const r = await call('GET', `/api/v1/environments/${bare}/vex?format=csaf`);
  assert.equal(r.statusCode, 404);
  assert.equal(r.json().error.detail.error, 'no_products');
  const c = await call('GET', `/api/v1/environments/${bare}/vex?format=cyclonedx`);
  assert.equal(c.statusCode, 200);
  assert.ok(valid(validateCdx, c.json()), JSON.stringify(validateCdx.errors));
  assert.equal(c.json().components.length, 0);
});

test('an unknown format is a validation error in the envelope', async () => {
  const r = await call('GET', `/api/v1/environments/${env}/vex?format=spdx`);
  assert.equal(r.statusCode, 422);
  assert.equal(r.json().error.code, 'VALIDATION_ERROR');
  assert.match(JSON.stringify(r.json().error), /format/);
});
