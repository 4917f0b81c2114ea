// The tier tables of src/domain/tiers.ts against the interface spec: §2.8's permission table (copied verbatim to
// test/fixtures/spec/tier-permissions.md) and §8's limits (per_page, trial).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  MONTHLY_API_ALLOWANCE,
  PARTNER_SCOPES,
  pageOf,
  perPageCap,
  TIER_PERMISSIONS,
  TIERS,
  TRIAL,
  TRIAL_SCOPES,
} from '../../src/domain/tiers.ts';

test('TIER_PERMISSIONS is the §2.8 table, cell by cell', () => {
  const rows = readFileSync(new URL('../fixtures/spec/tier-permissions.md', import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| Permission'))
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  assert.equal(rows.length, 5);
  const cell = (v: string) => (v === 'true' ? true : v === 'false' ? false : Number.parseInt(v, 10));
  const expected = Object.fromEntries(
    TIERS.map((tier, i) => [tier, Object.fromEntries(rows.map((r) => [r[0], cell(r[i + 1])]))]),
  );
  assert.deepEqual(expected.api.search_max_results, -1);
  assert.deepEqual(TIER_PERMISSIONS, expected);
});

test('per_page cap (§8): 10 for anonymous and Free callers, 100 on every paid tier', () => {
  assert.equal(perPageCap(null), 10);
  assert.equal(perPageCap('free'), 10);
  for (const tier of TIERS.filter((t) => t !== 'free')) assert.equal(perPageCap(tier), 100, tier);
});

test('pageOf: page 1 and 20 per page by default; per_page clamped to the tier cap at its boundary; the offset', () => {
  assert.deepEqual(pageOf('standard', {}), { page: 1, perPage: 20, offset: 0 });
  assert.deepEqual(pageOf(null, {}), { page: 1, perPage: 10, offset: 0 });
  assert.deepEqual(pageOf('free', { page: 3, per_page: 10 }), { page: 3, perPage: 10, offset: 20 });
  assert.deepEqual(pageOf('free', { per_page: 11 }), { page: 1, perPage: 10, offset: 0 });
  assert.deepEqual(pageOf('enterprise', { page: 2, per_page: 100 }), { page: 2, perPage: 100, offset: 100 });
  assert.deepEqual(pageOf('enterprise', { per_page: 101 }), { page: 1, perPage: 100, offset: 0 });
});

test('trial limits (§8), key scopes (§5.8) and the monthly allowance (§8; other tiers: ADR 0023)', () => {
  assert.deepEqual({ ...TRIAL }, { days: 14, totalChecks: 750, perRequest: 25 });
  assert.deepEqual(PARTNER_SCOPES, ['read']);
  assert.deepEqual(TRIAL_SCOPES, ['read', 'write']);
  assert.deepEqual(
    { ...MONTHLY_API_ALLOWANCE },
    { free: 25_000, standard: 25_000, professional: 25_000, api: -1, enterprise: -1 },
  );
});
