// Egress policy (docs/egress.md; docs/reliability.md S1–S6). No packet ever goes to a private range here:
// refused cases are refused before connecting (literal check or the injected resolver), and the only traffic
// is to loopback servers this file starts, reached through an explicit allow list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createEgress } from '../../src/lib/egress.ts';
import { blockedRange, checkUrl, EgressError, policyLookup, type Resolver } from '../../src/lib/egress-policy.ts';
import { code } from '../helpers/egress-code.ts';

test('blockedRange: every row of the S2 table, edges included, and public addresses pass', () => {
  const blocked: [string, string][] = [
    ['0.0.0.0', 'this-network'],
    ['0.255.255.255', 'this-network'],
    ['10.0.0.5', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'carrier-grade-nat'],
    ['100.127.255.255', 'carrier-grade-nat'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.8', 'ietf-protocol-assignments'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['64:ff9b::808:808', 'nat64'],
    // IPv4-mapped, IPv4-compatible and 6to4 forms are unwrapped to the IPv4 row.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:10.1.2.3', 'private'],
    ['::7f00:1', 'loopback'],
    ['::10.0.0.1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['[::1]', 'loopback'],
    ['fe80::1%eth0', 'link-local'],
  ];
  for (const [addr, name] of blocked) {
    const r = blockedRange(addr);
    assert.ok(r, `${addr} must be blocked`);
    assert.equal(r.split(' ')[0], name, `${addr} → ${r}`);
  }
  for (const addr of [
    '8.8.8.8',
    '1.1.1.1',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.1',
    '192.169.0.1',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '2002:808:808::1',
  ]) {
    assert.equal(blockedRange(addr), null, `${addr} is public`);
  }
  assert.equal(blockedRange('not-an-ip'), 'unparseable address');
});

test('checkUrl: URL spellings of private targets are refused before any connection', () => {
  const cases: [string, string][] = [
    ['https://2130706433/', 'blocked_address'],
    ['https://0x7f.1/', 'blocked_address'],
    ['https://127.1/', 'blocked_address'],
    ['https://017700000001/', 'blocked_address'],
    ['https://[::ffff:127.0.0.1]/', 'blocked_address'],
    ['https://[::1]:8443/', 'blocked_address'],
    ['https://[fe80::1]/', 'blocked_address'],
    ['https://0.0.0.0/', 'blocked_address'],
    ['https://169.254.169.254/latest/meta-data/', 'blocked_address'],
    ['https://10.0.0.1/', 'blocked_address'],
    ['https://localhost/', 'host_not_allowed'],
    ['https://localhost./', 'host_not_allowed'],
    ['https://LOCALHOST/', 'host_not_allowed'],
    ['https://api.localhost/', 'host_not_allowed'],
    ['https://user:pass@example.com/', 'userinfo_not_allowed'],
    ['https://user@example.com/', 'userinfo_not_allowed'],
    ['http://example.com/', 'scheme_not_allowed'],
    ['ftp://example.com/', 'scheme_not_allowed'],
    ['file:///etc/passwd', 'scheme_not_allowed'],
    ['not a url', 'invalid_url'],
    ['https://example.com/feed.json', 'accepted'],
    ['https://8.8.8.8/', 'accepted'],
    ['https://services.nvd.nist.gov:8443/rest', 'accepted'],
  ];
  for (const [u, expected] of cases)
    assert.equal(
      code(() => checkUrl(u, [])),
      expected,
      u,
    );
});

test('checkUrl: the allow list is explicit and scoped to host or host:port', () => {
  assert.equal(checkUrl('http://127.0.0.1:4000/x', ['127.0.0.1:4000']).allowListed, true);
  assert.equal(checkUrl('http://127.0.0.1:4000/x', ['127.0.0.1']).allowListed, true);
  assert.equal(
    code(() => checkUrl('http://127.0.0.1:4001/x', ['127.0.0.1:4000'])),
    'scheme_not_allowed',
  );
  assert.equal(
    code(() => checkUrl('https://127.0.0.1:4001/x', ['127.0.0.1:4000'])),
    'blocked_address',
  );
  assert.equal(checkUrl('http://[::1]:9/x', ['[::1]:9']).allowListed, true);
  assert.equal(checkUrl('http://Feeds.Example.:80/', ['feeds.example']).allowListed, true);
  // Userinfo is refused even for an allow-listed host.
  assert.equal(
    code(() => checkUrl('http://u:p@127.0.0.1:4000/', ['127.0.0.1:4000'])),
    'userinfo_not_allowed',
  );
});

async function startServer(
  handler: http.RequestListener,
): Promise<{ port: number; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url} host=${req.headers.host}`);
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    hits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function rejectsWith(p: Promise<unknown>, expected: string): Promise<EgressError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof EgressError, `expected EgressError, got ${e}`);
    assert.equal(e.code, expected, e.message);
    return e;
  }
  assert.fail(`expected ${expected}, request succeeded`);
}

test('fetch: a resolver answer in a private range is refused, also when mixed with public addresses', async () => {
  const answers: Record<string, string[]> = {
    'internal.example': ['10.0.0.5'],
    'metadata.example': ['169.254.169.254'],
    'mixed.example': ['93.184.215.14', '192.168.1.20'],
    'mapped.example': ['::ffff:127.0.0.1'],
  };
  const asked: string[] = [];
  const resolver: Resolver = async (h) => {
    asked.push(h);
    return (answers[h] ?? []).map((a) => ({ address: a, family: a.includes(':') ? 6 : 4 }));
  };
  const egress = createEgress({ resolver });
  try {
    for (const host of Object.keys(answers)) {
      const err = await rejectsWith(egress.fetch(`https://${host}/feed.json`), 'blocked_address');
      assert.match(err.message, new RegExp(`${host.replace('.', '\\.')} resolves to`));
    }
    await rejectsWith(egress.fetch('https://nowhere.example/'), 'dns_failure');
    assert.deepEqual(asked, [...Object.keys(answers), 'nowhere.example']);
  } finally {
    await egress.close();
  }
});

test('fetch: loopback is reachable only through the allow list, and the default policy refuses it', async () => {
  const srv = await startServer((_req, res) => res.end('{"ok":true}'));
  const dflt = createEgress();
  const allowed = createEgress({ allowList: [`127.0.0.1:${srv.port}`] });
  try {
    await rejectsWith(dflt.fetch(`http://127.0.0.1:${srv.port}/a`), 'scheme_not_allowed');
    await rejectsWith(dflt.fetch(`https://127.0.0.1:${srv.port}/a`), 'blocked_address');
    await rejectsWith(
      allowed.fetch(`http://127.0.0.1:${srv.port + 1 === 65536 ? 1 : srv.port + 1}/a`),
      'scheme_not_allowed',
    );
    assert.deepEqual(srv.hits, []);
    const res = await allowed.fetch(`http://127.0.0.1:${srv.port}/a?b=1`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ok: true });
    assert.deepEqual(srv.hits, [`GET /a?b=1 host=127.0.0.1:${srv.port}`]);
  } finally {
    await Promise.all([dflt.close(), allowed.close(), srv.close()]);
  }
});

test('fetch: the connection goes to the validated (pinned) address; without the pin the name does not resolve', async () => {
  const srv = await startServer((_req, res) => res.end('pinned'));
  const pinned: Resolver = async (h) => (h === 'pinned.invalid' ? [{ address: '127.0.0.1', family: 4 }] : []);
  const viaPin = createEgress({ resolver: pinned, allowList: [`pinned.invalid:${srv.port}`] });
  const notListed = createEgress({ resolver: pinned });
  const noPin = createEgress({ allowList: [`pinned.invalid:${srv.port}`] });
  try {
    const res = await viaPin.fetch(`http://pinned.invalid:${srv.port}/x`);
    assert.equal(await res.text(), 'pinned');
    assert.deepEqual(srv.hits, [`GET /x host=pinned.invalid:${srv.port}`]);
    await rejectsWith(notListed.fetch(`https://pinned.invalid:${srv.port}/x`), 'blocked_address');
    await rejectsWith(noPin.fetch(`http://pinned.invalid:${srv.port}/x`), 'dns_failure');
    assert.equal(srv.hits.length, 1);
  } finally {
    await Promise.all([viaPin.close(), notListed.close(), noPin.close(), srv.close()]);
  }
});

test('fetch: a 3xx is returned as is and never followed', async () => {
  const target = await startServer((_req, res) => res.end('should not be reached'));
  const redirector = await startServer((_req, res) => {
    res.writeHead(302, { location: `http://127.0.0.1:${target.port}/next` });
    res.end();
  });
  const egress = createEgress({ allowList: [`127.0.0.1:${redirector.port}`, `127.0.0.1:${target.port}`] });
  try {
    const res = await egress.fetch(`http://127.0.0.1:${redirector.port}/start`);
    assert.equal(res.status, 302);
    assert.equal(res.headers.location, `http://127.0.0.1:${target.port}/next`);
    await res.discard();
    assert.deepEqual(target.hits, []);
    assert.equal(redirector.hits.length, 1);
  } finally {
    await Promise.all([egress.close(), target.close(), redirector.close()]);
  }
});

test('fetch: the response size cap applies to declared and chunked bodies; the deadline applies to a stalled body', async () => {
  const srv = await startServer((req, res) => {
    if (req.url === '/declared') {
      res.writeHead(200, { 'content-length': '5000' });
      res.end('x'.repeat(5000));
    } else if (req.url === '/chunked') {
      res.writeHead(200);
      let n = 0;
      const iv = setInterval(() => {
        if (n++ > 50 || res.destroyed) {
          clearInterval(iv);
          res.end();
          return;
        }
        res.write('y'.repeat(1000));
      }, 1);
    } else if (req.url === '/small') {
      res.end('z'.repeat(100));
    } else {
      res.writeHead(200);
      res.write('partial');
      // then stall
    }
  });
  const egress = createEgress({ allowList: [`127.0.0.1:${srv.port}`], maxResponseBytes: 2000 });
  try {
    await rejectsWith((await egress.fetch(`http://127.0.0.1:${srv.port}/declared`)).text(), 'response_too_large');
    await rejectsWith((await egress.fetch(`http://127.0.0.1:${srv.port}/chunked`)).bytes(), 'response_too_large');
    assert.equal(await (await egress.fetch(`http://127.0.0.1:${srv.port}/small`)).text(), 'z'.repeat(100));
    const stalled = await egress.fetch(`http://127.0.0.1:${srv.port}/stall`, { timeoutMs: 300 });
    await rejectsWith(stalled.text(), 'timeout');
  } finally {
    await Promise.all([egress.close(), srv.close()]);
  }
});

test('policyLookup: answers in both callback forms, filters by family, refuses any blocked address', async () => {
  const resolver: Resolver = async (h) =>
    h === 'dual.example'
      ? [
          { address: '93.184.215.14', family: 4 },
          { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
        ]
      : [
          { address: '93.184.215.14', family: 4 },
          { address: 'fd00::1', family: 6 },
        ];
  const call = (lookup: ReturnType<typeof policyLookup>, host: string, options: object) =>
    new Promise<unknown[]>((resolve) =>
      (lookup as unknown as (h: string, o: object, cb: (...a: unknown[]) => void) => void)(host, options, (...a) =>
        resolve(a),
      ),
    );
  const enforce = policyLookup(resolver, true);
  assert.deepEqual(await call(enforce, 'dual.example', { all: true }), [
    null,
    [
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ],
  ]);
  assert.deepEqual(await call(enforce, 'dual.example', {}), [null, '93.184.215.14', 4]);
  assert.deepEqual(await call(enforce, 'dual.example', { family: 6 }), [
    null,
    '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
    6,
  ]);
  const [err] = await call(enforce, 'half-private.example', { all: true });
  assert.ok(err instanceof EgressError && err.code === 'blocked_address');
  assert.match(err.message, /half-private\.example resolves to fd00::1, in a blocked range \(unique-local fc00::\/7\)/);
  // Without enforcement (allow-listed hosts) the same answer is passed through.
  assert.deepEqual(await call(policyLookup(resolver, false), 'half-private.example', { all: true }), [
    null,
    [
      { address: '93.184.215.14', family: 4 },
      { address: 'fd00::1', family: 6 },
    ],
  ]);
});

test('fetch: TLS certificates are verified for pinned connections (a self-signed certificate is refused)', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vi-tls-'));
  // A throwaway key and certificate for this test only, made at run time (nothing secret is committed).
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=pinned.invalid',
      '-addext',
      'subjectAltName=DNS:pinned.invalid',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const server = https.createServer(
    { key: await readFile(path.join(dir, 'key.pem')), cert: await readFile(path.join(dir, 'cert.pem')) },
    (_req, res) => res.end('tls'),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const egress = createEgress({
    resolver: async () => [{ address: '127.0.0.1', family: 4 }],
    allowList: [`pinned.invalid:${port}`],
  });
  try {
    const err = await rejectsWith(egress.fetch(`https://pinned.invalid:${port}/`), 'network_error');
    assert.match(err.message, /SELF_SIGNED/);
  } finally {
    await egress.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    await rm(dir, { recursive: true, force: true });
  }
});
