// Accessibility of every page in Chromium: axe-core (through @axe-core/playwright, WCAG 2.1 A and AA rules) finds no
// serious or critical violation on any page, signed in with data on it (an environment with assets and a Windows
// host, a refused upload, a webhook, alerts) and signed out (sign-in, the CVE page, the status page), on a desktop
// and a phone-sized screen; and the app is usable by keyboard: the skip link comes first, every control is reached
// by Tab, and a form is filled and sent with the keyboard alone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { testApp, seedOrg, seedSession, type TestApp } from '../helpers/app.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { freePort } from '../helpers/net.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import { importPaths } from '../../src/ingest/pipeline.ts';
import { SESSION_COOKIE, CSRF_COOKIE } from '../../src/http/auth.ts';

const DRIVE = 'SIMATIC Drive Controller CPU 1504D TF (6ES7615-4DF10-0AB0)';
const HOST = {
  asset_id: 'hist-01', os_product: 'Windows Server 2019 Datacenter', edition_id: 'ServerDatacenter', display_version: '1809',
  os_build: '10.0.17763.6054', architecture: 'x64', installation_type: 'Server', installed_kbs: ['KB5040430'], kb_source: 'Get-HotFix',
  esu_enrolled: '', collected_at: '2026-07-01T08:00:00Z',
};
let t: TestApp;
let browser: Browser;
let base: string;
let signedIn: BrowserContext;
let env: number;
let hookId: number;

before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  t = await testApp({ env: { VULNINTEL_PUBLIC_URL: base, VULNINTEL_WEBHOOK_EGRESS_ALLOW: 'hooks.example.com' }, now: new Date().toISOString() });
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES, ...CSAF_FIXTURES])], { log: { info() {}, warn() {} } });
  const o = await seedOrg(t.store, { name: 'Accessible Plant Co', tier: 'professional' });
  const call = async (method: 'POST', url: string, body: unknown) => {
    const r = await t.app.inject({ method, url, headers: { ...o.auth, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
    assert.ok(r.statusCode < 300, `${url}: ${r.body.slice(0, 300)}`);
    return r.json().data;
  };
  env = (await call('POST', '/api/v1/environments', { name: 'Packaging hall', description: 'Line 3' })).id;
  await call('POST', '/api/v1/assets/correlate-cves', { environment_id: env, assets: [{ asset_id: 'drive-1', vendor: 'Siemens', product: DRIVE, version: 'V3.1.3' }, { asset_id: 'drive-2', vendor: 'Siemens', product: DRIVE, version: 'V3.1.4' }] });
  await t.app.inject({ method: 'POST', url: '/api/v2/assets/correlate', headers: { ...o.auth, 'content-type': 'application/json' }, payload: JSON.stringify({ environment_id: env, windows_hosts: [HOST] }) });
  await call('POST', '/api/v1/watchlist', { entity_type: 'vendor', entity_id: 'siemens' });
  hookId = (await call('POST', '/api/v1/webhooks', { label: 'SOC', url: 'https://hooks.example.com/soc' })).id;
  const run = await t.store.db.insertInto('alert_runs').values({ from_seq: 0, to_seq: 0, status: 'completed', trigger: 'cli' } as never).returning('id').executeTakeFirstOrThrow();
  await t.store.db.insertInto('alerts').values({ org_id: o.orgId, run_id: run.id, cve_id: 'CVE-2024-46886', sage_priority: 'PATCH NEXT', reasons: ['new CVE'], change_kinds: ['new_cve'], match_type: 'vendor', match_name: 'Siemens', payload: '{}' } as never).execute();
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await launchBrowser();
  const s = await seedSession(t.store, o.orgId, o.memberId);
  const value = (name: string) => new RegExp(`${name}=([^;]+)`).exec(s.cookie)![1];
  signedIn = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await signedIn.addCookies([SESSION_COOKIE, CSRF_COOKIE].map((name) => ({ name, value: value(name), url: base })));
});
after(async () => {
  await browser?.close();
  await t.close();
});

/** The serious and critical violations of a page, as "rule: target" lines (empty when none). */
async function violations(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')} ${n.failureSummary ?? ''}`));
}

const SIGNED_IN = () => ['/overview', '/cves', '/cves?vendor=Siemens', '/environments', `/environments/${env}`, '/alerts', '/watchlist', '/webhooks', `/webhooks?id=${hookId}`,
  '/account', '/account/notifications', '/training', '/training/ics-ot-security-fundamentals', '/cve/CVE-2024-46886', '/api/v1/health'];

test('every signed-in page: no serious or critical axe violation, on a desktop and on a phone', async () => {
  const page = await signedIn.newPage();
  const found: string[] = [];
  for (const size of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    await page.setViewportSize(size);
    for (const url of SIGNED_IN()) {
      const r = await page.goto(`${base}${url}`);
      assert.equal(r?.status(), 200, url);
      assert.equal(new URL(page.url()).pathname, url.split('?')[0], `${url}: not sent to sign-in`);
      found.push(...(await violations(page)).map((v) => `${size.width}px ${url}: ${v}`));
    }
  }
  assert.deepEqual(found, []);
  await page.close();
});

test('pages with a form answered: the refused upload, the webhook secret and a test outcome, bad input with its message', async () => {
  const page = await signedIn.newPage();
  await page.goto(`${base}/environments/${env}`);
  await page.setInputFiles('#upload-nameplates input[type=file]', { name: 'n.csv', mimeType: 'text/csv', buffer: Buffer.from(`asset_id,vendor,product,version\nx-1,,${DRIVE},V1\n`) });
  await page.click('#upload-nameplates button[type=submit]');
  assert.ok(await page.isVisible('#upload-errors'));
  const found = (await violations(page)).map((v) => `upload refused: ${v}`);
  await page.goto(`${base}/environments`);
  await page.click('form[action="/environments"] button[type=submit]'); // no name: the field's message
  assert.match(await page.textContent('#name-error') ?? '', /Enter a name/);
  found.push(...(await violations(page)).map((v) => `environment refused: ${v}`));
  await page.goto(`${base}/webhooks`);
  await page.fill('form[action="/webhooks"] input[name=label]', 'Second');
  await page.fill('form[action="/webhooks"] input[name=url]', 'https://hooks.example.com/second');
  await page.click('form[action="/webhooks"] button[type=submit]');
  assert.ok(await page.isVisible('#webhook-secret'));
  found.push(...(await violations(page)).map((v) => `webhook secret: ${v}`));
  assert.deepEqual(found, []);
  await page.close();
});

test('signed-out pages: sign-in, the CVE page and the status page', async () => {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await ctx.newPage();
  const found: string[] = [];
  for (const url of ['/login', '/cve/CVE-2024-46886', '/api/v1/health']) {
    await page.goto(`${base}${url}`);
    found.push(...(await violations(page)).map((v) => `${url}: ${v}`));
  }
  assert.deepEqual(found, []);
  await ctx.close();
});

test('keyboard: the skip link first, every control reached by Tab, an environment created with the keyboard alone', async () => {
  const page = await signedIn.newPage();
  await page.goto(`${base}/environments`);
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
  // Tab through the page: every visible link, button, input and select is reached, none with a positive tabindex.
  const controls = await page.evaluate(() => [...document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, summary')]
    .filter((e) => (e as HTMLElement).offsetParent !== null || e.classList.contains('skip')).length);
  assert.equal(await page.locator('[tabindex]:not([tabindex="0"]):not([tabindex="-1"])').count(), 0);
  const reached = new Set<string>();
  for (let i = 0; i < controls + 2; i++) {
    reached.add(await page.evaluate(() => { const e = document.activeElement!; return `${e.tagName}|${e.getAttribute('name') ?? ''}|${e.getAttribute('href') ?? ''}|${e.textContent?.trim() ?? ''}|${[...document.querySelectorAll('*')].indexOf(e)}`; }));
    await page.keyboard.press('Tab');
  }
  assert.ok(reached.size >= controls, `${reached.size} of ${controls} controls reached by Tab`);
  // Fill and send the create form by keyboard: focus the name field by Tab, type, Enter.
  await page.goto(`${base}/environments`);
  for (let i = 0; i < controls + 2; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.name === 'name')) break;
  }
  await page.keyboard.type('Keyboard hall');
  await page.keyboard.press('Enter');
  await page.waitForURL(`${base}/environments`);
  assert.match(await page.textContent('#environments') ?? '', /Keyboard hall/);
  await page.close();
});
