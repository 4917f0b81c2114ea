// The refusals of POST /api/v2/assets/correlate (ADR 0106, spec §7, §8): the body's shape before the limits;
// environment_id, installed_software and the options after them, in that order, worded in the spec's words by the
// one formatter (http/validation-errors.ts) from the schema's errors.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';

let t: TestApp;
before(async () => {
  t = await testApp({
    now: '2026-07-10T12:00:00Z',
    rateProfiles: {
      correlation: { requests: { points: 1, durationSec: 600 }, units: { points: 5000, durationSec: 600 } },
    },
  });
});
after(async () => {
  await t.close();
});

const H = {
  asset_id: 'h-1',
  os_product: 'Windows Server 2019 Datacenter',
  edition_id: 'ServerDatacenter',
  os_build: '10.0.17763.4974',
  architecture: 'x64',
  collected_at: '2026-07-01T08:00:00Z',
};
const hosts = (n: number) => Array.from({ length: n }, (_, i) => ({ ...H, asset_id: `h-${i}` }));

/** Each body from a fresh key: one request of the (one request) budget each. */
async function refusal(body: unknown) {
  const k = await seedOrg(t.store);
  const r = await t.app.inject({
    method: 'POST',
    url: '/api/v2/assets/correlate',
    headers: k.auth,
    payload: body as object,
  });
  const e = r.json().error;
  return { status: r.statusCode, code: e?.code, message: e?.message, detail: e?.detail };
}
const one = (field: string, message: string, type: string) => ({
  status: 422,
  code: 'VALIDATION_ERROR',
  message,
  detail: [{ field, message, type }],
});

describe('POST /api/v2/assets/correlate refusals', () => {
  test('the shape first: an object, no unknown top-level field, an array of hosts', async () => {
    assert.deepEqual(await refusal([]), one('body', 'the body must be a JSON object', 'type_error.dict'));
    const extra = await refusal({ 'a.b': 1, y: 2, windows_hosts: 'x' });
    assert.equal(extra.message, 'Top-level fields not allowed: a.b, y');
    assert.deepEqual(
      extra.detail.map((d: { field: string }) => d.field),
      ['body.a.b', 'body.y'],
    );
    assert.equal(
      extra.detail[0].message,
      'only environment_id, windows_hosts, installed_software and options are accepted',
    );
    const hostsMsg = 'windows_hosts must be an array of host records';
    for (const body of [{}, { windows_hosts: null }, { windows_hosts: 'x', environment_id: 'x', options: { foo: 1 } }])
      assert.deepEqual(await refusal(body), one('body.windows_hosts', hostsMsg, 'type_error.list'));
  });

  test('then the limits: the rate and the host count before any later field', async () => {
    const big = await refusal({ windows_hosts: hosts(201), environment_id: 'x', options: 5, installed_software: 'x' });
    assert.deepEqual([big.status, big.code, big.message], [413, 'BATCH_TOO_LARGE', 'At most 200 hosts per call']);
    const k = await seedOrg(t.store);
    const send = (body: unknown) =>
      t.app.inject({ method: 'POST', url: '/api/v2/assets/correlate', headers: k.auth, payload: body as object });
    // An empty list passes the limits (its request counted) and is refused by the service.
    assert.equal((await send({ windows_hosts: [] })).json().error.message, 'windows_hosts is empty');
    const spent = await send({ windows_hosts: [], options: { sort: 'bad' } });
    assert.equal(spent.statusCode, 429, spent.body);
    // A body refused by its shape costs no request: the same key, spent, still hears 422 about the shape.
    assert.equal((await send({ windows_hosts: 'x' })).statusCode, 422);
  });

  test('then environment_id, installed_software (and its size), the options: each refused alone, in that order', async () => {
    const envMsg = 'environment_id must be a positive integer';
    for (const v of ['x', 0, 1.5, 2 ** 53, true])
      assert.deepEqual(
        await refusal({ windows_hosts: [H], environment_id: v, installed_software: 'x', options: { sort: 'x' } }),
        one('body.environment_id', envMsg, 'type_error.integer'),
      );
    assert.deepEqual(
      await refusal({ windows_hosts: [H], installed_software: null, options: 'x' }),
      one('body.installed_software', 'installed_software must be an array', 'type_error.list'),
    );
    const many = await refusal({
      windows_hosts: [H],
      installed_software: Array.from({ length: 200_001 }, () => 0),
      options: { sort: 'x' },
    });
    assert.deepEqual([many.status, many.message], [413, 'At most 200000 software records per call']);
    for (const v of [null, [], 'x'])
      assert.deepEqual(
        await refusal({ windows_hosts: [H], options: v }),
        one('body.options', 'options must be an object', 'type_error.dict'),
      );
  });

  test("the options: every problem at once, unknown names first in the body's order, then the spec's order", async () => {
    const r = await refusal({
      windows_hosts: [H],
      options: {
        zz: 1,
        cve_page_size: 0,
        sort: 'x',
        'a.b': 2,
        confirmed_only: 'y',
        include_cleared: null,
        cve_page: -1,
      },
    });
    assert.equal(r.message, 'Invalid options');
    assert.deepEqual(r.detail, [
      { field: 'body.options.zz', message: 'unknown option', type: 'unknown_option' },
      { field: 'body.options.a.b', message: 'unknown option', type: 'unknown_option' },
      { field: 'body.options.include_cleared', message: 'must be a boolean', type: 'type_error.boolean' },
      { field: 'body.options.confirmed_only', message: 'must be a boolean', type: 'type_error.boolean' },
      {
        field: 'body.options.sort',
        message: 'sort must be one of priority, score, exploit, newest',
        type: 'type_error.enum',
      },
      { field: 'body.options.cve_page', message: 'cve_page must be an integer from 1 to 100000', type: 'value_error' },
      {
        field: 'body.options.cve_page_size',
        message: 'cve_page_size must be an integer from 1 to 1000',
        type: 'value_error',
      },
    ]);
    const big = await refusal({ windows_hosts: [H], options: { cve_page: 2 ** 53 } });
    assert.deepEqual(big.detail, [
      { field: 'body.options.cve_page', message: 'cve_page must be an integer from 1 to 100000', type: 'value_error' },
    ]);
  });
});
