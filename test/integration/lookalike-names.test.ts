// Look-alike names (docs/api-conventions.md "Names"): invisible characters (zero-width, bidi marks, …) are refused
// in environment, organization, profile and feed-token names, as in an asset_id; an environment name confusable
// with another of the same organization (Unicode's confusables skeleton, after NFKC) is refused. 422 in the §7
// envelope, naming the field.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, seedOrg, seedKey, type TestApp, type SeededKey } from '../helpers/app.ts';

let t: TestApp;
let org: SeededKey;
let other: SeededKey;

before(async () => {
  t = await testApp();
  org = await seedOrg(t.store, { name: 'Lookalike Org', tier: 'professional' });
  other = await seedOrg(t.store, { name: 'Other Org', tier: 'professional' });
});
after(async () => {
  await t.close();
});

async function call(auth: Record<string, string>, method: 'POST' | 'PUT', url: string, body: unknown) {
  const r = await t.app.inject({
    method,
    url,
    headers: { ...auth, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  return { status: r.statusCode, body: r.json() as any, text: r.body };
}

function assert422(r: { status: number; body: any; text: string }, field: string, message: RegExp) {
  assert.equal(r.status, 422, r.text);
  assert.equal(r.body.error.code, 'VALIDATION_ERROR');
  const f = r.body.error.detail.find((d: any) => d.field === field);
  assert.ok(f, `${field} named: ${r.text}`);
  assert.match(f.message, message);
}

const INVISIBLE = [
  ['zero-width space', 'pr\u200bod'],
  ['word joiner', 'pr\u2060od'],
  ['soft hyphen', 'pr\u00adod'],
  ['byte order mark', '\ufeffprod'],
  ['combining grapheme joiner', 'pro\u034fd'],
  ['Hangul filler', 'prod\u3164'],
] as const;

test('invisible characters are refused in environment, organization, profile and feed-token names (422 naming the field)', async () => {
  for (const [what, name] of INVISIBLE) {
    assert422(await call(org.auth, 'POST', '/api/v1/environments', { name }), 'body.name', /invisible/);
    assert422(await call(org.auth, 'PUT', '/api/v1/account/org', { name: `Acme ${name}` }), 'body.name', /invisible/);
    assert422(await call(org.auth, 'PUT', '/api/v1/account/me', { name: `Alice ${name}` }), 'body.name', /invisible/);
    assert422(
      await call(org.auth, 'POST', '/api/v1/feeds/tokens', { label: `SOC ${name}` }),
      'body.label',
      /invisible/,
    );
    void what;
  }
  const envs = await t.store.db.selectFrom('environments').select('name').where('org_id', '=', org.orgId).execute();
  assert.deepEqual(envs, [], 'nothing stored');
  // The joiners Persian and Indic text needs stay allowed, as in an asset_id.
  const persian = await call(org.auth, 'POST', '/api/v1/environments', { name: 'می\u200cخواهم' });
  assert.equal(persian.status, 201, persian.text);
});

test('an environment name confusable with another of the organization is refused: Cyrillic, full-width, Greek look-alikes', async () => {
  const prod = await call(org.auth, 'POST', '/api/v1/environments', { name: 'prod' });
  assert.equal(prod.status, 201, prod.text);
  // The bidi marks right-to-left text uses stay allowed in names, but do not make a look-alike differ.
  for (const name of ['\u0440rod', 'ｐｒｏｄ', 'pr\u03bfd', 'pr\u043ed', 'prod\u200e', '\u200fprod']) {
    const r = await call(org.auth, 'POST', '/api/v1/environments', { name });
    assert422(r, 'body.name', /looks like the environment "prod" of your organization/);
    assert.equal(r.body.error.detail[0].type, 'value_error.confusable');
  }
  // Not a look-alike: a different name, and the same name in another organization.
  assert.equal((await call(org.auth, 'POST', '/api/v1/environments', { name: 'preprod' })).status, 201);
  assert.equal((await call(other.auth, 'POST', '/api/v1/environments', { name: '\u0440rod' })).status, 201);
  // Environment ids are random (docs/tenant-ids.md): the names are compared as a set.
  const envs = await t.store.db
    .selectFrom('environments')
    .select('name')
    .where('org_id', '=', org.orgId)
    .orderBy('name')
    .execute();
  assert.deepEqual(
    envs.map((e) => e.name).filter((n) => n !== 'می\u200cخواهم'),
    ['preprod', 'prod'],
  );
});

test('a feed-token label confusable with a live token of the organization is refused; a revoked one no longer counts', async () => {
  const first = await call(org.auth, 'POST', '/api/v1/feeds/tokens', { label: 'SOC reader' });
  assert.equal(first.status, 201, first.text);
  const look = await call(org.auth, 'POST', '/api/v1/feeds/tokens', { label: 'S\u041eC reader' });
  assert422(look, 'body.label', /looks like the feed token "SOC reader" of your organization/);
  assert.ok(!look.text.includes('vi_feed') && !look.text.includes('/feeds/watchlist/'), 'no token in a refusal');
  assert.equal(
    (await call(other.auth, 'POST', '/api/v1/feeds/tokens', { label: 'S\u041eC reader' })).status,
    201,
    'another organization is never compared',
  );
  const revoke = await t.app.inject({
    method: 'DELETE',
    url: `/api/v1/feeds/tokens/${first.body.data.id}`,
    headers: org.auth,
  });
  assert.equal(revoke.statusCode, 200, revoke.body);
  assert.equal((await call(org.auth, 'POST', '/api/v1/feeds/tokens', { label: 'S\u041eC reader' })).status, 201);
});

test('a profile name confusable with another member of the organization is refused; the same name exactly, or in another organization, is not', async () => {
  const team = await seedOrg(t.store, { name: 'Profile Team', tier: 'professional' });
  const admin = await seedKey(t.store, team.orgId, null, { role: 'admin' });
  const outsider = await seedOrg(t.store, { name: 'Profile Outsider', tier: 'professional' });
  const nameOf = async (memberId: number) =>
    (await t.store.db.selectFrom('members').select('name').where('id', '=', memberId).executeTakeFirstOrThrow()).name;
  // The owner is "Owner": Cyrillic О, full-width letters and a trailing bidi mark all read the same.
  for (const name of ['\u041ewner', 'Ｏｗｎｅｒ', 'Owner\u200e']) {
    const r = await call(admin.auth, 'PUT', '/api/v1/account/me', { name });
    assert422(r, 'body.name', /looks like the name "Owner" of another member of your organization/);
    assert.equal(r.body.error.detail[0].type, 'value_error.confusable');
    assert.equal(await nameOf(admin.memberId), '', 'nothing stored');
  }
  // Two people may share a name exactly; a different name passes; another organization's members are never compared.
  const same = await call(admin.auth, 'PUT', '/api/v1/account/me', { name: 'Owner' });
  assert.equal(same.status, 200, same.text);
  assert.equal(same.body.data.name, 'Owner');
  assert.equal((await call(admin.auth, 'PUT', '/api/v1/account/me', { name: 'Owen' })).status, 200);
  assert.equal(await nameOf(admin.memberId), 'Owen');
  const elsewhere = await call(outsider.auth, 'PUT', '/api/v1/account/me', { name: '\u041ewen' });
  assert.equal(elsewhere.status, 200, elsewhere.text);
  // The owner now looks like the admin's "Owen": refused for the owner too, with the other member's name.
  assert422(
    await call(team.auth, 'PUT', '/api/v1/account/me', { name: 'Ow\u0435n' }),
    'body.name',
    /looks like the name "Owen"/,
  );
  // Preferences alone (the name unchanged) are never refused for it.
  assert.equal((await call(team.auth, 'PUT', '/api/v1/account/me', { preferences: { theme: 'dark' } })).status, 200);
});
