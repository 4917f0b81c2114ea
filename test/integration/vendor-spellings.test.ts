// One organisation, one vendor (docs/enrichment.md "Vendors and products"; ADR 0052) on real CVE records: the SAP
// CNA spells itself "SAP_SE" and "SAP SE" (CVE-2024-27898, CVE-2018-2378) while CISA-ADP's CPEs say `sap`. As two
// vendors (`sapse`, `sap`) the catalog, the vendor filter, watchlists and correlation would each see half of SAP's
// CVEs. Watch entries stored under a former slug follow the vendor at the next import
// (docs/watchlists.md "Renamed vendors"). gVectors (CVE-2023-46310) stays two slugs read as one organisation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { addWatchEntry } from '../../src/store/watchlists.ts';
import { CATALOGS, feedDir } from '../helpers/ingest.ts';
import { fixture } from '../helpers/feeds.ts';

let t: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
const files = () =>
  feedDir([
    ...CATALOGS,
    ...['CVE-2024-27898', 'CVE-2018-2378', 'CVE-2023-46310'].map((id) => fixture('cve5', `${id}.json`)),
  ]);
const quiet = { log: { info() {}, warn() {} } };

before(async () => {
  t = await testApp();
  await importPaths(t.store.db, [files()], quiet);
  org = await seedOrg(t.store, { tier: 'enterprise' });
});
after(async () => {
  await t.close();
});

async function get(url: string, auth = org.auth) {
  const r = await t.app.inject({ method: 'GET', url, headers: auth });
  assert.equal(r.statusCode, 200, r.body);
  return r.json();
}

test('the catalog lists SAP once, and every spelling of it filters to all of its CVEs', async () => {
  const v = await get('/api/v1/catalog/vendors?q=sap');
  assert.deepEqual(
    v.data.map((x: { slug: string; name: string; cve_count: number }) => [x.slug, x.name, x.cve_count]),
    [['sap', 'SAP', 2]],
  );
  for (const spelling of ['sap', 'SAP', 'SAP SE', 'sap_se', 'sapse']) {
    const l = await get(`/api/v1/cves?vendor=${encodeURIComponent(spelling)}`);
    assert.deepEqual(
      l.data.map((c: { cve_id: string }) => c.cve_id).sort(),
      ['CVE-2018-2378', 'CVE-2024-27898'],
      spelling,
    );
  }
});

test('the CNA is the vendor: its SAP notes are vendor advisories, so the CVE is patched; the title drops "SAP SE"', async () => {
  const d = (await get('/api/v1/cves/CVE-2018-2378')).data;
  assert.equal(d.affected.primary_vendor, 'SAP');
  assert.deepEqual(d.affected.vendors, ['SAP']);
  assert.deepEqual(
    d.references.vendor_advisories.map((a: { url: string }) => a.url),
    [
      'https://launchpad.support.sap.com/#/notes/2589129',
      'https://blogs.sap.com/2018/02/13/sap-security-patch-day-february-2018/',
    ],
  );
  assert.equal(d.patch.status, 'patched');
  assert.equal(d.title, 'Vulnerability in SAP HANA Extended Application Services');
});

test('correlation: a nameplate in any SAP spelling meets both the CNA row and the CPE row', async () => {
  const r = await t.app.inject({
    method: 'POST',
    url: '/api/v1/assets/correlate-cves',
    headers: org.auth,
    payload: {
      assets: [
        { asset_id: 'nw-se', vendor: 'SAP SE', product: 'SAP NetWeaver', version: '7.50' },
        { asset_id: 'nw', vendor: 'SAP', product: 'NetWeaver', version: '7.50' },
        { asset_id: 'nw-740', vendor: 'sap', product: 'netweaver', version: '7.40' },
      ],
      options: { include_not_affected: true },
    },
  });
  assert.equal(r.statusCode, 200, r.body);
  const a = r.json().data.assets as {
    asset_id: string;
    cves: { cve_id: string; status: string }[];
    matched_products: { vendor: string; product: string }[];
  }[];
  for (const x of a.slice(0, 2)) {
    assert.deepEqual(
      x.cves.map((c) => [c.cve_id, c.status]),
      [['CVE-2024-27898', 'affected']],
      x.asset_id,
    );
    // One stored product (one slug and key) for the CNA's "SAP_SE" / "SAP NetWeaver" and the CPE's sap / netweaver.
    assert.equal(x.matched_products.length, 1, x.asset_id);
  }
  assert.deepEqual(
    a[2].cves.map((c) => [c.cve_id, c.status]),
    [['CVE-2024-27898', 'not_affected']],
  );
});

test('watch entries under a former slug follow the vendor at the next import; duplicates merge; other entries stay', async () => {
  const other = await seedOrg(t.store, { tier: 'enterprise' });
  // As stored before the rename: vendor and product ids under `sapse`, an entry of a vendor that left the corpus,
  // and in the other organization the new slug already watched beside the former one.
  // `warehouse` would become `warehou` (a trailing "se"), which no catalog vendor is: it stays.
  for (const [type, key] of [
    ['vendor', 'sapse'],
    ['product', 'sapse/sap-netweaver'],
    ['vendor', 'gonevendor'],
    ['vendor', 'gvectorsteam'],
    ['vendor', 'warehouse'],
  ] as const) {
    await addWatchEntry(t.store.db, org.orgId, type, key, null);
  }
  const kept = await addWatchEntry(t.store.db, other.orgId, 'vendor', 'sap', null);
  await addWatchEntry(t.store.db, other.orgId, 'vendor', 'sapse', null);
  const keptId = 'row' in kept ? kept.row.id : 0;

  await importPaths(t.store.db, [files()], quiet);

  const entries = async (auth: { authorization: string }) =>
    (await get('/api/v1/watchlist?per_page=100', auth)).data
      .map(
        (e: { entity_type: string; entity_id: string; entity_name: string }) =>
          `${e.entity_type} ${e.entity_id} (${e.entity_name})`,
      )
      .sort();
  assert.deepEqual(await entries(org.auth), [
    'product sap/netweaver (SAP NetWeaver)',
    'vendor gonevendor (gonevendor)',
    'vendor gvectorsteam (gVectors Team)',
    'vendor sap (SAP)',
    'vendor warehouse (warehouse)',
  ]);
  assert.deepEqual(await entries(other.auth), ['vendor sap (SAP)']);
  const ids = (await get('/api/v1/watchlist', other.auth)).data.map((e: { id: string | number }) => String(e.id));
  assert.deepEqual(ids, [String(keptId)], 'the entry the organization already had is the one kept');
  const n = await sql<{
    n: number;
  }>`SELECT count(*)::int AS n FROM watchlist_entries WHERE entity_key LIKE 'sapse%'`.execute(t.store.db);
  assert.equal(n.rows[0].n, 0);
});

test('POST /api/v1/watchlist with a former slug stores the vendor under its catalog id', async () => {
  const third = await seedOrg(t.store, { tier: 'enterprise' });
  const post = (entity_id: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/watchlist',
      headers: third.auth,
      payload: { entity_type: 'vendor', entity_id },
    });
  const r = await post('sapse');
  assert.equal(r.statusCode, 201, r.body);
  assert.deepEqual([r.json().data.entity_id, r.json().data.entity_name], ['sap', 'SAP']);
  // The current id is the same entry: watching it again is 409 naming that entry.
  const again = await post('sap');
  assert.equal(again.statusCode, 409);
  assert.deepEqual(again.json().error.detail, { error: 'already_watching', entry_id: r.json().data.id });
  const p = await t.app.inject({
    method: 'POST',
    url: '/api/v1/watchlist',
    headers: third.auth,
    payload: { entity_type: 'product', entity_id: 'sapse/sap-netweaver' },
  });
  assert.equal(p.statusCode, 201, p.body);
  // Under SAP the catalog keys the product without the vendor in front (docs/watchlists.md "Product catalog").
  assert.equal(p.json().data.entity_id, 'sap/netweaver');
  // A slug that is nobody's former slug is still refused.
  const bad = await post('nosuchvendor');
  assert.equal(bad.statusCode, 422);
  assert.match(JSON.stringify(bad.json().error.detail), /nosuchvendor is not in the vendor catalog/);
});

test('a vendor page or feed under a former slug answers 301 to the current one, with the query kept; an unknown slug is 404', async () => {
  const r = await t.app.inject({ method: 'GET', url: '/api/v1/cves/vendor/sapse?per_page=5' });
  assert.equal(r.statusCode, 301);
  assert.equal(r.headers.location, '/api/v1/cves/vendor/sap?per_page=5');
  const followed = await t.app.inject({ method: 'GET', url: r.headers.location as string });
  assert.equal(followed.statusCode, 200, followed.body);
  assert.deepEqual(
    followed
      .json()
      .data.map((c: { cve_id: string }) => c.cve_id)
      .sort(),
    ['CVE-2018-2378', 'CVE-2024-27898'],
  );
  const feed = await t.app.inject({ method: 'GET', url: '/feeds/vendor/sapse.atom' });
  assert.equal(feed.statusCode, 301);
  assert.equal(feed.headers.location, '/feeds/vendor/sap.atom');
  assert.equal((await t.app.inject({ method: 'GET', url: '/feeds/vendor/sap.atom' })).statusCode, 200);
  const none = await t.app.inject({ method: 'GET', url: '/api/v1/cves/vendor/nosuchvendor' });
  assert.equal(none.statusCode, 404);
  assert.equal(none.json().error.code, 'NOT_FOUND');
  assert.equal((await t.app.inject({ method: 'GET', url: '/feeds/vendor/nosuchvendor.atom' })).statusCode, 404);
});
