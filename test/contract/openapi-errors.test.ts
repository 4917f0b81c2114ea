// The error responses of /api/openapi.json (src/http/openapi-errors.ts): every operation documents its error
// statuses with the shared ErrorEnvelope component, the statuses follow the route's policy, URL and schema, the
// component validates the error bodies the server really sends, and documenting them changes none of those bodies.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { InjectOptions } from 'fastify';
import { testApp, seedOrg, seedKey, type TestApp } from '../helpers/app.ts';
import { ERRORS } from '../../src/http/errors.ts';
import { routeErrors } from '../../src/http/openapi-errors.ts';
import { apiClient, rawBody } from '../helpers/api-client.ts';

interface Res {
  description: string;
  content?: Record<string, { schema?: { $ref?: string } }>;
  headers?: Record<string, unknown>;
}
type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, Res> }>>;
  components: { schemas: Record<string, unknown> };
};

const REF = '#/components/schemas/ErrorEnvelope';
const NOW = '2026-11-21T12:00:00Z';
const asset = (i: number) => ({
  asset_id: `oa-${i}`,
  vendor: 'Siemens',
  product: 'SIMATIC S7-1500',
  version: 'V2.9.2',
});
const assets = (n: number) => Array.from({ length: n }, (_, i) => asset(i));
const host = (i: number) => ({
  asset_id: `h-${i}`,
  os_product: 'Windows Server 2019 Standard',
  edition_id: 'ServerStandard',
  os_build: '10.0.17763.6189',
  architecture: 'x64',
  installation_type: 'Server',
  collected_at: '2026-11-20T08:00:00Z',
});

let t: TestApp;
let doc: Doc;
let validate: ValidateFunction;
/** The sample error requests, answered before the document was first generated and again after. */
let beforeDoc: Probe[];
let afterDoc: Probe[];

interface Probe {
  label: string;
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

/**
 * Error requests of every kind; fresh keys each time, so a per-key limit met by the first round does not change the
 * second. Requests a client can express go through the typed client (clients/typescript): their bodies and
 * parameters must type-check against the document. The rest (an unknown parameter, a malformed URL or JSON, a body
 * the types refuse) are sent raw with inject, as no typed client could send them.
 */
async function probes(): Promise<Probe[]> {
  const o = await seedOrg(t.store, { tier: 'professional' });
  const viewer = await seedKey(t.store, o.orgId, null, { role: 'viewer', scopes: ['read'] });
  const free = await seedOrg(t.store, { tier: 'free' });
  const trial = await seedKey(t.store, free.orgId, free.memberId, {
    kind: 'trial',
    expiresAt: new Date(Date.parse(NOW) + 86_400_000),
  });
  const json = { 'content-type': 'application/json' };
  const anon = apiClient(t.app);
  const pro = apiClient(t.app, o.auth);
  const reqs: [string, InjectOptions | (() => Promise<{ response: Response }>)][] = [
    ['missing key', () => anon.GET('/api/v1/account/me')],
    ['invalid key', () => apiClient(t.app, { authorization: 'Bearer vi_live_nonsense' }).GET('/api/v1/cves')],
    ['unknown query parameter', { method: 'GET', url: '/api/v1/cves?sortx=1' }],
    ['invalid query value', () => anon.GET('/api/v1/cves', { params: { query: { per_page: 0, cvss_min: 11 } } })],
    ['malformed URL', { method: 'GET', url: '/api/v1/cves/%zz' }],
    ['unknown CVE', () => anon.GET('/api/v1/cves/{cve_id}', { params: { path: { cve_id: 'CVE-1999-0001' } } })],
    ['viewer writes', () => apiClient(t.app, viewer.auth).POST('/api/v1/environments', { body: { name: 'x' } })],
    [
      'v1 malformed JSON',
      { method: 'POST', url: '/api/v1/environments', headers: { ...o.auth, ...json }, payload: '{"name":' },
    ],
    [
      'v2 malformed JSON',
      {
        method: 'POST',
        url: '/api/v2/assets/correlate',
        headers: { ...o.auth, ...json },
        payload: '{"windows_hosts":',
      },
    ],
    ['oversize v1 batch', () => pro.POST('/api/v1/assets/correlate-cves', { body: { assets: assets(201) } })],
    [
      'oversize trial batch',
      () => apiClient(t.app, trial.auth).POST('/api/v1/assets/correlate-cves', { body: { assets: assets(26) } }),
    ],
    [
      'oversize v2 batch',
      () =>
        pro.POST('/api/v2/assets/correlate', {
          body: { windows_hosts: Array.from({ length: 201 }, (_, i) => host(i)) },
        }),
    ],
    [
      'every asset refused (data.rejected)',
      {
        method: 'POST',
        url: '/api/v1/assets/correlate-cves/check',
        headers: o.auth,
        payload: { assets: [{ vendor: '' }] },
      },
    ],
    [
      'foreign environment',
      () => pro.POST('/api/v1/assets/correlate-cves', { body: { assets: assets(1), environment_id: 999999 } }),
    ],
  ];
  const out: Probe[] = [];
  for (const [label, r] of reqs) {
    if (typeof r === 'function') {
      const { response } = await r();
      out.push({
        label,
        status: response.status,
        headers: Object.fromEntries(response.headers),
        body: rawBody(response),
      });
    } else {
      const res = await t.app.inject(r);
      out.push({ label, status: res.statusCode, headers: res.headers, body: res.body });
    }
  }
  return out;
}

before(async () => {
  // The edge limit on (as deployed), high enough that these requests never meet it; the correlation profile at
  // 5 requests a minute per key (the probes spend at most 4 of a key's), so a 429 RATE_LIMITED is reached on purpose.
  t = await testApp({
    now: NOW,
    env: { VULNINTEL_EDGE_LIMIT_PER_MINUTE: '1000' },
    rateProfiles: { correlation: { requests: { points: 5, durationSec: 60 }, units: null } },
  });
  beforeDoc = await probes();
  const r = await t.app.inject({ method: 'GET', url: '/api/openapi.json' });
  assert.equal(r.statusCode, 200);
  doc = r.json();
  afterDoc = await probes();
  const ajv = new Ajv.default({ allErrors: true });
  addFormats.default(ajv);
  validate = ajv.compile(doc.components.schemas.ErrorEnvelope as object);
});
after(async () => {
  await t.close();
});

const op = (path: string, method: string) => {
  const o = doc.paths[path]?.[method];
  assert.ok(o, `${method.toUpperCase()} ${path} is documented`);
  return o.responses;
};
const statuses = (path: string, method: string) =>
  Object.keys(op(path, method))
    .filter((s) => Number(s) >= 400)
    .map(Number);
/** The codes and detail.error values a response's description names ("- CODE (detail.error): …"). */
const named = (res: Res) =>
  [...res.description.matchAll(/^- ([A-Z_]+)(?: \(([a-z_]+)\))?:/gm)].map((m) => (m[2] ? `${m[1]}/${m[2]}` : m[1]));

test('every operation documents its error responses, each referencing the shared ErrorEnvelope', () => {
  let operations = 0;
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, o] of Object.entries(ops)) {
      operations++;
      const errors = Object.entries(o.responses).filter(([s]) => Number(s) >= 400);
      assert.ok(errors.length >= 2, `${method} ${path}: error responses ${errors.map(([s]) => s).join(', ')}`);
      assert.ok('500' in o.responses, `${method} ${path}: 500`);
      for (const [status, res] of errors) {
        const label = `${method} ${path} ${status}`;
        const html = Object.keys(res.content ?? {}).join() === 'text/html';
        // A page's own HTML answer (GET /cve/{cve_id}'s not-found page) is its route's declaration, not the envelope.
        if (html) continue;
        assert.equal(res.content?.['application/json']?.schema?.$ref, REF, label);
        const codes = named(res);
        assert.ok(codes.length > 0, `${label}: names no code: ${res.description}`);
        const here = Object.values(ERRORS).filter((e) => e.status === Number(status));
        for (const c of codes)
          assert.ok(
            here.some((e) => e.code === c.split('/')[0]),
            `${label}: ${c} is a catalogue code answered with ${status}`,
          );
        const retry = codes.some((c) => here.some((e) => `${e.code}/${e.error}` === c && e.retryAfter !== null));
        assert.equal(
          'Retry-After' in (res.headers ?? {}),
          retry,
          `${label}: Retry-After documented exactly when a code sets it`,
        );
      }
    }
  }
  assert.ok(operations > 80, `operations: ${operations}`);
  assert.equal((doc.components.schemas.ErrorEnvelope as { type: string }).type, 'object');
});

test('statuses by kind of route: policy, path parameters, body, limits', () => {
  // No credential read (auth none), no database, exempt from the edge limit: the ping.
  assert.deepEqual(statuses('/api/v1/health/ping', 'get'), [400, 500]);
  // No credential read, but a looked-up parameter and the database: a feed.
  assert.deepEqual(statuses('/feeds/vendor/{file}', 'get'), [400, 404, 422, 429, 500, 503]);
  // Public: a presented key is still checked (401, trial key ended 403); no 404 without a looked-up id.
  assert.deepEqual(statuses('/api/v1/cves', 'get'), [400, 401, 403, 422, 429, 500, 503]);
  assert.match(op('/api/v1/cves', 'get')['401'].description, /AUTH_REQUIRED \(invalid_api_key\)/);
  assert.match(op('/api/v1/cves', 'get')['401'].description, /ranked=true/);
  // A keyed route: 401 without a key, 403 for the key's scope, partner and trial refusals, 429 from the edge limit.
  const me = op('/api/v1/account/me', 'get');
  assert.deepEqual(statuses('/api/v1/account/me', 'get'), [400, 401, 403, 429, 500, 503]);
  assert.match(me['401'].description, /AUTH_REQUIRED \(auth_required\): no API key or session was sent/);
  for (const c of ['PARTNER_SCOPE', 'TRIAL_SCOPE', 'FORBIDDEN \\(insufficient_scope\\)'])
    assert.match(me['403'].description, new RegExp(c));
  assert.doesNotMatch(me['403'].description, /viewer_role|origin_refused/);
  // Path parameters: 404 with the tenant declaration's detail.error.
  assert.ok(statuses('/api/v1/webhooks/{id}', 'get').includes(404));
  assert.match(op('/api/v1/webhooks/{id}', 'get')['403'].description, /FORBIDDEN \(upgrade_required\)/);
  assert.match(
    op('/api/v1/watchlist/{entry_id}', 'delete')['404'].description,
    /NOT_FOUND \(watchlist_entry_not_found\)/,
  );
  // A write: the body's 400/413/422, the admin role, the session's Origin and CSRF token, the handler's 409.
  const envs = op('/api/v1/environments', 'post');
  assert.deepEqual(statuses('/api/v1/environments', 'post'), [400, 401, 403, 409, 413, 422, 429, 500, 503]);
  for (const c of ['viewer_role', 'origin_refused', 'csrf_token_missing', 'cap_exceeded'])
    assert.match(envs['403'].description, new RegExp(`\\(${c}\\)`));
  assert.match(envs['400'].description, /BAD_REQUEST \(invalid_json\)/);
  assert.match(envs['409'].description, /CONFLICT \(environment_exists\)/);
  // Batch limits: 413 on v1 correlation (trial keys too) and on both v2 submissions (no trial keys there).
  const v1 = op('/api/v1/assets/correlate-cves', 'post');
  assert.match(v1['413'].description, /BATCH_TOO_LARGE \(batch_too_large\): more than 200 assets/);
  assert.match(v1['413'].description, /TRIAL_BATCH_LIMIT \(trial_batch_limit\): more than 25 assets/);
  assert.match(v1['404'].description, /NOT_FOUND \(environment_not_found\)/);
  for (const c of [
    'RATE_LIMITED \\(rate_limited\\): more than 60 requests per 60 seconds and 5000 assets',
    'PARTNER_LIMIT',
    'TRIAL_ENDED',
  ])
    assert.match(v1['429'].description, new RegExp(c));
  for (const path of ['/api/v2/assets/correlate', '/api/v2/assets/correlate-csv']) {
    const v2 = op(path, 'post');
    assert.match(v2['413'].description, /BATCH_TOO_LARGE \(batch_too_large\): more than 200 hosts/, path);
    assert.doesNotMatch(v2['413'].description, /TRIAL_BATCH_LIMIT/, path);
    assert.doesNotMatch(v2['400'].description, /invalid_json/, path); // malformed JSON is a 422 on v2
    assert.match(v2['422'].description, /not valid JSON/, path);
  }
  assert.ok(!('413' in op('/api/v2/assets/results', 'get')));
  // A session-only page: a missing session redirects (303), no 401; an API key is refused with 403.
  assert.ok(!statuses('/account', 'get').includes(401));
  assert.match(op('/account', 'get')['403'].description, /FORBIDDEN \(session_required\)/);
  // A session-only API route still answers 401, and the trial start its 409s.
  assert.deepEqual(statuses('/api/v1/account/trial', 'post'), [400, 401, 403, 409, 413, 422, 429, 500, 503]);
  // The CVE page answers its own 404 (HTML), not the envelope's.
  assert.deepEqual(Object.keys(op('/cve/{cve_id}', 'get')['404'].content ?? {}), ['text/html']);
});

test("the edge limit's 429 is documented only when the limit is on", () => {
  const route = t.app.routeTable().find((r) => r.method === 'GET' && r.url === '/api/v1/cves')!;
  const keys = (perMinute: number) => routeErrors(route, { edgeLimitPerMinute: perMinute }).map((r) => r.key);
  assert.ok(keys(60).includes('EDGE_RATE_LIMITED'));
  assert.ok(!keys(0).includes('EDGE_RATE_LIMITED'));
});

test('the ErrorEnvelope component validates the error bodies the server sends', async () => {
  const expected: Record<string, [number, string]> = {
    'missing key': [401, 'AUTH_REQUIRED'],
    'invalid key': [401, 'AUTH_REQUIRED'],
    'unknown query parameter': [400, 'UNKNOWN_PARAMETER'],
    'invalid query value': [422, 'VALIDATION_ERROR'],
    'malformed URL': [400, 'BAD_REQUEST'],
    'unknown CVE': [404, 'NOT_FOUND'],
    'viewer writes': [403, 'FORBIDDEN'],
    'v1 malformed JSON': [400, 'BAD_REQUEST'],
    'v2 malformed JSON': [422, 'VALIDATION_ERROR'],
    'oversize v1 batch': [413, 'BATCH_TOO_LARGE'],
    'oversize trial batch': [413, 'TRIAL_BATCH_LIMIT'],
    'oversize v2 batch': [413, 'BATCH_TOO_LARGE'],
    'every asset refused (data.rejected)': [422, 'VALIDATION_ERROR'],
    'foreign environment': [404, 'NOT_FOUND'],
  };
  // Two more: a per-key 429 (dynamic Retry-After) and a partner key's monthly limit (reset_at).
  const k = await seedOrg(t.store, { tier: 'professional' });
  const partner = await seedKey(t.store, k.orgId, null, { role: 'admin', kind: 'partner', scopes: ['read'] });
  await sql`UPDATE api_keys SET monthly_asset_limit = 0 WHERE id = ${partner.keyId}`.execute(t.store.db);
  const extra: Probe[] = [];
  const keyed = apiClient(t.app, k.auth);
  for (let i = 0; i < 6; i++) {
    const { error, response } = await keyed.POST('/api/v1/assets/correlate-cves/check', {
      body: { assets: assets(1) },
    });
    if (i === 5) {
      // The typed error: the 429's documented body is the ErrorEnvelope.
      assert.equal(error?.error.code, 'RATE_LIMITED');
      extra.push({
        label: 'per-key rate',
        status: response.status,
        headers: Object.fromEntries(response.headers),
        body: rawBody(response),
      });
    }
  }
  const p = await apiClient(t.app, partner.auth).POST('/api/v1/assets/correlate-cves', { body: { assets: assets(1) } });
  assert.equal(p.error?.error.code, 'PARTNER_LIMIT');
  extra.push({
    label: 'partner limit',
    status: p.response.status,
    headers: Object.fromEntries(p.response.headers),
    body: rawBody(p.response),
  });
  Object.assign(expected, { 'per-key rate': [429, 'RATE_LIMITED'], 'partner limit': [429, 'PARTNER_LIMIT'] });

  for (const pr of [...afterDoc, ...extra]) {
    const b = JSON.parse(pr.body);
    assert.deepEqual([pr.status, b.error?.code], expected[pr.label], `${pr.label}: ${pr.body.slice(0, 300)}`);
    assert.ok(validate(b), `${pr.label}: ${JSON.stringify(validate.errors)} ${pr.body.slice(0, 300)}`);
  }
  // The optional fields were really exercised, and the schema refuses what the server never sends.
  const body = (label: string) => JSON.parse([...afterDoc, ...extra].find((x) => x.label === label)!.body);
  assert.equal(body('oversize trial batch').error.max, 25);
  assert.ok(Array.isArray(body('every asset refused (data.rejected)').data.rejected));
  assert.equal(body('per-key rate').error.detail.retry_after, body('per-key rate').error.retry_after_seconds);
  assert.match(body('partner limit').error.reset_at, /^\d{4}-\d{2}-\d{2}T/);
  const good = body('missing key');
  for (const bad of [
    { ...good, extra: 1 },
    { ...good, error: { ...good.error, retryable: 'no' } },
    { ...good, error: { ...good.error, code: 'NOT_A_CODE' } },
    { ...good, error: { ...good.error, detail: {} } },
    { ...good, error: { ...good.error, detail: [{ field: 'q' }] } },
    { ...good, api: { ...good.api, request_id: 'x' } },
    { api: good.api },
  ])
    assert.equal(validate(bad), false, JSON.stringify(bad));
});

test('documenting the errors changes no error body: the same requests answer the same bytes before and after', () => {
  const norm = (s: string) =>
    s.replace(/vi-req-[0-9a-f]{12}/g, 'vi-req-x').replace(/"timestamp":"[^"]+"/, '"timestamp":"t"');
  assert.equal(afterDoc.length, beforeDoc.length);
  beforeDoc.forEach((b, i) => {
    const a = afterDoc[i];
    assert.equal(a.status, b.status, b.label);
    assert.equal(norm(a.body), norm(b.body), b.label);
    assert.equal(a.headers['content-type'], b.headers['content-type'], b.label);
  });
  // And no route's response schema (what Fastify serializes a reply through) gained an error status: the only
  // error statuses there are the pages' own HTML answers.
  for (const r of t.app.routeTable()) {
    const response = (r.schema?.response ?? {}) as Record<string, { content?: Record<string, unknown> }>;
    for (const [status, s] of Object.entries(response)) {
      if (Number(status) >= 400)
        assert.deepEqual(Object.keys(s.content ?? {}), ['text/html'], `${r.method} ${r.url} ${status}`);
    }
  }
});
