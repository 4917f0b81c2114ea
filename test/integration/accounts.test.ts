// Accounts over HTTP against real PostgreSQL and a real in-process SMTP server (docs/accounts.md):
// sign-in links, sessions and their expiry, several organizations, the profile, the organization, the team and its
// cap, keys over HTTP, the trial, account deletion with purge, and managed-service providers.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sql } from '../../src/store/kysely.ts';
import { testApp, seedOrg, seedKey, seedSession, type TestApp } from '../helpers/app.ts';
import { startSmtp, linkIn, type TestSmtp } from '../helpers/smtp.ts';
import { tenantRowCounts } from '../helpers/tenant-runner.ts';
import { createMember, createOrganization } from '../../src/store/identity.ts';
import { DELETE_CONFIRMATION } from '../../src/domain/accounts.ts';
import { CSRF_COOKIE, SESSION_COOKIE } from '../../src/http/session-cookies.ts';

const ORIGIN = 'http://vulnintel.test';
let t: TestApp;
let smtp: TestSmtp;

before(async () => {
  smtp = await startSmtp();
  t = await testApp({ env: { SMTP_URL: smtp.url }, now: '2026-11-21T12:00:00Z' });
});
after(async () => {
  await t.close();
  await smtp.close();
});

/** The cookies a response sets, by name: value and attributes. */
function cookiesOf(res: { headers: Record<string, unknown> }): Record<string, string> {
  const raw = res.headers['set-cookie'];
  const list = Array.isArray(raw) ? (raw as string[]) : raw ? [String(raw)] : [];
  return Object.fromEntries(list.map((c) => [c.slice(0, c.indexOf('=')), c]));
}

/** A browser after following a link: the session and CSRF cookies and the header a page would send. */
function browserFrom(res: { headers: Record<string, unknown> }) {
  const c = cookiesOf(res);
  const value = (name: string) => /^[^=]+=([^;]*)/.exec(c[name])![1];
  const session = value(SESSION_COOKIE);
  const csrf = value(CSRF_COOKIE);
  return {
    session,
    csrf,
    headers: { cookie: `${SESSION_COOKIE}=${session}; ${CSRF_COOKIE}=${csrf}`, 'x-csrf-token': csrf, origin: ORIGIN },
  };
}

async function requestLink(email: string) {
  return t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email } });
}

/** Signs a person in through the real flow: request, the received email, the link. */
async function signIn(email: string) {
  const before = smtp.messages.length;
  const r = await requestLink(email);
  assert.equal(r.statusCode, 202, r.body);
  const mail = await smtp.waitFor(email, {
    match: (m) => smtp.messages.indexOf(m) >= before && m.subject.includes('sign-in'),
  });
  const link = linkIn(mail, '/api/v1/auth/callback');
  const res = await t.app.inject({ method: 'GET', url: link.pathname + link.search });
  assert.equal(res.statusCode, 303, res.body);
  return { res, link, browser: browserFrom(res) };
}

describe('sign-in by email link', () => {
  test('the same answer whether or not the address exists; only a known address gets mail', async () => {
    const o = await seedOrg(t.store, { name: 'Login Org' });
    const known = await requestLink(o.ownerEmail);
    const unknown = await requestLink('nobody-here@example.test');
    const malformed = await requestLink('not an address');
    for (const r of [known, unknown, malformed]) {
      assert.equal(r.statusCode, 202);
      assert.deepEqual(r.json().data, known.json().data);
    }
    const mail = await smtp.waitFor(o.ownerEmail);
    assert.match(mail.subject, /sign-in link/);
    assert.match(mail.text, /valid for 15 minutes/);
    await t.app.services.mailer.settled(); // every send the three requests started has ended
    assert.ok(!smtp.messages.some((m) => m.to.includes('nobody-here@example.test')));
  });

  test('the link sets an HttpOnly SameSite=Lax session, redirects to the account page, and works once', async () => {
    const o = await seedOrg(t.store, { name: 'Link Org' });
    const { res, link, browser } = await signIn(o.ownerEmail);
    assert.equal(res.headers.location, '/account');
    const c = cookiesOf(res);
    assert.match(c[SESSION_COOKIE], /HttpOnly/);
    assert.match(c[SESSION_COOKIE], /SameSite=Lax/);
    assert.doesNotMatch(c[SESSION_COOKIE], /Secure/); // http public URL
    assert.doesNotMatch(c[CSRF_COOKIE], /HttpOnly/); // the page reads it (double submit)
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: browser.headers });
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.json().data.email, o.ownerEmail);
    assert.equal(me.json().data.org_id, o.orgId);
    // Only the hash is stored.
    const stored = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM sessions WHERE token_hash = ${browser.session}`.execute(t.store.db);
    assert.equal(stored.rows[0].n, 0);
    const again = await t.app.inject({ method: 'GET', url: link.pathname + link.search });
    assert.equal(again.statusCode, 401);
    assert.equal(again.json().error.code, 'AUTH_REQUIRED');
    assert.equal(again.json().error.detail.error, 'login_link_invalid');
  });

  test('a new session id at every sign-in; a link older than 15 minutes is refused', async () => {
    const o = await seedOrg(t.store, { name: 'Twice Org' });
    const a = await signIn(o.ownerEmail);
    const b = await signIn(o.ownerEmail);
    assert.notEqual(a.browser.session, b.browser.session);
    await requestLink(o.ownerEmail);
    const mail = await smtp.waitFor(o.ownerEmail, {
      match: (m) => !m.text.includes(a.link.search.slice(7)) && !m.text.includes(b.link.search.slice(7)),
    });
    const link = linkIn(mail, '/api/v1/auth/callback');
    t.clock.advance(15 * 60_000 + 1000);
    try {
      const late = await t.app.inject({ method: 'GET', url: link.pathname + link.search });
      assert.equal(late.statusCode, 401);
      assert.equal(late.json().error.detail.error, 'login_link_invalid');
    } finally {
      t.clock.advance(-(15 * 60_000 + 1000));
    }
  });

  test('per email: the 6th request within 15 minutes → 429 RATE_LIMITED with Retry-After', async () => {
    const email = 'limited-person@example.test';
    for (let i = 0; i < 5; i++) assert.equal((await requestLink(email)).statusCode, 202);
    const r = await requestLink(email);
    assert.equal(r.statusCode, 429);
    assert.equal(r.json().error.code, 'RATE_LIMITED');
    assert.ok(Number(r.headers['retry-after']) > 0);
    assert.equal(r.json().error.retry_after_seconds, Number(r.headers['retry-after']));
  });
});

describe('sessions', () => {
  test('idle 12 hours → 401 AUTH_REQUIRED; used within the window it stays alive until the 7-day absolute end', async () => {
    const o = await seedOrg(t.store, { name: 'Idle Org' });
    const { browser } = await signIn(o.ownerEmail);
    const me = () =>
      t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: { cookie: browser.headers.cookie } });
    const start = t.clock.now();
    try {
      for (let h = 11; h < 24 * 7; h += 11) {
        t.clock.set(new Date(start.getTime() + h * 3_600_000));
        assert.equal((await me()).statusCode, 200, `after ${h} h`);
      }
      t.clock.set(new Date(start.getTime() + 7 * 24 * 3_600_000));
      const r = await me();
      assert.equal(r.statusCode, 401);
      assert.equal(r.json().error.detail.error, 'session_expired');
      const { browser: b2 } = await signIn(o.ownerEmail);
      t.clock.advance(12 * 3_600_000);
      const idle = await t.app.inject({
        method: 'GET',
        url: '/api/v1/account/me',
        headers: { cookie: b2.headers.cookie },
      });
      assert.equal(idle.statusCode, 401);
      assert.equal(idle.json().error.code, 'AUTH_REQUIRED');
    } finally {
      t.clock.set(start);
    }
  });

  test("logout ends the current session only; logout-all ends all of the person's", async () => {
    const o = await seedOrg(t.store, { name: 'Logout Org' });
    const a = (await signIn(o.ownerEmail)).browser;
    const b = (await signIn(o.ownerEmail)).browser;
    const c = (await signIn(o.ownerEmail)).browser;
    const out = await t.app.inject({ method: 'POST', url: '/api/v1/auth/logout', headers: a.headers });
    assert.equal(out.statusCode, 200, out.body);
    assert.match(cookiesOf(out)[SESSION_COOKIE], /Expires=Thu, 01 Jan 1970/);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: a.headers })).statusCode,
      401,
    );
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: b.headers })).statusCode,
      200,
    );
    const all = await t.app.inject({ method: 'POST', url: '/api/v1/auth/logout-all', headers: b.headers });
    assert.equal(all.statusCode, 200);
    assert.equal(all.json().data.ended, 2);
    for (const x of [b, c])
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: x.headers })).statusCode,
        401,
      );
  });
});

describe('a person in several organizations', () => {
  test('the link opens the last-used organization; switch-org moves the session; a foreign org is not found', async () => {
    const one = await seedOrg(t.store, { name: 'First Co' });
    const two = await seedOrg(t.store, { name: 'Second Co' });
    const other = await seedOrg(t.store, { name: 'Not Mine Co' });
    await createMember(t.store.db, two.orgId, one.ownerEmail, 'viewer', 'Multi');
    const { browser } = await signIn(one.ownerEmail);
    // No organization used yet: the first one joined.
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/auth/memberships', headers: browser.headers });
    assert.deepEqual(
      list.json().data.map((m: { org_id: number; role: string; current: boolean }) => [m.org_id, m.role, m.current]),
      [
        [one.orgId, 'owner', true],
        [two.orgId, 'viewer', false],
      ],
    );
    const sw = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/switch-org',
      headers: browser.headers,
      payload: { org_id: two.orgId },
    });
    assert.equal(sw.statusCode, 200, sw.body);
    const moved = browserFrom(sw);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: browser.headers })).statusCode,
      401,
    );
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: moved.headers });
    assert.equal(me.json().data.org_id, two.orgId);
    // The role is the membership's: a viewer there.
    const w = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/account/org',
      headers: moved.headers,
      payload: { name: 'Nope' },
    });
    assert.equal(w.json().error.detail.error, 'viewer_role');
    const foreign = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/switch-org',
      headers: moved.headers,
      payload: { org_id: other.orgId },
    });
    assert.equal(foreign.statusCode, 404);
    // The next sign-in opens the organization used last.
    const again = (await signIn(one.ownerEmail)).browser;
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: again.headers })).json().data.org_id,
      two.orgId,
    );
  });
});

describe('profile and organization', () => {
  test('preferences: merged as a merge patch (null removes a key); the stored object holds at most 32 keys, and a patch past it stores nothing', async () => {
    const o = await seedOrg(t.store, { name: 'Prefs Org' });
    const put = (preferences: Record<string, unknown>, name?: string) =>
      t.app.inject({
        method: 'PUT',
        url: '/api/v1/account/me',
        headers: { ...o.auth, 'content-type': 'application/json' },
        payload: { preferences, ...(name ? { name } : {}) },
      });
    const keys = (from: number, n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${from + i}`, i]));
    const a = await put(keys(0, 20));
    assert.equal(a.statusCode, 200, a.body);
    const b = await put({ ...keys(20, 12), k0: 'changed' });
    assert.equal(b.statusCode, 200, b.body);
    assert.equal(Object.keys(b.json().data.preferences).length, 32);
    assert.equal(b.json().data.preferences.k0, 'changed');
    // One more key would make 33: refused with the field, and neither it nor the name of the same call is stored.
    const c = await put({ k32: true }, 'Renamed');
    assert.equal(c.statusCode, 422, c.body);
    assert.equal(c.json().error.code, 'VALIDATION_ERROR');
    assert.deepEqual(
      c.json().error.detail.map((f: { field: string }) => f.field),
      ['body.preferences'],
    );
    assert.match(c.json().error.message, /would hold 33 keys; at most 32/);
    const stored = await sql<{
      preferences: Record<string, unknown>;
      name: string;
    }>`SELECT p.preferences, p.name FROM persons p JOIN members m ON m.person_id = p.id WHERE m.org_id = ${o.orgId}`.execute(
      t.store.db,
    );
    assert.equal(Object.keys(stored.rows[0].preferences).length, 32);
    assert.notEqual(stored.rows[0].name, 'Renamed');
    // A null removes a key, which makes room for another in the same patch.
    const d = await put({ k1: null, k32: true });
    assert.equal(d.statusCode, 200, d.body);
    assert.equal(Object.keys(d.json().data.preferences).length, 32);
    assert.equal('k1' in d.json().data.preferences, false);
    assert.equal(d.json().data.preferences.k32, true);
  });

  test('PUT /account/me changes name and preferences; an email change waits for the link sent to the new address', async () => {
    const o = await seedOrg(t.store, { name: 'Profile Org' });
    const { browser } = await signIn(o.ownerEmail);
    const r = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/account/me',
      headers: browser.headers,
      payload: { name: 'Ada L', preferences: { theme: 'dark' }, email: 'Ada.New@Example.test' },
    });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().data.name, 'Ada L');
    assert.deepEqual(r.json().data.preferences, { theme: 'dark' });
    assert.equal(r.json().data.email, o.ownerEmail);
    assert.equal(r.json().data.pending_email, 'ada.new@example.test');
    const mail = await smtp.waitFor('ada.new@example.test');
    const link = linkIn(mail, '/api/v1/auth/confirm-email');
    // The current address is told of the request.
    const notice = await smtp.waitFor(o.ownerEmail, {
      match: (m) => m.subject === 'Your Vulnintel sign-in address is being changed',
    });
    assert.match(notice.text, /to ada\.new@example\.test was requested/);
    const ok = await t.app.inject({ method: 'GET', url: link.pathname + link.search });
    assert.equal(ok.statusCode, 303);
    // Applied: the former address is told, and every session of the person ends (sign in again with the new one).
    const changed = await smtp.waitFor(o.ownerEmail, {
      match: (m) => m.subject === 'Your Vulnintel sign-in address was changed',
    });
    assert.match(changed.text, /now ada\.new@example\.test/);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: browser.headers })).statusCode,
      401,
    );
    const again = await signIn('ada.new@example.test');
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: again.browser.headers });
    assert.equal(me.json().data.email, 'ada.new@example.test');
    assert.equal(me.json().data.name, 'Ada L');
    assert.equal((await t.app.inject({ method: 'GET', url: link.pathname + link.search })).statusCode, 401);
  });

  test('once an email change is applied, a sign-in link sent to the former address before it no longer signs in', async () => {
    // An unused link in the former mailbox (15 minutes) must not start a session after the change: the former
    // address is told "this address no longer signs you in, and every session was signed out".
    const o = await seedOrg(t.store, { name: 'Former Address Org' });
    const { browser } = await signIn(o.ownerEmail);
    const before = smtp.messages.length;
    assert.equal((await requestLink(o.ownerEmail)).statusCode, 202);
    const stale = linkIn(
      await smtp.waitFor(o.ownerEmail, {
        match: (m) => smtp.messages.indexOf(m) >= before && m.subject.includes('sign-in'),
      }),
      '/api/v1/auth/callback',
    );
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/account/me',
      headers: browser.headers,
      payload: { email: 'moved.away@example.test' },
    });
    assert.equal(put.json().data.pending_email, 'moved.away@example.test');
    const confirm = linkIn(await smtp.waitFor('moved.away@example.test'), '/api/v1/auth/confirm-email');
    assert.equal((await t.app.inject({ method: 'GET', url: confirm.pathname + confirm.search })).statusCode, 303);
    const r = await t.app.inject({ method: 'GET', url: stale.pathname + stale.search });
    assert.equal(r.statusCode, 401, r.body);
    assert.equal(r.json().error.detail.error, 'login_link_invalid');
    assert.equal(cookiesOf(r)[SESSION_COOKIE], undefined, 'no session cookie');
    // The new address signs in.
    const again = await signIn('moved.away@example.test');
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: again.browser.headers })).json().data
        .email,
      'moved.away@example.test',
    );
  });

  test("an email change needs a browser session: with an API key, even the owner's, 403 session_required and nothing changes", async () => {
    // A key (a viewer's too) moving the person's sign-in address, which is the person's in every organization,
    // would make a key of one organization a browser sign-in everywhere.
    const o = await seedOrg(t.store, { name: 'Key Email Org' });
    const r = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/account/me',
      headers: o.auth,
      payload: { name: 'Renamed', email: 'taken-over@example.test' },
    });
    assert.equal(r.statusCode, 403, r.body);
    assert.deepEqual([r.json().error.code, r.json().error.detail.error], ['FORBIDDEN', 'session_required']);
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: o.auth });
    assert.deepEqual(
      [me.json().data.email, me.json().data.name === 'Renamed'],
      [o.ownerEmail, false],
      'nothing of the call was applied',
    );
    const tokens = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM auth_tokens WHERE purpose = 'email_change' AND new_email = 'taken-over@example.test'`.execute(
      t.store.db,
    );
    assert.equal(tokens.rows[0].n, 0);
    // The name alone may still be changed with a key.
    assert.equal(
      (
        await t.app.inject({ method: 'PUT', url: '/api/v1/account/me', headers: o.auth, payload: { name: 'Renamed' } })
      ).json().data.name,
      'Renamed',
    );
  });

  test('a newer email change, or the current address sent back, ends the earlier links', async () => {
    // A link valid for its whole 60 minutes would let a corrected typo (a stranger's mailbox) still take the account.
    const o = await seedOrg(t.store, { name: 'Typo Org' });
    const { browser } = await signIn(o.ownerEmail);
    const put = (email: string) =>
      t.app.inject({ method: 'PUT', url: '/api/v1/account/me', headers: browser.headers, payload: { email } });
    assert.equal((await put('typo-1@example.test')).json().data.pending_email, 'typo-1@example.test');
    const first = linkIn(await smtp.waitFor('typo-1@example.test'), '/api/v1/auth/confirm-email');
    assert.equal((await put('typo-2@example.test')).json().data.pending_email, 'typo-2@example.test');
    const second = linkIn(await smtp.waitFor('typo-2@example.test'), '/api/v1/auth/confirm-email');
    assert.equal(
      (await t.app.inject({ method: 'GET', url: first.pathname + first.search })).statusCode,
      401,
      'replaced by the newer request',
    );
    assert.equal((await put(o.ownerEmail)).json().data.pending_email, null);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: second.pathname + second.search })).statusCode,
      401,
      'cancelled by the current address',
    );
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: browser.headers });
    assert.equal(me.json().data.email, o.ownerEmail);
  });

  test('a viewer may change its own profile but not the organization (403 viewer_role)', async () => {
    const o = await seedOrg(t.store, { name: 'Viewer Org' });
    const v = await seedKey(t.store, o.orgId, null, { role: 'viewer' });
    const s = await seedSession(t.store, o.orgId, v.memberId);
    const me = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/account/me',
      headers: { ...s, origin: ORIGIN },
      payload: { name: 'Vera' },
    });
    assert.equal(me.statusCode, 200, me.body);
    for (const h of [v.auth, { ...s, origin: ORIGIN }]) {
      const org = await t.app.inject({
        method: 'PUT',
        url: '/api/v1/account/org',
        headers: h,
        payload: { name: 'Taken over' },
      });
      assert.equal(org.statusCode, 403);
      assert.equal(org.json().error.detail.error, 'viewer_role');
    }
  });

  test('an organization or person name with a line break, a tab or another control character → 422, nothing stored', async () => {
    // "Acme\r\nYour account is locked…" would otherwise be stored and written as it is into the invitation emails.
    const o = await seedOrg(t.store, { name: 'Plain Org' });
    const msg =
      'must not be empty or only spaces, nor hold control characters (line breaks and tabs included), bidirectional controls (U+202A to U+202E, U+2066 to U+2069) or invisible characters (zero-width space, word joiner, soft hyphen, byte order mark, Hangul filler)';
    for (const name of ['Acme\r\nBcc: x@example.test', 'Acme\tPlant', 'a\u0007b', 'a\u0085b']) {
      const r = await t.app.inject({ method: 'PUT', url: '/api/v1/account/org', headers: o.auth, payload: { name } });
      assert.equal(r.statusCode, 422, JSON.stringify(name));
      assert.deepEqual(
        r.json().error.detail.map((d: { field: string; message: string }) => [d.field, d.message]),
        [['body.name', msg]],
        JSON.stringify(name),
      );
      const me = await t.app.inject({ method: 'PUT', url: '/api/v1/account/me', headers: o.auth, payload: { name } });
      assert.equal(me.statusCode, 422, JSON.stringify(name));
    }
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/account/org', headers: o.auth })).json().data.name,
      'Plain Org',
    );
    const ok = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/account/org',
      headers: o.auth,
      payload: { name: 'Plant Ops — Nord (Ünit 2)' },
    });
    assert.deepEqual(
      [ok.statusCode, ok.json().data.name],
      [200, 'Plant Ops — Nord (Ünit 2)'],
      'other Unicode text is a name',
    );
  });

  test('GET/PUT /account/org: name, plan read-only, plan caps, overrides and effective caps', async () => {
    const o = await seedOrg(t.store, { name: 'Caps Org', tier: 'standard' });
    await sql`UPDATE organizations SET cap_overrides = '{"members": 4}' WHERE id = ${o.orgId}`.execute(t.store.db);
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/account/org',
      headers: o.auth,
      payload: { name: 'Caps Org Renamed' },
    });
    assert.equal(put.statusCode, 200, put.body);
    const d = put.json().data;
    assert.equal(d.name, 'Caps Org Renamed');
    assert.equal(d.tier, 'standard');
    assert.deepEqual(d.plan_caps, { members: 2, environments: 3, assets: 250, webhooks: 20 });
    assert.deepEqual(d.cap_overrides, { members: 4 });
    assert.deepEqual(d.caps, { members: 4, environments: 3, assets: 250, webhooks: 20 });
    const tier = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/account/org',
      headers: o.auth,
      payload: { tier: 'enterprise' },
    });
    assert.equal(tier.statusCode, 422);
  });
});

describe('team', () => {
  test('invite → email with an accept link → member with its role and a session there', async () => {
    const o = await seedOrg(t.store, { name: 'Team Org', tier: 'professional' });
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/team/invite',
      headers: o.auth,
      payload: { email: 'not-an-address', role: 'admin' },
    });
    assert.equal(bad.statusCode, 422, bad.body);
    assert.deepEqual(
      bad.json().error.detail.map((d: { field: string }) => d.field),
      ['body.email'],
    );
    const inv = await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/team/invite',
      headers: o.auth,
      payload: { email: 'Joiner@Example.test', role: 'admin' },
    });
    assert.equal(inv.statusCode, 201, inv.body);
    assert.equal(inv.json().data.email, 'joiner@example.test');
    const mail = await smtp.waitFor('joiner@example.test');
    assert.match(mail.subject, /Team Org/);
    const link = linkIn(mail, '/api/v1/auth/accept-invite');
    const acc = await t.app.inject({ method: 'GET', url: link.pathname + link.search });
    assert.equal(acc.statusCode, 303);
    const b = browserFrom(acc);
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: b.headers });
    assert.equal(me.json().data.org_id, o.orgId);
    const team = await t.app.inject({ method: 'GET', url: '/api/v1/account/team', headers: b.headers });
    assert.deepEqual(
      team.json().data.members.map((m: { email: string; role: string }) => [m.email, m.role]),
      [
        [o.ownerEmail, 'owner'],
        ['joiner@example.test', 'admin'],
      ],
    );
    assert.deepEqual(team.json().data.invitations, []);
    assert.equal((await t.app.inject({ method: 'GET', url: link.pathname + link.search })).statusCode, 401);
  });

  test('past the cap (Standard: 2, pending invitations included) → 403 cap_exceeded with resource, limit, used', async () => {
    const o = await seedOrg(t.store, { name: 'Small Org', tier: 'standard' });
    const first = await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/team/invite',
      headers: o.auth,
      payload: { email: 'one@example.test', role: 'viewer' },
    });
    assert.equal(first.statusCode, 201);
    const second = await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/team/invite',
      headers: o.auth,
      payload: { email: 'two@example.test', role: 'viewer' },
    });
    assert.equal(second.statusCode, 403);
    const e = second.json().error;
    assert.equal(e.code, 'FORBIDDEN');
    assert.equal(e.action, 'contact_us');
    assert.deepEqual(
      { error: e.detail.error, resource: e.detail.resource, limit: e.detail.limit, used: e.detail.used },
      { error: 'cap_exceeded', resource: 'members', limit: 2, used: 2 },
    );
    // An override raises it.
    await sql`UPDATE organizations SET cap_overrides = '{"members": 3}' WHERE id = ${o.orgId}`.execute(t.store.db);
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/account/team/invite',
          headers: o.auth,
          payload: { email: 'two@example.test', role: 'viewer' },
        })
      ).statusCode,
      201,
    );
  });

  test('a pending invitation is withdrawn: its seat is free, its link is refused; a second withdrawal is 404', async () => {
    // Without a withdrawal an invitation holds its seat and its link lives for 7 days.
    const o = await seedOrg(t.store, { name: 'Withdraw Org', tier: 'standard' });
    const inv = await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/team/invite',
      headers: o.auth,
      payload: { email: 'mistyped@example.test', role: 'admin' },
    });
    assert.equal(inv.statusCode, 201, inv.body);
    const link = linkIn(await smtp.waitFor('mistyped@example.test'), '/api/v1/auth/accept-invite');
    const full = await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/team/invite',
      headers: o.auth,
      payload: { email: 'right@example.test', role: 'admin' },
    });
    assert.equal(full.json().error.detail.error, 'cap_exceeded');
    const id = inv.json().data.id as number;
    const w = await t.app.inject({ method: 'DELETE', url: `/api/v1/account/team/invitations/${id}`, headers: o.auth });
    assert.equal(w.statusCode, 200, w.body);
    assert.deepEqual(w.json().data.withdrawn, inv.json().data);
    assert.equal((await t.app.inject({ method: 'GET', url: link.pathname + link.search })).statusCode, 401);
    const team = await t.app.inject({ method: 'GET', url: '/api/v1/account/team', headers: o.auth });
    assert.deepEqual(team.json().data.invitations, []);
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/account/team/invite',
          headers: o.auth,
          payload: { email: 'right@example.test', role: 'admin' },
        })
      ).statusCode,
      201,
      'the seat is free',
    );
    const again = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/account/team/invitations/${id}`,
      headers: o.auth,
    });
    assert.deepEqual([again.statusCode, again.json().error.code], [404, 'NOT_FOUND']);
    // A viewer cannot withdraw one; nor list the keys, and the refusal says what that read needs (not "write").
    const viewer = await seedKey(t.store, o.orgId, null, { role: 'viewer' });
    const pro = await seedOrg(t.store, { name: 'Viewer Keys Org', tier: 'professional' });
    const proViewer = await seedKey(t.store, pro.orgId, null, { role: 'viewer' });
    const keys = await t.app.inject({ method: 'GET', url: '/api/v1/account/keys', headers: proViewer.auth });
    assert.deepEqual(
      [keys.statusCode, keys.json().error.detail.error, keys.json().error.message],
      [403, 'viewer_role', 'Read-only members (viewer role) cannot use this; it needs the admin role'],
    );
    // The account page tells a Professional organization's viewer who manages keys, not that the plan lacks them.
    const page = await t.app.inject({
      method: 'GET',
      url: '/account',
      headers: await seedSession(t.store, pro.orgId, proViewer.memberId),
    });
    assert.match(page.body, /Owners and admins manage the API keys of this organization\./);
    assert.doesNotMatch(page.body, /Professional plan and above/);
    const standardPage = await t.app.inject({
      method: 'GET',
      url: '/account',
      headers: await seedSession(t.store, o.orgId, viewer.memberId),
    });
    assert.match(
      standardPage.body,
      /API keys are available on the Professional plan and above \(owners and admins manage them\)\./,
    );
    const pending = (await t.app.inject({ method: 'GET', url: '/api/v1/account/team', headers: o.auth })).json().data
      .invitations[0].id as number;
    const v = await t.app.inject({
      method: 'DELETE',
      url: `/api/v1/account/team/invitations/${pending}`,
      headers: viewer.auth,
    });
    assert.deepEqual([v.statusCode, v.json().error.detail.error], [403, 'viewer_role']);
  });

  test('removing a member withdraws the invitations it sent and that are pending (a removed admin cannot come back through one)', async () => {
    const o = await seedOrg(t.store, { name: 'Removed Inviter Org', tier: 'professional' });
    const admin = await seedKey(t.store, o.orgId, null, { role: 'admin' });
    const sent = await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/team/invite',
      headers: admin.auth,
      payload: { email: 'alias-of-admin@example.test', role: 'admin' },
    });
    assert.equal(sent.statusCode, 201, sent.body);
    const link = linkIn(await smtp.waitFor('alias-of-admin@example.test'), '/api/v1/auth/accept-invite');
    const byOwner = await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/team/invite',
      headers: o.auth,
      payload: { email: 'owners-guest@example.test', role: 'viewer' },
    });
    assert.equal(byOwner.statusCode, 201);
    assert.equal(
      (await t.app.inject({ method: 'DELETE', url: `/api/v1/account/team/${admin.memberId}`, headers: o.auth }))
        .statusCode,
      200,
    );
    assert.equal((await t.app.inject({ method: 'GET', url: link.pathname + link.search })).statusCode, 401);
    const team = await t.app.inject({ method: 'GET', url: '/api/v1/account/team', headers: o.auth });
    assert.deepEqual(
      team.json().data.invitations.map((i: { email: string }) => i.email),
      ['owners-guest@example.test'],
      "the owner's own invitation stays",
    );
  });

  test('at most 5 invitation and address-change emails an hour to one address: the 6th → 429, nothing stored, nothing sent', async () => {
    // Re-inviting an address (which replaces its pending invitation) must not send a new email every time.
    const o = await seedOrg(t.store, { name: 'Mailbox Org', tier: 'professional' });
    const target = 'mailbox-target@example.test';
    const invite = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/account/team/invite',
        headers: o.auth,
        payload: { email: target, role: 'viewer' },
      });
    const sentTo = () => smtp.messages.filter((m) => m.to.includes(target)).length;
    const mailsBefore = sentTo();
    for (let i = 0; i < 4; i++) assert.equal((await invite()).statusCode, 201);
    // An address change to the same address from another organization's member counts against the same five.
    const other = await seedOrg(t.store, { name: 'Mailbox Other' });
    const { browser } = await signIn(other.ownerEmail);
    const change = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/account/me',
      headers: browser.headers,
      payload: { email: target },
    });
    assert.equal(change.json().data.pending_email, target);
    await smtp.waitFor(target, { match: () => sentTo() - mailsBefore >= 5 });
    const pendingBefore = (await t.app.inject({ method: 'GET', url: '/api/v1/account/team', headers: o.auth })).json()
      .data.invitations;
    assert.equal(pendingBefore.length, 1);
    const refused = await invite();
    assert.equal(refused.statusCode, 429, refused.body);
    assert.equal(refused.json().error.code, 'RATE_LIMITED');
    assert.equal(
      refused.json().error.message,
      `Too many emails to ${target} in the last hour (at most 5); try again later`,
    );
    assert.ok(
      Number(refused.headers['retry-after']) > 3000 && Number(refused.headers['retry-after']) <= 3600,
      String(refused.headers['retry-after']),
    );
    // Nothing stored: the pending invitation is the same one, still valid.
    assert.deepEqual(
      (await t.app.inject({ method: 'GET', url: '/api/v1/account/team', headers: o.auth })).json().data.invitations,
      pendingBefore,
    );
    const again = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/account/me',
      headers: browser.headers,
      payload: { email: target },
    });
    assert.equal(again.statusCode, 429);
    await t.app.services.mailer.settled();
    assert.equal(sentTo() - mailsBefore, 5, 'no sixth email');
    // Another address is not affected.
    assert.equal(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/account/team/invite',
          headers: o.auth,
          payload: { email: 'someone-else@example.test', role: 'viewer' },
        })
      ).statusCode,
      201,
    );
  });

  test('parallel invitations at cap − 1: exactly one succeeds', async () => {
    const o = await seedOrg(t.store, { name: 'Race Org', tier: 'professional' });
    for (let i = 0; i < 3; i++) await createMember(t.store.db, o.orgId, `seat${i}@example.test`, 'viewer');
    const rs = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/account/team/invite',
          headers: o.auth,
          payload: { email: `racer${i}@example.test`, role: 'viewer' },
        }),
      ),
    );
    assert.deepEqual(rs.map((r) => r.statusCode).sort(), [201, 403, 403, 403, 403, 403, 403, 403]);
    const team = await t.app.inject({ method: 'GET', url: '/api/v1/account/team', headers: o.auth });
    assert.equal(team.json().data.members.length + team.json().data.invitations.length, 5);
  });

  test("removal: never the owner (not by an admin); a viewer removes nobody; a removed member's key stops", async () => {
    const o = await seedOrg(t.store, { name: 'Removal Org' });
    const admin = await seedKey(t.store, o.orgId, null, { role: 'admin' });
    const viewer = await seedKey(t.store, o.orgId, null, { role: 'viewer' });
    const del = (who: { authorization: string }, id: number) =>
      t.app.inject({ method: 'DELETE', url: `/api/v1/account/team/${id}`, headers: who });
    const owner = await del(admin.auth, o.memberId);
    assert.equal(owner.statusCode, 403);
    assert.equal(owner.json().error.detail.error, 'owner_cannot_be_removed');
    assert.equal((await del(o.auth, o.memberId)).json().error.detail.error, 'owner_cannot_be_removed');
    assert.equal((await del(viewer.auth, admin.memberId)).json().error.detail.error, 'viewer_role');
    const ok = await del(admin.auth, viewer.memberId);
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: viewer.auth })).statusCode,
      401,
    );
    assert.equal((await del(admin.auth, viewer.memberId)).statusCode, 404);
  });
});

describe('API keys over HTTP', () => {
  test('below Professional → 403 upgrade_required', async () => {
    const o = await seedOrg(t.store, { name: 'Std Keys', tier: 'standard' });
    for (const [method, url] of [
      ['GET', '/api/v1/account/keys'],
      ['POST', '/api/v1/account/keys'],
    ] as const) {
      const r = await t.app.inject({ method, url, headers: o.auth, ...(method === 'POST' ? { payload: {} } : {}) });
      assert.equal(r.statusCode, 403);
      assert.equal(r.json().error.code, 'FORBIDDEN');
      assert.equal(r.json().error.detail.error, 'upgrade_required');
    }
  });

  test('create (shown once), list, rotate (new works, old refused), revoke; viewers refused', async () => {
    const o = await seedOrg(t.store, { name: 'Keys Org', tier: 'professional' });
    const c = await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/keys',
      headers: o.auth,
      payload: { scopes: ['read'], label: 'SIEM' },
    });
    assert.equal(c.statusCode, 201, c.body);
    const k = c.json().data;
    assert.match(k.key, /^vi_live_/);
    assert.deepEqual([k.kind, k.scopes, k.label], ['standard', ['read'], 'SIEM']);
    const auth = { authorization: `Bearer ${k.key}` };
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: auth })).statusCode, 200);
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/account/keys', headers: o.auth });
    assert.ok(!list.body.includes(k.key));
    assert.ok(
      list.json().data.some((x: { id: number; key_start: string }) => x.id === k.id && k.key.startsWith(x.key_start)),
    );
    const rot = await t.app.inject({ method: 'POST', url: `/api/v1/account/keys/${k.id}/rotate`, headers: o.auth });
    assert.equal(rot.statusCode, 201, rot.body);
    const fresh = rot.json().data.key;
    assert.deepEqual([fresh.scopes, fresh.label], [['read'], 'SIEM']);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: auth })).json().error.detail.error,
      'api_key_revoked',
    );
    const freshAuth = { authorization: `Bearer ${fresh.key}` };
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: freshAuth })).statusCode,
      200,
    );
    const rev = await t.app.inject({ method: 'DELETE', url: `/api/v1/account/keys/${fresh.id}`, headers: o.auth });
    assert.equal(rev.statusCode, 200);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: freshAuth })).statusCode,
      401,
    );
    const viewer = await seedKey(t.store, o.orgId, null, { role: 'viewer' });
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/account/keys', headers: viewer.auth })).json().error.detail
        .error,
      'viewer_role',
    );
  });

  test('organization, member and key ids are random 15-digit ids (docs/tenant-ids.md), not a global count', async () => {
    const o = await seedOrg(t.store, { name: 'Random Ids', tier: 'professional' });
    const a = await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/keys',
      headers: o.auth,
      payload: { label: 'one' },
    });
    const b = await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/keys',
      headers: o.auth,
      payload: { label: 'two' },
    });
    const me = (await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: o.auth })).json().data;
    const ids = [o.orgId, me.org_id, me.id, a.json().data.id, b.json().data.id];
    for (const id of ids) assert.ok(Number.isSafeInteger(id) && id >= 2 ** 48 && id < 2 ** 49, String(id));
    assert.notEqual(Math.abs(b.json().data.id - a.json().data.id), 1);
    // Listed in the order they were made, not by id.
    const list = (await t.app.inject({ method: 'GET', url: '/api/v1/account/keys', headers: o.auth })).json().data as {
      id: number;
      label: string | null;
    }[];
    assert.deepEqual(
      list.filter((k) => k.label === 'one' || k.label === 'two').map((k) => k.label),
      ['one', 'two'],
    );
  });

  test('a label empty, of spaces only, with a bidirectional control or over 200 characters → 422 on body.label, no key stored; a label is stored trimmed', async () => {
    const o = await seedOrg(t.store, { name: 'Label Org', tier: 'professional' });
    const keyCount = async () =>
      (await sql<{ n: number }>`SELECT count(*)::int AS n FROM api_keys WHERE org_id = ${o.orgId}`.execute(t.store.db))
        .rows[0].n;
    const before = await keyCount();
    const cases: [string, string, string][] = [
      ['', 'must NOT have fewer than 1 characters', 'value_error.any_str.min_length'],
      [
        '   ',
        'must not be empty or only spaces, nor hold control characters (line breaks and tabs included), bidirectional controls (U+202A to U+202E, U+2066 to U+2069) or invisible characters (zero-width space, word joiner, soft hyphen, byte order mark, Hangul filler)',
        'value_error.str.regex',
      ],
      [
        '\t\n',
        'must not be empty or only spaces, nor hold control characters (line breaks and tabs included), bidirectional controls (U+202A to U+202E, U+2066 to U+2069) or invisible characters (zero-width space, word joiner, soft hyphen, byte order mark, Hangul filler)',
        'value_error.str.regex',
      ],
      // U+202E reverses what follows: "SIEM \u202Etropxe" reads as "SIEM export" to another admin.
      [
        'SIEM \u202Etropxe',
        'must not be empty or only spaces, nor hold control characters (line breaks and tabs included), bidirectional controls (U+202A to U+202E, U+2066 to U+2069) or invisible characters (zero-width space, word joiner, soft hyphen, byte order mark, Hangul filler)',
        'value_error.str.regex',
      ],
      [
        '\u2067admin\u2069',
        'must not be empty or only spaces, nor hold control characters (line breaks and tabs included), bidirectional controls (U+202A to U+202E, U+2066 to U+2069) or invisible characters (zero-width space, word joiner, soft hyphen, byte order mark, Hangul filler)',
        'value_error.str.regex',
      ],
      ['x'.repeat(201), 'must NOT have more than 200 characters', 'value_error.any_str.max_length'],
    ];
    for (const [label, message, type] of cases) {
      const r = await t.app.inject({
        method: 'POST',
        url: '/api/v1/account/keys',
        headers: o.auth,
        payload: { label },
      });
      assert.equal(r.statusCode, 422, r.body);
      assert.equal(r.json().error.code, 'VALIDATION_ERROR');
      assert.deepEqual(r.json().error.detail, [{ field: 'body.label', message, type }], JSON.stringify(label));
    }
    assert.equal(await keyCount(), before, 'nothing stored');
    const trimmed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/keys',
      headers: o.auth,
      payload: { label: '  SIEM export  ' },
    });
    assert.equal(trimmed.statusCode, 201, trimmed.body);
    assert.equal(trimmed.json().data.label, 'SIEM export');
    // Right-to-left text and its marks (U+200F) stay allowed.
    const rtl = await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/keys',
      headers: o.auth,
      payload: { label: '\u05de\u05e4\u05e2\u05dc \u200F2' },
    });
    assert.equal(rtl.statusCode, 201, rtl.body);
    assert.equal(rtl.json().data.label, '\u05de\u05e4\u05e2\u05dc \u200F2');
    const none = await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/keys',
      headers: o.auth,
      payload: { label: null },
    });
    assert.equal(none.json().data.label, null);
    const listed = (await t.app.inject({ method: 'GET', url: '/api/v1/account/keys', headers: o.auth })).json()
      .data as { id: number; label: string | null }[];
    assert.equal(listed.find((k) => k.id === trimmed.json().data.id)!.label, 'SIEM export');
  });

  test('rotating a key stored with a blank label (before labels were checked) gives the new key no label', async () => {
    const o = await seedOrg(t.store, { name: 'Blank Rotate', tier: 'professional' });
    const c = await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/keys',
      headers: o.auth,
      payload: { label: 'x' },
    });
    await sql`UPDATE api_keys SET label = '   ' WHERE id = ${c.json().data.id}`.execute(t.store.db);
    const rot = await t.app.inject({
      method: 'POST',
      url: `/api/v1/account/keys/${c.json().data.id}/rotate`,
      headers: o.auth,
    });
    assert.equal(rot.statusCode, 201, rot.body);
    assert.equal(rot.json().data.key.label, null);
    const row = await sql<{
      label: string | null;
    }>`SELECT label FROM api_keys WHERE id = ${rot.json().data.key.id}`.execute(t.store.db);
    assert.equal(row.rows[0].label, null);
  });

  test('the account page form: a label of spaces is no label', async () => {
    const o = await seedOrg(t.store, { name: 'Form Label', tier: 'professional' });
    const s = await seedSession(t.store, o.orgId, o.memberId);
    const r = await t.app.inject({
      method: 'POST',
      url: '/account/keys',
      headers: { ...s, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'label=+++&scope=read',
    });
    assert.equal(r.statusCode, 201, r.body.slice(0, 300));
    const rows = await sql<{
      label: string | null;
    }>`SELECT label FROM api_keys WHERE org_id = ${o.orgId} AND member_id = ${o.memberId} ORDER BY created_at DESC LIMIT 1`.execute(
      t.store.db,
    );
    assert.equal(rows.rows[0].label, null);
  });

  test('migration 1240: blank labels stored before the check become NULL; other labels are kept', async () => {
    const o = await seedOrg(t.store, { name: 'Blank Labels', tier: 'professional' });
    const ids: number[] = [];
    for (const label of ['', '  ', 'SIEM', ' kept as is ', null]) {
      const c = await t.app.inject({
        method: 'POST',
        url: '/api/v1/account/keys',
        headers: o.auth,
        payload: { label: 'x' },
      });
      ids.push(c.json().data.id);
      await sql`UPDATE api_keys SET label = ${label} WHERE id = ${c.json().data.id}`.execute(t.store.db);
    }
    await sql
      .raw(readFileSync(new URL('../../src/store/migrations/1240_blank_key_labels.sql', import.meta.url), 'utf8'))
      .execute(t.store.db);
    const labels = await sql<{
      id: number;
      label: string | null;
    }>`SELECT id, label FROM api_keys WHERE id IN (${sql.join(ids)})`.execute(t.store.db);
    assert.deepEqual(
      ids.map((id) => labels.rows.find((r) => Number(r.id) === id)!.label),
      [null, null, 'SIEM', ' kept as is ', null],
    );
  });

  test('a key creates keys only within its own scopes: a write-only key asking for read (or for the default read and write) → 403 insufficient_scope, nothing made', async () => {
    // A leaked write-only (ingest) key must not mint a read and write key.
    const o = await seedOrg(t.store, { name: 'Scope Org', tier: 'professional' });
    const w = await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/keys',
      headers: o.auth,
      payload: { scopes: ['write'], label: 'ingest only' },
    });
    assert.equal(w.statusCode, 201, w.body);
    const wo = { authorization: `Bearer ${w.json().data.key}` };
    const count = async () =>
      (await sql<{ n: number }>`SELECT count(*)::int AS n FROM api_keys WHERE org_id = ${o.orgId}`.execute(t.store.db))
        .rows[0].n;
    const before = await count();
    for (const payload of [{ scopes: ['read', 'write'] }, { scopes: ['read'] }, {}]) {
      const r = await t.app.inject({ method: 'POST', url: '/api/v1/account/keys', headers: wo, payload });
      assert.equal(r.statusCode, 403, JSON.stringify(payload));
      assert.deepEqual(
        [r.json().error.detail.error, r.json().error.detail.required_scope],
        ['insufficient_scope', 'read'],
        JSON.stringify(payload),
      );
    }
    assert.equal(await count(), before);
    const same = await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/keys',
      headers: wo,
      payload: { scopes: ['write'] },
    });
    assert.deepEqual([same.statusCode, same.json().data.scopes], [201, ['write']]);
    // The owner's read and write key (and a browser session) are not narrowed.
    assert.deepEqual(
      (await t.app.inject({ method: 'POST', url: '/api/v1/account/keys', headers: o.auth, payload: {} })).json().data
        .scopes,
      ['read', 'write'],
    );
  });

  test('the key list is a collection (spec §2.1): a pagination object, page and per_page (and so are the memberships)', async () => {
    // A paginated collection, as every v1 list: not a bare array, and ?page=1 is no 400 UNKNOWN_PARAMETER.
    const o = await seedOrg(t.store, { name: 'Paged Keys Org', tier: 'professional' });
    for (const label of ['k1', 'k2'])
      assert.equal(
        (await t.app.inject({ method: 'POST', url: '/api/v1/account/keys', headers: o.auth, payload: { label } }))
          .statusCode,
        201,
      );
    const all = await t.app.inject({ method: 'GET', url: '/api/v1/account/keys', headers: o.auth });
    assert.deepEqual(all.json().pagination, {
      total: 3,
      page: 1,
      per_page: 20,
      pages: 1,
      has_next: false,
      has_prev: false,
      count: 3,
    });
    const p2 = await t.app.inject({ method: 'GET', url: '/api/v1/account/keys?page=2&per_page=2', headers: o.auth });
    assert.equal(p2.statusCode, 200, p2.body);
    assert.deepEqual(p2.json().pagination, {
      total: 3,
      page: 2,
      per_page: 2,
      pages: 2,
      has_next: false,
      has_prev: true,
      count: 1,
    });
    assert.deepEqual(
      p2.json().data.map((k: { id: number }) => k.id),
      [all.json().data[2].id],
    );
    const { browser } = await signIn(o.ownerEmail);
    const m = await t.app.inject({
      method: 'GET',
      url: '/api/v1/auth/memberships?per_page=1',
      headers: browser.headers,
    });
    assert.equal(m.statusCode, 200, m.body);
    assert.deepEqual([m.json().data.length, m.json().pagination.total, m.json().pagination.per_page], [1, 1, 1]);
  });

  test("only a key's holder rotates it: an admin rotating the owner's key is refused (403 not_key_holder) and the key works on; revoking it is allowed", async () => {
    // The admin would otherwise get the new key, bound to the owner: a credential acting as the owner, kept after
    // the admin's removal (spec §5.1: a key acts as its member; §5.6: an admin cannot act as the owner).
    const o = await seedOrg(t.store, { name: 'Rotate Org', tier: 'professional' });
    const admin = await seedKey(t.store, o.orgId, null, { role: 'admin' });
    const c = await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/keys',
      headers: o.auth,
      payload: { label: 'owner integration' },
    });
    assert.equal(c.statusCode, 201, c.body);
    const ownerKey = { authorization: `Bearer ${c.json().data.key}` };
    const rot = await t.app.inject({
      method: 'POST',
      url: `/api/v1/account/keys/${c.json().data.id}/rotate`,
      headers: admin.auth,
    });
    assert.equal(rot.statusCode, 403, rot.body);
    assert.deepEqual([rot.json().error.code, rot.json().error.detail.error], ['FORBIDDEN', 'not_key_holder']);
    assert.equal(rot.json().data, undefined);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: ownerKey })).json().data.email,
      o.ownerEmail,
      'the key is not revoked',
    );
    const keys = await t.app.inject({ method: 'GET', url: '/api/v1/account/keys', headers: o.auth });
    assert.equal(
      keys.json().data.filter((k: { label: string | null }) => k.label === 'owner integration').length,
      1,
      'no new key was made',
    );
    // The holder rotates it: the new key is the holder's, the old one stops.
    const own = await t.app.inject({
      method: 'POST',
      url: `/api/v1/account/keys/${c.json().data.id}/rotate`,
      headers: ownerKey,
    });
    assert.equal(own.statusCode, 201, own.body);
    const fresh = own.json().data.key;
    assert.equal(
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/v1/account/me',
          headers: { authorization: `Bearer ${fresh.key}` },
        })
      ).json().data.email,
      o.ownerEmail,
    );
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: ownerKey })).statusCode, 401);
    // Another member's key may still be revoked by an admin.
    const del = await t.app.inject({ method: 'DELETE', url: `/api/v1/account/keys/${fresh.id}`, headers: admin.auth });
    assert.equal(del.statusCode, 200, del.body);
    assert.equal(
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/v1/account/me',
          headers: { authorization: `Bearer ${fresh.key}` },
        })
      ).statusCode,
      401,
    );
  });
});

describe('free trial', () => {
  test('a free account with a session starts one trial; second → 409 TRIAL_UNAVAILABLE; ended → 409 TRIAL_ENDED; a key → session_required', async () => {
    const o = await seedOrg(t.store, { name: 'Free Org', tier: 'free' });
    const s = { ...(await seedSession(t.store, o.orgId, o.memberId)), origin: ORIGIN };
    const viaKey = await t.app.inject({ method: 'POST', url: '/api/v1/account/trial', headers: o.auth });
    assert.equal(viaKey.json().error.detail.error, 'session_required');
    const r = await t.app.inject({ method: 'POST', url: '/api/v1/account/trial', headers: s });
    assert.equal(r.statusCode, 201, r.body);
    const d = r.json().data;
    assert.equal(d.kind, 'trial');
    assert.deepEqual([d.trial.per_request, d.trial.total_checks], [25, 750]);
    assert.equal(new Date(d.expires_at).getTime() - t.clock.now().getTime(), 14 * 24 * 3_600_000);
    const again = await t.app.inject({ method: 'POST', url: '/api/v1/account/trial', headers: s });
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().error.code, 'TRIAL_UNAVAILABLE');
    await sql`UPDATE trial_usage SET ended_at = now() WHERE org_id = ${o.orgId}`.execute(t.store.db);
    const ended = await t.app.inject({ method: 'POST', url: '/api/v1/account/trial', headers: s });
    assert.equal(ended.statusCode, 409);
    assert.equal(ended.json().error.code, 'TRIAL_ENDED');
    const paid = await seedOrg(t.store, { name: 'Paid Org', tier: 'professional' });
    const ps = { ...(await seedSession(t.store, paid.orgId, paid.memberId)), origin: ORIGIN };
    assert.equal(
      (await t.app.inject({ method: 'POST', url: '/api/v1/account/trial', headers: ps })).json().error.code,
      'TRIAL_UNAVAILABLE',
    );
  });
});

describe('trial status', () => {
  test('GET /api/v1/account/trial: not started, active with its checks, ended with why (limit, ended early, expired); the account page says the same', async () => {
    const o = await seedOrg(t.store, { name: 'Trial Status Org', tier: 'free' });
    const s = { ...(await seedSession(t.store, o.orgId, o.memberId)), origin: ORIGIN };
    const status = async (h: Record<string, string> = s) => {
      const r = await t.app.inject({ method: 'GET', url: '/api/v1/account/trial', headers: h });
      assert.equal(r.statusCode, 200, r.body);
      return r.json().data;
    };
    const page = async () => (await t.app.inject({ method: 'GET', url: '/account', headers: s })).body;
    assert.deepEqual(await status(), {
      status: 'not_started',
      reason: null,
      started_at: null,
      ends_at: null,
      per_request: 25,
      total_checks: 750,
      used: 0,
      remaining: 750,
    });
    assert.match(await page(), /Start the free API trial/);
    const started = t.clock.now();
    assert.equal((await t.app.inject({ method: 'POST', url: '/api/v1/account/trial', headers: s })).statusCode, 201);
    const ends = new Date(started.getTime() + 14 * 86_400_000).toISOString();
    const active = {
      status: 'active',
      reason: null,
      started_at: started.toISOString(),
      ends_at: ends,
      per_request: 25,
      total_checks: 750,
    };
    assert.deepEqual(await status(), { ...active, used: 0, remaining: 750 });
    await sql`UPDATE trial_usage SET used = 749 WHERE org_id = ${o.orgId}`.execute(t.store.db);
    assert.deepEqual(await status(), { ...active, used: 749, remaining: 1 });
    const p = await page();
    assert.match(
      p,
      /Free API trial: active until \d{4}-\d\d-\d\d \d\d:\d\d UTC; 749 of 750 asset checks used, 1 left \(25 per request\)\./,
    );
    assert.doesNotMatch(p, /Start the free API trial/);
    await sql`UPDATE trial_usage SET used = 750 WHERE org_id = ${o.orgId}`.execute(t.store.db);
    assert.deepEqual(await status(), { ...active, status: 'ended', reason: 'limit', used: 750, remaining: 0 });
    assert.match(
      await page(),
      /Free API trial: ended \(its asset checks are used up\); 750 of 750 asset checks were used\./,
    );
    await sql`UPDATE trial_usage SET used = 10, ended_at = now() WHERE org_id = ${o.orgId}`.execute(t.store.db);
    assert.deepEqual(await status(), { ...active, status: 'ended', reason: 'ended', used: 10, remaining: 0 });
    await sql`UPDATE trial_usage SET ended_at = NULL WHERE org_id = ${o.orgId}`.execute(t.store.db);
    // The 14-day expiry and its boundary: test/unit/keys.test.ts (trialStatus).
    // Any member reads it; another organization's trial is its own.
    const viewer = await seedKey(t.store, o.orgId, null, { role: 'viewer' });
    const vs = { ...(await seedSession(t.store, o.orgId, viewer.memberId)), origin: ORIGIN };
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/account/trial', headers: vs })).json().data.used,
      10,
    );
    const other = await seedOrg(t.store, { name: 'Trial Status Other', tier: 'professional' });
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/account/trial', headers: other.auth })).json().data.status,
      'not_started',
    );
  });
});

describe('account deletion and purge', () => {
  test('owner + session + exact text; deactivation immediate; email to the owner; purged after 20 h, every org_id table empty', async () => {
    const o = await seedOrg(t.store, { name: 'Doomed Org' });
    const keep = await seedOrg(t.store, { name: 'Survivor Org' });
    const admin = await seedKey(t.store, o.orgId, null, { role: 'admin' });
    const ownerS = { ...(await seedSession(t.store, o.orgId, o.memberId)), origin: ORIGIN };
    const adminS = { ...(await seedSession(t.store, o.orgId, admin.memberId)), origin: ORIGIN };
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/environments',
      headers: o.auth,
      payload: { name: 'Doomed plant' },
    });
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/account/team/invite',
      headers: o.auth,
      payload: { email: 'pending@example.test', role: 'viewer' },
    });
    const del = (h: Record<string, string>, body?: object) =>
      t.app.inject({ method: 'DELETE', url: '/api/v1/account', headers: h, ...(body ? { payload: body } : {}) });
    assert.equal(
      (await del(o.auth, { confirmation: DELETE_CONFIRMATION })).json().error.detail.error,
      'session_required',
    );
    const byAdmin = await del(adminS, { confirmation: DELETE_CONFIRMATION });
    assert.equal(byAdmin.statusCode, 403);
    assert.equal(byAdmin.json().error.detail.required_role, 'owner');
    for (const body of [
      undefined,
      {},
      { confirmation: 'delete my organization' },
      { confirmation: DELETE_CONFIRMATION.toUpperCase() },
    ]) {
      const r = await del(ownerS, body);
      assert.equal(r.statusCode, 403, JSON.stringify(body));
      assert.equal(r.json().error.code, 'FORBIDDEN');
      assert.equal(r.json().error.detail.error, 'confirmation_required');
    }
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: o.auth })).statusCode, 200);
    const ok = await del(ownerS, { confirmation: DELETE_CONFIRMATION });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().data.status, 'deactivated');
    for (const h of [o.auth, admin.auth, ownerS, adminS]) {
      assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: h })).statusCode, 401);
    }
    assert.equal(await t.app.services.accounts.isActive(o.orgId), false);
    const mail = await smtp.waitFor(o.ownerEmail, { match: (m) => m.subject.includes('was deleted') });
    assert.match(mail.text, /purged by/);

    const before = await tenantRowCounts(t, o.orgId);
    assert.ok(Object.values(before).reduce((a, b) => a + b, 0) > 5);
    const keepBefore = await tenantRowCounts(t, keep.orgId);
    t.clock.advance(19 * 3_600_000);
    try {
      assert.deepEqual(await t.app.services.accounts.purgeDeleted(), []);
      t.clock.advance(2 * 3_600_000);
      assert.deepEqual(await t.app.services.accounts.purgeDeleted(), [o.orgId]);
    } finally {
      t.clock.advance(-21 * 3_600_000);
    }
    // Schema-wide: every table with an org_id column (found in information_schema, so tables added later count).
    const after = await tenantRowCounts(t, o.orgId);
    assert.ok(Object.keys(after).length >= 8, Object.keys(after).join(','));
    assert.deepEqual(
      Object.entries(after).filter(([, n]) => n > 0),
      [],
    );
    const orgRow = await sql<{ n: number }>`SELECT count(*)::int AS n FROM organizations WHERE id = ${o.orgId}`.execute(
      t.store.db,
    );
    assert.equal(orgRow.rows[0].n, 0);
    const person = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM persons WHERE email = ${o.ownerEmail}`.execute(t.store.db);
    assert.equal(person.rows[0].n, 0);
    assert.deepEqual(await tenantRowCounts(t, keep.orgId), keepBefore);
  });
});

describe('managed-service providers (spec §3.2)', () => {
  test("list clients, deactivate one (keys and sessions stop, not purged), restore it; another provider's client is not found", async () => {
    const provider = await seedOrg(t.store, { name: 'MSP Co' });
    const client = await seedOrg(t.store, { name: 'Client Plant' });
    const stranger = await createOrganization(t.store.db, 'Someone Else', 'standard');
    const otherMsp = await seedOrg(t.store, { name: 'Other MSP' });
    await t.app.services.accounts.setProvider(client.orgId, provider.orgId);
    await t.app.services.accounts.setProvider(stranger.id, otherMsp.orgId);
    const cs = { ...(await seedSession(t.store, client.orgId, client.memberId)), origin: ORIGIN };
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/account/clients', headers: provider.auth });
    assert.deepEqual(
      list.json().data.map((c: { id: number; status: string }) => [c.id, c.status]),
      [[client.orgId, 'active']],
    );
    assert.deepEqual(list.json().pagination, {
      total: 1,
      page: 1,
      per_page: 20,
      pages: 1,
      has_next: false,
      has_prev: false,
      count: 1,
    });
    const off = await t.app.inject({
      method: 'POST',
      url: `/api/v1/account/clients/${client.orgId}/deactivate`,
      headers: provider.auth,
    });
    assert.equal(off.statusCode, 200, off.body);
    assert.equal(off.json().data.status, 'deactivated');
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: client.auth })).statusCode,
      401,
    );
    assert.equal((await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: cs })).statusCode, 401);
    // Not purged: the hourly job leaves it alone.
    t.clock.advance(48 * 3_600_000);
    try {
      assert.deepEqual(await t.app.services.accounts.purgeDeleted(), []);
    } finally {
      t.clock.advance(-48 * 3_600_000);
    }
    const on = await t.app.inject({
      method: 'POST',
      url: `/api/v1/account/clients/${client.orgId}/restore`,
      headers: provider.auth,
    });
    assert.equal(on.json().data.status, 'active');
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/api/v1/account/me', headers: client.auth })).statusCode,
      200,
    );
    const foreign = await t.app.inject({
      method: 'POST',
      url: `/api/v1/account/clients/${stranger.id}/deactivate`,
      headers: provider.auth,
    });
    assert.equal(foreign.statusCode, 404);
    assert.equal(await t.app.services.accounts.isActive(stranger.id), true);
  });
});
