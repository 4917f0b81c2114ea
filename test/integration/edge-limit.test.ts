// The edge limit (spec §8): anonymous and session requests, 60 a minute per client address, the whole minute's
// allowance usable in one burst; the 61st → 429 RATE_LIMITED with retry 10 and Retry-After: 10. Keyed requests
// count against the key instead (their monthly X-RateLimit-* headers untouched); /api/v1/health/ping is exempt;
// X-Forwarded-For is read only from a configured trusted proxy.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, seedOrg, seedSession, type TestApp } from '../helpers/app.ts';
import { loadConfig } from '../../src/config.ts';

let t: TestApp;
let proxied: TestApp;
before(async () => {
  t = await testApp({ env: { VULNINTEL_EDGE_LIMIT_PER_MINUTE: '60' } });
  proxied = await testApp({
    env: { VULNINTEL_EDGE_LIMIT_PER_MINUTE: '60', VULNINTEL_TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.7' },
  });
});
after(async () => {
  await t.close();
  await proxied.close();
});

const URL_ = '/api/v1/cves/stats/summary';
const from = (x: TestApp, remoteAddress: string, headers: Record<string, string> = {}, url = URL_) =>
  x.app.inject({ method: 'GET', url, remoteAddress, headers });

function assertRefused(r: Awaited<ReturnType<typeof from>>) {
  assert.equal(r.statusCode, 429, r.body);
  assert.equal(r.headers['retry-after'], '10');
  const body = r.json();
  assert.equal(body.api.request_id, r.headers['x-request-id']);
  assert.deepEqual(body.error, {
    code: 'RATE_LIMITED',
    message:
      'Too many requests from this address: at most 60 per minute without an API key; retry in 10 seconds, or send an API key',
    retryable: true,
    retry_after_seconds: 10,
    action: 'retry_later',
    detail: { error: 'rate_limited', limit: 60, window_seconds: 60, counted_by: 'client_address' },
  });
  assert.equal(r.headers['x-ratelimit-limit'], undefined);
}

test('on by default: 60 a minute per address, trusted proxies none', () => {
  const c = loadConfig({});
  assert.deepEqual(c.edgeLimit, { perMinute: 60, trustedProxies: [] });
  assert.throws(
    () => loadConfig({ VULNINTEL_TRUSTED_PROXIES: '10.0.0.0/33' }),
    /VULNINTEL_TRUSTED_PROXIES.*prefix length/,
  );
  assert.throws(
    () => loadConfig({ VULNINTEL_TRUSTED_PROXIES: 'proxy.local' }),
    /VULNINTEL_TRUSTED_PROXIES.*not an IP address/,
  );
});

test('a burst of 60 at once passes; the 61st is refused with the exact envelope; another address is unaffected', async () => {
  const burst = await Promise.all(Array.from({ length: 60 }, () => from(t, '198.51.100.1')));
  assert.deepEqual(
    burst.map((r) => r.statusCode),
    Array(60).fill(200),
  );
  assertRefused(await from(t, '198.51.100.1'));
  // Every route counts, the API's 404s included; ping does not.
  assertRefused(await from(t, '198.51.100.1', {}, '/api/v1/cves/CVE-2024-0001'));
  const ping = await from(t, '198.51.100.1', {}, '/api/v1/health/ping');
  assert.equal(ping.statusCode, 200);
  assert.deepEqual(ping.json(), { ping: 'pong' });
  assert.equal((await from(t, '198.51.100.2')).statusCode, 200);
});

test('ping is exempt: 200 pings from one address all pass, and do not use up its allowance', async () => {
  const rs = await Promise.all(Array.from({ length: 200 }, () => from(t, '198.51.100.3', {}, '/api/v1/health/ping')));
  assert.deepEqual(new Set(rs.map((r) => r.statusCode)), new Set([200]));
  assert.equal((await from(t, '198.51.100.3')).statusCode, 200);
});

test('the limit is configurable (VULNINTEL_EDGE_LIMIT_PER_MINUTE) and the message states it', async () => {
  const x = await testApp({ env: { VULNINTEL_EDGE_LIMIT_PER_MINUTE: '2' } });
  try {
    assert.equal((await from(x, '198.51.100.9')).statusCode, 200);
    assert.equal((await from(x, '198.51.100.9')).statusCode, 200);
    const r = await from(x, '198.51.100.9');
    assert.equal(r.statusCode, 429);
    assert.equal(
      r.json().error.message,
      'Too many requests from this address: at most 2 per minute without an API key; retry in 10 seconds, or send an API key',
    );
  } finally {
    await x.close();
  }
});

test('sessions are counted by address; keyed requests count against the key (X-RateLimit-* is the monthly allowance)', async () => {
  const o = await seedOrg(t.store, { name: 'Edge keyed' });
  const s = await seedSession(t.store, o.orgId, o.memberId);
  const sessions = await Promise.all(
    Array.from({ length: 60 }, () => from(t, '198.51.100.4', s, '/api/v1/account/me')),
  );
  assert.deepEqual(new Set(sessions.map((r) => r.statusCode)), new Set([200]));
  assertRefused(await from(t, '198.51.100.4', s, '/api/v1/account/me'));
  // The same address with an API key: not limited by the edge; the allowance headers count the key's calls.
  const keyed = [];
  for (let i = 0; i < 70; i++) keyed.push(await from(t, '198.51.100.4', o.auth, '/api/v1/account/me'));
  assert.deepEqual(new Set(keyed.map((r) => r.statusCode)), new Set([200]));
  assert.equal(keyed[69].headers['x-ratelimit-used'], '70');
  assert.equal(keyed[69].headers['x-ratelimit-limit'], '25000');
  assert.equal(keyed[69].headers['retry-after'], undefined);
});

test('a made-up API key is no way around the limit: each refused key costs its address one request', async () => {
  const bogus = { authorization: 'Bearer vi_live_00000000000000000000000000000000' };
  for (let i = 0; i < 60; i++) assert.equal((await from(t, '198.51.100.5', bogus)).statusCode, 401);
  assertRefused(await from(t, '198.51.100.5'));
});

test("a malformed URL (answered before routing) is counted too: 60 of them use up the address's minute", async () => {
  // No hook runs for it: counted nowhere else, an address could send any number without touching its allowance.
  for (let i = 0; i < 60; i++) assert.equal((await from(t, '203.0.113.77', {}, '/api/v1/cves/%zz')).statusCode, 400);
  assertRefused(await from(t, '203.0.113.77', {}, '/api/v1/cves/%zz'));
  assertRefused(await from(t, '203.0.113.77'));
  assert.equal(
    (await from(t, '203.0.113.78', {}, '/api/v1/cves/%zz')).json().error.detail.error,
    'invalid_url',
    'another address is unaffected',
  );
});

test("a malformed URL with an API key: a valid key's call is counted and reported; a made-up key costs its address", async () => {
  const o = await seedOrg(t.store, { name: 'Edge bad URL' });
  const first = await from(t, '203.0.113.79', o.auth, '/api/v1/cves/stats/summary');
  assert.equal(first.headers['x-ratelimit-used'], '1');
  const bad = await from(t, '203.0.113.79', o.auth, '/api/v1/cves/%zz');
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.json().error.detail.error, 'invalid_url');
  assert.deepEqual(
    [bad.headers['x-ratelimit-limit'], bad.headers['x-ratelimit-used'], bad.headers['x-ratelimit-remaining']],
    ['25000', '2', '24998'],
  );
  // Keyed, so never limited by the edge: 70 more from one address all answer 400 with the count going on.
  let last = bad;
  for (let i = 0; i < 70; i++) last = await from(t, '203.0.113.79', o.auth, '/api/v1/cves/%zz');
  assert.equal(last.statusCode, 400);
  assert.equal(last.headers['x-ratelimit-used'], '72');
  assert.equal((await from(t, '203.0.113.79', o.auth, '/api/v1/cves/stats/summary')).headers['x-ratelimit-used'], '73');

  // A made-up key (or a malformed Authorization header) with a bad URL: each costs the address one request, so 60
  // use up its minute, and no allowance header is sent.
  const bogus = { authorization: 'Bearer vi_live_00000000000000000000000000000000' };
  for (let i = 0; i < 59; i++) {
    const r = await from(t, '203.0.113.80', bogus, '/api/v1/cves/%zz');
    assert.equal(r.statusCode, 400);
    assert.equal(r.headers['x-ratelimit-used'], undefined);
  }
  assert.equal((await from(t, '203.0.113.80', { authorization: 'Basic abc' }, '/api/v1/cves/%zz')).statusCode, 400);
  assertRefused(await from(t, '203.0.113.80'));
});

test('a spoofed X-Forwarded-For changes nothing without trusted proxies', async () => {
  for (let i = 0; i < 60; i++) {
    const r = await from(t, '198.51.100.6', { 'x-forwarded-for': `203.0.113.${i}` });
    assert.equal(r.statusCode, 200);
  }
  assertRefused(await from(t, '198.51.100.6', { 'x-forwarded-for': '203.0.113.250' }));
  assert.equal((await from(t, '203.0.113.250')).statusCode, 200, 'the spoofed address was never charged');
});

test('behind a trusted proxy the client address comes from X-Forwarded-For, walked past trusted hops only', async () => {
  // Two clients behind the trusted proxy 10.1.2.3: counted apart.
  const a = await Promise.all(
    Array.from({ length: 60 }, () => from(proxied, '10.1.2.3', { 'x-forwarded-for': '203.0.113.10' })),
  );
  assert.deepEqual(new Set(a.map((r) => r.statusCode)), new Set([200]));
  assertRefused(await from(proxied, '10.1.2.3', { 'x-forwarded-for': '203.0.113.10' }));
  assert.equal((await from(proxied, '10.1.2.3', { 'x-forwarded-for': '203.0.113.11' })).statusCode, 200);
  // A client writing its own X-Forwarded-For in front: the proxy appends the real peer; only that counts.
  assertRefused(await from(proxied, '10.1.2.3', { 'x-forwarded-for': '198.18.0.1, 203.0.113.10' }));
  // Two trusted hops (192.0.2.7 then 10.9.9.9): the first untrusted address from the right is the client.
  assertRefused(await from(proxied, '10.9.9.9', { 'x-forwarded-for': '203.0.113.10, 192.0.2.7' }));
  // A peer that is not a trusted proxy: its header is ignored and the peer itself is counted.
  const direct = await from(proxied, '198.51.100.7', { 'x-forwarded-for': '203.0.113.10' });
  assert.equal(direct.statusCode, 200);
  // IPv4-mapped IPv6 peers are the same address as plain IPv4.
  assertRefused(await from(proxied, '::ffff:10.1.2.3', { 'x-forwarded-for': '203.0.113.10' }));
});
