// Plan caps (src/domain/plan-caps.ts; ADR 0082): VULNINTEL_PLAN_CAPS parsing, per-organization
// overrides, the usage line and the under-cap test, each at its boundary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_PLAN_CAPS, effectiveCaps, parsePlanCaps, underCap, usageLine } from '../../src/domain/plan-caps.ts';

const DEFAULTS = {
  free: { environments: 1, assets: 25, members: 1, webhooks: 0 },
  standard: { environments: 3, assets: 250, members: 2, webhooks: 20 },
  professional: { environments: 10, assets: 2500, members: 5, webhooks: 25 },
  api: { environments: 25, assets: 10000, members: 5, webhooks: 25 },
  enterprise: { environments: -1, assets: -1, members: 25, webhooks: 50 },
};

test('parsePlanCaps: unset, empty or blank is the default table itself', () => {
  assert.equal(parsePlanCaps(undefined), DEFAULT_PLAN_CAPS);
  assert.equal(parsePlanCaps(''), DEFAULT_PLAN_CAPS);
  assert.equal(parsePlanCaps('  \t '), DEFAULT_PLAN_CAPS);
  assert.deepEqual(parsePlanCaps(undefined), DEFAULTS);
});

test('parsePlanCaps: a cap given replaces that one cap of that tier; the rest stay the defaults; all frozen', () => {
  const t = parsePlanCaps('{"standard":{"assets":500}}');
  assert.deepEqual(t, { ...DEFAULTS, standard: { environments: 3, assets: 500, members: 2, webhooks: 20 } });
  assert.ok(Object.isFrozen(t));
  assert.ok(Object.isFrozen(t.standard));
  assert.equal(t.free, DEFAULT_PLAN_CAPS.free, 'an untouched tier is the default object');
  assert.deepEqual(DEFAULT_PLAN_CAPS.standard, DEFAULTS.standard, 'the defaults are not changed');
  const two = parsePlanCaps(' {"free":{"members":3,"environments":0},"enterprise":{"assets":100000}} ');
  assert.deepEqual(two, {
    ...DEFAULTS,
    free: { environments: 0, assets: 25, members: 3, webhooks: 0 },
    enterprise: { environments: -1, assets: 100000, members: 25, webhooks: 50 },
  });
  assert.ok(Object.isFrozen(two.free));
  assert.deepEqual(parsePlanCaps('{"api":{"members":-1}}').api, {
    environments: 25,
    assets: 10000,
    members: -1,
    webhooks: 25,
  });
  assert.deepEqual(parsePlanCaps('{"api":{}}'), DEFAULTS);
  assert.deepEqual(parsePlanCaps('{}'), DEFAULTS);
});

test('parsePlanCaps: refusals name the fault', () => {
  const refuses = (raw: string, message: string) => assert.throws(() => parsePlanCaps(raw), { message }, raw);
  refuses('{standard:1}', 'not valid JSON; expected e.g. {"standard":{"assets":500}}');
  for (const raw of ['null', '[]', '[{"standard":{}}]', '5', '"standard"', 'true'])
    refuses(raw, 'expected a JSON object keyed by tier');
  refuses('{"gold":{"assets":1}}', 'unknown tier "gold" (one of free, standard, professional, api, enterprise)');
  refuses(
    '{"Standard":{"assets":1}}',
    'unknown tier "Standard" (one of free, standard, professional, api, enterprise)',
  );
  for (const caps of ['null', '[]', '[1]', '5', '"x"'])
    refuses(`{"standard":${caps}}`, 'standard: expected an object of caps');
  refuses('{"pro":{"assets":1}}', 'unknown tier "pro" (one of free, standard, professional, api, enterprise)');
  refuses(
    '{"professional":{"users":1}}',
    'professional: unknown cap "users" (one of environments, assets, members, webhooks)',
  );
  for (const v of ['-2', '1.5', '"5"', 'null', '9007199254740992', 'true']) {
    refuses(`{"standard":{"assets":${v}}}`, 'standard.assets must be an integer ≥ 0, or -1 for unlimited');
  }
  refuses('{"free":{"members":2,"environments":-3}}', 'free.environments must be an integer ≥ 0, or -1 for unlimited');
});

test('parsePlanCaps: the largest safe integer and 0 are caps', () => {
  assert.equal(parsePlanCaps('{"standard":{"assets":9007199254740991}}').standard.assets, Number.MAX_SAFE_INTEGER);
  assert.equal(parsePlanCaps('{"standard":{"assets":0}}').standard.assets, 0);
  assert.equal(parsePlanCaps('{"standard":{"assets":-1}}').standard.assets, -1);
});

test("effectiveCaps: an override where set and valid, else the plan's; a copy, never the table's object", () => {
  assert.deepEqual(effectiveCaps(DEFAULT_PLAN_CAPS, 'standard', null), DEFAULTS.standard);
  assert.deepEqual(effectiveCaps(DEFAULT_PLAN_CAPS, 'professional', undefined), DEFAULTS.professional);
  assert.deepEqual(effectiveCaps(DEFAULT_PLAN_CAPS, 'professional', {}), DEFAULTS.professional);
  const c = effectiveCaps(DEFAULT_PLAN_CAPS, 'standard', null);
  assert.notEqual(c, DEFAULT_PLAN_CAPS.standard);
  c.assets = 1;
  assert.equal(DEFAULT_PLAN_CAPS.standard.assets, 250);
  assert.deepEqual(effectiveCaps(DEFAULT_PLAN_CAPS, 'standard', { assets: 7 }), {
    environments: 3,
    assets: 7,
    members: 2,
    webhooks: 20,
  });
  assert.deepEqual(effectiveCaps(DEFAULT_PLAN_CAPS, 'free', { environments: 0, members: -1 }), {
    environments: 0,
    assets: 25,
    members: -1,
    webhooks: 0,
  });
  for (const bad of [-2, 1.5, Number.MAX_SAFE_INTEGER + 1, NaN, '9' as unknown as number, null as unknown as number]) {
    assert.deepEqual(effectiveCaps(DEFAULT_PLAN_CAPS, 'standard', { assets: bad }), DEFAULTS.standard, String(bad));
  }
  const table = parsePlanCaps('{"api":{"assets":20000}}');
  assert.deepEqual(effectiveCaps(table, 'api', { members: 9 }), {
    environments: 25,
    assets: 20000,
    members: 9,
    webhooks: 25,
  });
});

test('usageLine: remaining is the cap less the use, never negative, -1 when unlimited', () => {
  assert.deepEqual(usageLine(3, 10, 10, false), {
    used: 3,
    limit: 10,
    remaining: 7,
    plan_limit: 10,
    overridden: false,
  });
  assert.deepEqual(usageLine(10, 10, 12, true), {
    used: 10,
    limit: 12,
    remaining: 2,
    plan_limit: 10,
    overridden: true,
  });
  assert.deepEqual(usageLine(12, 25, 10, true), {
    used: 12,
    limit: 10,
    remaining: 0,
    plan_limit: 25,
    overridden: true,
  });
  assert.deepEqual(usageLine(10, 10, 10, false).remaining, 0);
  assert.deepEqual(usageLine(0, 0, 0, false), { used: 0, limit: 0, remaining: 0, plan_limit: 0, overridden: false });
  assert.deepEqual(usageLine(40, -1, -1, false), {
    used: 40,
    limit: -1,
    remaining: -1,
    plan_limit: -1,
    overridden: false,
  });
});

test('underCap: one more fits while the use is below the cap; -1 never caps', () => {
  assert.equal(underCap(5, 4), true);
  assert.equal(underCap(5, 5), false);
  assert.equal(underCap(5, 6), false);
  assert.equal(underCap(0, 0), false);
  assert.equal(underCap(1, 0), true);
  assert.equal(underCap(-1, 0), true);
  assert.equal(underCap(-1, 1_000_000), true);
});
