// The signed-in web app over HTTP (docs/web.md): the layout and its static files, the overview's numbers against
// the API's, environments and assets, alerts, watchlist and webhooks through their forms (CSRF token from the page),
// bad input answered with the form and the field's message and nothing stored, and a viewer who sees no form that
// changes anything and is refused when posting one. Real fixtures (test/fixtures/PROVENANCE.md): Siemens' ICSA-24-284-01
// (CVE-2024-46886, the SIMATIC Drive Controller, fixed in V3.1.4).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { testApp, seedOrg, seedSession, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import { createMember } from '../../src/store/identity.ts';
import { sagePriority } from '../../src/domain/alerts.ts';

const DRIVE = 'SIMATIC Drive Controller CPU 1504D TF (6ES7615-4DF10-0AB0)';
const quiet = { log: { info() {}, warn() {} } };
let t: TestApp;
let o: Awaited<ReturnType<typeof seedOrg>>;
let owner: { cookie: string };
let viewer: { cookie: string };
let origin: string;

before(async () => {
  t = await testApp({ now: '2026-07-10T12:00:00Z', env: { VULNINTEL_WEBHOOK_EGRESS_ALLOW: 'hooks.example.com' } });
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES, ...CSAF_FIXTURES])], quiet);
  o = await seedOrg(t.store, { tier: 'professional' });
  const s = await seedSession(t.store, o.orgId, o.memberId);
  owner = { cookie: s.cookie };
  const v = await createMember(t.store.db, o.orgId, `viewer@${o.orgId}.example.test`, 'viewer', 'Vera Viewer');
  viewer = { cookie: (await seedSession(t.store, o.orgId, v.id)).cookie };
  origin = new URL(t.config.publicUrl).origin;
});
after(async () => {
  await t.close();
});

const html = { accept: 'text/html' };
const get = (url: string, who = owner) => t.app.inject({ method: 'GET', url, headers: { ...who, ...html } });
/** The CSRF token as the page carries it in its forms. */
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
const text = (body: string) =>
  body
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ');

test('every page has the one layout: navigation, our stylesheet and htmx from /static/ (immutable), a CSP with nothing inline and no other origin', async () => {
  for (const url of [
    '/overview',
    '/environments',
    '/alerts',
    '/watchlist',
    '/webhooks',
    '/account',
    '/account/notifications',
    '/training',
  ]) {
    const r = await get(url);
    assert.equal(r.statusCode, 200, `${url}: ${r.body.slice(0, 300)}`);
    const csp = String(r.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self';/);
    assert.match(csp, /style-src 'self';/);
    assert.doesNotMatch(csp, /unsafe-inline|https?:/);
    assert.doesNotMatch(
      r.body,
      /<style|\sstyle="|<script>|<script(?! src="\/static\/)|\son[a-z]+="/,
      `${url}: nothing inline`,
    );
    assert.match(r.body, /<nav aria-label="Main">/);
    assert.match(
      r.body,
      new RegExp(`<a href="${url === '/account/notifications' ? '/account' : url}" aria-current="page">`),
      url,
    );
  }
  const page = (await get('/overview')).body;
  const css = /href="(\/static\/app\.[0-9a-f]{12}\.css)"/.exec(page)![1];
  const js = /src="(\/static\/htmx\.[0-9a-f]{12}\.js)"/.exec(page)![1];
  const c = await t.app.inject({ method: 'GET', url: css });
  assert.equal(c.statusCode, 200);
  assert.equal(c.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.match(String(c.headers['content-type']), /^text\/css/);
  assert.match(c.body, /header\.top/);
  const j = await t.app.inject({ method: 'GET', url: js, headers: { 'accept-encoding': 'gzip' } });
  assert.equal(j.headers['content-encoding'], 'gzip');
  assert.match(gunzipSync(j.rawPayload).toString(), /htmx/);
  assert.equal((await t.app.inject({ method: 'GET', url: '/static/app.000000000000.css' })).statusCode, 404);
});

test('a page without a session goes to sign-in with the page to come back to', async () => {
  const r = await t.app.inject({ method: 'GET', url: '/overview', headers: html });
  assert.equal(r.statusCode, 303);
  assert.equal(r.headers.location, '/login?next=%2Foverview');
});

test('environments: create (bad input: the form with the message, nothing stored), add assets, their CVEs, export CSV, the overview agrees with the API', async () => {
  const bad = await post('/environments', { name: '   ', description: 'x' });
  assert.equal(bad.statusCode, 422);
  assert.match(text(bad.body), /Enter a name\./);
  assert.match(bad.body, /aria-invalid="true"/);
  assert.equal(
    (await t.app.inject({ method: 'GET', url: '/api/v1/environments', headers: o.auth })).json().data.length,
    0,
    'nothing stored',
  );

  const made = await post('/environments', { name: 'Drives <hall>', description: 'Line A' });
  assert.equal(made.statusCode, 303);
  assert.equal(made.headers.location, '/environments');
  const envs = (await t.app.inject({ method: 'GET', url: '/api/v1/environments', headers: o.auth })).json().data;
  assert.equal(envs.length, 1);
  const env = envs[0].id as number;
  const list = await get('/environments');
  assert.match(list.body, /Drives &lt;hall>/, 'escaped');
  assert.match(list.body, new RegExp(`href="/environments/${env}"`));
  const dup = await post('/environments', { name: 'Drives <hall>' });
  assert.equal(dup.statusCode, 422);
  assert.match(text(dup.body), /An environment named "Drives <hall>" already exists/);

  const badAsset = await post(`/environments/${env}/assets`, {
    asset_id: 'drive-x',
    vendor: '',
    product: DRIVE,
    version: 'V3.1.3',
  });
  assert.equal(badAsset.statusCode, 422, badAsset.body.slice(0, 300));
  assert.match(badAsset.body, /class="field-error" id="vendor-error"/);
  for (const [id, version] of [
    ['drive-a', 'V3.1.3'],
    ['drive-b', 'V3.1.4'],
  ]) {
    const r = await post(`/environments/${env}/assets`, { asset_id: id, vendor: 'Siemens', product: DRIVE, version });
    assert.equal(r.statusCode, 303, r.body.slice(0, 300));
  }
  const page = await get(`/environments/${env}`);
  assert.equal(page.statusCode, 200);
  const drive = page.body.slice(page.body.indexOf('id="asset-drive-a"'), page.body.indexOf('id="asset-drive-b"'));
  assert.match(text(drive), /CVE-2024-46886 .* affected .* V3\.1\.4/);
  assert.doesNotMatch(
    page.body.slice(page.body.indexOf('id="asset-drive-b"')),
    /CVE-2024-46886/,
    'the fixed version is not affected',
  );
  assert.match(page.body, /href="\/cve\/CVE-2024-46886"/);

  const csv = await get(`/environments/${env}/export.csv`);
  assert.match(String(csv.headers['content-type']), /^text\/csv/);
  const rows = csv.body.trim().split('\r\n');
  assert.equal(rows[0], 'asset_id,vendor,product,version,cve_id,status,reason,fixed_version,known_exploited,severity');
  assert.ok(
    rows.some((r) => r.startsWith(`drive-a,Siemens,${DRIVE},V3.1.3,CVE-2024-46886,affected,`)),
    rows.join('\n'),
  );
  assert.ok(
    rows.some((r) => r.startsWith(`drive-b,Siemens,${DRIVE},V3.1.4,,`)),
    'an asset without a CVE once',
  );

  // The overview's numbers are the API's: the affected CVEs of GET /api/v1/assets/results, by the alert run's priority rule.
  const api = (
    await t.app.inject({ method: 'GET', url: `/api/v1/assets/results?environment_id=${env}`, headers: o.auth })
  ).json().data;
  const affected = new Map<string, any>();
  for (const a of api.assets) for (const c of a.cves) if (c.status === 'affected') affected.set(c.cve_id, c);
  assert.ok(affected.size >= 1);
  const expected: Record<string, number> = { 'PATCH NOW': 0, 'PATCH NEXT': 0, MONITOR: 0, IGNORE: 0 };
  for (const c of affected.values()) {
    expected[
      sagePriority({
        kev: c.known_exploited,
        exploit_maturity: c.exploit_maturity,
        bcs: c.bcs_score,
        cvss: c.cvss.score,
        epss_percentile: c.epss.percentile,
        patch_available: c.fixed_version !== null,
        asset_match: true,
      })
    ]++;
  }
  const ov = (await get('/overview')).body;
  const card = ov.slice(ov.indexOf(`id="env-${env}"`), ov.indexOf('</section>', ov.indexOf(`id="env-${env}"`)));
  for (const p of ['PATCH NOW', 'PATCH NEXT', 'MONITOR'])
    assert.match(card, new RegExp(`data-priority="${p}">${expected[p]}<`), p);
  assert.match(
    card,
    new RegExp(`data-kev(="true")?>${[...affected.values()].filter((c) => c.known_exploited).length}<`),
  );
  assert.match(text(card), /2 assets/);
  assert.match(text(card), /drive-a .* 1 affected/);
  // The charts: SVG with their text alternative.
  assert.match(ov, /<figure class="chart" id="chart-priority">/);
  assert.match(ov, /<svg role="img" aria-labelledby="chart-priority-t chart-priority-d"/);
  assert.match(text(ov), new RegExp(`Open CVEs by vendor: the numbers Label Value Siemens ${affected.size}`));

  // Edit a stored nameplate: its form on the page; stored as the add form stores one, so its CVEs are decided again.
  const section = (body: string, id: string) => {
    const at = body.indexOf(`id="asset-${id}"`);
    return body.slice(at, body.indexOf('</section>', at));
  };
  const editUrl = (id: string) => `/assets/${id}/edit?environment_id=${env}`;
  assert.match(section(page.body, 'drive-b'), new RegExp(`action="${editUrl('drive-b').replace(/[?]/g, '\\?')}"`));
  assert.match(
    section(page.body, 'drive-b'),
    /name="version"[^>]* value="V3\.1\.4"|value="V3\.1\.4"[^>]* name="version"/,
  );
  const storedOf = async (id: string) =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/assets/results?environment_id=${env}`, headers: o.auth }))
      .json()
      .data.assets.find((a: { asset_id: string }) => a.asset_id === id);
  for (const [id, version] of [
    ['drive-b', 'V3.1.3'],
    ['drive-a', 'V3.1.4'],
  ]) {
    const r = await post(editUrl(id), { vendor: 'Siemens', product: DRIVE, version });
    assert.equal(r.statusCode, 303, r.body.slice(0, 300));
    assert.equal(r.headers.location, `/environments/${env}`);
  }
  const edited = (await get(`/environments/${env}`)).body;
  assert.match(text(section(edited, 'drive-b')), new RegExp(`drive-b: Siemens .* V3\\.1\\.3 `));
  assert.match(text(section(edited, 'drive-b')), /CVE-2024-46886 .* affected .* V3\.1\.4/, 'decided for V3.1.3');
  assert.match(text(section(edited, 'drive-a')), /drive-a: Siemens .* V3\.1\.4 /);
  assert.doesNotMatch(section(edited, 'drive-a'), /CVE-2024-46886/, 'the fixed version is not affected');
  assert.equal((await storedOf('drive-a')).version, 'V3.1.4');

  // Bad input: the page again with the field's message in that asset's form, the stored asset unchanged.
  for (const [form, field, message] of [
    [{ vendor: 'Siemens', product: '', version: 'V3.1.3' }, 'product', /required field is missing/],
    [{ vendor: 'Siemens', product: DRIVE, version: 'V'.repeat(300) }, 'version', /version is longer than/],
  ] as const) {
    const r = await post(editUrl('drive-b'), form);
    assert.equal(r.statusCode, 422, r.body.slice(0, 300));
    const refused = section(r.body, 'drive-b');
    assert.match(refused, new RegExp(`class="field-error" id="${field}-error"`));
    assert.match(text(refused), message);
    assert.match(refused, /<details class="edit-asset" open/);
    const kept = await storedOf('drive-b');
    assert.equal(kept.product, DRIVE);
    assert.equal(kept.version, 'V3.1.3');
  }
  // A viewer sees no edit form and is refused when posting one: nothing changes.
  const seen = (await get(`/environments/${env}`, viewer)).body;
  assert.match(seen, /id="asset-drive-b"/);
  assert.doesNotMatch(seen, /\/edit\?environment_id=|class="edit-asset"/);
  const refusedViewer = await post(editUrl('drive-b'), { vendor: 'Siemens', product: DRIVE, version: 'V9' }, viewer);
  assert.equal(refusedViewer.statusCode, 403);
  assert.equal((await storedOf('drive-b')).version, 'V3.1.3');
  // An asset the environment does not hold: not found, nothing stored.
  const missing = await post(editUrl('drive-z'), { vendor: 'Siemens', product: DRIVE, version: 'V3.1.3' });
  assert.equal(missing.statusCode, 404);
  assert.equal(await storedOf('drive-z'), undefined);

  // Remove an asset, then the environment.
  const rm = await post(`/assets/drive-b/delete?environment_id=${env}`, {});
  assert.equal(rm.statusCode, 303);
  assert.doesNotMatch((await get(`/environments/${env}`)).body, /id="asset-drive-b"/);
  const del = await post(`/environments/${env}/delete`, {});
  assert.equal(del.statusCode, 303);
  assert.equal(
    (await t.app.inject({ method: 'GET', url: '/api/v1/environments', headers: o.auth })).json().data.length,
    0,
  );
});

/** A multipart form as the browser sends the upload form: the CSRF field, the kind and the file. */
function uploadForm(fields: Record<string, string>, file?: { name: string; text: string }) {
  const boundary = '----vi-page-upload';
  const parts = Object.entries(fields).map(
    ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  if (file)
    parts.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: text/csv\r\n\r\n${file.text}\r\n`,
    );
  return {
    payload: Buffer.from(`${parts.join('')}--${boundary}--\r\n`),
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

test('upload: a CSV with refused rows shows each row and its reasons, stores nothing; a good one stores every row; CSRF and roles as every form', async () => {
  const env = (
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/environments',
      headers: { ...o.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'Upload hall' }),
    })
  ).json().data.id as number;
  const csrf = csrfOf((await get(`/environments/${env}`)).body);
  const send = (fields: Record<string, string>, file?: { name: string; text: string }, who = owner) => {
    const f = uploadForm(fields, file);
    return t.app.inject({
      method: 'POST',
      url: `/environments/${env}/upload`,
      headers: { ...who, ...html, origin, 'content-type': f.type },
      payload: f.payload,
    });
  };
  const stored = async () =>
    (await t.app.inject({ method: 'GET', url: `/api/v1/assets/results?environment_id=${env}`, headers: o.auth })).json()
      .pagination.total as number;
  const hosts = async () =>
    (await t.app.inject({ method: 'GET', url: `/api/v2/assets/results?environment_id=${env}`, headers: o.auth })).json()
      .pagination.total as number;
  const good = `asset_id,vendor,product,version\ndrive-u1,Siemens,${DRIVE},V3.1.3\ndrive-u2,Siemens,${DRIVE},V3.1.4\n`;

  // Rows 3 and 4 refused (an e-mail address as a version; no vendor): both named with their reasons, nothing stored.
  const bad = await send(
    { _csrf: csrf, kind: 'nameplates' },
    { name: 'n.csv', text: `${good}drive-u3,Siemens,${DRIVE},ops@plant.example.com\ndrive-u4,,${DRIVE},V1\n` },
  );
  assert.equal(bad.statusCode, 422, bad.body.slice(0, 300));
  const refused = text(bad.body.slice(bad.body.indexOf('id="upload-refused"')));
  assert.match(refused, /2 rows refused: nothing was stored/);
  assert.match(refused, /4 drive-u3 version: version must name the product's version/);
  assert.match(refused, /5 drive-u4 vendor: /);
  assert.equal(await stored(), 0);
  // Not a nameplate column, no file, no kind, not UTF-8: the form's message, nothing stored.
  assert.match(
    text(
      (
        await send(
          { _csrf: csrf, kind: 'nameplates' },
          { name: 'n.csv', text: 'asset_id,vendor,product,hostname\na,b,c,d\n' },
        )
      ).body,
    ),
    /Columns not part of a nameplate: hostname/,
  );
  assert.match(text((await send({ _csrf: csrf, kind: 'nameplates' })).body), /Choose a CSV file to upload/);
  assert.match(text((await send({ _csrf: csrf }, { name: 'n.csv', text: good })).body), /Choose what the file holds/);
  assert.match(
    text(
      (
        await send(
          { _csrf: csrf, kind: 'nameplates' },
          { name: 'n.csv', text: 'asset_id,vendor,product,version\n"unclosed\n' },
        )
      ).body,
    ),
    /the nameplates CSV could not be read/,
  );
  assert.equal(await stored(), 0);
  // Without the page's token, or as a viewer: refused, nothing stored.
  assert.equal((await send({ kind: 'nameplates' }, { name: 'n.csv', text: good })).statusCode, 403);
  assert.equal(
    (
      await send(
        { _csrf: csrfOf((await get(`/environments/${env}`, viewer)).body), kind: 'nameplates' },
        { name: 'n.csv', text: good },
        viewer,
      )
    ).statusCode,
    403,
  );
  assert.equal(await stored(), 0);

  // A Windows hosts file with one refused host (no build): nothing stored either.
  const header =
    'asset_id,os_product,edition_id,display_version,os_build,architecture,installation_type,installed_kbs,kb_source,esu_enrolled,collected_at';
  const host =
    'hist-01,Windows Server 2019 Datacenter,ServerDatacenter,1809,10.0.17763.6054,x64,Server,KB5040430,Get-HotFix,,2026-07-01T08:00:00Z';
  const w = await send(
    { _csrf: csrf, kind: 'windows' },
    {
      name: 'h.csv',
      text: `${header}\n${host}\nhist-02,Windows Server 2019 Datacenter,ServerDatacenter,1809,ten,x64,Server,,Get-HotFix,,2026-07-01T08:00:00Z\n`,
    },
  );
  assert.equal(w.statusCode, 422);
  assert.match(text(w.body), /1 row refused: nothing was stored/);
  assert.match(text(w.body), /3 hist-02 os_build: /);
  assert.equal(await hosts(), 0);

  // The good files: every row stored, back to the page that says so and shows them.
  const ok = await send({ _csrf: csrf, kind: 'nameplates' }, { name: 'n.csv', text: good });
  assert.equal(ok.statusCode, 303);
  assert.equal(ok.headers.location, `/environments/${env}?uploaded=nameplates`);
  assert.equal(await stored(), 2);
  const wok = await send({ _csrf: csrf, kind: 'windows' }, { name: 'h.csv', text: `${header}\n${host}\n` });
  assert.equal(wok.statusCode, 303);
  assert.equal(await hosts(), 1);
  const page = await get(`/environments/${env}?uploaded=windows`);
  assert.match(text(page.body), /Windows hosts uploaded: every row stored/);
  assert.match(page.body, /id="host-hist-01"/);
  assert.match(
    text(page.body.slice(page.body.indexOf('id="asset-drive-u1"'))),
    /CVE-2024-46886 .* affected .* V3\.1\.4/,
  );
  // The inventory export: the nameplates, then the hosts as submitted (KBs joined by ;, ESU as yes/no/blank).
  const inv = (await get(`/environments/${env}/inventory.csv`)).body.trim().split('\r\n');
  assert.equal(
    inv[0],
    'kind,asset_id,vendor,product,version,cpe,edition_id,display_version,os_build,architecture,installation_type,installed_kbs,kb_source,esu_enrolled,collected_at',
  );
  assert.deepEqual(inv.slice(1), [
    `nameplate,drive-u1,Siemens,${DRIVE},V3.1.3,,,,,,,,,,`,
    `nameplate,drive-u2,Siemens,${DRIVE},V3.1.4,,,,,,,,,,`,
    'windows,hist-01,Microsoft,Windows Server 2019 Datacenter,,,ServerDatacenter,1809,10.0.17763.6054,x64,Server,KB5040430,Get-HotFix,,2026-07-01T08:00:00Z',
  ]);
  // The results export holds the host too (no Microsoft data imported in this test: no CVE, one row).
  const res = (await get(`/environments/${env}/export.csv`)).body.trim().split('\r\n');
  assert.ok(res.includes('hist-01,Microsoft,,10.0.17763.6054,,,,,,'), res.join('\n'));
  await t.app.inject({ method: 'DELETE', url: `/api/v1/environments/${env}`, headers: o.auth });
});

test('watchlist: watch (an unknown id: the form with the message, nothing stored), list, stop watching', async () => {
  const bad = await post('/watchlist', { entity_type: 'protocol', entity_id: 'no-such-protocol' });
  assert.equal(bad.statusCode, 422);
  assert.match(bad.body, /id="entity_id-error"/);
  // The form says what the API says of the same id (the service's refusal, read by its code).
  const api = await t.app.inject({
    method: 'POST',
    url: '/api/v1/watchlist',
    headers: { ...o.auth, 'content-type': 'application/json' },
    payload: { entity_type: 'protocol', entity_id: 'no-such-protocol' },
  });
  assert.equal(api.statusCode, 422);
  assert.ok(text(bad.body).includes(api.json().error.detail[0].message), api.body);
  assert.equal(
    (await t.app.inject({ method: 'GET', url: '/api/v1/watchlist', headers: o.auth })).json().data.length,
    0,
  );
  const ok = await post('/watchlist', { entity_type: 'protocol', entity_id: 'modbus' });
  assert.equal(ok.statusCode, 303);
  assert.equal(
    (await post('/watchlist', { entity_type: 'protocol', entity_id: 'modbus' })).statusCode,
    303,
    'watched already: done',
  );
  const page = await get('/watchlist');
  assert.match(text(page.body), /protocol Modbus/i);
  const entry = (await t.app.inject({ method: 'GET', url: '/api/v1/watchlist', headers: o.auth })).json().data[0];
  assert.equal((await post(`/watchlist/${entry.id}/delete`, {})).statusCode, 303);
  assert.equal(
    (await t.app.inject({ method: 'GET', url: '/api/v1/watchlist', headers: o.auth })).json().data.length,
    0,
  );
});

test('webhooks: create shows the secret once, a refused URL shows the form with the message, test delivery outcome, rotate, re-enable a disabled one, delete; the overview flags it', async () => {
  const bad = await post('/webhooks', { label: 'Not a URL', url: 'hooks dot example' });
  assert.equal(bad.statusCode, 422);
  assert.match(bad.body, /id="url-error"/);
  assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: o.auth })).json().data.length, 0);
  const made = await post('/webhooks', { label: 'SOC', url: 'https://hooks.example.com/soc' });
  assert.equal(made.statusCode, 201);
  const secret = /id="webhook-secret">([^<]+)</.exec(made.body)![1];
  assert.ok(secret.length >= 24);
  assert.ok(!(await get('/webhooks')).body.includes(secret), 'shown once');
  const hook = (await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: o.auth })).json().data[0];

  // Disabled after failures (as the delivery does it): flagged on the overview, re-enabled from the page.
  await t.store.db
    .updateTable('webhooks')
    .set({ enabled: false, consecutive_failures: 5, disabled_reason: 'consecutive_failures', disabled_at: new Date() })
    .where('id', '=', hook.id)
    .execute();
  const ov = await get('/overview');
  assert.match(text(ov.body), /Webhook SOC is disabled after 5 failed deliveries/);
  assert.match((await get('/webhooks')).body, new RegExp(`action="/webhooks/${hook.id}/enable"`));
  assert.equal((await post(`/webhooks/${hook.id}/enable`, {})).statusCode, 303);
  assert.equal(
    (await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${hook.id}`, headers: o.auth })).json().data.status,
    'active',
  );
  assert.doesNotMatch(text((await get('/overview')).body), /is disabled after/);

  const rotated = await post(`/webhooks/${hook.id}/rotate`, {});
  assert.equal(rotated.statusCode, 200);
  const secret2 = /id="webhook-secret">([^<]+)</.exec(rotated.body)![1];
  assert.notEqual(secret2, secret);

  const edited = await post(`/webhooks/${hook.id}/edit`, { label: 'SOC desk', url: 'https://hooks.example.com/soc-2' });
  assert.equal(edited.statusCode, 303);
  assert.equal(
    (await t.app.inject({ method: 'GET', url: `/api/v1/webhooks/${hook.id}`, headers: o.auth })).json().data.label,
    'SOC desk',
  );

  // hooks.example.com does not resolve in tests: the outcome shown is the failure the service reports.
  const tested = await post(`/webhooks/${hook.id}/test`, {});
  assert.equal(tested.statusCode, 200);
  assert.match(text(tested.body), /Test delivery: failed/);
  const deliveries = await get(`/webhooks?id=${hook.id}`);
  assert.match(text(deliveries.body), /webhook\.test|test/);
  assert.equal((await post(`/webhooks/${hook.id}/delete`, {})).statusCode, 303);
  assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: o.auth })).json().data.length, 0);
});

test('alerts inbox: filters (priority, environment, reason, date) in the URL, read and unread per member, links to the CVE', async () => {
  const env = (
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/environments',
      headers: { ...o.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'Inbox hall' }),
    })
  ).json().data.id as number;
  const run = await t.store.db
    .insertInto('alert_runs')
    .values({ from_seq: 0, to_seq: 0, status: 'completed', trigger: 'cli' } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  const ids: Record<string, number> = {};
  for (const [cve, p, kind, matches, at] of [
    [
      'CVE-2024-46886',
      'PATCH NEXT',
      'kev_added',
      [{ entity_type: 'environment', entity_name: 'Inbox hall', asset_id: 'drive-a' }],
      '2026-07-09T08:00:00Z',
    ],
    ['CVE-2024-0001', 'MONITOR', 'new_cve', null, '2026-07-01T08:00:00Z'],
  ] as const) {
    const row = await t.store.db
      .insertInto('alerts')
      .values({
        org_id: o.orgId,
        run_id: run.id,
        cve_id: cve,
        sage_priority: p,
        reasons: null,
        change_kinds: null,
        match_type: matches ? 'environment' : 'vendor',
        match_name: matches ? 'Inbox hall' : 'Siemens',
        matches: matches ? JSON.stringify(matches) : null,
        payload: null,
        created_at: new Date(at),
      } as never)
      .returning('id')
      .executeTakeFirstOrThrow();
    ids[cve] = Number(row.id);
    // The run's CVE row, as the alert run stores it once per (run, CVE) (migration 1060): alert_view composes the payload from it.
    await t.store.db
      .insertInto('alert_cves')
      .values({
        run_id: run.id,
        cve_id: cve,
        reasons: [kind === 'kev_added' ? 'added to KEV' : 'new CVE'],
        change_kinds: [kind],
        stamp: at,
        data: JSON.stringify({ cve_id: cve }),
      } as never)
      .execute();
  }
  const shown = (body: string) => [...body.matchAll(/id="alert-(\d+)"/g)].map((m) => Number(m[1])).sort();
  assert.deepEqual(shown((await get('/alerts')).body), [ids['CVE-2024-46886'], ids['CVE-2024-0001']].sort());
  const next = await get('/alerts?priority=PATCH+NEXT');
  assert.match(text(next.body), /1 alerts/);
  assert.match(next.body, /href="\/cve\/CVE-2024-46886"/);
  assert.doesNotMatch(next.body, /CVE-2024-0001/);
  assert.match(next.body, /<option value="PATCH NEXT" selected>/);
  assert.deepEqual(
    shown((await get(`/alerts?environment_id=${env}`)).body),
    [ids['CVE-2024-46886']],
    'the environment among the matches',
  );
  assert.deepEqual(shown((await get('/alerts?change_kind=new_cve')).body), [ids['CVE-2024-0001']]);
  // Dates are whole UTC days, both ends included.
  assert.deepEqual(shown((await get('/alerts?date_from=2026-07-02')).body), [ids['CVE-2024-46886']]);
  assert.deepEqual(shown((await get('/alerts?date_to=2026-07-01')).body), [ids['CVE-2024-0001']]);
  assert.deepEqual(shown((await get('/alerts?date_from=2026-07-01&date_to=2026-07-08')).body), [ids['CVE-2024-0001']]);
  assert.equal((await get('/alerts?priority=nonsense')).statusCode, 422);
  assert.equal((await get('/alerts?date_from=yesterday')).statusCode, 422);
  assert.equal((await get('/alerts?environment_id=999999')).statusCode, 404);

  // Read and unread are each member's own: the owner reads one, the viewer still has both unread.
  assert.deepEqual(shown((await get('/alerts?unread=true')).body).length, 2);
  const mark = await post(`/alerts/${ids['CVE-2024-46886']}/read`, { back: '/alerts?unread=true' }, owner, '/alerts');
  assert.equal(mark.statusCode, 303);
  assert.equal(mark.headers.location, '/alerts?unread=true');
  assert.deepEqual(shown((await get('/alerts?unread=true')).body), [ids['CVE-2024-0001']]);
  assert.match((await get('/alerts')).body, new RegExp(`action="/alerts/${ids['CVE-2024-46886']}/unread"`));
  assert.equal(shown((await get('/alerts?unread=true', viewer)).body).length, 2, "the viewer's own state");
  // A viewer marks their own alerts read (their own state; nothing of the organization changes).
  assert.equal((await post('/alerts/read-all', {}, viewer, '/alerts')).statusCode, 303);
  assert.deepEqual(shown((await get('/alerts?unread=true', viewer)).body), []);
  assert.deepEqual(
    shown((await get('/alerts?unread=true')).body),
    [ids['CVE-2024-0001']],
    "the owner's state unchanged",
  );
  assert.equal((await post(`/alerts/${ids['CVE-2024-46886']}/unread`, {})).statusCode, 303);
  assert.equal(shown((await get('/alerts?unread=true')).body).length, 2);
  // Another organization's alert id: 404, nothing marked.
  assert.equal((await post('/alerts/999999999/read', {})).statusCode, 404);
  await t.app.inject({ method: 'DELETE', url: `/api/v1/environments/${env}`, headers: o.auth });
});

test('triage pages: decide a CVE (bad input: the form with the message, nothing stored), its comments and history, clear, bulk; a viewer reads only', async () => {
  const api = (method: 'GET' | 'POST', url: string, body?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: { ...o.auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      payload: body ? JSON.stringify(body) : undefined,
    });
  const env = (await api('POST', '/api/v1/environments', { name: 'Triage hall' })).json().data.id as number;
  await api('POST', '/api/v1/assets/correlate-cves', {
    environment_id: env,
    assets: [{ asset_id: 'drive-t1', vendor: 'Siemens', product: DRIVE, version: 'V3.1.3' }],
  });
  const page = `/environments/${env}/decisions/CVE-2024-46886`;
  assert.match(text((await get(page)).body), /Not decided yet/);
  assert.match(
    (await get(`/environments/${env}`)).body,
    new RegExp(`href="${page}"`),
    'the environment page links each CVE to its decision',
  );

  // not_affected without a justification: the API's rule and message, nothing stored.
  const bad = await post(page, { status: 'not_affected', impact_statement: 'Web server off' }, owner, page);
  assert.equal(bad.statusCode, 422);
  assert.match(bad.body, /id="justification-error"[^>]*>not_affected needs a justification/);
  assert.match(bad.body, />Web server off<\/textarea>/, 'the form keeps what was typed');
  assert.equal((await api('GET', `/api/v1/environments/${env}/decisions/CVE-2024-46886`)).statusCode, 404);
  assert.equal((await post(page, { status: 'affected', assignee_member_id: 'x1' }, owner, page)).statusCode, 422);

  const set = await post(
    page,
    {
      status: 'not_affected',
      justification: 'vulnerable_code_not_in_execute_path',
      impact_statement: 'Web server off on every drive',
      comment: 'Checked on site',
    },
    owner,
    page,
  );
  assert.equal(set.statusCode, 303);
  assert.equal(set.headers.location, page);
  const d1 = (await api('GET', `/api/v1/environments/${env}/decisions/CVE-2024-46886`)).json().data;
  assert.equal(d1.status, 'not_affected');
  assert.equal(d1.justification, 'vulnerable_code_not_in_execute_path');
  // Affected, with its action, due date and the viewer as assignee: the history shows both changes, before and after.
  const vid = (
    await t.store.db
      .selectFrom('members')
      .select('id')
      .where('org_id', '=', o.orgId)
      .where('role', '=', 'viewer')
      .executeTakeFirstOrThrow()
  ).id;
  assert.equal(
    (
      await post(
        page,
        {
          status: 'affected',
          action_statement: 'Patch at the March outage',
          due_date: '2027-03-15',
          assignee_member_id: String(vid),
          justification: '',
        },
        owner,
        page,
      )
    ).statusCode,
    303,
  );
  const shown = await get(page);
  assert.match(text(shown.body), /Decided: affected · version 2/);
  assert.match(text(shown.body), /Checked on site/, 'the comment');
  const history = text(shown.body.slice(shown.body.indexOf('id="history"')));
  assert.match(
    history,
    /set — not affected · vulnerable code not in execute path · impact: Web server off on every drive Checked on site/,
  );
  assert.match(history, /set not affected .* affected · due 2027-03-15 · action: Patch at the March outage/);
  assert.match(shown.body, new RegExp(`<option value="${vid}" selected>`));

  // A viewer reads the decision and its history, sees no form, and is refused a write: nothing changes.
  const seen = await get(page, viewer);
  assert.equal(seen.statusCode, 200);
  assert.doesNotMatch(seen.body, /id="decision"|decisions\/bulk/);
  assert.equal((await post(page, { status: 'fixed' }, viewer, page)).statusCode, 403);
  assert.equal(
    (await api('GET', `/api/v1/environments/${env}/decisions/CVE-2024-46886`)).json().data.status,
    'affected',
  );

  // Clear: undecided again, the history keeps the clear.
  assert.equal((await post(`${page}/clear`, {}, owner, page)).statusCode, 303);
  assert.equal((await api('GET', `/api/v1/environments/${env}/decisions/CVE-2024-46886`)).statusCode, 404);
  assert.match(text((await get(page)).body), /Not decided yet\..*clear/);

  // Bulk: no criterion is refused with the message; the environment's undecided Siemens CVEs get one decision.
  const list = `/environments/${env}/decisions`;
  const none = await post(`${list}/bulk`, { status: 'under_investigation' }, owner, list);
  assert.equal(none.statusCode, 422);
  assert.match(text(none.body), /a bulk decision needs at least one filter criterion/);
  const affected = (await api('GET', `/api/v1/assets/results?environment_id=${env}`))
    .json()
    .data.assets[0].cves.filter((c: { status: string }) => c.status !== 'not_affected').length;
  const bulk = await post(
    `${list}/bulk`,
    { vendor: 'Siemens', undecided: 'true', status: 'under_investigation', comment: 'Line review' },
    owner,
    list,
  );
  assert.equal(bulk.statusCode, 200, bulk.body.slice(0, 300));
  assert.match(
    text(bulk.body),
    new RegExp(`Applied to ${affected} CVEs: ${affected} decided, 0 changed, 0 already so`),
  );
  assert.equal((await api('GET', `/api/v1/environments/${env}/decisions`)).json().pagination.total, affected);
  assert.match((await get(list)).body, new RegExp(`href="${page}"`));
  await t.app.inject({ method: 'DELETE', url: `/api/v1/environments/${env}`, headers: o.auth });
});

test('a viewer sees every page without the forms that change things, and is refused when posting one', async () => {
  for (const url of ['/environments', '/watchlist', '/webhooks']) {
    const r = await get(url, viewer);
    assert.equal(r.statusCode, 200);
    assert.doesNotMatch(r.body, /action="\/(environments|watchlist|webhooks)"/, url);
  }
  const r = await post('/environments', { name: 'Viewer plant' }, viewer);
  assert.equal(r.statusCode, 403);
  assert.equal(
    (await t.app.inject({ method: 'GET', url: '/api/v1/environments', headers: o.auth }))
      .json()
      .data.some((e: any) => e.name === 'Viewer plant'),
    false,
  );
  // A form without the page's CSRF token is refused.
  const noCsrf = await t.app.inject({
    method: 'POST',
    url: '/environments',
    headers: {
      cookie: owner.cookie.replace(/; vi_csrf=.*/, ''),
      origin,
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: 'name=No+token',
  });
  assert.equal(noCsrf.statusCode, 403);
});

test('CVE explorer: the §4.1 filters as a GET form (blank fields ignored, the URL holds the query), cards link to the CVE page, one click watches the vendor', async () => {
  const r = await get('/cves?q=&vendor=Siemens&severity=&kev=&sort_by=');
  assert.equal(r.statusCode, 200, r.body.slice(0, 400));
  const api = (await t.app.inject({ method: 'GET', url: '/api/v1/cves?vendor=Siemens', headers: o.auth })).json();
  assert.match(text(r.body), new RegExp(` ${api.pagination.total} CVEs `), "the API's total");
  assert.ok(api.data.length > 0);
  for (const c of api.data) assert.match(r.body, new RegExp(`href="/cve/${c.cve_id}"`));
  assert.match(r.body, /<input name="vendor" value="Siemens"/, 'the form shows the query');
  assert.equal((await get('/cves?cvss_min=eleven')).statusCode, 422);
  // Watch the vendor from a card: back to the same view.
  const back = '/cves?vendor=Siemens';
  const w = await post('/watchlist', { entity_type: 'vendor', entity_id: 'siemens', back }, owner, back);
  assert.equal(w.statusCode, 303);
  assert.equal(w.headers.location, back);
  assert.ok(
    (await t.app.inject({ method: 'GET', url: '/api/v1/watchlist', headers: o.auth }))
      .json()
      .data.some((e: any) => e.entity_type === 'vendor' && e.entity_id === 'siemens'),
  );
});
