// Webhook rules without I/O (src/domain/webhooks.ts; docs/reliability.md W1, W2, W12; ADRs 0086 and 0088): the
// spec's signature and the Standard Webhooks one against known answers, the Discord classification, the payload
// cap (AI text cut, identifiers never), the state machine's failure rule, and secret sealing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import {
  afterDelivery,
  alertBody,
  discordAlertBody,
  isDiscordUrl,
  signedHeaders,
  specSignature,
  standardSignature,
  truncateText,
  WEBHOOK_FAILURE_LIMIT,
  WEBHOOK_PAYLOAD_CAP,
  WEBHOOK_TIMEOUT_MS,
  type AlertPayload,
} from '../../src/domain/webhooks.ts';
import { loadSecretKey, openSecret, sealSecret, SECRET_KEY_FILE } from '../../src/lib/crypto.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateWebhookSecret } from '../../src/services/webhooks.ts';

test('spec signature: the known-answer vector of docs/reliability.md (a)', () => {
  const body = Buffer.from('{"event":"cve.alert","version":"1.0"}');
  assert.equal(
    createHash('sha256').update('whsec_example_secret').digest('hex'),
    '029725e94e48e993fb099126cb89f460946eaa43564f4e0ee97d0ac63591a127',
  );
  assert.equal(
    specSignature('whsec_example_secret', body),
    'sha256=e5ad1c5059c5c06b9b61645c199d306e247a9d69aa99d6a81615aa531a43f440',
  );
  // Not the secret used directly as the key.
  assert.notEqual(
    specSignature('whsec_example_secret', body),
    'sha256=97e3d102faa107728a4a835dcf805e0b5e06e25cb50a25e7c675f5cd81716ade',
  );
  assert.equal(
    `sha256=${createHmac('sha256', 'whsec_example_secret').update(body).digest('hex')}`,
    'sha256=97e3d102faa107728a4a835dcf805e0b5e06e25cb50a25e7c675f5cd81716ade',
  );
});

test('Standard Webhooks signature: the known answer of their reference library (sign function works)', () => {
  // standard-webhooks/standard-webhooks libraries/javascript/src/webhook.test.ts "sign function works".
  const sig = standardSignature(
    'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    'msg_p5jXN8AQM9LWM0D4loKWxJek',
    1614265330,
    Buffer.from('{"test": 2432232314}'),
  );
  assert.equal(sig, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  // With or without the whsec_ prefix (their "verification works with and without signature prefix").
  assert.equal(
    standardSignature(
      'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      Buffer.from('{"test": 2432232314}'),
    ),
    sig,
  );
});

test('signed headers: exactly the spec four plus the Standard Webhooks three and the content type', () => {
  const body = Buffer.from('{"a":1}');
  const h = signedHeaders('whsec_x', 'msg_1', 1700000000, body);
  assert.deepEqual(Object.keys(h).sort(), [
    'content-type',
    'user-agent',
    'webhook-id',
    'webhook-signature',
    'webhook-timestamp',
    'x-vulnintel-signature',
    'x-vulnintel-timestamp',
    'x-vulnintel-version',
  ]);
  assert.equal(h['user-agent'], 'Vulnintel-Alert/1.0');
  assert.equal(h['content-type'], 'application/json');
  assert.equal(h['x-vulnintel-version'], '1.0');
  assert.equal(h['x-vulnintel-timestamp'], '1700000000');
  assert.equal(h['webhook-timestamp'], '1700000000');
  assert.equal(h['webhook-id'], 'msg_1');
  assert.equal(h['x-vulnintel-signature'], specSignature('whsec_x', body));
});

test('constants: 10 s, 5 failures, 64 KiB', () => {
  assert.equal(WEBHOOK_TIMEOUT_MS, 10_000);
  assert.equal(WEBHOOK_FAILURE_LIMIT, 5);
  assert.equal(WEBHOOK_PAYLOAD_CAP, 65_536);
});

test('Discord URLs (ADR 0086)', () => {
  for (const u of [
    'https://discord.com/api/webhooks/1/abc',
    'https://discordapp.com/api/webhooks/1/abc',
    'https://ptb.discord.com/api/webhooks/1/a',
    'https://canary.discordapp.com/api/webhooks/1/a',
    'https://DISCORD.COM./api/webhooks/1/a',
  ])
    assert.equal(isDiscordUrl(u), true, u);
  for (const u of [
    'https://discord.com/api/other/1',
    'https://evil-discord.com/api/webhooks/1/a',
    'https://discord.com.evil.example/api/webhooks/1',
    'https://x.discord.com/api/webhooks/1/a',
    'not a url',
    'https://hooks.example.com/api/webhooks/1',
  ])
    assert.equal(isDiscordUrl(u), false, u);
});

function alert(over: Partial<AlertPayload['data']> = {}): AlertPayload {
  return {
    event: 'cve.alert',
    version: '1.0',
    timestamp: '2026-11-21T12:00:00Z',
    data: {
      cve_id: 'CVE-2024-3400',
      title: 'PAN-OS GlobalProtect command injection',
      cvss_score: 10,
      cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H',
      patch_status: 'patched',
      kev_flagged: true,
      epss_score: 0.957,
      sage_priority: 'PATCH NOW',
      published_at: '2024-04-12T08:15:06Z',
      url: 'https://vulnintel.test/cve/CVE-2024-3400',
      executive_summary: 'Summary ✓',
      mitigation: null,
      causal_boundary: 'Scope',
      virtual_patch: null,
      watchlist_match: { entity_type: 'vendor', entity_name: 'Palo Alto Networks' },
      ...over,
    },
  };
}

test('payload cap: a small alert is sent as it is; a huge one is cut to ≤ 64 KiB in its AI text only', () => {
  const small = alert();
  assert.deepEqual(JSON.parse(alertBody(small).toString()), small);
  const big = alert({
    executive_summary: 'é'.repeat(50_000),
    mitigation: '🛡'.repeat(30_000),
    virtual_patch: 'x'.repeat(100_000),
  });
  const body = alertBody(big);
  assert.ok(body.length <= WEBHOOK_PAYLOAD_CAP, String(body.length));
  assert.ok(body.length > WEBHOOK_PAYLOAD_CAP - 200, `uses the room it has: ${body.length}`);
  const got = JSON.parse(body.toString()) as AlertPayload;
  const { executive_summary: _a, mitigation: _b, virtual_patch: _c, ...rest } = got.data;
  const { executive_summary: _d, mitigation: _e, virtual_patch: _f, ...restIn } = big.data;
  assert.deepEqual(rest, restIn, 'identifiers and every non-AI field unchanged');
  for (const f of ['executive_summary', 'mitigation', 'virtual_patch'] as const)
    assert.ok(got.data[f]!.endsWith('…'), f);
  assert.ok(!/[\uD800-\uDBFF]$/.test(got.data.mitigation!.slice(0, -1)), 'no split surrogate pair');
});

test('payload cap property: any alert fits, and cve_id, url and watchlist_match survive byte for byte', () => {
  // Any code points (control characters JSON escapes to 6 bytes, astral ones of 4), repeated up to ~60k characters.
  const text = fc.option(
    fc.tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }), fc.nat(2_000)).map(([s, n]) => s.repeat(n)),
    { nil: null },
  );
  fc.assert(
    fc.property(text, text, text, text, fc.string({ maxLength: 300 }), (s, m, c, v, title) => {
      const a = alert({ executive_summary: s, mitigation: m, causal_boundary: c, virtual_patch: v, title });
      const body = alertBody(a);
      assert.ok(body.length <= WEBHOOK_PAYLOAD_CAP);
      const got = JSON.parse(body.toString()) as AlertPayload;
      assert.equal(got.data.cve_id, a.data.cve_id);
      assert.equal(got.data.url, a.data.url);
      assert.deepEqual(got.data.watchlist_match, a.data.watchlist_match);
      assert.equal(got.data.title, a.data.title);
    }),
    { numRuns: 15 },
  );
});

test('Discord embed: within Discord limits, names the CVE and links it', () => {
  const a = alert({ title: 'T'.repeat(400), executive_summary: 'S'.repeat(9000) });
  const d = JSON.parse(discordAlertBody(a).toString()) as {
    embeds: { title: string; url: string; description: string; fields: { value: string }[] }[];
  };
  assert.equal(d.embeds.length, 1);
  assert.ok(d.embeds[0].title.startsWith('CVE-2024-3400: '));
  assert.ok(Array.from(d.embeds[0].title).length <= 256);
  assert.ok(Array.from(d.embeds[0].description).length <= 4096);
  assert.equal(d.embeds[0].url, a.data.url);
  assert.ok(d.embeds[0].fields.every((f) => f.value.length <= 1024));
});

test('truncateText counts code points and adds an ellipsis', () => {
  assert.equal(truncateText('abcdef', 4), 'abc…');
  assert.equal(truncateText('abc', 3), 'abc');
  assert.equal(truncateText('😀😀😀', 2), '😀…');
});

test('state machine rule: consecutive failures, a success resets, the 5th disables', () => {
  let s = { enabled: true, consecutiveFailures: 0 };
  for (let i = 1; i <= 4; i++) s = afterDelivery(s, false);
  assert.deepEqual(s, { enabled: true, consecutiveFailures: 4 });
  assert.deepEqual(afterDelivery(s, true), { enabled: true, consecutiveFailures: 0 });
  assert.deepEqual(afterDelivery(s, false), { enabled: false, consecutiveFailures: 5 });
});

test('generated secrets: whsec_ + base64 of 32 bytes, unique', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const s = generateWebhookSecret();
    assert.match(s, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(s.slice(6), 'base64').length, 32);
    seen.add(s);
  }
  assert.equal(seen.size, 200);
});

test('sealing: opens with the same key and context only; the ciphertext never contains the secret', () => {
  const key = randomBytes(32);
  const secret = generateWebhookSecret();
  const sealed = sealSecret(key, secret, 'webhook-secret:1');
  assert.ok(!sealed.includes(secret) && !sealed.includes(secret.slice(6)));
  assert.notEqual(sealSecret(key, secret, 'webhook-secret:1'), sealed, 'a fresh IV per seal');
  assert.equal(openSecret(key, sealed, 'webhook-secret:1'), secret);
  assert.throws(() => openSecret(key, sealed, 'webhook-secret:2'));
  assert.throws(() => openSecret(randomBytes(32), sealed, 'webhook-secret:1'));
  const parts = sealed.split('.');
  const ct = Buffer.from(parts[2], 'base64url');
  ct[0] ^= 1;
  parts[2] = ct.toString('base64url');
  assert.throws(() => openSecret(key, parts.join('.'), 'webhook-secret:1'), 'tampering is detected');
});

test('the sealing key: VULNINTEL_SECRET_KEY as hex or base64, else a generated key file that is reused', () => {
  const hex = randomBytes(32).toString('hex');
  assert.equal(loadConfig({ VULNINTEL_SECRET_KEY: hex.toUpperCase() }).secretKey, hex);
  assert.equal(loadConfig({ VULNINTEL_SECRET_KEY: Buffer.from(hex, 'hex').toString('base64') }).secretKey, hex);
  for (const bad of ['short', 'zz'.repeat(32), randomBytes(16).toString('hex')]) {
    assert.throws(
      () => loadConfig({ VULNINTEL_SECRET_KEY: bad }),
      (e: unknown) => e instanceof ConfigError && e.variable === 'VULNINTEL_SECRET_KEY',
    );
  }
  assert.deepEqual(loadSecretKey({ secretKey: hex, dataDir: '/nonexistent' }), Buffer.from(hex, 'hex'));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vi-key-'));
  try {
    const k1 = loadSecretKey({ secretKey: null, dataDir: path.join(dir, 'data') });
    assert.equal(k1.length, 32);
    assert.deepEqual(
      loadSecretKey({ secretKey: null, dataDir: path.join(dir, 'data') }),
      k1,
      'the same key on the next start',
    );
    assert.equal(statSync(path.join(dir, 'data', SECRET_KEY_FILE)).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(path.join(dir, 'data')), [SECRET_KEY_FILE], 'no temporary file left');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
