// The tenant-webhook egress policy (docs/egress.md "Two policies"; docs/reliability.md S1–S6): never a private,
// loopback, link-local, mapped, NAT64 or other non-unicast address, https only; its only exception is the
// test/dev list VULNINTEL_WEBHOOK_EGRESS_ALLOW. A feed mirror on the feeds allow list never becomes reachable by a
// webhook. No packet goes to a private range: refusals happen before connecting (literal check or the injected
// resolver), and the only traffic is to loopback receivers this file starts, reached through an explicit list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig, ConfigError } from '../../src/config.ts';
import { code } from '../helpers/egress-code.ts';
import { WEBHOOK_REFUSED_URLS } from '../helpers/ssrf-urls.ts';
import { createEgress, createWebhookEgress, WEBHOOK_EGRESS_DEFAULTS } from '../../src/lib/egress.ts';
import {
  EgressError,
  feedsPolicy,
  webhookPolicy,
  webhookBlockedRange,
  type Resolver,
} from '../../src/lib/egress-policy.ts';

async function rejectsWith(p: Promise<unknown>, expected: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof EgressError, `expected EgressError, got ${e}`);
    assert.equal(e.code, expected, e.message);
    return true;
  });
}

test('webhook policy: every URL spelling of a private, loopback, link-local, mapped, NAT64 or non-unicast target is refused', () => {
  const policy = webhookPolicy();
  for (const [u, expected] of WEBHOOK_REFUSED_URLS)
    assert.equal(
      code(() => policy.check(u)),
      expected,
      u,
    );
  for (const u of [
    'https://hooks.example.com/x',
    'https://HOOKS.EXAMPLE.COM./x',
    'https://8.8.8.8:8443/',
    'https://[2606:4700:4700::1111]/',
    'https://discord.com/api/webhooks/1/abc',
  ]) {
    assert.equal(
      code(() => policy.check(u)),
      'accepted',
      u,
    );
  }
});

test('webhook policy is stricter than the feeds policy on mapped, 6to4 and NAT64 forms of public addresses', () => {
  for (const a of [
    '::ffff:8.8.8.8',
    '2002:808:808::1',
    '64:ff9b::808:808',
    '::8.8.8.8',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
  ]) {
    assert.ok(webhookBlockedRange(a), `${a} refused for webhooks`);
  }
  assert.equal(webhookBlockedRange('::ffff:8.8.8.8'), 'non-unicast (ipv4Mapped)');
  assert.equal(webhookBlockedRange('93.184.216.34'), null);
  assert.equal(webhookBlockedRange('2a00:1450:4001:80b::200e'), null);
  assert.equal(feedsPolicy().blocked('::ffff:8.8.8.8'), null);
});

/** An injected resolver: names to addresses, so no real DNS (or private packet) is involved. */
function resolverOf(map: Record<string, { address: string; family: 4 | 6 }[]>): Resolver {
  return async (host) => {
    const a = map[host];
    if (!a) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return a;
  };
}

test('webhook policy: DNS answers that are private, metadata, mapped, NAT64 or mixed public+private are refused', async () => {
  const resolver = resolverOf({
    'private.example': [{ address: '10.0.0.5', family: 4 }],
    'metadata.example': [{ address: '169.254.169.254', family: 4 }],
    'mixed.example': [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ],
    'mixed6.example': [
      { address: '2606:4700:4700::1111', family: 6 },
      { address: 'fd00::5', family: 6 },
    ],
    'mapped.example': [{ address: '::ffff:8.8.8.8', family: 6 }],
    'nat64.example': [{ address: '64:ff9b::a00:5', family: 6 }],
    'loop6.example': [{ address: '::1', family: 6 }],
    'cgnat.example': [{ address: '100.100.100.200', family: 4 }],
  });
  const egress = createWebhookEgress({ resolver });
  try {
    for (const host of [
      'private.example',
      'metadata.example',
      'mixed.example',
      'mixed6.example',
      'mapped.example',
      'nat64.example',
      'loop6.example',
      'cgnat.example',
    ]) {
      await rejectsWith(egress.fetch(`https://${host}/hook`, { method: 'POST', body: '{}' }), 'blocked_address');
    }
    await rejectsWith(egress.fetch('https://unknown.example/hook'), 'dns_failure');
  } finally {
    await egress.close();
  }
});

async function receiver(
  handler: http.RequestListener = (_q, s) => s.end('ok'),
): Promise<{ port: number; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      hits.push(`${req.method} ${req.url} ${body}`);
      handler(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

test('a feed mirror on the feeds allow list is not reachable by a webhook, by address or by name', async () => {
  const mirror = await receiver((_q, s) => s.end('feed data'));
  const config = loadConfig({ VULNINTEL_EGRESS_ALLOW: `127.0.0.1:${mirror.port},mirror.internal:${mirror.port}` });
  assert.deepEqual(config.webhookEgressAllowList, [], 'the feeds list is not the webhook list');
  const resolver = resolverOf({ 'mirror.internal': [{ address: '127.0.0.1', family: 4 }] });
  const feeds = createEgress({ allowList: config.egressAllowList, resolver });
  const hooks = createWebhookEgress({ testAllowList: config.webhookEgressAllowList, resolver });
  try {
    assert.equal(await (await feeds.fetch(`http://127.0.0.1:${mirror.port}/kev.json`)).text(), 'feed data');
    assert.equal(await (await feeds.fetch(`http://mirror.internal:${mirror.port}/kev.json`)).text(), 'feed data');
    assert.equal(mirror.hits.length, 2);
    await rejectsWith(
      hooks.fetch(`http://127.0.0.1:${mirror.port}/x`, { method: 'POST', body: '{}' }),
      'scheme_not_allowed',
    );
    await rejectsWith(
      hooks.fetch(`https://127.0.0.1:${mirror.port}/x`, { method: 'POST', body: '{}' }),
      'blocked_address',
    );
    await rejectsWith(
      hooks.fetch(`http://mirror.internal:${mirror.port}/x`, { method: 'POST', body: '{}' }),
      'scheme_not_allowed',
    );
    await rejectsWith(
      hooks.fetch(`https://mirror.internal:${mirror.port}/x`, { method: 'POST', body: '{}' }),
      'blocked_address',
    );
    assert.equal(mirror.hits.length, 2, 'the webhook attempts never reached the mirror');
  } finally {
    await Promise.all([feeds.close(), hooks.close(), mirror.close()]);
  }
});

test('VULNINTEL_WEBHOOK_EGRESS_ALLOW: a separate test/dev setting, validated, refused in production', () => {
  assert.deepEqual(loadConfig({}).webhookEgressAllowList, []);
  assert.deepEqual(
    loadConfig({ VULNINTEL_WEBHOOK_EGRESS_ALLOW: '127.0.0.1:9000, [::1]:9001' }).webhookEgressAllowList,
    ['127.0.0.1:9000', '[::1]:9001'],
  );
  assert.throws(
    () => loadConfig({ VULNINTEL_WEBHOOK_EGRESS_ALLOW: 'a b' }),
    (e: unknown) => e instanceof ConfigError && e.variable === 'VULNINTEL_WEBHOOK_EGRESS_ALLOW',
  );
  assert.throws(
    () => loadConfig({ VULNINTEL_ENV: 'production', VULNINTEL_WEBHOOK_EGRESS_ALLOW: '127.0.0.1:9000' }),
    (e: unknown) =>
      e instanceof ConfigError && e.variable === 'VULNINTEL_WEBHOOK_EGRESS_ALLOW' && /production/.test(e.message),
  );
  // The feeds list alone is fine in production (private mirrors are the operator's call).
  assert.deepEqual(
    loadConfig({ VULNINTEL_ENV: 'production', VULNINTEL_EGRESS_ALLOW: 'mirror.internal' }).egressAllowList,
    ['mirror.internal'],
  );
});

test('createWebhookEgress against a loopback receiver (through the test setting): delivered, pinned, no redirects, capped, deadline', async () => {
  assert.deepEqual(WEBHOOK_EGRESS_DEFAULTS, {
    connectTimeoutMs: 5_000,
    headersTimeoutMs: 10_000,
    bodyTimeoutMs: 10_000,
    timeoutMs: 10_000,
    maxResponseBytes: 64 * 1024,
  });
  const other = await receiver();
  const hook = await receiver((req, res) => {
    if (req.url === '/redirect') {
      res.writeHead(302, { location: `http://127.0.0.1:${other.port}/` });
      res.end();
      return;
    }
    if (req.url === '/endless') {
      res.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 97);
      const pump = () => {
        while (res.write(chunk)) {
          /* fill */
        }
      };
      res.on('drain', pump);
      pump();
      return;
    }
    if (req.url === '/stall') {
      res.writeHead(200);
      res.write('partial');
      return;
    }
    res.writeHead(204);
    res.end();
  });
  const allow = [`127.0.0.1:${hook.port}`, `receiver.test:${hook.port}`];
  const resolver = resolverOf({ 'receiver.test': [{ address: '127.0.0.1', family: 4 }] });
  const egress = createWebhookEgress({ testAllowList: allow, resolver });
  try {
    const ok = await egress.fetch(`http://127.0.0.1:${hook.port}/deliver`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"event":"cve.alert"}',
    });
    assert.equal(ok.status, 204);
    await ok.discard();
    // A name that does not exist in DNS reaches the receiver only through the injected (pinned) answer.
    const pinned = await egress.fetch(`http://receiver.test:${hook.port}/pinned`, { method: 'POST', body: 'p' });
    assert.equal(pinned.status, 204);
    await pinned.discard();
    assert.deepEqual(hook.hits.slice(0, 2), ['POST /deliver {"event":"cve.alert"}', 'POST /pinned p']);

    const redirect = await egress.fetch(`http://127.0.0.1:${hook.port}/redirect`, { method: 'POST', body: '{}' });
    assert.equal(redirect.status, 302);
    await redirect.discard();
    assert.equal(other.hits.length, 0, 'the redirect was not followed');

    const endless = await egress.fetch(`http://127.0.0.1:${hook.port}/endless`, { method: 'POST', body: '{}' });
    await rejectsWith(endless.bytes(), 'response_too_large');

    const short = createWebhookEgress({ testAllowList: allow, timeoutMs: 200 });
    try {
      const stalled = await short.fetch(`http://127.0.0.1:${hook.port}/stall`, { method: 'POST', body: '{}' });
      await rejectsWith(stalled.text(), 'timeout');
    } finally {
      await short.close();
    }
    // The test setting is scoped to host:port: another loopback port stays refused.
    await rejectsWith(egress.fetch(`https://127.0.0.1:${other.port}/`), 'blocked_address');
    await rejectsWith(egress.fetch(`http://127.0.0.1:${other.port}/`), 'scheme_not_allowed');
    // Without the setting, the same receiver is refused.
    const strict = createWebhookEgress({ resolver });
    try {
      await rejectsWith(strict.fetch(`https://receiver.test:${hook.port}/`), 'blocked_address');
      await rejectsWith(strict.fetch(`http://127.0.0.1:${hook.port}/`), 'scheme_not_allowed');
    } finally {
      await strict.close();
    }
  } finally {
    await Promise.all([egress.close(), hook.close(), other.close()]);
  }
});
