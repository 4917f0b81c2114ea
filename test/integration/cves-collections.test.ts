// KEV list, vendor catalog, vendor and protocol collections, statistics (spec §4.1) and their OpenAPI entries.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { buildCve, seedCves } from '../helpers/cve-docs.ts';
import { ICS_PROTOCOLS } from '../../src/domain/cve-document.ts';

let t: TestApp;
const siemens = { slug: 'siemens', name: 'Siemens' };
const se = { slug: 'schneider-electric', name: 'Schneider Electric' };
const rockwell = { slug: 'rockwell-automation', name: 'Rockwell Automation' };

async function get(url: string, headers: Record<string, string> = {}) {
  const r = await t.app.inject({ method: 'GET', url, headers });
  return { status: r.statusCode, body: r.json() };
}
const ids = (b: { data: { cve_id: string }[] }) => b.data.map((c) => c.cve_id);

before(async () => {
  t = await testApp();
  await seedCves(t.store, [
    buildCve({
      id: 'CVE-2024-0001',
      kev: true,
      cvss: 9.8,
      vendors: [siemens],
      protocols: ['modbus', 'profinet'],
      ics: 0.9,
      published: '2024-01-05T00:00:00Z',
      epss: 0.95,
      percentile: 0.99,
      patch: 'patched',
    }),
    buildCve({
      id: 'CVE-2024-0002',
      kev: true,
      cvss: 7.5,
      vendors: [se],
      protocols: ['modbus'],
      published: '2024-02-05T00:00:00Z',
      epss: 0.15,
      poc: true,
    }),
    buildCve({
      id: 'CVE-2023-0003',
      cvss: 5.0,
      vendors: [se, siemens],
      protocols: ['bacnet'],
      published: '2023-07-01T00:00:00Z',
      epss: 0.05,
      exploit: true,
      patch: 'varies_by_product',
    }),
    buildCve({
      id: 'CVE-2022-0004',
      cvss: 2.0,
      vendors: [rockwell],
      protocols: ['ethernet-ip'],
      ics: 0.8,
      published: '2022-03-01T00:00:00Z',
      epss: null,
    }),
    buildCve({
      id: 'CVE-2021-0005',
      cvss: null,
      kev: true,
      vendors: [rockwell],
      published: '2021-12-31T23:00:00Z',
      epss: 0.55,
    }),
  ]);
  await t.store.db
    .updateTable('vendors')
    .set({ aliases: ['Schneider'] })
    .where('slug', '=', 'schneider-electric')
    .execute();
  await t.store.db.insertInto('vendors').values({ slug: 'no-cves-inc', name: 'No CVEs Inc', aliases: [] }).execute();
});
after(async () => {
  await t.close();
});

describe('GET /api/v1/cves/kev', () => {
  test('reduced cards newest first, filters_applied and meta', async () => {
    const { status, body } = await get('/api/v1/cves/kev');
    assert.equal(status, 200);
    assert.deepEqual(ids(body), ['CVE-2024-0002', 'CVE-2024-0001', 'CVE-2021-0005']);
    assert.deepEqual(body.data[1], {
      cve_id: 'CVE-2024-0001',
      title: 'Siemens Widget issue CVE-2024-0001',
      severity: 'CRITICAL',
      cvss_score: 9.8,
      kev_flagged: true,
      primary_vendor: 'Siemens',
      published_at: '2024-01-05T00:00:00.000Z',
    });
    assert.deepEqual(body.filters_applied, { kev_only: true, source: 'CISA Known Exploited Vulnerabilities catalog' });
    assert.deepEqual(body.meta, {
      kev_program_launched: '2021-11-03',
      source: 'CISA Known Exploited Vulnerabilities catalog',
      catalog_url: 'https://www.cisa.gov/known-exploited-vulnerabilities-catalog',
      corpus_size: 5,
    });
    assert.deepEqual(body.pagination, {
      total: 3,
      page: 1,
      per_page: 10,
      pages: 1,
      has_next: false,
      has_prev: false,
      count: 3,
    });
  });
  test('paged; other parameters refused', async () => {
    const pro = await seedOrg(t.store, { tier: 'api' });
    const { body } = await get('/api/v1/cves/kev?per_page=2&page=2', pro.auth);
    assert.deepEqual(ids(body), ['CVE-2021-0005']);
    assert.equal(body.pagination.pages, 2);
    const bad = await get('/api/v1/cves/kev?severity=HIGH');
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.error.detail.accepted, ['page', 'per_page']);
  });
});

describe('GET /api/v1/catalog/vendors', () => {
  test('slug, name and exact CVE count, alphabetical', async () => {
    const { body } = await get('/api/v1/catalog/vendors');
    assert.deepEqual(body.data, [
      { slug: 'no-cves-inc', name: 'No CVEs Inc', cve_count: 0 },
      { slug: 'rockwell-automation', name: 'Rockwell Automation', cve_count: 2 },
      { slug: 'schneider-electric', name: 'Schneider Electric', cve_count: 2 },
      { slug: 'siemens', name: 'Siemens', cve_count: 2 },
    ]);
    assert.equal(body.pagination.total, 4);
  });
  test('q matches name, slug or alias; paged', async () => {
    assert.deepEqual(
      (await get('/api/v1/catalog/vendors?q=schneider')).body.data.map((v: { slug: string }) => v.slug),
      ['schneider-electric'],
    );
    assert.deepEqual(
      (await get('/api/v1/catalog/vendors?q=AUTOMATION')).body.data.map((v: { slug: string }) => v.slug),
      ['rockwell-automation'],
    );
    assert.deepEqual((await get('/api/v1/catalog/vendors?q=%25')).body.data, []);
    const p = await get('/api/v1/catalog/vendors?per_page=3&page=2');
    assert.deepEqual(
      p.body.data.map((v: { slug: string }) => v.slug),
      ['siemens'],
    );
    assert.equal(p.body.pagination.has_prev, true);
  });
});

describe('GET /api/v1/cves/vendor/{slug}', () => {
  test('CVEs of the catalog vendor, newest first', async () => {
    const { status, body } = await get('/api/v1/cves/vendor/siemens');
    assert.equal(status, 200);
    assert.deepEqual(ids(body), ['CVE-2024-0001', 'CVE-2023-0003']);
    assert.deepEqual(body.filters_applied, { vendor: 'siemens', vendor_name: 'Siemens' });
    assert.equal(body.data[0]._links.self, '/api/v1/cves/CVE-2024-0001');
    assert.equal(body.pagination.total, 2);
  });
  test('unknown slug → 404 NOT_FOUND (a name is not a slug)', async () => {
    for (const s of ['nobody', 'Siemens', 'Schneider%20Electric']) {
      const { status, body } = await get(`/api/v1/cves/vendor/${s}`);
      assert.equal(status, 404, s);
      assert.equal(body.error.code, 'NOT_FOUND');
      assert.equal(body.error.detail.resource, 'vendor');
    }
  });
  test('the collection without its slug ("/api/v1/cves/vendor/") is 404 saying what goes after it, not a 422 about a CVE id', async () => {
    for (const [url, name] of [
      ['/api/v1/cves/vendor/', 'vendor'],
      ['/api/v1/cves/vendor', 'vendor'],
      ['/api/v1/cves/Protocol/', 'Protocol'],
      ['/api/v1/cves/stats', 'stats'],
    ]) {
      const { status, body } = await get(url);
      assert.equal(status, 404, url);
      assert.equal(body.error.code, 'NOT_FOUND', url);
      assert.deepEqual(
        body.error.detail,
        { error: 'not_found', resource: 'route', identifier: `/api/v1/cves/${name}` },
        url,
      );
      assert.match(body.error.message, new RegExp(`^No route GET /api/v1/cves/${name}: `), url);
    }
    assert.match(
      (await get('/api/v1/cves/vendor/')).body.error.message,
      /a vendor slug goes after it \(\/api\/v1\/cves\/vendor\/\{slug\}/,
    );
    // A CVE id that is not one is still the 422 of its pattern.
    const bad = await get('/api/v1/cves/vendors');
    assert.equal(bad.status, 422);
  });
  test('a vendor with no CVEs is an empty collection', async () => {
    const { status, body } = await get('/api/v1/cves/vendor/no-cves-inc');
    assert.equal(status, 200);
    assert.deepEqual(body.data, []);
    assert.equal(body.pagination.total, 0);
  });
});

describe('GET /api/v1/cves/protocol/{name}', () => {
  test('CVEs of one protocol', async () => {
    assert.deepEqual(ids((await get('/api/v1/cves/protocol/modbus')).body), ['CVE-2024-0002', 'CVE-2024-0001']);
    assert.deepEqual(ids((await get('/api/v1/cves/protocol/ethernet-ip')).body), ['CVE-2022-0004']);
    assert.deepEqual(ids((await get('/api/v1/cves/protocol/DNP3')).body), []);
  });
  test('any other name → 404 listing the accepted names', async () => {
    const { status, body } = await get('/api/v1/cves/protocol/zigbee');
    assert.equal(status, 404);
    assert.equal(body.error.code, 'NOT_FOUND');
    assert.deepEqual(body.error.detail.accepted, [...ICS_PROTOCOLS]);
  });
});

describe('statistics', () => {
  const totals = {
    total: 5,
    by_severity: { CRITICAL: 1, HIGH: 1, MEDIUM: 1, LOW: 1, NONE: 1 },
    kev: 3,
    by_exploit_maturity: { WEAPONIZED: 3, FUNCTIONAL: 1, POC: 0, NONE: 1 },
    with_exploit_or_poc: 2,
    ics_relevant: 2,
    by_patch_status: { patched: 1, varies_by_product: 1, unknown: 3 },
  };
  test('summary', async () => {
    const { status, body } = await get('/api/v1/cves/stats/summary');
    assert.equal(status, 200);
    assert.deepEqual(body.data, totals);
    assert.ok(Number.isInteger(body.meta.corpus_version) && body.meta.corpus_version > 0);
  });
  test('dashboard', async () => {
    const { body } = await get('/api/v1/cves/stats/dashboard');
    assert.deepEqual(body.data.totals, totals);
    assert.deepEqual(body.data.top_vendors, [
      { key: 'rockwell-automation', name: 'Rockwell Automation', cve_count: 2 },
      { key: 'schneider-electric', name: 'Schneider Electric', cve_count: 2 },
      { key: 'siemens', name: 'Siemens', cve_count: 2 },
    ]);
    assert.deepEqual(body.data.top_protocols, [
      // The display name, as GET /api/v1/catalog/protocols and the watchlist give it (it was the key again).
      { key: 'modbus', name: 'Modbus', cve_count: 2 },
      { key: 'bacnet', name: 'BACnet', cve_count: 1 },
      { key: 'ethernet-ip', name: 'EtherNet/IP', cve_count: 1 },
      { key: 'profinet', name: 'PROFINET', cve_count: 1 },
    ]);
    assert.deepEqual(body.data.published_per_month, [
      { month: '2021-12', count: 1 },
      { month: '2022-03', count: 1 },
      { month: '2023-07', count: 1 },
      { month: '2024-01', count: 1 },
      { month: '2024-02', count: 1 },
    ]);
    assert.deepEqual(body.data.epss_distribution, [
      { bucket: '0.0-0.1', count: 1 },
      { bucket: '0.1-0.2', count: 1 },
      { bucket: '0.5-0.6', count: 1 },
      { bucket: '0.9-1.0', count: 1 },
      { bucket: 'none', count: 1 },
    ]);
  });
  test('shapes are documented in OpenAPI', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const summary = doc.paths['/api/v1/cves/stats/summary'].get.responses['200'].content['application/json'].schema;
    assert.ok(summary.properties.data.properties.by_exploit_maturity);
    const dash = doc.paths['/api/v1/cves/stats/dashboard'].get.responses['200'].content['application/json'].schema;
    assert.deepEqual(Object.keys(dash.properties.data.properties).sort(), [
      'epss_distribution',
      'published_per_month',
      'top_protocols',
      'top_vendors',
      'totals',
    ]);
    for (const p of [
      '/api/v1/cves',
      '/api/v1/cves/{cve_id}',
      '/api/v1/cves/kev',
      '/api/v1/cves/vendor/{slug}',
      '/api/v1/cves/protocol/{name}',
      '/api/v1/catalog/vendors',
      '/api/v1/ics-cve/{cve_id}/pdf',
    ]) {
      assert.ok(doc.paths[p]?.get, p);
    }
  });
});
