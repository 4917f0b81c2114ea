// A multipart upload refused before its body is read must not hold the keep-alive connection: the next request on
// that connection is answered (the rest of the body is drained), or the refusal says `Connection: close` and the
// server closes the socket. Over a real socket, one connection per case (node:http Agent, keepAlive, maxSockets 1).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { testApp, seedOrg, type TestApp, type SeededKey } from '../helpers/app.ts';

let t: TestApp;
let port: number;
let org: SeededKey;

before(async () => {
  t = await testApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
  org = await seedOrg(t.store, { name: 'Keep-alive org' });
});
after(async () => {
  await t.close();
});

const B = 'vi-keepalive-boundary';
const CSV =
  'asset_id,os_product,edition_id,display_version,os_build,architecture,installation_type,installed_kbs,kb_source,esu_enrolled,collected_at\r\n' +
  '5f0c1e9a7b2d44e08c3a6f1d2b9e7a41,Windows Server 2019 Datacenter,ServerDatacenter,1809,10.0.17763.8755,x64,Server,KB5087538,Get-HotFix,,2026-06-15T08:00:00Z\r\n';
const filePart = (name: string, value: string) =>
  `--${B}\r\nContent-Disposition: form-data; name="${name}"; filename="${name}.csv"\r\nContent-Type: text/csv\r\n\r\n${value}\r\n`;
const field = (name: string, value: string) =>
  `--${B}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const END = `--${B}--\r\n`;
/** A software CSV large enough that the parser has not read the whole body when the refusal is decided. */
const BIG_SOFTWARE = `asset_id,name,publisher,version\r\n${'5f0c1e9a7b2d44e08c3a6f1d2b9e7a41,Some Product,Some Vendor,1.2.3\r\n'.repeat(20_000)}`;

const CASES: { name: string; body: string; field: string; message: RegExp }[] = [
  {
    name: 'two hosts parts',
    body: filePart('hosts', CSV) + filePart('hosts', CSV) + filePart('software', BIG_SOFTWARE) + END,
    field: 'body.hosts',
    message: /one hosts part/,
  },
  {
    name: 'an unknown part first',
    body: filePart('notes', 'x') + filePart('hosts', CSV) + filePart('software', BIG_SOFTWARE) + END,
    field: 'body.notes',
    message: /only the hosts and software parts may be files/,
  },
  {
    name: 'two software parts',
    body:
      filePart('hosts', CSV) +
      filePart('software', 'asset_id,name,publisher,version\r\n') +
      filePart('software', BIG_SOFTWARE) +
      END,
    field: 'body.software',
    message: /one software part/,
  },
  {
    name: 'two environment_id fields',
    body:
      field('environment_id', '1') +
      field('environment_id', '2') +
      filePart('hosts', CSV) +
      filePart('software', BIG_SOFTWARE) +
      END,
    field: 'body.environment_id',
    message: /more than once/,
  },
  {
    name: '300 extra fields',
    body:
      Array.from({ length: 300 }, (_, i) => field(`extra_${i}`, 'x'.repeat(200))).join('') +
      filePart('hosts', CSV) +
      filePart('software', BIG_SOFTWARE) +
      END,
    field: 'body',
    message: /too many form parts/,
  },
];

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  socket: unknown;
}

/** One request through the agent; rejects if no answer comes within `waitMs` (a hung connection). */
function request(
  agent: http.Agent,
  o: { method: string; path: string; headers?: Record<string, string>; body?: string },
  waitMs = 10_000,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, agent, method: o.method, path: o.path, headers: o.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
            socket: req.socket,
          });
        });
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new Error(`no answer to ${o.method} ${o.path} within ${waitMs} ms: the connection hangs`));
    }, waitMs);
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end(o.body);
  });
}

for (const c of CASES) {
  test(`multipart refused early (${c.name}): 422 naming the problem, and the next request on the connection is answered`, async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await request(agent, {
        method: 'POST',
        path: '/api/v2/assets/correlate-csv',
        headers: {
          ...org.auth,
          'content-type': `multipart/form-data; boundary=${B}`,
          'content-length': String(Buffer.byteLength(c.body)),
        },
        body: c.body,
      });
      assert.equal(first.status, 422, first.body);
      const err = JSON.parse(first.body).error;
      assert.equal(err.code, 'VALIDATION_ERROR');
      assert.equal(err.detail[0].field, c.field);
      assert.match(err.detail[0].message, c.message);
      const second = await request(agent, { method: 'GET', path: '/api/v1/health/ping' });
      assert.equal(second.status, 200, second.body);
      // Either the connection was reused and answered, or the refusal closed it and said so.
      if (second.socket !== first.socket)
        assert.equal(first.headers.connection, 'close', 'a new connection without Connection: close on the refusal');
    } finally {
      agent.destroy();
    }
  });
}

test('an accepted upload keeps the connection alive (no needless close)', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const body = filePart('hosts', CSV) + END;
    const first = await request(agent, {
      method: 'POST',
      path: '/api/v2/assets/correlate-csv',
      headers: {
        ...org.auth,
        'content-type': `multipart/form-data; boundary=${B}`,
        'content-length': String(Buffer.byteLength(body)),
      },
      body,
    });
    assert.equal(first.status, 200, first.body.slice(0, 300));
    assert.notEqual(first.headers.connection, 'close');
    const second = await request(agent, { method: 'GET', path: '/api/v1/health/ping' });
    assert.equal(second.status, 200);
    assert.equal(second.socket, first.socket, 'the same connection serves the next request');
  } finally {
    agent.destroy();
  }
});
