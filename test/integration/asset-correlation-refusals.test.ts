// The refusals of correlate-cves and /check (ADR 0106): the body's shape before the limits, environment_id and then
// the options after them, worded by the one formatter (http/validation-errors.ts) from the schema's errors.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, seedOrg, seedKey, type TestApp } from '../helpers/app.ts';

let t: TestApp;
before(async () => {
  t = await testApp({ now: '2026-11-21T12:00:00Z' });
});
after(async () => {
  await t.close();
});

const A = { asset_id: 'r-1', vendor: 'Siemens', product: 'SIMATIC S7-1500', version: 'V2.9.2' };
const URLS = ['/api/v1/assets/correlate-cves', '/api/v1/assets/correlate-cves/check'];
const post = (k: { auth: Record<string, string> }, url: string, body: unknown) =>
  t.app.inject({ method: 'POST', url, headers: k.auth, payload: body as object });
const ACCEPTED =
  'include_not_affected, sort, affected_only, known_exploited_only, fix_available_only, cve_page, cve_page_size';

describe('correlate-cves and /check refusals', () => {
  test("options: every problem at once, in the body's order of names (unknown ones, dotted names and unsafe numbers included)", async () => {
    const k = await seedOrg(t.store);
    for (const url of URLS) {
      const r = await post(k, url, {
        assets: [A],
        options: { 'a.b': 1, cve_page: 2 ** 53, sort: 'bad', affected_only: 'y', zz: 2 },
      });
      assert.equal(r.statusCode, 422, r.body);
      const e = r.json().error;
      assert.equal(e.message, 'Invalid options');
      assert.deepEqual(e.detail, [
        { field: 'body.options.a.b', message: `unknown option; accepted: ${ACCEPTED}`, type: 'value_error.extra' },
        { field: 'body.options.cve_page', message: 'cve_page must be an integer from 1', type: 'type_error.integer' },
        {
          field: 'body.options.sort',
          message: 'sort must be one of priority, score, exploit, newest',
          type: 'value_error.enum',
        },
        {
          field: 'body.options.affected_only',
          message: 'affected_only must be true or false',
          type: 'type_error.bool',
        },
        { field: 'body.options.zz', message: `unknown option; accepted: ${ACCEPTED}`, type: 'value_error.extra' },
      ]);
      const notObject = (await post(k, url, { assets: [A], options: [] })).json().error;
      assert.deepEqual(
        [notObject.message, notObject.detail],
        [
          'options must be an object',
          [{ field: 'body.options', message: 'options must be an object', type: 'type_error.dict' }],
        ],
      );
      // null reads as no options; the largest safe page is accepted.
      assert.equal((await post(k, url, { assets: [A], options: null, environment_id: null })).statusCode, 200);
      assert.equal((await post(k, url, { assets: [A], options: { cve_page: 2 ** 53 - 1 } })).statusCode, 200);
    }
  });

  test('order: shape, then the limits, then environment_id (scope on correlate-cves), then the options', async () => {
    const pro = await seedOrg(t.store);
    const free = await seedOrg(t.store, { tier: 'free' });
    const readOnly = await seedKey(t.store, pro.orgId, pro.memberId, { scopes: ['read'] });
    for (const url of URLS) {
      const shape = (await post(free, url, { assets: 'x', environment_id: 'x', options: { foo: 1 } })).json().error;
      assert.deepEqual(
        [shape.message, shape.detail],
        [
          'assets must be an array',
          [{ field: 'body.assets', message: 'assets must be an array', type: 'type_error.list' }],
        ],
      );
      const extra = (await post(free, url, { 'a.b': 1, assets: 'x' })).json().error;
      assert.deepEqual(
        [extra.message, extra.detail[0].message],
        ['Top-level field not allowed: a.b', 'only assets, environment_id, options are accepted'],
      );
      assert.equal(
        (await post(free, url, { assets: [A], environment_id: 2 ** 53, options: { foo: 1 } })).json().error.code,
        'TRIAL_REQUIRED',
      );
      const big = await post(pro, url, {
        assets: Array.from({ length: 201 }, (_, i) => ({ ...A, asset_id: `r-${i}` })),
        environment_id: 'x',
      });
      assert.equal(big.json().error.code, 'BATCH_TOO_LARGE');
      const env = (await post(pro, url, { assets: [A], environment_id: 2 ** 53, options: { foo: 1 } })).json().error;
      assert.deepEqual(
        [env.message, env.detail],
        [
          'environment_id must be a positive integer',
          [
            {
              field: 'body.environment_id',
              message: 'environment_id must be a positive integer',
              type: 'type_error.integer',
            },
          ],
        ],
      );
      const scoped = (await post(readOnly, url, { assets: [A], environment_id: 5, options: { foo: 1 } })).json().error;
      // /check stores nothing, so needs no write scope: its options are refused next.
      if (url.endsWith('/check'))
        assert.deepEqual([scoped.code, scoped.message], ['VALIDATION_ERROR', 'Invalid options']);
      else assert.deepEqual([scoped.code, scoped.detail.required_scope], ['FORBIDDEN', 'write']);
    }
  });
});
