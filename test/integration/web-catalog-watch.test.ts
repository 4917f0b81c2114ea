// The web app's type-ahead, one-click watches, alert-to-asset links, environment paging and compressed pages
// (docs/web.md), over HTTP with the CSRF token taken from the page. Real fixtures (test/fixtures/PROVENANCE.md): the
// CISA advisories of test/fixtures/csaf, among them Siemens' ICSA-24-284-01 (CVE-2024-46886, the SIMATIC Drive
// Controller, fixed in V3.1.4).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { testApp, seedOrg, seedSession, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import { createMember } from '../../src/store/identity.ts';
import { fixture } from '../helpers/feeds.ts';
import { ASSET_CVE_ROWS } from '../../src/http/web/environment.tsx';

const DRIVE = 'SIMATIC Drive Controller CPU 1504D TF (6ES7615-4DF10-0AB0)';
let t: TestApp;
let o: Awaited<ReturnType<typeof seedOrg>>;
let owner: { cookie: string };
let viewer: { cookie: string };
let origin: string;
let env: number;

const html = { accept: 'text/html' };
const get = (url: string, who = owner, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers: { ...who, ...html, ...headers } });
const csrfOf = (body: string) => /name="_csrf" value="([0-9a-f]+)"/.exec(body)![1];
async function post(url: string, form: Record<string, string>, who = owner, from = '/overview') {
  const page = await get(from, who);
  const payload = new URLSearchParams({ _csrf: csrfOf(page.body), ...form }).toString();
  return t.app.inject({
    method: 'POST',
    url,
    headers: { ...who, ...html, origin, 'content-type': 'application/x-www-form-urlencoded' },
    payload,
  });
}
const api = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
  const r = await t.app.inject({
    method,
    url,
    headers: { ...o.auth, ...(body ? { 'content-type': 'application/json' } : {}) },
    payload: body ? JSON.stringify(body) : undefined,
  });
  return r.json();
};
const watchlist = async () =>
  (await api('GET', '/api/v1/watchlist')).data as { entity_type: string; entity_id: string }[];
/** The <option> values of a <datalist> fragment, in order. */
const options = (body: string) =>
  [...body.matchAll(/<option value="([^"]*)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));

before(async () => {
  t = await testApp({ now: '2026-07-10T12:00:00Z' });
  await importPaths(
    t.store.db,
    [feedDir([...CATALOGS, ...NVD_FIXTURES, ...CSAF_FIXTURES, fixture('csaf', 'icsa-24-193-01.json')])],
    { log: { info() {}, warn() {} } },
  );
  o = await seedOrg(t.store, { tier: 'professional' });
  owner = { cookie: (await seedSession(t.store, o.orgId, o.memberId)).cookie };
  const v = await createMember(t.store.db, o.orgId, `viewer@${o.orgId}.example.test`, 'viewer', 'Vera Viewer');
  viewer = { cookie: (await seedSession(t.store, o.orgId, v.id)).cookie };
  origin = new URL(t.config.publicUrl).origin;
  env = (await api('POST', '/api/v1/environments', { name: 'Drive hall' })).data.id;
  await api('POST', '/api/v1/assets/correlate-cves', {
    environment_id: env,
    assets: [
      { asset_id: 'drive-a', vendor: 'Siemens', product: DRIVE, version: 'V3.1.3' },
      { asset_id: 'drive-b', vendor: 'Siemens', product: DRIVE, version: 'V3.1.4' },
    ],
  });
});
after(async () => {
  await t.close();
});

test('type-ahead: the asset form and the watchlist form name a <datalist> htmx fills from the catalogs; the plain form works without it', async () => {
  const page = (await get(`/environments/${env}`)).body;
  // The inputs are plain text fields that name their list; the page carries the lists empty.
  assert.match(
    page,
    /<input name="vendor" id="asset-vendor"[^>]* list="asset-vendor-suggestions"[^>]* hx-get="\/catalog\/suggestions\?list=asset-vendor"/,
  );
  assert.match(
    page,
    /<input name="product" id="asset-product"[^>]* list="asset-product-suggestions"[^>]* hx-include="#asset-vendor"/,
  );
  assert.match(page, /<datalist id="asset-vendor-suggestions"><\/datalist>/);
  // Vendors whose name holds what was typed.
  const vendors = await get('/catalog/suggestions?list=asset-vendor&vendor=siem');
  assert.equal(vendors.statusCode, 200);
  assert.match(vendors.body, /^<datalist id="asset-vendor-suggestions">/);
  assert.deepEqual(options(vendors.body), ['Siemens']);
  // Products of the vendor the form names, whose name holds what was typed: the catalog's spelling.
  const products = await get(
    `/catalog/suggestions?list=asset-product&vendor=Siemens&product=${encodeURIComponent('drive controller cpu 1504d')}`,
  );
  assert.ok(options(products.body).includes(DRIVE), products.body);
  assert.ok(
    options(products.body).every((p) => /drive controller cpu 1504d/i.test(p)),
    products.body,
  );
  // The same list as the API's product catalog for the vendor's slug.
  const catalog = (
    await api(
      'GET',
      `/api/v1/catalog/products?vendor=siemens&q=${encodeURIComponent('drive controller cpu 1504d')}&per_page=10`,
    )
  ).data.map((p: { name: string }) => p.name);
  assert.deepEqual(options(products.body), catalog);
  // Nothing typed: an empty list; a prefix nothing holds: an empty list.
  assert.deepEqual(options((await get('/catalog/suggestions?list=asset-vendor&vendor=')).body), []);
  assert.deepEqual(options((await get('/catalog/suggestions?list=asset-vendor&vendor=zzqx-no-vendor')).body), []);
  // The watchlist form: ids to watch (vendor slugs, product ids, protocols), by the type chosen.
  assert.match(
    (await get('/watchlist')).body,
    /<input name="entity_id"[^>]* list="watch-suggestions"[^>]* hx-include="#watch-type"/,
  );
  assert.deepEqual(options((await get('/catalog/suggestions?list=watch&entity_type=vendor&entity_id=siem')).body), [
    'siemens',
  ]);
  assert.deepEqual(options((await get('/catalog/suggestions?list=watch&entity_type=protocol&entity_id=mod')).body), [
    'modbus',
  ]);
  assert.ok(
    options(
      (await get('/catalog/suggestions?list=watch&entity_type=product&entity_id=drive%20controller%20cpu%201504d'))
        .body,
    ).every((id) => id.startsWith('siemens/')),
  );
  // A viewer may ask (it changes nothing); signed out: to sign-in; a list that does not exist: 422.
  assert.deepEqual(options((await get('/catalog/suggestions?list=asset-vendor&vendor=siem', viewer)).body), [
    'Siemens',
  ]);
  assert.equal(
    (await t.app.inject({ method: 'GET', url: '/catalog/suggestions?list=asset-vendor&vendor=siem', headers: html }))
      .statusCode,
    303,
  );
  assert.equal((await get('/catalog/suggestions?list=other&vendor=siem')).statusCode, 422);
  // Without script the form posts as before: the suggested spelling is stored and correlated.
  const added = await post(`/environments/${env}/assets`, {
    asset_id: 'drive-c',
    vendor: 'Siemens',
    product: DRIVE,
    version: 'V3.1.0',
  });
  assert.equal(added.statusCode, 303, added.body.slice(0, 300));
  assert.match((await get(`/environments/${env}?asset_id=drive-c`)).body, /CVE-2024-46886/);
  await post(`/assets/drive-c/delete?environment_id=${env}`, {});
});

test("explorer: one click watches a card's vendor or product, or the protocol filtered by, back to the same URL; a viewer has no button and is refused, nothing stored", async () => {
  const view = '/cves?vendor=Siemens&severity=CRITICAL%2CHIGH';
  const page = (await get(view)).body;
  const forms = [...page.matchAll(/<form class="inline" method="post" action="\/watchlist">(.*?)<\/form>/g)].map(
    (m) => m[1],
  );
  const value = (f: string, name: string) =>
    new RegExp(`name="${name}" value="([^"]*)"`).exec(f)![1].replace(/&amp;/g, '&');
  // A card's product, as the card names it (vendor/product: the watch form's id takes names and slugs alike).
  const product = forms.find((f) => value(f, 'entity_type') === 'product');
  assert.ok(product, 'a card offers to watch its product');
  const pid = value(product, 'entity_id');
  assert.match(pid, /^Siemens\//);
  assert.equal(value(product, 'back'), view);
  const before = await watchlist();
  // A viewer sees no button, and posting the form anyway is refused by the route's policy: nothing stored.
  assert.doesNotMatch((await get(view, viewer)).body, /action="\/watchlist"/);
  const refused = await post('/watchlist', { entity_type: 'product', entity_id: pid, back: view }, viewer, view);
  // The API's refusal of a viewer's write (VIEWER_ROLE), as the error page a browser gets.
  assert.equal(refused.statusCode, 403);
  assert.match(refused.body, /Read-only members \(viewer role\) cannot perform write operations/);
  assert.deepEqual(await watchlist(), before);
  // The owner's click: back to the same explorer URL, the product watched, the card says so.
  const ok = await post('/watchlist', { entity_type: 'product', entity_id: pid, back: view }, owner, view);
  assert.equal(ok.statusCode, 303, ok.body.slice(0, 300));
  assert.equal(ok.headers.location, view);
  const after = await watchlist();
  assert.equal(after.length, before.length + 1);
  const entry = after.find((e) => e.entity_type === 'product')!;
  assert.match(entry.entity_id, /^siemens\//);
  const again = (await get(view)).body;
  assert.ok(again.includes(`Watching product ${pid.replace('/', ' ')}`), 'the card says it is watched');
  assert.ok(!again.includes(`value="${pid}"`), 'no button for what is watched');
  // The vendor: the same.
  assert.equal(
    (await post('/watchlist', { entity_type: 'vendor', entity_id: 'Siemens', back: view }, owner, view)).headers
      .location,
    view,
  );
  assert.ok((await watchlist()).some((e) => e.entity_type === 'vendor' && e.entity_id === 'siemens'));
  // Filtered by a protocol: one button watches it.
  const proto = (await get('/cves?protocol=modbus')).body;
  assert.match(proto, /name="entity_type" value="protocol"\/?><input type="hidden" name="entity_id" value="modbus"/);
  assert.equal(
    (
      await post(
        '/watchlist',
        { entity_type: 'protocol', entity_id: 'modbus', back: '/cves?protocol=modbus' },
        owner,
        '/cves?protocol=modbus',
      )
    ).headers.location,
    '/cves?protocol=modbus',
  );
  assert.ok((await watchlist()).some((e) => e.entity_type === 'protocol' && e.entity_id === 'modbus'));
  assert.match((await get('/cves?protocol=modbus')).body, /Watching protocol modbus/);
});

test('alerts link to their CVE and to each matching asset, which the environment page shows alone', async () => {
  const run = await t.store.db
    .insertInto('alert_runs')
    .values({ from_seq: 0, to_seq: 0, status: 'completed', trigger: 'cli' } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  const matches = [
    {
      entity_type: 'environment',
      entity_name: 'Drive hall',
      asset_id: 'drive-a',
      asset_kind: 'asset',
      status: 'affected',
    },
    {
      entity_type: 'environment',
      entity_name: 'Closed hall',
      asset_id: 'gone-1',
      asset_kind: 'asset',
      status: 'affected',
    },
  ];
  await t.store.db
    .insertInto('alert_cves')
    .values({
      run_id: run.id,
      cve_id: 'CVE-2024-46886',
      reasons: ['added to KEV'],
      change_kinds: ['kev_added'],
      stamp: '2026-07-09T08:00:00Z',
      data: JSON.stringify({ cve_id: 'CVE-2024-46886' }),
    } as never)
    .execute();
  const alert = await t.store.db
    .insertInto('alerts')
    .values({
      org_id: o.orgId,
      run_id: run.id,
      cve_id: 'CVE-2024-46886',
      sage_priority: 'PATCH NEXT',
      match_type: 'environment',
      match_name: 'Drive hall',
      matches: JSON.stringify(matches),
      assets_affected: 2,
      payload: null,
      created_at: new Date('2026-07-09T08:00:00Z'),
    } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  for (const url of ['/alerts', '/overview']) {
    const body = (await get(url)).body;
    const row = body.slice(
      body.indexOf(`id="alert-${alert.id}"`),
      body.indexOf('</tr>', body.indexOf(`id="alert-${alert.id}"`)),
    );
    assert.match(row, /href="\/cve\/CVE-2024-46886"/, url);
    assert.match(
      row,
      new RegExp(
        `<a href="/environments/${env}">Drive hall</a>: <a href="/environments/${env}\\?asset_id=drive-a"[^>]*>drive-a</a>`,
      ),
      url,
    );
    // An environment the organization no longer has: the asset named, no link.
    assert.match(row, /Closed hall: gone-1/, url);
    assert.doesNotMatch(row, /asset_id=gone-1/, url);
  }
  const one = (await get(`/environments/${env}?asset_id=drive-a`)).body;
  assert.match(one, /Showing asset <strong>drive-a<\/strong> only/);
  assert.match(one, /id="asset-drive-a"/);
  assert.doesNotMatch(one, /id="asset-drive-b"/);
  assert.match(one.slice(one.indexOf('id="asset-drive-a"')), /CVE-2024-46886/);
  assert.match(
    (await get(`/environments/${env}?asset_id=no-such`)).body,
    /No asset with this id in this environment\./,
  );
});

test('an environment page shows 50 nameplates a page, with links to the others', async () => {
  const many = (await api('POST', '/api/v1/environments', { name: 'Many plates' })).data.id;
  const assets = Array.from({ length: 51 }, (_, i) => ({
    asset_id: `plate-${String(i + 1).padStart(2, '0')}`,
    vendor: 'Acme Automation',
    product: 'Line Controller',
    version: '2.0',
  }));
  await api('POST', '/api/v1/assets/correlate-cves', { environment_id: many, assets });
  const first = (await get(`/environments/${many}`)).body;
  assert.equal([...first.matchAll(/<section id="asset-plate-/g)].length, 50);
  assert.match(first, /id="asset-plate-50"/);
  assert.doesNotMatch(first, /id="asset-plate-51"/);
  assert.match(first, new RegExp(`Page 1 of 2</span><a href="/environments/${many}\\?page=2#assets">Next</a>`));
  const second = (await get(`/environments/${many}?page=2`)).body;
  assert.deepEqual(
    [...second.matchAll(/<section id="asset-(plate-\d+)"/g)].map((m) => m[1]),
    ['plate-51'],
  );
  assert.match(second, /51 assets/);
  assert.equal((await get(`/environments/${many}?page=0`)).statusCode, 422);
});

test('pages go out compressed to a client that accepts it, the same page', async () => {
  const plain = await get(`/environments/${env}`);
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.equal(plain.headers.vary, 'Accept-Encoding');
  const br = await get(`/environments/${env}`, owner, { 'accept-encoding': 'gzip, deflate, br' });
  assert.equal(br.headers['content-encoding'], 'br');
  assert.equal(brotliDecompressSync(br.rawPayload).toString(), plain.body);
  assert.ok(
    br.rawPayload.length < plain.rawPayload.length / 3,
    `${br.rawPayload.length} of ${plain.rawPayload.length} bytes`,
  );
  const gz = await get(`/environments/${env}`, owner, { 'accept-encoding': 'gzip' });
  assert.equal(gz.headers['content-encoding'], 'gzip');
  assert.equal(gunzipSync(gz.rawPayload).toString(), plain.body);
  // JSON answers are the routes' own business.
  assert.equal(
    (
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/environments',
        headers: { ...o.auth, 'accept-encoding': 'br' },
      })
    ).headers['content-encoding'],
    undefined,
  );
});

test("a page of assets lists an asset's first ASSET_CVE_ROWS CVEs by priority, and links to the asset alone for all", async () => {
  // ICSA-24-193-01: 13 CVEs of the SINEMA Remote Connect Server below V3.2 SP1.
  const site = (await api('POST', '/api/v1/environments', { name: 'Remote access' })).data.id;
  const answer = await api('POST', '/api/v1/assets/correlate-cves', {
    environment_id: site,
    assets: [{ asset_id: 'rcs-1', vendor: 'Siemens', product: 'SINEMA Remote Connect Server', version: 'V3.1' }],
  });
  const ranked = (answer.data.assets[0].cves as { cve_id: string }[]).map((c) => c.cve_id);
  assert.equal(ranked.length, 13);
  const rows = (body: string) => [...body.matchAll(/<td><a href="\/cve\/(CVE-[\d-]+)">/g)].map((m) => m[1]);
  const page = (await get(`/environments/${site}`)).body;
  assert.deepEqual(rows(page), ranked.slice(0, ASSET_CVE_ROWS));
  assert.match(
    page,
    new RegExp(
      `<a href="/environments/${site}\\?asset_id=rcs-1">All 13 CVEs of rcs-1</a> \\(the first ${ASSET_CVE_ROWS} by priority are shown here\\)`,
    ),
  );
  const alone = (await get(`/environments/${site}?asset_id=rcs-1`)).body;
  assert.deepEqual(rows(alone), ranked);
  assert.doesNotMatch(alone, /All 13 CVEs of/);
});
