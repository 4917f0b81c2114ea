// The account pages in Chromium (issue 12): sign-in by the emailed link, the account page, invite, create a key
// (shown once), revoke it, delete the organization with the confirmation text. No JavaScript: plain forms with the
// CSRF token. Screenshots of each page go to test-artifacts/account-pages/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { startSmtp, linkIn, type TestSmtp } from '../helpers/smtp.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { freePort } from '../helpers/net.ts';
import { DELETE_CONFIRMATION } from '../../src/domain/accounts.ts';

const SHOTS = new URL('../../test-artifacts/account-pages/', import.meta.url).pathname;
let t: TestApp;
let smtp: TestSmtp;
let browser: Browser;
let base: string;

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  smtp = await startSmtp();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // Real time: the browser's cookies expire by the wall clock.
  t = await testApp({ env: { SMTP_URL: smtp.url, VULNINTEL_PUBLIC_URL: base }, now: new Date().toISOString() });
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await t.close();
  await smtp.close();
});

const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });

test('sign in, invite, create a key shown once, revoke it, delete the organization: all by forms, no script', async () => {
  const o = await seedOrg(t.store, { name: 'Browser Org', tier: 'professional' });
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const page = await ctx.newPage();

  await page.goto(`${base}/login`);
  await shot(page, '1-login');
  await page.fill('input[name=email]', o.ownerEmail);
  await page.click('button[type=submit]');
  assert.match(await page.textContent('h1') ?? '', /Check your email/);
  await shot(page, '2-check-email');

  const mail = await smtp.waitFor(o.ownerEmail);
  const link = linkIn(mail, '/api/v1/auth/callback');
  await page.goto(link.toString());
  assert.equal(new URL(page.url()).pathname, '/account');
  assert.equal(await page.textContent('h1'), 'Browser Org');
  assert.match(await page.textContent('body') ?? '', /Members\s*1 of 5/);
  await shot(page, '3-account');

  await page.fill('form[action="/account/team/invite"] input[name=email]', 'page.colleague@example.test');
  await page.click('form[action="/account/team/invite"] button');
  assert.match(await page.textContent('body') ?? '', /page\.colleague@example\.test\s*\(invited\)/);
  assert.match(await page.textContent('body') ?? '', /Members\s*2 of 5/);
  await smtp.waitFor('page.colleague@example.test');

  await page.fill('form[action="/account/keys"] input[name=label]', 'Browser key');
  await page.click('form[action="/account/keys"] button');
  const key = (await page.textContent('#new-key'))!.trim();
  assert.match(key, /^vi_live_/);
  await shot(page, '4-key-created');
  const me = await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: { authorization: `Bearer ${key}` } });
  assert.equal(me.statusCode, 200);
  await page.goto(`${base}/account`);
  assert.equal(await page.locator('#new-key').count(), 0, 'the key is shown once');
  const row = page.locator('tr', { hasText: 'Browser key' });
  await row.locator('button', { hasText: 'Revoke' }).click();
  assert.match(await page.locator('tr', { hasText: 'Browser key' }).textContent() ?? '', /revoked/);
  assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: { authorization: `Bearer ${key}` } })).statusCode, 401);

  await page.fill('form[action="/account/delete"] input[name=confirmation]', DELETE_CONFIRMATION);
  await shot(page, '5-delete');
  await page.click('form[action="/account/delete"] button');
  assert.match(await page.textContent('h1') ?? '', /Organization deleted/);
  await shot(page, '6-deleted');
  assert.equal(await t.app.services.accounts.isActive(o.orgId), false);
  await ctx.close();
});

test('a form posted without the page\'s CSRF token is refused, even with the session cookie and the right Origin', async () => {
  const o = await seedOrg(t.store, { name: 'Csrf Org', tier: 'professional' });
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const page = await ctx.newPage();
  await page.goto(`${base}/login`);
  await page.fill('input[name=email]', o.ownerEmail);
  await page.click('button[type=submit]');
  await page.goto(linkIn(await smtp.waitFor(o.ownerEmail), '/api/v1/auth/callback').toString());
  // The same form without the hidden token, as a forged page would send it (same origin here, so only the token is missing).
  const cookies = await ctx.cookies();
  const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const forged = await t.app.inject({ method: 'POST', url: '/account/team/invite', headers: { cookie, origin: base, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'email=evil%40example.test&role=admin' });
  assert.equal(forged.statusCode, 403, forged.body);
  assert.equal(forged.json().error.detail.error, 'csrf_token_missing');
  const team = await t.app.services.accounts.team({ orgId: o.orgId } as never);
  assert.equal(team.invitations.length, 0);
  await ctx.close();
});
