// No client input produces a 5xx: fast-check throws generated paths, query strings, bodies, credentials and
// Accept headers at every route the app registers (enumerated from the app itself, so routes added later are
// covered without touching this file). Every error answer is the spec §7 envelope, valid against the ErrorEnvelope
// schema of /api/openapi.json, with a status the document lists for the route that answered.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { testApp, seedOrg, seedKey, seedSession, TEST_INTERNAL_KEY, type TestApp } from '../helpers/app.ts';
import { ERRORS } from '../../src/http/errors.ts';
import { REQUEST_ID_RE } from '../../src/lib/ids.ts';
import { withoutRecords } from '../../src/http/text-guard.ts';

const NUM_RUNS = Number(process.env.PROPERTY_RUNS ?? 40);
const CODES = new Set(Object.values(ERRORS).map((e) => e.code));
const ACTIONS = new Set(Object.values(ERRORS).map((e) => e.action));

let t: TestApp;
let credentials: Record<string, string>[];
let routes: { method: string; url: string; params: string[]; bodyFields: string[] }[];
/** Error statuses the OpenAPI document lists, by "METHOD /route/:pattern". */
let documented: Map<string, Set<string>>;
let envelope: ValidateFunction;
/** Names the route that answered (its pattern), so a status is checked against that route's documentation. */
const ANSWERED = 'x-test-answered-by';

before(async () => {
  t = await testApp({
    testRoutes: (app) => {
      app.addHook('onSend', async (req, reply) => {
        if (req.routeOptions.url) reply.header(ANSWERED, `${req.method} ${req.routeOptions.url}`);
      });
    },
  });
  const o = await seedOrg(t.store, { name: 'Fuzz Org' });
  const viewer = await seedKey(t.store, o.orgId, null, { role: 'viewer', scopes: ['read'] });
  const partner = await seedKey(t.store, o.orgId, null, { role: 'admin', kind: 'partner', scopes: ['read'] });
  const trial = await seedKey(t.store, o.orgId, null, {
    role: 'admin',
    kind: 'trial',
    expiresAt: new Date('2026-12-01T00:00:00Z'),
  });
  const session = await seedSession(t.store, o.orgId, o.memberId);
  credentials = [
    {},
    o.auth,
    viewer.auth,
    partner.auth,
    trial.auth,
    session,
    { 'x-internal-key': TEST_INTERNAL_KEY },
    { authorization: 'Bearer vi_live_garbage' },
    { authorization: 'Token x' },
    { cookie: 'vi_session=stale' },
    { cookie: 'vi_session=%E0%A4%A; other=%zz' },
    { 'x-internal-key': '%zz' },
  ];
  // Query parameter names each route documents, so generated queries also hit the validators, not only the
  // unknown-parameter check.
  // Likewise the JSON body fields, so generated bodies reach the routes' own fields.
  type Op = {
    parameters?: { name: string; in: string }[];
    requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
    responses: Record<string, unknown>;
  };
  const doc = t.app.swagger() as unknown as {
    paths: Record<string, Record<string, Op>>;
    components: { schemas: { ErrorEnvelope: object } };
  };
  const ajv = new Ajv.default({ allErrors: true });
  addFormats.default(ajv);
  envelope = ajv.compile(doc.components.schemas.ErrorEnvelope);
  documented = new Map();
  routes = t.app.routeTable().map((r) => {
    const oaPath = r.url.replace(/:(\w+)/g, '{$1}');
    const op = doc.paths[oaPath]?.[r.method.toLowerCase()];
    if (op) documented.set(`${r.method} ${r.url}`, new Set(Object.keys(op.responses)));
    const params = (op?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
    const bodyFields = Object.keys(op?.requestBody?.content?.['application/json']?.schema?.properties ?? {});
    return { ...r, params, bodyFields };
  });
});
after(async () => {
  await t.close();
});

// Text PostgreSQL cannot store (U+0000) and lone UTF-16 surrogates, alone or inside ordinary text (on
// seven routes they would reach the database and answer 500 without the edge guard).
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what this test generates
const HOSTILE = /[\u0000]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const hostile = fc
  .tuple(
    fc.string({ maxLength: 8 }),
    fc.constantFrom('\u0000', '\ud800', '\udfff', '\udc00\ud83c', 'a\u0000\u0000'),
    fc.string({ maxLength: 8 }),
  )
  .map(([a, b, c]) => a + b + c);
/** encodeURIComponent, except that a lone surrogate goes out as its (invalid) three UTF-8 bytes instead of throwing. */
const encode = (s: string) =>
  s.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]|[\s\S]/g, (c) => {
    const u = c.charCodeAt(0);
    if (c.length === 2 || u < 0xd800 || u > 0xdfff) return encodeURIComponent(c);
    return [0xe0 | (u >> 12), 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f)]
      .map((b) => `%${b.toString(16).toUpperCase()}`)
      .join('');
  });

const segment = fc.oneof(
  fc.string({ maxLength: 40 }),
  hostile,
  fc.constantFrom('CVE-2024-0001', '0', '-1', '99999999999999999999', '..', '%', '%zz', 'null'),
);
// Dates at the edges of what the formats allow and PostgreSQL stores (year 0000 answered 500 once).
const edgeDates = fc.constantFrom(
  '0000-01-01',
  '0000-02-29',
  '9999-12-31',
  '2024-02-30',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59+14:00',
);
const value = fc.oneof(
  fc.string({ maxLength: 30 }),
  hostile,
  fc.integer().map(String),
  fc.constantFrom('', 'true', 'NaN', '1e309', '[]', '{}', '%00'),
  edgeDates,
);

function queryArb(names: string[]) {
  const key = names.length
    ? fc.oneof(fc.constantFrom(...names), fc.string({ minLength: 1, maxLength: 12 }))
    : fc.string({ minLength: 1, maxLength: 12 });
  return fc
    .array(fc.tuple(key, value), { maxLength: 4 })
    .map((pairs) => pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&'));
}

/**
 * Routes whose records (these body fields' array items) are validated record by record, hostile text included: a
 * bad string there refuses that record only (route config `recordArrays`, docs/windows-api.md "Hostile text in a
 * host").
 */
const RECORD_ARRAYS: Record<string, string[]> = {
  'POST /api/v2/assets/correlate': ['windows_hosts', 'installed_software'],
  'POST /api/v1/assets/check-windows': ['windows_hosts'],
  'POST /api/v1/assets/correlate-cves': ['assets'],
  'POST /api/v1/assets/correlate-cves/check': ['assets'],
};

/** JSON bodies: any JSON with hostile strings among the others, and objects of the route's own body fields. */
function jsonBodyArb(fields: string[], recordArrays?: string[]) {
  const text = fc.oneof(fc.string({ maxLength: 20 }), hostile);
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth: 3 },
      text,
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), hostile), tie('value'), { maxKeys: 3 }),
    ),
  })).value;
  const own = fields.length
    ? fc.dictionary(fc.constantFrom(...fields), fc.oneof(text, json), { minKeys: 1, maxKeys: fields.length })
    : json;
  // Hostile text the edge must refuse: anywhere but inside the records of such a route.
  const edgeChecked = (v: unknown) => withoutRecords(v, recordArrays);
  return fc
    .oneof(json, own)
    .map((v) => ({ type: 'application/json', payload: JSON.stringify(v), hostile: hasHostileText(edgeChecked(v)) }));
}

function hasHostileText(v: unknown): boolean {
  if (typeof v === 'string') return HOSTILE.test(v);
  if (Array.isArray(v)) return v.some(hasHostileText);
  if (v !== null && typeof v === 'object')
    return Object.entries(v).some(([k, x]) => HOSTILE.test(k) || hasHostileText(x));
  return false;
}

const bodyArb = (fields: string[], recordArrays?: string[]) =>
  fc.oneof(
    fc.constant(undefined),
    fc.jsonValue({ maxDepth: 3 }).map((v) => ({ type: 'application/json', payload: JSON.stringify(v) })),
    jsonBodyArb(fields, recordArrays),
    fc.string({ maxLength: 60 }).map((s) => ({ type: 'application/json', payload: s })),
    fc
      .string({ maxLength: 60 })
      .map((s) => ({
        type: fc.sample(
          fc.constantFrom(
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            'application/xml',
          ),
          1,
        )[0],
        payload: s,
      })),
  );

function checkErrorEnvelope(r: { statusCode: number; headers: Record<string, unknown>; body: string }, label: string) {
  const b = JSON.parse(r.body);
  assert.equal(typeof b.api?.request_id, 'string', label);
  assert.match(b.api.request_id, REQUEST_ID_RE, label);
  assert.ok(CODES.has(b.error?.code), `${label}: code ${b.error?.code}`);
  assert.equal(typeof b.error.message, 'string', label);
  assert.equal(typeof b.error.retryable, 'boolean', label);
  assert.ok(ACTIONS.has(b.error.action), `${label}: action ${b.error.action}`);
  assert.ok(b.error.retry_after_seconds === null || Number.isInteger(b.error.retry_after_seconds), label);
  assert.equal(
    r.headers['retry-after'],
    b.error.retry_after_seconds === null ? undefined : String(b.error.retry_after_seconds),
    label,
  );
  assert.ok(b.error.detail !== undefined, label);
  assert.ok(envelope(b), `${label}: ${JSON.stringify(envelope.errors)} ${r.body.slice(0, 300)}`);
  // The status is one the document lists for the route that answered (a generated path can reach another route).
  const by = r.headers[ANSWERED];
  const listed = typeof by === 'string' ? documented.get(by) : undefined;
  if (listed)
    assert.ok(
      listed.has(String(r.statusCode)),
      `${label}: ${r.statusCode} is not documented for ${String(by)}: ${r.body.slice(0, 300)}`,
    );
}

test('every registered route: generated input never yields a 5xx, and errors use the envelope', async () => {
  assert.ok(routes.length >= 4, `routes found: ${routes.map((r) => r.url).join(', ')}`);
  for (const route of routes) {
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { minLength: 4, maxLength: 4 }),
        queryArb(route.params),
        bodyArb(route.bodyFields, RECORD_ARRAYS[`${route.method} ${route.url}`]),
        fc.nat({ max: credentials.length - 1 }),
        fc.constantFrom('application/json', 'text/html', '*/*', ''),
        async (segs, query, body, credIdx, accept) => {
          let i = 0;
          const path = route.url.replace(/:\w+|\*/g, () => encode(segs[i++ % segs.length]));
          const url = query ? `${path}?${query}` : path;
          const headers: Record<string, string> = { ...credentials[credIdx] };
          if (accept) headers.accept = accept;
          if (body) headers['content-type'] = body.type;
          const r = await t.app.inject({ method: route.method as 'GET', url, headers, payload: body?.payload });
          const label = `${route.method} ${url} → ${r.statusCode}`;
          assert.ok(r.statusCode < 500, `${label}: ${r.body.slice(0, 300)}`);
          // The edge refuses hostile text in any parsed JSON body (GET bodies are never parsed), host records aside.
          if (body && 'hostile' in body && body.hostile && route.method !== 'GET' && path.startsWith('/api/')) {
            assert.ok(r.statusCode >= 400, `${label}: hostile text accepted: ${r.body.slice(0, 300)}`);
          }
          const isJson = String(r.headers['content-type'] ?? '').startsWith('application/json');
          if (r.statusCode >= 400 && isJson && path.startsWith('/api/')) checkErrorEnvelope(r, label);
          if (r.statusCode < 300 && isJson && path.startsWith('/api/v') && !path.startsWith('/api/v1/health/ping')) {
            const b = JSON.parse(r.body);
            assert.match(b.api?.request_id ?? '', REQUEST_ID_RE, label);
            assert.ok(Number.isInteger(b.api.processing_ms), label);
            assert.ok('data' in b, label);
          }
        },
      ),
      { numRuns: NUM_RUNS },
    );
  }
});

test('deny by default: every /api/ route declares its auth mode (config.auth)', () => {
  const undeclared = t.app.routeTable().filter((r) => r.url.startsWith('/api/') && r.declaredAuth === null);
  assert.deepEqual(undeclared, []);
});

test('unknown paths and methods: 404 or 405 in the envelope, never a 5xx', async () => {
  const methods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...methods),
      fc.array(segment, { minLength: 1, maxLength: 4 }),
      async (method, segs) => {
        const url = '/api/v1/' + segs.map(encode).join('/');
        const r = await t.app.inject({ method, url });
        assert.ok(r.statusCode < 500, `${method} ${url} → ${r.statusCode}`);
        if (r.statusCode >= 400) checkErrorEnvelope(r, `${method} ${url}`);
      },
    ),
    { numRuns: NUM_RUNS * 3 },
  );
});
