// Member matches end to end (docs/correlation.md §2 "Members"; ADR 0050) on real records: the CVE record of
// CVE-2019-0714 (test/fixtures/cve5, Microsoft as CNA, one product per Windows release) and the CISA advisory
// ICSA-24-284-01 (Siemens SIMATIC Drive Controller CPUs, named with their order numbers). A nameplate that names a
// family no source names as a product meets the CVEs of its products, each needs_review; a name a source gives a
// product is that product ("Windows Server 2012" is not a family of "Windows Server 2012 R2"); a release named in
// the product ("Windows 10 Version 1607") belongs to an asset of that release only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { CATALOGS, feedDir } from '../helpers/ingest.ts';
import { fixture } from '../helpers/feeds.ts';

let t: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
before(async () => {
  t = await testApp();
  await importPaths(
    t.store.db,
    [feedDir([...CATALOGS, fixture('cve5', 'CVE-2019-0714.json'), fixture('csaf', 'icsa-24-284-01.json')])],
    { log: { info() {}, warn() {} } },
  );
  org = await seedOrg(t.store, { tier: 'enterprise' });
});
after(async () => {
  await t.close();
});

interface Cve {
  cve_id: string;
  status: string;
  reason: string;
  match: { confidence: string };
  range: { product: string };
}
interface Answer {
  asset_id: string;
  counts: Record<string, number>;
  matched_products: { product: string; confidence: string }[];
  cves: Cve[];
}

async function answers(assets: object[], path = '/api/v1/assets/correlate-cves'): Promise<Answer[]> {
  const r = await t.app.inject({
    method: 'POST',
    url: path,
    headers: org.auth,
    payload: { assets, options: { include_not_affected: true } },
  });
  assert.equal(r.statusCode, 200, r.body);
  return r.json().data.assets;
}

test('a name a source gives a product is that product, not a family of the products it prefixes', async () => {
  const [ws2012] = await answers([
    { asset_id: 'ws2012', vendor: 'Microsoft', product: 'Windows Server 2012', version: '6.2.9200.22000' },
  ]);
  const products = ws2012.matched_products.map((p) => `${p.product} [${p.confidence}]`);
  assert.ok(products.includes('Windows Server 2012 [exact]'), products.join(', '));
  assert.ok(
    !products.some((p) => p.includes('[member]')),
    `no member of "Windows Server 2012": ${products.join(', ')}`,
  );
  const c = ws2012.cves.find((x) => x.cve_id === 'CVE-2019-0714')!;
  assert.equal(c.match.confidence, 'exact');
  assert.equal(c.range.product, 'Windows Server 2012');
});

test("a family named by no source: its releases by the asset's version, its products needs_review", async () => {
  const [v1607, v22h2, unknown, drives] = await answers([
    { asset_id: 'w10-1607', vendor: 'Microsoft', product: 'Windows 10', version: '1607' },
    { asset_id: 'w10-22h2', vendor: 'Microsoft', product: 'Windows 10', version: '22H2' },
    { asset_id: 'w10', vendor: 'Microsoft', product: 'Windows 10' },
    { asset_id: 'drives', vendor: 'Siemens', product: 'SIMATIC Drive Controller', version: 'V3.1.3' },
  ]);
  // Only the release the version names.
  assert.deepEqual(
    v1607.matched_products.map((p) => `${p.product} [${p.confidence}]`),
    ['Windows 10 Version 1607 [member]'],
  );
  const c = v1607.cves.find((x) => x.cve_id === 'CVE-2019-0714')!;
  assert.equal(c.status, 'needs_review');
  assert.equal(c.range.product, 'Windows 10 Version 1607');
  // A release no source names for this CVE: nothing.
  assert.deepEqual([v22h2.cves, v22h2.matched_products], [[], []]);
  // No version: any release, each needs_review.
  const releases = unknown.matched_products.map((p) => p.product);
  assert.ok(releases.length >= 6 && releases.every((p) => p.startsWith('Windows 10 Version ')), releases.join(', '));
  assert.deepEqual(
    unknown.cves.map((x) => [x.cve_id, x.status, x.match.confidence]),
    [['CVE-2019-0714', 'needs_review', 'member']],
  );
  // Microsoft states the range as "10.0.0 < publication": text, so needs_review whatever the version.
  assert.equal(
    unknown.cves[0].reason,
    'version range not machine-readable: "10.0.0 < publication": the CVE record ends the range at the update published with the CVE, and names no version for it',
  );
  // The Drive Controller CPUs of ICSA-24-284-01 for "SIMATIC Drive Controller".
  assert.ok(
    drives.cves.length > 0 && drives.cves.every((x) => x.match.confidence === 'member' && x.status !== 'affected'),
    JSON.stringify(drives.cves.map((x) => [x.cve_id, x.status])),
  );
  assert.ok(drives.cves.some((x) => x.status === 'needs_review'));
  // /check counts the same.
  const check = await t.app.inject({
    method: 'POST',
    url: '/api/v1/assets/correlate-cves/check',
    headers: org.auth,
    payload: {
      assets: [{ asset_id: 'drives', vendor: 'Siemens', product: 'SIMATIC Drive Controller', version: 'V3.1.3' }],
    },
  });
  assert.equal(check.statusCode, 200, check.body);
  const status = (s: string) => drives.cves.filter((x) => x.status === s).length;
  assert.deepEqual(check.json().data.assets[0].counts, {
    affected: status('affected'),
    not_affected: status('not_affected'),
    needs_review: status('needs_review'),
  });
});

test('assets with the same nameplate share one match and get the same answer; another version is decided on its own', async () => {
  const plate = { vendor: 'Siemens', product: 'SIMATIC Drive Controller', version: 'V3.1.3' };
  const [a, b, c] = await answers([
    { asset_id: 'line-1', ...plate },
    { asset_id: 'line-2', ...plate },
    { asset_id: 'line-3', ...plate, version: 'V3.1.4' },
  ]);
  assert.deepEqual([a.asset_id, b.asset_id, c.asset_id], ['line-1', 'line-2', 'line-3']);
  assert.deepEqual(b.cves, a.cves);
  assert.deepEqual(b.matched_products, a.matched_products);
  assert.ok(a.cves.some((x) => x.status === 'needs_review'));
  // At the fix the same CVE is not affected for the third: its verdicts are its own.
  const at = (x: Answer) => x.cves.find((y) => y.cve_id === 'CVE-2024-46886')?.status;
  assert.deepEqual([at(a), at(c)], ['needs_review', 'not_affected']);
});
