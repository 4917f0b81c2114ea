// The web app's journey in Chromium (issue: "A place to work"), the nine steps in order: sign in through the emailed
// link; create an environment; upload a CSV of 50 real ICS nameplates and one of 10 Windows hosts (a refused file
// first: its rows and reasons on the page, nothing stored); see the exposure; watch a vendor; create a webhook to a
// loopback receiver and send a test delivery the receiver verifies; import a newer KEV catalog and run the alert run;
// the alert in the inbox and its signed delivery at the receiver; a disabled webhook re-enabled from the page.
// Real data (test/fixtures/PROVENANCE.md): the CISA ICS advisories and NVD records of the fixtures, Microsoft's MSRC
// documents, the nameplates and hosts of test/fixtures/web/, and the KEV catalog cut that adds CVE-2024-21338 and
// CVE-2024-49138 (Microsoft Windows).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { startSmtp, linkIn, type TestSmtp } from '../helpers/smtp.ts';
import { startReceiver, verifySpecSignature, type Receiver } from '../helpers/webhook-receiver.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { freePort } from '../helpers/net.ts';
import { fixture } from '../helpers/feeds.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import { FIXTURE_DIR } from '../unit/windows/fixture-index.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { importMsrcDocuments } from '../../src/services/import/msrc-documents.ts';
import { createAlertService } from '../../src/services/alerts.ts';
import { deliverPendingAlerts } from '../../src/jobs/alerts.ts';

const NAMEPLATES = readFileSync(new URL('../fixtures/web/ics-nameplates.csv', import.meta.url));
const HOSTS = readFileSync(new URL('../fixtures/web/windows-hosts.csv', import.meta.url));
const quiet = { info() {}, warn() {} };
let t: TestApp;
let smtp: TestSmtp;
let rx: Receiver;
let browser: Browser;
let base: string;

const alertService = () => createAlertService(t.store.db, { publicUrl: t.config.publicUrl, now: () => new Date() });

before(async () => {
  smtp = await startSmtp();
  rx = await startReceiver();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // Real time: the browser's cookies expire by the wall clock.
  t = await testApp({
    env: { SMTP_URL: smtp.url, VULNINTEL_PUBLIC_URL: base, VULNINTEL_WEBHOOK_EGRESS_ALLOW: rx.hostPort },
    now: new Date().toISOString(),
  });
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES, ...CSAF_FIXTURES])], { log: quiet });
  await importMsrcDocuments(t.store.db, [FIXTURE_DIR]);
  await alertService().run('cli'); // the baseline import's window: nothing to alert yet
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await t.close();
  await rx.close();
  await smtp.close();
});

const body = async (page: Page) => (await page.textContent('main')) ?? '';
const upload = async (page: Page, kind: 'nameplates' | 'windows', name: string, buffer: Buffer) => {
  await page.setInputFiles(`#upload-${kind} input[type=file]`, { name, mimeType: 'text/csv', buffer });
  await page.click(`#upload-${kind} button[type=submit]`);
};

test('journey: sign in, environment, uploads, exposure, watch, webhook, KEV import and alert run, inbox and signed delivery, re-enable', async () => {
  const o = await seedOrg(t.store, { name: 'Journey Plant Co', tier: 'professional' });
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  page.setDefaultTimeout(10_000);

  // 1. Sign in through the emailed link.
  await page.goto(`${base}/login`);
  await page.fill('input[name=email]', o.ownerEmail);
  await page.click('button[type=submit]');
  const link = linkIn(await smtp.waitFor(o.ownerEmail), '/api/v1/auth/callback');
  await page.goto(link.toString());
  assert.equal(new URL(page.url()).pathname, '/account');

  // 2. Create an environment.
  await page.click('nav[aria-label=Main] >> text=Environments');
  await page.fill('input[name=name]', 'Line 3 packaging');
  await page.fill('input[name=description]', 'Cell controllers and HMIs');
  await page.click('form[action="/environments"] button[type=submit]');
  await page.click('a:text-is("Line 3 packaging")');
  const envPath = new URL(page.url()).pathname;
  assert.match(envPath, /^\/environments\/\d+$/);
  const envId = Number(envPath.split('/')[2]);

  // 3. Upload: a file with one refused row stores nothing and names the row; then the 50 nameplates and 10 hosts.
  const lines = NAMEPLATES.toString().split('\n');
  const bad = [...lines.slice(0, 5), `ics-bad,Siemens,SIMATIC S7-1500,ops@plant.example.com`, ...lines.slice(5)].join(
    '\n',
  );
  await upload(page, 'nameplates', 'nameplates.csv', Buffer.from(bad));
  assert.match((await page.textContent('#upload-refused')) ?? '', /1 row refused: nothing was stored/);
  assert.match(
    (await page.textContent('#upload-errors')) ?? '',
    /6\s*ics-bad\s*version: version must name the product's version, not a host, address or person/,
  );
  const stored = await t.app.inject({
    method: 'GET',
    url: `/api/v1/assets/results?environment_id=${envId}`,
    headers: o.auth,
  });
  assert.equal(stored.json().pagination.total, 0, 'nothing stored from the refused file');

  await upload(page, 'nameplates', 'ics-nameplates.csv', NAMEPLATES);
  assert.match((await page.textContent('#upload-done')) ?? '', /Nameplates uploaded: every row stored/);
  await upload(page, 'windows', 'windows-hosts.csv', HOSTS);
  assert.match((await page.textContent('#upload-done')) ?? '', /Windows hosts uploaded/);
  assert.equal(await page.locator('section[id^="asset-ics-"]').count(), 50);
  assert.equal(await page.locator('section[id^="host-win-"]').count(), 10);

  // 4. The exposure: the drive controller below its fix is affected with the advisory's fix; the end-of-life
  // Windows Server 2012 R2 host says so; the fix groups read "Install KB…"; the overview counts them.
  const drive = (await page.textContent('#asset-ics-026')) ?? '';
  assert.match(drive, /CVE-2024-46886\s*.*affected/s);
  assert.match(drive, /V3\.1\.4/);
  const opc = (await page.textContent('#host-win-opc-02')) ?? '';
  assert.match(opc, /Windows Server 2012 R2/);
  assert.match(opc, /end of life/);
  assert.match((await page.textContent('#host-win-hist-01')) ?? '', /Install KB\d+/);
  // Both exports: the results name the drive's CVE and its fix, and the hosts' CVEs with the KB to install.
  const results = (await (await page.request.get(`${base}/environments/${envId}/export.csv`)).text()).split('\r\n');
  assert.ok(
    results.some((r) =>
      /^ics-026,Siemens,SIMATIC Drive Controller CPU 1504D TF .*,V3\.1\.3,CVE-2024-46886,affected,.*V3\.1\.4/.test(r),
    ),
    results
      .filter((r) => /ics-026|win-hist-01/.test(r))
      .slice(0, 8)
      .join('\n'),
  );
  assert.ok(
    results.some((r) =>
      /^win-hist-01,Microsoft,Windows Server 2019[^,]*,10\.0\.17763\.6054,CVE-\d+-\d+,confirmed open,"Install KB\d+ .*",KB\d+ \(build 10\.0\.17763\.\d+\)/.test(
        r,
      ),
    ),
    results
      .filter((r) => /win-hist-01/.test(r))
      .slice(0, 5)
      .join('\n'),
  );
  const inventory = (await (await page.request.get(`${base}/environments/${envId}/inventory.csv`)).text())
    .trim()
    .split('\r\n');
  assert.equal(inventory.length, 1 + 50 + 10);
  await page.click('nav[aria-label=Main] >> text=Overview');
  const card = page.locator(`#env-${envId}`);
  const api = (
    await t.app.inject({
      method: 'GET',
      url: `/api/v1/assets/results?environment_id=${envId}&per_page=200`,
      headers: o.auth,
    })
  ).json();
  const affected = new Set<string>();
  for (const a of api.data.assets as { cves: { cve_id: string; status: string }[] }[])
    for (const c of a.cves) if (c.status === 'affected') affected.add(c.cve_id);
  assert.ok(affected.has('CVE-2024-46886'));
  const counted = ['PATCH NOW', 'PATCH NEXT', 'MONITOR'].map(async (p) =>
    Number(await card.locator(`dd[data-priority="${p}"]`).textContent()),
  );
  assert.ok(
    (await Promise.all(counted)).reduce((x, y) => x + y, 0) >= affected.size,
    "the overview counts at least the nameplates' affected CVEs",
  );

  // 5. Watch a vendor.
  await page.click('nav[aria-label=Main] >> text=Watchlist');
  await page.selectOption('select[name=entity_type]', 'vendor');
  await page.fill('input[name=entity_id]', 'microsoft');
  await page.click('form[action="/watchlist"] button[type=submit]');
  assert.match((await page.textContent('#watchlist')) ?? '', /vendor\s*Microsoft/i);

  // 6. A webhook to the loopback receiver, its secret shown once, and a test delivery the receiver verifies.
  await page.click('nav[aria-label=Main] >> text=Webhooks');
  await page.fill('form[action="/webhooks"] input[name=label]', 'Plant SOC');
  await page.fill('form[action="/webhooks"] input[name=url]', `${rx.base}/ok/soc`);
  await page.click('form[action="/webhooks"] button[type=submit]');
  const secret = (await page.textContent('#webhook-secret'))!.trim();
  assert.ok(secret.length >= 32);
  await page.click('button:text-is("Send a test delivery")');
  assert.match((await page.textContent('#test-outcome')) ?? '', /Test delivery: delivered \(HTTP 200\)/);
  const testDelivery = rx.received.at(-1)!;
  assert.equal(testDelivery.path, '/ok/soc');
  assert.ok(verifySpecSignature(secret, testDelivery), "the receiver verifies the test delivery's signature");
  await page.fill('form[action="/webhooks"] input[name=label]', 'Historian bridge');
  await page.fill('form[action="/webhooks"] input[name=url]', `${rx.base}/error/bridge`);
  await page.click('form[action="/webhooks"] button[type=submit]');
  assert.match((await page.textContent('main')) ?? '', /Webhook Historian bridge created/);

  // 7. A newer KEV catalog, then the alert run and its deliveries (what the worker's job does).
  await importPaths(t.store.db, [feedDir([fixture('kev', 'kev-cut.json')])], { log: quiet });
  const svc = alertService();
  await svc.run('cli');
  await deliverPendingAlerts(t.store.db, t.config, svc, () => {});

  // 8. The alert in the inbox, and its signed delivery at the receiver.
  await page.click('nav[aria-label=Main] >> text=Alerts');
  const inbox = (await page.textContent('#alerts')) ?? '';
  assert.match(inbox, /CVE-2024-21338/);
  assert.match(inbox, /added to KEV/);
  const delivered = rx.received.filter((r) => r.path === '/ok/soc' && r.raw.toString().includes('CVE-2024-21338'));
  assert.equal(delivered.length, 1);
  assert.ok(verifySpecSignature(secret, delivered[0]), "the receiver verifies the alert's signature");

  // 9. A disabled webhook re-enabled from the page. Its receiver failed the alert (HTTP 500, in its recent
  // deliveries); the disable after five consecutive failures (webhooks-delivery.test.ts) is set in the store here.
  await page.click('nav[aria-label=Main] >> text=Webhooks');
  const bridge = page.locator('section.card', { hasText: 'Historian bridge' });
  await bridge.locator('a:text-is("Recent deliveries")').click();
  assert.match((await bridge.locator('table.deliveries').textContent()) ?? '', /CVE-2024-21338\s*failed\s*500/);
  await t.store.db
    .updateTable('webhooks')
    .set({ enabled: false, disabled_reason: 'consecutive_failures', consecutive_failures: 5, disabled_at: new Date() })
    .where('org_id', '=', o.orgId)
    .where('label', '=', 'Historian bridge')
    .execute();
  await page.click('nav[aria-label=Main] >> text=Overview');
  assert.match(
    (await page.textContent('.alert-box')) ?? '',
    /Webhook Historian bridge is disabled after 5 failed deliveries/,
  );
  await page.click('nav[aria-label=Main] >> text=Webhooks');
  assert.match((await bridge.textContent()) ?? '', /Disabled after 5 failed deliveries/);
  await page.click('nav[aria-label=Main] >> text=Overview');
  await page.click('.alert-box >> text=Re-enable it on the webhooks page');
  assert.equal(new URL(page.url()).pathname, '/webhooks');
  await bridge.locator('button:text-is("Re-enable")').click();
  assert.match((await bridge.locator('.badge').textContent()) ?? '', /active/);
  const hooks = (await t.app.inject({ method: 'GET', url: '/api/v1/webhooks', headers: o.auth })).json().data as {
    label: string;
    status: string;
    consecutive_failures: number;
  }[];
  assert.deepEqual(hooks.map((h) => [h.label, h.status]).sort(), [
    ['Historian bridge', 'active'],
    ['Plant SOC', 'active'],
  ]);
  assert.match(await body(page), /Historian bridge/);
  await ctx.close();
});
