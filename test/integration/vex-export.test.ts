// OpenVEX 0.2.0 export of an environment's decisions (docs/vex.md), validated against the schema OpenVEX publishes
// (test/fixtures/vex/openvex_json_schema.json, copied unchanged; test/fixtures/PROVENANCE.md).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { CATALOGS, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';

interface Doc {
  '@context': string;
  author: string;
  statements: {
    vulnerability: { name: string };
    status: string;
    action_statement?: string;
    justification?: string;
    impact_statement?: string;
    products: { '@id': string; identifiers?: unknown }[];
  }[];
}
let t: TestApp;
let o: Awaited<ReturnType<typeof seedOrg>>;
let env: number;
const schema = JSON.parse(readFileSync(new URL('../fixtures/vex/openvex_json_schema.json', import.meta.url), 'utf8'));
const ajv = new Ajv2020.default({ allErrors: true, strict: false });
addFormats.default(ajv);
// OpenVEX's "iri" format (RFC 3987): an absolute IRI (a scheme, then no whitespace).
ajv.addFormat('iri', /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/);
const validate = ajv.compile(schema);

async function call(method: 'GET' | 'PUT' | 'POST', url: string, body?: unknown) {
  const r = await t.app.inject({
    method,
    url,
    headers: body ? { ...o.auth, 'content-type': 'application/json' } : o.auth,
    payload: body ? JSON.stringify(body) : undefined,
  });
  return r;
}

before(async () => {
  t = await testApp();
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES])], { log: { info() {}, warn() {} } });
  o = await seedOrg(t.store, { name: 'VEX Plant' });
  env = (await call('POST', '/api/v1/environments', { name: 'Hall 3' })).json().data.id;
  const assets = [
    { asset_id: 'eng-ws', vendor: 'Microsoft', product: 'Windows 10', version: null },
    {
      asset_id: 'abb-1',
      vendor: 'ABB',
      product: 'Symphony Plus S+ Operations',
      version: '3.3',
      cpe: 'cpe:2.3:a:hitachienergy:symphony_plus_s\\+_operations:3.3:*:*:*:*:*:*:*',
    },
  ];
  const stored = await call('POST', '/api/v1/assets/correlate-cves', { environment_id: env, assets });
  assert.equal(stored.statusCode, 200, stored.body);
});
after(async () => {
  await t.close();
});

test('no decision yet: 404 no_decisions in the envelope', async () => {
  const r = await call('GET', `/api/v1/environments/${env}/vex`);
  assert.equal(r.statusCode, 404);
  assert.equal(r.json().error.detail.error, 'no_decisions');
});

test("OpenVEX: one statement per decision, the environment's assets as products (CPE where known), valid against the published schema", async () => {
  assert.equal(
    (
      await call('PUT', `/api/v1/environments/${env}/decisions/CVE-2024-21338`, {
        status: 'not_affected',
        justification: 'vulnerable_code_not_in_execute_path',
        impact_statement: 'Driver not loaded',
        asset_ids: ['eng-ws'],
      })
    ).statusCode,
    201,
  );
  assert.equal(
    (
      await call('PUT', `/api/v1/environments/${env}/decisions/CVE-2023-0228`, {
        status: 'affected',
        action_statement: 'Segmented; patch at the March outage',
        due_date: '2027-03-15',
      })
    ).statusCode,
    201,
  );
  assert.equal(
    (await call('PUT', `/api/v1/environments/${env}/decisions/CVE-2024-49138`, { status: 'under_investigation' }))
      .statusCode,
    201,
  );
  const r = await call('GET', `/api/v1/environments/${env}/vex?format=openvex`);
  assert.equal(r.statusCode, 200, r.body);
  assert.match(String(r.headers['content-type']), /^application\/json/);
  const doc = r.json() as Doc;
  assert.ok(validate(doc), JSON.stringify(validate.errors));
  assert.equal(doc['@context'], 'https://openvex.dev/ns/v0.2.0');
  assert.equal(doc.author, 'VEX Plant');
  assert.deepEqual(
    doc.statements.map(
      (s: { vulnerability: { name: string }; status: string }) => `${s.vulnerability.name} ${s.status}`,
    ),
    ['CVE-2023-0228 affected', 'CVE-2024-21338 not_affected', 'CVE-2024-49138 under_investigation'],
  );
  const [affected, notAffected, ui] = doc.statements;
  assert.equal(affected.action_statement, 'Segmented; patch at the March outage (due 2027-03-15)');
  assert.equal(affected.products.length, 2, 'an environment-wide decision names every asset');
  const abb = affected.products.find((p: { '@id': string }) => p['@id'].endsWith('/assets/abb-1'));
  assert.deepEqual(abb?.identifiers, {
    cpe23: 'cpe:2.3:a:hitachienergy:symphony_plus_s\\+_operations:3.3:*:*:*:*:*:*:*',
  });
  assert.equal(notAffected.justification, 'vulnerable_code_not_in_execute_path');
  assert.equal(notAffected.impact_statement, 'Driver not loaded');
  assert.deepEqual(
    notAffected.products.map((p: { '@id': string }) => p['@id']),
    [`http://vulnintel.test/environments/${env}/assets/eng-ws`],
  );
  assert.equal(ui.justification, undefined);

  // The schema holds the rules: a not_affected statement without justification or impact statement is refused.
  const broken = structuredClone(doc);
  delete broken.statements[1].justification;
  delete broken.statements[1].impact_statement;
  assert.equal(validate(broken), false);
});
