// Accessibility of every page in Chromium: axe-core (through @axe-core/playwright, WCAG 2.1 A and AA rules) finds no
// serious or critical violation on any page, signed in with data on it (an environment with assets and a Windows
// host, a refused upload, a webhook, alerts) and signed out (sign-in, the CVE page, the status page), on a desktop
// and a phone-sized screen; and the app is usable by keyboard: the skip link comes first, every control is reached
// by Tab, and a form is filled and sent with the keyboard alone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { launchBrowser } from '../helpers/browser.ts';
import { startWebDemo, type WebDemo } from '../helpers/web-demo.ts';

const DRIVE = 'SIMATIC Drive Controller CPU 1504D TF (6ES7615-4DF10-0AB0)';
let demo: WebDemo;
let browser: Browser;
let base: string;
let signedIn: BrowserContext;
let env: number;

before(async () => {
  demo = await startWebDemo();
  ({ base, env } = demo);
  browser = await launchBrowser();
  signedIn = await demo.signIn(browser, { width: 1280, height: 800 });
});
after(async () => {
  await browser?.close();
  await demo?.close();
});

/** The serious and critical violations of a page, as "rule: target" lines (empty when none). */
async function violations(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')} ${n.failureSummary ?? ''}`));
}

test('every signed-in page: no serious or critical axe violation, on a desktop and on a phone', async () => {
  const page = await signedIn.newPage();
  const found: string[] = [];
  for (const size of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(size);
    for (const url of demo.pages) {
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
  await page.setInputFiles('#upload-nameplates input[type=file]', {
    name: 'n.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(`asset_id,vendor,product,version\nx-1,,${DRIVE},V1\n`),
  });
  await page.click('#upload-nameplates button[type=submit]');
  assert.ok(await page.isVisible('#upload-errors'));
  const found = (await violations(page)).map((v) => `upload refused: ${v}`);
  await page.goto(`${base}/environments`);
  await page.click('form[action="/environments"] button[type=submit]'); // no name: the field's message
  assert.match((await page.textContent('#name-error')) ?? '', /Enter a name/);
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
  const controls = await page.evaluate(
    () =>
      [...document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea, summary')].filter(
        (e) => (e as HTMLElement).offsetParent !== null || e.classList.contains('skip'),
      ).length,
  );
  assert.equal(await page.locator('[tabindex]:not([tabindex="0"]):not([tabindex="-1"])').count(), 0);
  const reached = new Set<string>();
  for (let i = 0; i < controls + 2; i++) {
    reached.add(
      await page.evaluate(() => {
        const e = document.activeElement!;
        return `${e.tagName}|${e.getAttribute('name') ?? ''}|${e.getAttribute('href') ?? ''}|${e.textContent?.trim() ?? ''}|${[...document.querySelectorAll('*')].indexOf(e)}`;
      }),
    );
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
  assert.match((await page.textContent('#environments')) ?? '', /Keyboard hall/);
  await page.close();
});
