// The OpenAPI 3.1 document generated from the route schemas is valid, matches the route table both ways
// (every API route documented, nothing documented that is not served), and the /docs reference page serves it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let doc: {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, unknown>>;
  components: { securitySchemes: Record<string, unknown> };
};
before(async () => {
  t = await testApp();
  const r = await t.app.inject({ method: 'GET', url: '/api/openapi.json' });
  assert.equal(r.statusCode, 200);
  doc = r.json();
});
after(async () => {
  await t.close();
});

test('the document is valid OpenAPI 3.1', async () => {
  const v = new Validator();
  const res = await v.validate(doc as never);
  assert.equal(res.valid, true, JSON.stringify(res.errors, null, 2));
  assert.equal(v.version, '3.1');
  assert.equal(doc.openapi, '3.1.0');
  assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['apiKey', 'internalKey', 'session']);
});

test('route table and document agree (inventory)', () => {
  const served = t.app
    .routeTable()
    .filter((r) => !r.url.startsWith('/docs') && r.url !== '/api/openapi.json')
    .map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`)
    .sort();
  const documented = Object.entries(doc.paths)
    .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))
    .sort();
  assert.deepEqual(documented, served);
  assert.ok(served.includes('GET /api/v1/account/me'));
  assert.ok(served.includes('GET /api/v1/health'));
});

test('/docs is the interactive reference over the same document', async () => {
  const page = await t.app.inject({ method: 'GET', url: '/docs/' });
  assert.equal(page.statusCode, 200);
  assert.match(String(page.headers['content-type']), /text\/html/);
  assert.match(page.body, /swagger-ui/i);
  const init = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
  assert.equal(init.statusCode, 200);
  const json = await t.app.inject({ method: 'GET', url: '/docs/json' });
  assert.deepEqual(Object.keys(json.json().paths).sort(), Object.keys(doc.paths).sort());
});

test('card severity is documented exactly: the four CVSS severities or null (not scored), with the fallback rule', () => {
  const cards = (doc.paths['/api/v1/cves'] as Record<string, any>).get.responses['200'].content['application/json']
    .schema.properties.data.items;
  const sev = cards.properties.severity;
  assert.deepEqual(sev.type, ['string', 'null']);
  assert.deepEqual(sev.enum, ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', null]);
  assert.match(sev.description, /CVSS severity/);
  assert.match(sev.description, /MSRC Critical → CRITICAL, Important → HIGH, Moderate → MEDIUM, Low → LOW/);
  assert.match(sev.description, /null when the CVE is not scored/);
});

test('each operation states the credentials it takes: optional on the public CVE routes, required on pages, with the sign-in redirect', () => {
  // The public routes and the training pages name their optional security (without it the reference never sends a
  // key to them, so ranked lists and paid page sizes cannot be tried there), and every page documents its 303 to /login.
  const op = (p: string, m: string) =>
    doc.paths[p][m] as {
      security?: Record<string, string[]>[];
      responses: Record<string, { description: string }>;
      parameters?: { name: string; description?: string }[];
    };
  for (const p of ['/api/v1/cves', '/api/v1/cves/{cve_id}', '/api/v1/changes'])
    assert.deepEqual(op(p, 'get').security, [{}, { apiKey: [] }, { session: [] }], p);
  for (const p of ['/training', '/training/{module_id}'])
    assert.deepEqual(op(p, 'get').security, [{ apiKey: [] }, { session: [] }], p);
  for (const p of ['/training', '/training/{module_id}', '/account', '/account/notifications']) {
    assert.match(op(p, 'get').responses['303'].description, /\/login\?next=/, p);
  }
  assert.equal(op('/api/v1/health/ping', 'get').security, undefined, 'a route reading no credential names none');
  const results = op('/api/v2/assets/results', 'get').parameters!;
  assert.match(results.find((x) => x.name === 'sort')!.description!, /priority \(default\), score, exploit or newest/);
  assert.match(results.find((x) => x.name === 'cve_page_size')!.description!, /1 to 1000/);
});

test('a body without members is optional in the document, and the action takes no body', async () => {
  type Op = { requestBody?: { required?: boolean } };
  const op = (p: string, m: string) => (doc.paths[p] as Record<string, Op>)[m];
  assert.equal(op('/api/v1/webhooks/{id}/rotate-secret', 'post').requestBody?.required, false);
  assert.equal(op('/api/v1/webhooks/{id}/test', 'post').requestBody?.required, false);
  // A body with members stays required.
  assert.equal(op('/api/v1/webhooks', 'post').requestBody?.required, true);
  // Sent without a body, the action passes validation and reaches its handler (an unknown webhook: 404).
  const org = await seedOrg(t.store);
  for (const action of ['rotate-secret', 'test']) {
    const r = await t.app.inject({ method: 'POST', url: `/api/v1/webhooks/987654321/${action}`, headers: org.auth });
    assert.equal(r.statusCode, 404, r.body);
    assert.equal((r.json() as { error: { code: string } }).error.code, 'NOT_FOUND');
  }
});
