import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { planKey, monthWindow, trialStatus, DAY_MS } from '../../src/domain/keys.ts';
import { TIERS, KEY_KINDS, SCOPES } from '../../src/domain/tiers.ts';
import { generateApiKey, isWellFormedApiKey, safeEqual, sha256Hex, KEY_START_LENGTH } from '../../src/lib/crypto.ts';

const now = new Date('2026-11-21T12:00:00Z');

test('standard keys: Professional and above only, upgrade_required below', () => {
  assert.deepEqual(
    TIERS.filter((tier) => planKey({ tier, kind: 'standard' }, now).ok),
    ['professional', 'api', 'enterprise'],
  );
  const r = planKey({ tier: 'standard', kind: 'standard' }, now);
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.error, 'upgrade_required');
});

test('partner keys: read only, on any tier, no expiry', () => {
  for (const tier of TIERS)
    assert.deepEqual(planKey({ tier, kind: 'partner' }, now), {
      ok: true,
      scopes: ['read'],
      expiresAt: null,
      startsTrial: false,
    });
  const w = planKey({ tier: 'enterprise', kind: 'partner', scopes: ['read', 'write'] }, now);
  assert.equal(!w.ok && w.error, 'scope_not_allowed');
});

test('trial keys: 14 days from the trial start; ended, expired or spent trials refuse new keys', () => {
  const first = planKey({ tier: 'free', kind: 'trial' }, now);
  assert.deepEqual(first, {
    ok: true,
    scopes: ['read', 'write'],
    expiresAt: new Date(now.getTime() + 14 * DAY_MS),
    startsTrial: true,
  });
  const started = new Date('2026-11-15T00:00:00Z');
  const later = planKey({ tier: 'free', kind: 'trial', trial: { started_at: started, ended_at: null, used: 10 } }, now);
  assert.deepEqual(later, {
    ok: true,
    scopes: ['read', 'write'],
    expiresAt: new Date('2026-11-29T00:00:00Z'),
    startsTrial: false,
  });
  for (const trial of [
    { started_at: started, ended_at: now, used: 0 },
    { started_at: new Date('2026-11-01T00:00:00Z'), ended_at: null, used: 0 },
    { started_at: started, ended_at: null, used: 750 },
  ]) {
    const r = planKey({ tier: 'free', kind: 'trial', trial }, now);
    assert.equal(!r.ok && r.error, 'trial_ended', JSON.stringify(trial));
  }
});

test('trial keys: the Free plan only (as POST /account/trial); any other tier is trial_unavailable', () => {
  assert.deepEqual(
    TIERS.filter((tier) => planKey({ tier, kind: 'trial' }, now).ok),
    ['free'],
  );
  const std = planKey({ tier: 'standard', kind: 'trial' }, now);
  assert.deepEqual(std, {
    ok: false,
    error: 'trial_unavailable',
    message: 'The free API trial is for organizations on the Free plan; this organization is on standard',
  });
});

test('property: a granted plan never holds a scope outside its kind, and never empty', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...TIERS),
      fc.constantFrom(...KEY_KINDS),
      fc.option(fc.subarray([...SCOPES]), { nil: undefined }),
      (tier, kind, scopes) => {
        const r = planKey({ tier, kind, scopes }, now);
        if (!r.ok) return;
        assert.ok(r.scopes.length > 0);
        if (kind === 'partner') assert.deepEqual(r.scopes, ['read']);
        if (kind === 'standard') assert.equal(r.expiresAt, null);
      },
    ),
  );
});

test('monthWindow: calendar month in UTC', () => {
  assert.deepEqual(monthWindow(new Date('2026-12-31T23:59:59Z')), {
    month: '2026-12-01',
    resetsAt: new Date('2027-01-01T00:00:00Z'),
  });
  assert.deepEqual(monthWindow(new Date('2026-02-01T00:00:00Z')), {
    month: '2026-02-01',
    resetsAt: new Date('2026-03-01T00:00:00Z'),
  });
});

test('generated keys: well-formed, unique, checksum catches a one-character change', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 2000; i++) {
    const g = generateApiKey();
    assert.ok(isWellFormedApiKey(g.key));
    assert.match(g.key, /^vi_live_[0-9A-Za-z]{43}_[0-9A-Za-z]{6}$/);
    assert.equal(g.hash, sha256Hex(g.key));
    assert.equal(g.start, g.key.slice(0, KEY_START_LENGTH));
    assert.ok(!seen.has(g.key));
    seen.add(g.key);
  }
  const k = generateApiKey().key;
  fc.assert(
    fc.property(fc.nat({ max: k.length - 9 }), fc.constantFrom(...'0123456789abcXYZ'), (i, c) => {
      const pos = 8 + i;
      if (k[pos] === c || k[pos] === '_') return;
      assert.equal(isWellFormedApiKey(k.slice(0, pos) + c + k.slice(pos + 1)), false);
    }),
  );
});

test('safeEqual: equal only for identical strings, never throws on different lengths', () => {
  assert.equal(safeEqual('abc', 'abc'), true);
  assert.equal(safeEqual('abc', 'abcd'), false);
  assert.equal(safeEqual('', 'a'), false);
  fc.assert(fc.property(fc.string(), fc.string(), (a, b) => assert.equal(safeEqual(a, b), a === b)));
});

test('planKey refusals carry the spec error and a message naming the reason; granted scopes are sorted and deduplicated', () => {
  assert.deepEqual(planKey({ tier: 'standard', kind: 'standard' }, now), {
    ok: false,
    error: 'upgrade_required',
    message: 'API keys are available on the Professional tier and above; this organization is on standard',
  });
  assert.deepEqual(planKey({ tier: 'professional', kind: 'standard' }, now), {
    ok: true,
    scopes: ['read', 'write'],
    expiresAt: null,
    startsTrial: false,
  });
  assert.deepEqual(planKey({ tier: 'api', kind: 'standard', scopes: ['write', 'read', 'write'] }, now), {
    ok: true,
    scopes: ['read', 'write'],
    expiresAt: null,
    startsTrial: false,
  });
  assert.deepEqual(planKey({ tier: 'api', kind: 'standard', scopes: [] }, now), {
    ok: false,
    error: 'scope_not_allowed',
    message: 'A key needs at least one scope (read, write)',
  });
  assert.deepEqual(planKey({ tier: 'api', kind: 'partner', scopes: ['write', 'read'] }, now), {
    ok: false,
    error: 'scope_not_allowed',
    message: 'partner keys may not hold the scope write (allowed: read)',
  });
});

test('trial keys: the 14 days end exactly at started_at + 14 days; the 750th check spends the trial', () => {
  const started = new Date(now.getTime() - 14 * DAY_MS);
  const at = (trial: { started_at: Date; ended_at: Date | null; used: number }, when: Date) =>
    planKey({ tier: 'free', kind: 'trial', trial }, when);
  assert.deepEqual(at({ started_at: started, ended_at: null, used: 0 }, new Date(now.getTime() - 1)), {
    ok: true,
    scopes: ['read', 'write'],
    expiresAt: now,
    startsTrial: false,
  });
  assert.deepEqual(at({ started_at: started, ended_at: null, used: 0 }, now), {
    ok: false,
    error: 'trial_ended',
    message: 'The 14-day trial of this organization has expired',
  });
  const recent = new Date(now.getTime() - DAY_MS);
  assert.equal(at({ started_at: recent, ended_at: null, used: 749 }, now).ok, true);
  assert.deepEqual(at({ started_at: recent, ended_at: null, used: 750 }, now), {
    ok: false,
    error: 'trial_ended',
    message: "The trial's 750 asset checks are used up",
  });
  assert.deepEqual(at({ started_at: recent, ended_at: now, used: 0 }, now), {
    ok: false,
    error: 'trial_ended',
    message: 'The trial of this organization has ended',
  });
});

test('trialStatus: not started; active until started_at + 14 days (exclusive); the 750th check ends it (limit); an early end wins', () => {
  const start = new Date('2026-11-01T10:00:00Z');
  const end = new Date(start.getTime() + 14 * DAY_MS);
  const base = { per_request: 25, total_checks: 750 };
  assert.deepEqual(trialStatus(null, start), {
    status: 'not_started',
    reason: null,
    started_at: null,
    ends_at: null,
    ...base,
    used: 0,
    remaining: 750,
  });
  const t = (used: number, ended_at: Date | null = null) => ({ started_at: start, ended_at, used });
  const active = {
    status: 'active',
    reason: null,
    started_at: start.toISOString(),
    ends_at: end.toISOString(),
    ...base,
  };
  assert.deepEqual(trialStatus(t(0), start), { ...active, used: 0, remaining: 750 });
  assert.deepEqual(trialStatus(t(749), new Date(end.getTime() - 1)), { ...active, used: 749, remaining: 1 });
  assert.deepEqual(trialStatus(t(749), end), {
    ...active,
    status: 'ended',
    reason: 'expired',
    used: 749,
    remaining: 0,
  });
  assert.deepEqual(trialStatus(t(750), start), {
    ...active,
    status: 'ended',
    reason: 'limit',
    used: 750,
    remaining: 0,
  });
  assert.deepEqual(
    trialStatus(t(760), start),
    { ...active, status: 'ended', reason: 'limit', used: 750, remaining: 0 },
    'used never shown past the total',
  );
  // An early end wins over the limit and the expiry.
  assert.deepEqual(trialStatus(t(750, start), end), {
    ...active,
    status: 'ended',
    reason: 'ended',
    used: 750,
    remaining: 0,
  });
  assert.equal(trialStatus(t(3), new Date(end.getTime() + DAY_MS)).reason, 'expired');
});
