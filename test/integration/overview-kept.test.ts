// The overview of an environment is kept between calls while nothing it reads changed (docs/adr/0103): the
// environment's stored assets, its triage decisions and the corpus generation. Each change makes the next call decide
// the assets again; content asserted against the change. Real fixtures (test/fixtures/PROVENANCE.md): Siemens'
// ICSA-24-284-01 (CVE-2024-46886, the SIMATIC Drive Controller, fixed in V3.1.4) and the KEV catalog cut.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import { fixture } from '../helpers/feeds.ts';

const DRIVE = 'SIMATIC Drive Controller CPU 1504D TF (6ES7615-4DF10-0AB0)';
const quiet = { log: { info() {}, warn() {} } };
let t: TestApp;
let o: Awaited<ReturnType<typeof seedOrg>>;
let env: number;

const call = async (method: 'POST' | 'PUT', url: string, body: unknown) => {
  const r = await t.app.inject({
    method,
    url,
    headers: { ...o.auth, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  assert.ok(r.statusCode < 300, `${url}: ${r.statusCode} ${r.body.slice(0, 300)}`);
  return r.json();
};
const overview = async () => (await t.app.services.overview.overview({ orgId: o.orgId }))[0];
async function generationLive() {
  for (let i = 0; i < 200 && t.app.services.cves.corpusGeneration() === null; i++)
    await new Promise((r) => setTimeout(r, 25));
  assert.notEqual(t.app.services.cves.corpusGeneration(), null, 'the reader listens for corpus changes');
}

before(async () => {
  t = await testApp({ now: '2026-07-10T12:00:00Z' });
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES, ...CSAF_FIXTURES])], quiet);
  o = await seedOrg(t.store, { tier: 'professional' });
  env = (await call('POST', '/api/v1/environments', { name: 'Kept hall' })).data.id;
  await call('POST', '/api/v1/assets/correlate-cves', {
    environment_id: env,
    assets: [{ asset_id: 'drive-a', vendor: 'Siemens', product: DRIVE, version: 'V3.1.3' }],
  });
  await generationLive();
});
after(async () => {
  await t.close();
});

test('kept while nothing changed; an asset stored, a decision taken and a corpus change each make it decide again', async () => {
  const first = await overview();
  assert.equal(first.assets, 1);
  assert.ok(first.open_cves.some((c) => c.cve_id === 'CVE-2024-46886'));
  const again = await overview();
  assert.equal(again.open_cves, first.open_cves, 'the same answer, kept');
  assert.deepEqual(again.environment, first.environment);

  // Another asset below the fix: decided again, two assets on the CVE.
  await call('POST', '/api/v1/assets/correlate-cves', {
    environment_id: env,
    assets: [{ asset_id: 'drive-b', vendor: 'Siemens', product: DRIVE, version: 'V3.1.0' }],
  });
  const added = await overview();
  assert.notEqual(added.open_cves, first.open_cves);
  assert.equal(added.assets, 2);
  assert.deepEqual(
    added.open_cves.find((c) => c.cve_id === 'CVE-2024-46886')!.assets.map((a) => a.asset_id),
    ['drive-a', 'drive-b'],
  );
  assert.equal((await overview()).open_cves, added.open_cves, 'kept again');

  // A decision taking the CVE out (fixed): no longer open.
  await call('PUT', `/api/v1/environments/${env}/decisions/CVE-2024-46886`, { status: 'fixed' });
  const decided = await overview();
  assert.ok(!decided.open_cves.some((c) => c.cve_id === 'CVE-2024-46886'), 'closed by the decision');
  assert.equal(decided.closed_by_decision, 1);

  // A corpus change (the KEV catalog imported): the generation moves, the next call decides again.
  const before = t.app.services.cves.corpusGeneration();
  await importPaths(t.store.db, [feedDir([fixture('kev', 'kev-cut.json')])], quiet);
  for (let i = 0; i < 200 && t.app.services.cves.corpusGeneration() === before; i++)
    await new Promise((r) => setTimeout(r, 25));
  assert.notEqual(t.app.services.cves.corpusGeneration(), before, 'the import moved the generation');
  const moved = await overview();
  assert.notEqual(moved.open_cves, decided.open_cves);
  assert.deepEqual(
    moved.open_cves.map((c) => c.cve_id),
    decided.open_cves.map((c) => c.cve_id),
  );

  // An asset removed: decided again.
  const rm = await t.app.inject({
    method: 'DELETE',
    url: `/api/v1/assets/drive-b?environment_id=${env}`,
    headers: o.auth,
  });
  assert.equal(rm.statusCode, 200, rm.body);
  assert.equal((await overview()).assets, 1);
});
