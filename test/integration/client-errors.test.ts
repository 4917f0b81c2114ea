// Requests Node's HTTP parser refuses before routing are answered in the spec §7 envelope:
// a URL over 16 KB (431) and a malformed request line (400). Raw bytes over a real socket: app.inject never
// reaches the parser.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { testApp, type TestApp } from '../helpers/app.ts';
import { REQUEST_ID_RE } from '../../src/lib/ids.ts';

let t: TestApp;
let port: number;
before(async () => {
  t = await testApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as net.AddressInfo).port;
});
after(async () => {
  await t.close();
});

/** Writes raw bytes, reads until the server closes, and splits status line, headers and body. */
function raw(bytes: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    s.on('data', (c) => chunks.push(c));
    s.on('error', reject);
    s.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    s.write(bytes);
  });
}

function assertEnvelope(r: Awaited<ReturnType<typeof raw>>, status: number, error: string) {
  assert.equal(r.status, status, r.body);
  assert.match(r.headers['content-type'], /^application\/json/);
  const b = JSON.parse(r.body);
  assert.deepEqual(Object.keys(b).sort(), ['api', 'error']);
  assert.match(b.api.request_id, REQUEST_ID_RE);
  assert.equal(r.headers['x-request-id'], b.api.request_id);
  assert.equal(b.api.version, '1.0.0');
  assert.ok(!Number.isNaN(Date.parse(b.api.timestamp)));
  assert.equal(b.error.code, 'BAD_REQUEST');
  assert.equal(b.error.detail.error, error);
  assert.equal(b.error.retryable, false);
  assert.equal(b.error.retry_after_seconds, null);
  assert.equal(b.error.action, 'fix_input');
  assert.equal(typeof b.error.message, 'string');
  assert.equal(Number(r.headers['content-length']), Buffer.byteLength(r.body));
}

test('a URL over 16 KB → 431 in the envelope (not the framework body)', async () => {
  const r = await raw(`GET /api/v1/cves?q=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  assertEnvelope(r, 431, 'request_header_too_large');
});

test('a malformed request line → 400 in the envelope', async () => {
  for (const line of [
    'GARBAGE\r\n\r\n',
    'GET /api/v1/health/ping HTTP/9\r\n\r\n',
    'G@T / HTTP/1.1\r\nHost: x\r\n\r\n',
  ]) {
    assertEnvelope(await raw(line), 400, 'malformed_request');
  }
});

test('the server keeps serving afterwards', async () => {
  const r = await raw('GET /api/v1/health/ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.equal(r.status, 200);
  assert.match(r.body, /pong/);
});

test('a body that does not arrive within the request timeout → 408 in the envelope, the connection closed', async () => {
  // Fastify's default leaves Node's limit off: a sign-in body sent a byte every 9 s would still be open after 150 s.
  const slow = await testApp({ env: { VULNINTEL_REQUEST_TIMEOUT_MS: '500' } });
  try {
    await slow.app.listen({ host: '127.0.0.1', port: 0 });
    const p = (slow.app.server.address() as net.AddressInfo).port;
    const started = Date.now();
    const r = await new Promise<Awaited<ReturnType<typeof raw>>>((resolve, reject) => {
      const s = net.connect(p, '127.0.0.1');
      const chunks: Buffer[] = [];
      s.on('data', (c) => chunks.push(c));
      s.on('error', reject);
      s.write(
        'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"em',
      );
      const drip = setInterval(() => {
        if (!s.destroyed) s.write(' ');
      }, 100);
      s.on('close', () => {
        clearInterval(drip);
        const text = Buffer.concat(chunks).toString('utf8');
        const [head, ...rest] = text.split('\r\n\r\n');
        const [statusLine, ...lines] = head.split('\r\n');
        resolve({
          status: Number(statusLine.split(' ')[1]),
          headers: Object.fromEntries(
            lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
          ),
          body: rest.join('\r\n\r\n'),
        });
      });
    });
    assertEnvelope(r, 408, 'request_timeout');
    assert.ok(Date.now() - started < 10_000, `closed after ${Date.now() - started} ms`);
  } finally {
    await slow.close();
  }
});
