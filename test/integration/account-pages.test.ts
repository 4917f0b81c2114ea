// The account pages in Chromium: sign-in by the emailed link, the account page, invite, create a key
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

/** A new page of `ctx`, signed in by the sign-in form and the link emailed for it (a link of this request only). */
async function signInWith(ctx: Awaited<ReturnType<Browser['newContext']>>, email: string): Promise<Page> {
  const page = await ctx.newPage();
  const seen = new Set(smtp.messages);
  await page.goto(`${base}/login`);
  await page.fill('input[name=email]', email);
  await page.click('button[type=submit]');
  await page.goto(
    linkIn(await smtp.waitFor(email, { match: (m) => !seen.has(m) }), '/api/v1/auth/callback').toString(),
  );
  assert.equal(new URL(page.url()).pathname, '/account');
  return page;
}

test('sign in, invite, create a key shown once, revoke it, delete the organization: all by forms, no script', async () => {
  const o = await seedOrg(t.store, { name: 'Browser Org', tier: 'professional' });
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const page = await ctx.newPage();

  await page.goto(`${base}/login`);
  await shot(page, '1-login');
  await page.fill('input[name=email]', o.ownerEmail);
  await page.click('button[type=submit]');
  assert.match((await page.textContent('h1')) ?? '', /Check your email/);
  await shot(page, '2-check-email');

  const mail = await smtp.waitFor(o.ownerEmail);
  const link = linkIn(mail, '/api/v1/auth/callback');
  await page.goto(link.toString());
  assert.equal(new URL(page.url()).pathname, '/account');
  assert.equal(await page.textContent('h1'), 'Browser Org');
  assert.match((await page.textContent('body')) ?? '', /Members\s*1 of 5/);
  await shot(page, '3-account');

  await page.fill('form[action="/account/team/invite"] input[name=email]', 'page.colleague@example.test');
  await page.click('form[action="/account/team/invite"] button');
  assert.match((await page.textContent('body')) ?? '', /page\.colleague@example\.test\s*\(invited\)/);
  assert.match((await page.textContent('body')) ?? '', /Members\s*2 of 5/);
  const invitation = linkIn(await smtp.waitFor('page.colleague@example.test'), '/api/v1/auth/accept-invite');
  // Withdrawn from the page: the row and its seat go, and its link is refused.
  await page
    .locator('tr', { hasText: 'page.colleague@example.test' })
    .locator('button', { hasText: 'Withdraw' })
    .click();
  assert.equal(new URL(page.url()).pathname, '/account');
  assert.doesNotMatch((await page.textContent('body')) ?? '', /page\.colleague@example\.test/);
  assert.match((await page.textContent('body')) ?? '', /Members\s*1 of 5/);
  assert.equal((await t.app.inject({ method: 'GET', url: invitation.pathname + invitation.search })).statusCode, 401);

  await page.fill('form[action="/account/keys"] input[name=label]', 'Browser key');
  await page.click('form[action="/account/keys"] button');
  const key = (await page.textContent('#new-key'))!.trim();
  assert.match(key, /^vi_live_/);
  await shot(page, '4-key-created');
  const me = await t.app.inject({
    method: 'GET',
    url: '/api/v1/account/me',
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(me.statusCode, 200);
  await page.goto(`${base}/account`);
  assert.equal(await page.locator('#new-key').count(), 0, 'the key is shown once');
  const row = page.locator('tr', { hasText: 'Browser key' });
  await row.locator('button', { hasText: 'Revoke' }).click();
  assert.match((await page.locator('tr', { hasText: 'Browser key' }).textContent()) ?? '', /revoked/);
  assert.equal(
    (await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: { authorization: `Bearer ${key}` } }))
      .statusCode,
    401,
  );

  await page.fill('form[action="/account/delete"] input[name=confirmation]', DELETE_CONFIRMATION);
  await shot(page, '5-delete');
  await page.click('form[action="/account/delete"] button');
  assert.match((await page.textContent('h1')) ?? '', /Organization deleted/);
  await shot(page, '6-deleted');
  assert.equal(await t.app.services.accounts.isActive(o.orgId), false);
  await ctx.close();
});

test("a form posted without the page's CSRF token is refused, even with the session cookie and the right Origin", async () => {
  const o = await seedOrg(t.store, { name: 'Csrf Org', tier: 'professional' });
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  await signInWith(ctx, o.ownerEmail);
  // The same form without the hidden token, as a forged page would send it (same origin here, so only the token is missing).
  const cookies = await ctx.cookies();
  const cookie = cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const forged = await t.app.inject({
    method: 'POST',
    url: '/account/team/invite',
    headers: { cookie, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'email=evil%40example.test&role=admin',
  });
  assert.equal(forged.statusCode, 403, forged.body);
  assert.equal(forged.json().error.detail.error, 'csrf_token_missing');
  const team = await t.app.services.accounts.team({ orgId: o.orgId } as never);
  assert.equal(team.invitations.length, 0);
  await ctx.close();
});

test('a signed-in page opened without a session goes to sign-in, and the emailed link lands back on it', async () => {
  const o = await seedOrg(t.store, { name: 'Next Org', tier: 'standard' });
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const page = await ctx.newPage();
  await page.goto(`${base}/account/notifications`);
  const at = new URL(page.url());
  assert.equal(at.pathname, '/login');
  assert.equal(at.searchParams.get('next'), '/account/notifications');
  assert.match((await page.textContent('body')) ?? '', /Sign in to open that page/);
  await page.fill('input[name=email]', o.ownerEmail);
  await page.click('button[type=submit]');
  const link = linkIn(await smtp.waitFor(o.ownerEmail), '/api/v1/auth/callback');
  assert.equal(link.searchParams.get('next'), null, 'the link carries no destination: it is stored with the token');
  await page.goto(link.toString());
  assert.equal(new URL(page.url()).pathname, '/account/notifications');
  assert.equal(await page.textContent('h1'), 'Alert email');

  // API routes keep their 401 envelope; a page asked for JSON-free still redirects, with the query kept.
  const api = await t.app.inject({ method: 'GET', url: '/api/v1/account/me' });
  assert.equal(api.statusCode, 401);
  assert.equal(api.json().error.code, 'AUTH_REQUIRED');
  const pageNoSession = await t.app.inject({ method: 'GET', url: '/account/notifications?saved=1' });
  assert.equal(pageNoSession.statusCode, 303);
  assert.equal(pageNoSession.headers.location, `/login?next=${encodeURIComponent('/account/notifications?saved=1')}`);
  await ctx.close();
});

test('a sign-in never lands on another site: a foreign next is dropped before the link is made', async () => {
  const nexts = [
    '//evil.example/account',
    'https://evil.example/',
    '/\\evil.example',
    '/%2F%2Fevil.example',
    '/%5Cevil.example',
    '/\r\nLocation: https://evil.example/',
    'javascript:alert(1)',
  ];
  for (const [i, next] of nexts.entries()) {
    // One organization per attempt: the sign-in limit is 5 links per address per 15 minutes.
    const o = await seedOrg(t.store, { name: `Redirect Org ${i}`, tier: 'standard' });
    const seen = new Set(smtp.messages);
    const form = new URLSearchParams({ email: o.ownerEmail, next });
    const r = await t.app.inject({
      method: 'POST',
      url: '/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form.toString(),
    });
    assert.equal(r.statusCode, 200, r.body);
    const link = linkIn(await smtp.waitFor(o.ownerEmail, { match: (m) => !seen.has(m) }), '/api/v1/auth/callback');
    const done = await t.app.inject({ method: 'GET', url: `${link.pathname}${link.search}` });
    assert.equal(done.statusCode, 303);
    assert.equal(done.headers.location, '/account', `next=${next}`);
  }
  const shown = await t.app.inject({ method: 'GET', url: `/login?next=${encodeURIComponent('//evil.example/')}` });
  assert.ok(!shown.body.includes('evil.example'), 'a foreign next is not even put in the form');
});

test('notification preferences page: saved by the form, read back over the API; a bad BCS shows the reason', async () => {
  const o = await seedOrg(t.store, { name: 'Prefs Org', tier: 'standard' });
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const page = await ctx.newPage();
  await page.goto(`${base}/login?next=${encodeURIComponent('/account')}`);
  await page.fill('input[name=email]', o.ownerEmail);
  await page.click('button[type=submit]');
  await page.goto(linkIn(await smtp.waitFor(o.ownerEmail), '/api/v1/auth/callback').toString());
  await page.click('a[href="/account/notifications"]');
  assert.equal(new URL(page.url()).pathname, '/account/notifications');
  assert.match((await page.textContent('body')) ?? '', /Not saved yet: the defaults apply/);
  assert.equal(await page.inputValue('select[name=min_severity]'), 'HIGH', 'the defaults are shown');
  assert.equal(await page.isChecked('input[name=delivery][value=daily_digest]'), true);
  await shot(page, '7-notifications');

  await page.selectOption('select[name=min_severity]', 'CRITICAL');
  await page.fill('input[name=min_bcs]', '7,25');
  await page.check('input[name=kev_only]');
  await page.check('input[name=delivery][value=instant]');
  await page.click('form[action="/account/notifications"] button[type=submit]');
  assert.equal(new URL(page.url()).search, '?saved=1');
  assert.match((await page.textContent('body')) ?? '', /Saved\./);
  assert.equal(await page.inputValue('select[name=min_severity]'), 'CRITICAL');
  assert.equal(await page.inputValue('input[name=min_bcs]'), '7.3', 'stored rounded to one decimal');
  assert.equal(await page.isChecked('input[name=kev_only]'), true);
  await shot(page, '8-notifications-saved');

  const cookie = (await ctx.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const api = await t.app.inject({ method: 'GET', url: '/api/v1/account/notifications', headers: { cookie } });
  const p = api.json().data;
  assert.deepEqual(
    { ...p, updated_at: null },
    {
      email_enabled: true,
      min_severity: 'CRITICAL',
      min_bcs: 7.3,
      kev_only: true,
      delivery: 'instant',
      customized: true,
      updated_at: null,
    },
  );

  await page.uncheck('input[name=email_enabled]');
  await page.fill('input[name=min_bcs]', '11');
  await page.click('form[action="/account/notifications"] button[type=submit]');
  assert.match((await page.textContent('[role=alert]')) ?? '', /Minimum BCS must be a number from 0 to 10/);
  await shot(page, '9-notifications-refused');
  const after = (
    await t.app.inject({ method: 'GET', url: '/api/v1/account/notifications', headers: { cookie } })
  ).json().data;
  assert.equal(after.email_enabled, true, 'nothing of the refused form is stored');
  assert.equal(after.min_bcs, 7.3);

  // Without the page's CSRF token the same form is refused.
  const forged = await t.app.inject({
    method: 'POST',
    url: '/account/notifications',
    headers: { cookie, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'delivery=instant',
  });
  assert.equal(forged.statusCode, 403);
  await ctx.close();
});

test('the account page offers what the address-change emails point to: name, sign-in address (set back = cancelled) and sign out everywhere', async () => {
  // The email "your sign-in address is being changed" says "set your address back … and sign out everywhere from
  // your account page": the page has both as forms (PUT /api/v1/account/me and POST /api/v1/auth/logout-all need a CSRF
  // header, which a page without script cannot send).
  const o = await seedOrg(t.store, { name: 'Profile Page Org', tier: 'standard' });
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const other = await browser.newContext({ javaScriptEnabled: false });
  const page = await signInWith(ctx, o.ownerEmail);
  const elsewhere = await signInWith(other, o.ownerEmail);

  await page.fill('input[name=name]', 'Ada <Plant> Engineer');
  await page.click('button:has-text("Save name")');
  assert.equal(new URL(page.url()).pathname, '/account');
  assert.equal(
    await page.inputValue('input[name=name]'),
    'Ada <Plant> Engineer',
    'stored, and escaped back into the form',
  );
  assert.match((await page.locator('tr', { hasText: o.ownerEmail }).textContent()) ?? '', /Ada <Plant> Engineer/);

  const seen = new Set(smtp.messages);
  await page.fill('form[action="/account/profile"] input[name=email]', 'ada.moved@example.test');
  await page.click('button:has-text("Change address")');
  assert.match((await page.textContent('body')) ?? '', /A confirmation link went to ada\.moved@example\.test/);
  await shot(page, '10-address-change');
  const confirm = linkIn(
    await smtp.waitFor('ada.moved@example.test', { match: (m) => !seen.has(m) }),
    '/api/v1/auth/confirm-email',
  );
  await smtp.waitFor(o.ownerEmail, {
    match: (m) => !seen.has(m) && m.subject === 'Your Vulnintel sign-in address is being changed',
  });
  // "Set your address back": the current address sent from the same form cancels the change.
  await page.fill('form[action="/account/profile"] input[name=email]', o.ownerEmail);
  await page.click('button:has-text("Change address")');
  assert.match((await page.textContent('body')) ?? '', /stays .*any pending change of it is cancelled/);
  assert.equal(
    (await t.app.inject({ method: 'GET', url: confirm.pathname + confirm.search })).statusCode,
    401,
    'the link no longer applies',
  );

  // "Sign out everywhere": this browser and the other one are both signed out.
  await page.click('button:has-text("Sign out everywhere")');
  assert.equal(new URL(page.url()).pathname, '/login');
  assert.equal((await ctx.cookies()).filter((c) => c.name === 'vi_session').length, 0, 'the cookie is cleared');
  await elsewhere.goto(`${base}/account`);
  assert.equal(new URL(elsewhere.url()).pathname, '/login', "the other browser's session ended too");
  const sessions = await t.store.db.selectFrom('sessions').select('revoked_at').where('org_id', '=', o.orgId).execute();
  assert.ok(sessions.length >= 2 && sessions.every((s) => s.revoked_at !== null));
  await ctx.close();
  await other.close();
});

test('a Free plan starts its free API trial from the account page: the trial key shown once; a second start is refused', async () => {
  // POST /api/v1/account/trial (browser session only) needs an X-CSRF-Token header, which a page without script
  // cannot send: the page's own form is how a Free user starts the trial without a hand-made request.
  const o = await seedOrg(t.store, { name: 'Trial Page Org', tier: 'free' });
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const page = await signInWith(ctx, o.ownerEmail);
  assert.match((await page.textContent('body')) ?? '', /API keys are available on the Professional plan and above/);
  const started = page.waitForResponse((r) => r.url().endsWith('/account/trial'));
  await page.click('button:has-text("Start the free API trial")');
  const res = await started;
  assert.equal(res.status(), 201);
  assert.equal(res.headers()['cache-control'], 'no-store');
  const key = (await page.textContent('#trial-key'))!.trim();
  assert.match(key, /^vi_live_/);
  assert.match(
    (await page.textContent('body')) ?? '',
    /works until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC, for up to 750 asset checks/,
  );
  await shot(page, '11-trial-started');
  // A trial key: accepted, and limited to the trial's endpoints.
  const me = await t.app.inject({
    method: 'GET',
    url: '/api/v1/account/me',
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(me.statusCode, 403, me.body);
  assert.equal(me.json().error.code, 'TRIAL_SCOPE');
  const rows = await t.store.db
    .selectFrom('api_keys')
    .select(['kind', 'member_id'])
    .where('org_id', '=', o.orgId)
    .where('kind', '=', 'trial')
    .execute();
  assert.deepEqual(
    rows.map((r) => [r.kind, Number(r.member_id)]),
    [['trial', o.memberId]],
  );
  await page.goto(`${base}/account`);
  assert.equal(await page.locator('#trial-key').count(), 0, 'the key is shown once');
  // Once per organization.
  const cookie = (await ctx.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const csrf = (await ctx.cookies()).find((c) => c.name === 'vi_csrf')!.value;
  const again = await t.app.inject({
    method: 'POST',
    url: '/account/trial',
    headers: { cookie, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    payload: `_csrf=${csrf}`,
  });
  assert.equal(again.statusCode, 409, again.body);
  assert.equal(again.json().error.code, 'TRIAL_UNAVAILABLE');
  await ctx.close();
});
