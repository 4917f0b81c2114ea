// The webhook endpoints over HTTP (spec §3.1, §4.6, §6; docs/webhooks.md): the secret returned once and never
// again (responses, database columns, logs), a loopback receiver verifying both signatures over the raw bytes
// it got, rotate-secret invalidating the old secret at once, enable, update, delete, the deliveries listing, plan
// and role gates, SSRF refusals at create and update, and two organizations seeing only their own webhooks.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createHash } from 'node:crypto';
import pino from 'pino';
import { sql } from '../../src/store/kysely.ts';
import { testApp, seedOrg, seedKey, seedSession, type TestApp } from '../helpers/app.ts';
import {
  startReceiver,
  verifySpecSignature,
  verifyStandardSignature,
  type Receiver,
} from '../helpers/webhook-receiver.ts';
import { WEBHOOK_REFUSED_URLS } from '../helpers/ssrf-urls.ts';
import { apiClient } from '../helpers/api-client.ts';
import type { VulnintelClient } from '../../clients/typescript/index.ts';
import { verifyStandardWebhook, verifyWebhookSignature } from '../../clients/typescript/webhooks.ts';

let t: TestApp;
let rx: Receiver;
let org: Awaited<ReturnType<typeof seedOrg>>;
/** The typed client (clients/typescript) with org's key; requests the types refuse on purpose go through `call`. */
let api: VulnintelClient;
const logLines: string[] = [];
const secretsSeen: string[] = [];

before(async () => {
  rx = await startReceiver();
  const logger = pino(
    { level: 'trace' },
    new Writable({
      write(chunk: Buffer, _e, cb) {
        logLines.push(chunk.toString());
        cb();
      },
    }),
  );
  t = await testApp({ env: { VULNINTEL_WEBHOOK_EGRESS_ALLOW: rx.hostPort }, logger, now: '2026-11-21T12:00:00Z' });
  org = await seedOrg(t.store, { name: 'Hooks Org', tier: 'standard' });
  api = apiClient(t.app, org.auth);
});
after(async () => {
  await t.close();
  await rx.close();
});

type Json = Record<string, any>;
async function call(
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  body?: unknown,
  headers: Record<string, string> = org.auth,
) {
  const r = await t.app.inject({
    method,
    url,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.statusCode, body: r.json() as Json, text: r.body };
}

async function create(label: string, path = '/ok') {
  const { data, error, response } = await api.POST('/api/v1/webhooks', { body: { label, url: `${rx.base}${path}` } });
  assert.equal(response.status, 201, JSON.stringify(error));
  assert.ok(data);
  secretsSeen.push(data.data.secret);
  return data.data;
}

describe('create, read, update, delete', () => {
  test('create: 201 with the record and a secret returned once; list and get never show it', async () => {
    const w = await create('SOC intake');
    assert.match(w.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(w.label, 'SOC intake');
    assert.equal(w.url, `${rx.base}/ok`);
    assert.equal(w.status, 'active');
    assert.equal(w.kind, 'signed');
    assert.equal(w.consecutive_failures, 0);
    assert.equal(w.disabled_reason, null);
    assert.equal(w.created_at, '2026-11-21T12:00:00.000Z');
    assert.match(String(w.id), /^\d{15}$/);
    const list = await api.GET('/api/v1/webhooks');
    assert.equal(list.response.status, 200);
    assert.ok(list.data);
    assert.deepEqual(
      [list.data.pagination.page, list.data.pagination.per_page, list.data.pagination.count],
      [1, 20, list.data.data.length],
    );
    const one1 = await api.GET('/api/v1/webhooks', { params: { query: { per_page: 1 } } });
    assert.deepEqual(
      [one1.data?.data.length, one1.data?.pagination.per_page, one1.data?.pagination.total],
      [1, 1, list.data.pagination.total],
    );
    const mine = list.data.data.find((x) => x.id === w.id);
    assert.ok(mine);
    assert.deepEqual(Object.keys(mine).sort(), [
      'consecutive_failures',
      'created_at',
      'disabled_at',
      'disabled_reason',
      'id',
      'kind',
      'label',
      'last_delivery_at',
      'status',
      'updated_at',
      'url',
    ]);
    assert.ok(!JSON.stringify(list.data).includes(w.secret));
    const one = await api.GET('/api/v1/webhooks/{id}', { params: { path: { id: w.id } } });
    assert.equal(one.response.status, 200);
    assert.equal(one.data?.data.label, 'SOC intake');
    assert.ok(one.data && !('secret' in one.data.data));
  });

  test('update label and URL; a refused URL answers 422 on url and changes nothing', async () => {
    const w = await create('Old label');
    const r = await call('PATCH', `/api/v1/webhooks/${w.id}`, { label: '  New label ', url: `${rx.base}/ok/renamed` });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data.label, 'New label');
    assert.equal(r.body.data.url, `${rx.base}/ok/renamed`);
    const bad = await call('PATCH', `/api/v1/webhooks/${w.id}`, { url: 'https://169.254.169.254/latest/meta-data/' });
    assert.equal(bad.status, 422, bad.text);
    assert.equal(bad.body.error.code, 'VALIDATION_ERROR');
    assert.equal(bad.body.error.detail[0].field, 'body.url');
    assert.equal((await call('GET', `/api/v1/webhooks/${w.id}`)).body.data.url, `${rx.base}/ok/renamed`);
    assert.equal((await call('PATCH', `/api/v1/webhooks/${w.id}`, {})).status, 422, 'an empty update is refused');
    assert.equal(
      (await call('PATCH', `/api/v1/webhooks/${w.id}`, { secret: 'x' })).status,
      422,
      'the secret cannot be set',
    );
  });

  test('a URL with spaces or control characters is refused (422 on url, the message says why), at create and update; nothing stored', async () => {
    const before = (await call('GET', '/api/v1/webhooks')).body.pagination.total;
    for (const url of [
      `\t${rx.base}/ok/t\u0007`,
      `${rx.base}/ok/x\n`,
      ` ${rx.base}/ok`,
      `${rx.base}/ok/a b`,
      `${rx.base}/ok\u007f`,
    ]) {
      const r = await call('POST', '/api/v1/webhooks', { label: 'ctl', url });
      assert.equal(r.status, 422, JSON.stringify(url));
      assert.equal(r.body.error.detail[0].field, 'body.url');
      assert.match(r.body.error.detail[0].message, /spaces or control characters/);
    }
    assert.equal((await call('GET', '/api/v1/webhooks')).body.pagination.total, before);
    const w = await create('Ctl update');
    const u = await call('PATCH', `/api/v1/webhooks/${w.id}`, { url: `${rx.base}/ok/y\r\n` });
    assert.equal(u.status, 422);
    assert.deepEqual([u.body.error.detail[0].field, u.body.error.detail[0].type], ['body.url', 'url_not_allowed']);
    assert.match(u.body.error.detail[0].message, /spaces or control characters/);
    assert.equal((await call('GET', `/api/v1/webhooks/${w.id}`)).body.data.url, w.url);
  });

  test('delete: 200, then 404; its deliveries go with it', async () => {
    const w = await create('To delete');
    assert.equal((await call('POST', `/api/v1/webhooks/${w.id}/test`, {})).status, 200);
    const r = await call('DELETE', `/api/v1/webhooks/${w.id}`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.data, { id: w.id, deleted: true });
    assert.equal((await call('GET', `/api/v1/webhooks/${w.id}`)).status, 404);
    assert.equal((await call('DELETE', `/api/v1/webhooks/${w.id}`)).status, 404);
    const left = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = ${w.id}`.execute(t.store.db);
    assert.equal(left.rows[0].n, 0);
  });

  test('unknown ids: 404 not_found; malformed ids: 422', async () => {
    const r = await call('GET', '/api/v1/webhooks/999999999999999');
    assert.equal(r.status, 404);
    assert.equal(r.body.error.detail.error, 'not_found');
    assert.equal((await call('GET', '/api/v1/webhooks/abc')).status, 422);
    assert.equal((await call('POST', '/api/v1/webhooks/0/enable', {})).status, 422);
  });

  test('create validation: label and url required, bounded; unknown fields refused', async () => {
    for (const body of [
      {},
      { label: 'x' },
      { url: `${rx.base}/ok` },
      { label: '   ', url: `${rx.base}/ok` },
      { label: 'x'.repeat(101), url: `${rx.base}/ok` },
      { label: 'x', url: `${rx.base}/${'a'.repeat(2050)}` },
      { label: 'x', url: `${rx.base}/ok`, enabled: false },
    ]) {
      const r = await call('POST', '/api/v1/webhooks', body);
      assert.equal(r.status, 422, JSON.stringify(body).slice(0, 80));
      assert.equal(r.body.error.code, 'VALIDATION_ERROR');
    }
    // A label with a bidirectional override (it would read differently to the next admin) is refused.
    const bidi = await call('POST', '/api/v1/webhooks', { label: 'SOC \u202Ekoohbew', url: `${rx.base}/ok` });
    assert.deepEqual(
      [bidi.status, bidi.body.error.detail[0].field, bidi.body.error.detail[0].message],
      [
        422,
        'body.label',
        'must not be empty or only spaces, nor hold control characters (line breaks and tabs included), bidirectional controls (U+202A to U+202E, U+2066 to U+2069) or invisible characters (zero-width space, word joiner, soft hyphen, byte order mark, Hangul filler)',
      ],
    );
  });
});

describe('delivery through the endpoints', () => {
  test('test delivery: the receiver verifies both signatures over the raw bytes; the payload is the documented one', async () => {
    const w = await create('Tested');
    const before = rx.received.length;
    const { data, error, response } = await api.POST('/api/v1/webhooks/{id}/test', {
      params: { path: { id: w.id } },
      body: {},
    });
    assert.equal(response.status, 200, JSON.stringify(error));
    assert.ok(data);
    assert.equal(data.data.outcome, 'delivered');
    assert.equal(data.data.http_status, 200);
    assert.equal(data.data.disabled, false);
    assert.equal(rx.received.length, before + 1);
    const got = rx.received.at(-1)!;
    assert.ok(verifySpecSignature(w.secret, got), 'X-Vulnintel-Signature over the raw body');
    assert.ok(verifyStandardSignature(w.secret, got), 'webhook-signature over id.timestamp.body');
    // The client package's checks (its README's receiver example) agree, and refuse a changed byte or a late replay.
    const sent = new Date('2026-11-21T12:00:00Z');
    const std = {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    };
    assert.ok(verifyWebhookSignature(w.secret, got.raw, String(got.headers['x-vulnintel-signature'])));
    assert.ok(verifyStandardWebhook(w.secret, got.raw, std, { now: sent }));
    const tampered = Buffer.concat([got.raw, Buffer.from(' ')]);
    assert.equal(verifyWebhookSignature(w.secret, tampered, String(got.headers['x-vulnintel-signature'])), false);
    assert.equal(verifyStandardWebhook(w.secret, tampered, std, { now: sent }), false);
    assert.equal(
      verifyStandardWebhook(w.secret, got.raw, std, { now: new Date(sent.getTime() + 301_000) }),
      false,
      'past the 300 s tolerance',
    );
    assert.ok(
      verifyStandardWebhook(w.secret, got.raw, std, { now: new Date(sent.getTime() + 300_000) }),
      'at the tolerance',
    );
    assert.equal(got.headers['user-agent'], 'Vulnintel-Alert/1.0');
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['x-vulnintel-version'], '1.0');
    const ts = Math.floor(Date.parse('2026-11-21T12:00:00Z') / 1000);
    assert.equal(got.headers['x-vulnintel-timestamp'], String(ts));
    assert.equal(got.headers['webhook-timestamp'], String(ts));
    assert.equal(got.headers['webhook-id'], `msg_${data.data.delivery_id}`);
    assert.deepEqual(JSON.parse(got.raw.toString()), {
      event: 'webhook.test',
      version: '1.0',
      timestamp: '2026-11-21T12:00:00Z',
      data: {
        webhook_id: w.id,
        label: 'Tested',
        message:
          'Test delivery from Vulnintel. Verify the signature headers; cve.alert deliveries are signed the same way.',
      },
    });
    const d = await api.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id: w.id } } });
    assert.equal(d.response.status, 200);
    assert.ok(d.data);
    assert.equal(d.data.pagination.total, 1);
    assert.equal(d.data.data[0].event, 'webhook.test');
    assert.equal(d.data.data[0].status, 'delivered');
    assert.equal(d.data.data[0].http_status, 200);
    assert.equal(d.data.data[0].cve_id, null);
    assert.equal(typeof d.data.data[0].duration_ms, 'number');
  });

  test('rotate-secret: the new secret is returned once; the next delivery verifies with it and not with the old one', async () => {
    const w = await create('Rotated');
    const r = await api.POST('/api/v1/webhooks/{id}/rotate-secret', { params: { path: { id: w.id } }, body: {} });
    assert.equal(r.response.status, 200, JSON.stringify(r.error));
    assert.ok(r.data);
    const fresh = r.data.data.secret;
    secretsSeen.push(fresh);
    assert.notEqual(fresh, w.secret);
    assert.match(fresh, /^whsec_/);
    assert.equal(r.data.data.id, w.id);
    const after = await api.GET('/api/v1/webhooks/{id}', { params: { path: { id: w.id } } });
    assert.ok(!JSON.stringify(after.data).includes(fresh));
    // Sent with no body at all, as the route allows (the typed client always sends one).
    await call('POST', `/api/v1/webhooks/${w.id}/test`);
    const got = rx.received.at(-1)!;
    assert.ok(verifySpecSignature(fresh, got));
    assert.ok(verifyStandardSignature(fresh, got));
    assert.equal(verifySpecSignature(w.secret, got), false, 'the old secret is invalid immediately');
    assert.equal(verifyStandardSignature(w.secret, got), false);
  });

  test('a failing test delivery is recorded (HTTP code, error) but does not move the failure count', async () => {
    const w = await create('Failing', '/error');
    for (let i = 0; i < 6; i++) {
      const r = await call('POST', `/api/v1/webhooks/${w.id}/test`);
      assert.equal(r.body.data.outcome, 'failed');
      assert.equal(r.body.data.http_status, 500);
      assert.equal(r.body.data.error, 'HTTP 500');
    }
    const after = await call('GET', `/api/v1/webhooks/${w.id}`);
    assert.equal(after.body.data.status, 'active');
    assert.equal(after.body.data.consecutive_failures, 0);
    const d = await call('GET', `/api/v1/webhooks/${w.id}/deliveries?per_page=2&page=2`);
    assert.equal(d.body.pagination.total, 6);
    assert.equal(d.body.data.length, 2);
    assert.equal(d.body.data[0].status, 'failed');
  });

  test('enable: a disabled webhook becomes active with its count at 0', async () => {
    const w = await create('Disabled one');
    await t.store.db
      .updateTable('webhooks')
      .set({
        enabled: false,
        consecutive_failures: 5,
        disabled_reason: 'consecutive_failures',
        disabled_at: new Date(),
      })
      .where('id', '=', w.id)
      .execute();
    assert.equal((await call('GET', `/api/v1/webhooks/${w.id}`)).body.data.status, 'disabled');
    const r = await call('POST', `/api/v1/webhooks/${w.id}/enable`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data.status, 'active');
    assert.equal(r.body.data.consecutive_failures, 0);
    assert.equal(r.body.data.disabled_reason, null);
    assert.equal((await call('POST', `/api/v1/webhooks/${w.id}/enable`, {})).status, 200, 'idempotent');
  });
});

describe('gates', () => {
  test('Free plan: 403 FORBIDDEN upgrade_required on every webhook route (spec §2.8 webhook_delivery)', async () => {
    const free = await seedOrg(t.store, { name: 'Free Org', tier: 'free' });
    for (const [m, u] of [
      ['GET', '/api/v1/webhooks'],
      ['POST', '/api/v1/webhooks'],
      ['GET', '/api/v1/webhooks/1'],
      ['POST', '/api/v1/webhooks/1/test'],
    ] as const) {
      const r = await call(
        m,
        u,
        u === '/api/v1/webhooks' && m === 'POST' ? { label: 'x', url: `${rx.base}/ok` } : undefined,
        free.auth,
      );
      assert.equal(r.status, 403, `${m} ${u}`);
      assert.equal(r.body.error.code, 'FORBIDDEN');
      assert.equal(r.body.error.detail.error, 'upgrade_required');
    }
  });

  test('viewer: reads, but 403 viewer_role on writes; admin writes', async () => {
    const w = await create('Role check');
    const viewer = await seedKey(t.store, org.orgId, null, { role: 'viewer', scopes: ['read', 'write'] });
    assert.equal((await call('GET', `/api/v1/webhooks/${w.id}`, undefined, viewer.auth)).status, 200);
    for (const [m, u] of [
      ['POST', '/api/v1/webhooks'],
      ['PATCH', `/api/v1/webhooks/${w.id}`],
      ['DELETE', `/api/v1/webhooks/${w.id}`],
      ['POST', `/api/v1/webhooks/${w.id}/enable`],
      ['POST', `/api/v1/webhooks/${w.id}/rotate-secret`],
      ['POST', `/api/v1/webhooks/${w.id}/test`],
    ] as const) {
      const r = await call(m, u, m === 'DELETE' ? undefined : { label: 'v' }, viewer.auth);
      assert.equal(r.status, 403, `${m} ${u}`);
      assert.equal(r.body.error.detail.error, 'viewer_role');
    }
    const admin = await seedKey(t.store, org.orgId, null, { role: 'admin' });
    assert.equal((await call('PATCH', `/api/v1/webhooks/${w.id}`, { label: 'by admin' }, admin.auth)).status, 200);
    const session = await seedSession(t.store, org.orgId, org.memberId);
    const viaSession = await t.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/${w.id}/enable`,
      headers: { ...session, origin: 'http://vulnintel.test' },
    });
    assert.equal(viaSession.statusCode, 200, 'a session write with the service Origin');
  });

  test('SSRF: every URL spelling of private, loopback, mapped and NAT64 ranges is refused at create (422 on url), nothing stored', async () => {
    const before = (await call('GET', '/api/v1/webhooks')).body.data.length;
    for (const [url] of WEBHOOK_REFUSED_URLS) {
      const r = await call('POST', '/api/v1/webhooks', { label: 'ssrf', url });
      assert.equal(r.status, 422, `${url}: ${r.text.slice(0, 200)}`);
      assert.equal(r.body.error.detail[0].field, 'body.url', url);
    }
    assert.equal((await call('GET', '/api/v1/webhooks')).body.data.length, before);
  });

  test('two organizations each see only their own webhooks', async () => {
    const other = await seedOrg(t.store, { name: 'Other Org', tier: 'professional' });
    const mine = await create('Mine only');
    const theirs = await call(
      'POST',
      '/api/v1/webhooks',
      { label: 'Theirs only', url: `${rx.base}/ok/theirs` },
      other.auth,
    );
    assert.equal(theirs.status, 201);
    secretsSeen.push(theirs.body.data.secret);
    const a = await call('GET', '/api/v1/webhooks');
    const b = await call('GET', '/api/v1/webhooks', undefined, other.auth);
    assert.ok(a.body.data.some((x: Json) => x.id === mine.id));
    assert.ok(!a.body.data.some((x: Json) => x.id === theirs.body.data.id));
    assert.deepEqual(
      b.body.data.map((x: Json) => x.id),
      [theirs.body.data.id],
    );
    assert.equal((await call('GET', `/api/v1/webhooks/${mine.id}`, undefined, other.auth)).status, 404);
  });
});

describe('the secret appears nowhere else (W10)', () => {
  test('no database column holds a secret or its SHA-256 (the signing key) in clear', async () => {
    assert.ok(secretsSeen.length >= 8, String(secretsSeen.length));
    const cols = await sql<{ table_name: string; column_name: string }>`
      SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND data_type IN ('text', 'character varying', 'jsonb', 'json', 'bytea')`.execute(
      t.store.db,
    );
    const needles = secretsSeen.flatMap((s) => [
      s,
      s.slice('whsec_'.length),
      createHash('sha256').update(s).digest('hex'),
    ]);
    for (const c of cols.rows) {
      const r = await sql<{
        v: string;
      }>`SELECT ${sql.ref(c.column_name)}::text AS v FROM ${sql.table(c.table_name)}`.execute(t.store.db);
      for (const row of r.rows)
        for (const n of needles)
          assert.ok(!(row.v ?? '').includes(n), `${c.table_name}.${c.column_name} holds a secret`);
    }
  });

  test('no log line holds a secret (every request above was logged at trace level)', () => {
    assert.ok(logLines.length > 20, `logged ${logLines.length} lines`);
    const all = logLines.join('');
    for (const s of secretsSeen) {
      assert.ok(!all.includes(s) && !all.includes(s.slice(6)), 'a secret was logged');
      assert.ok(!all.includes(createHash('sha256').update(s).digest('hex')));
    }
  });
});
