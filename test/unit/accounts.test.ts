// Account rules (src/domain/accounts.ts; docs/accounts.md): e-mail form and length, normalisation, session expiry
// at both limits, and who may remove whom.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HOUR_MS,
  isEmail,
  normalizeEmail,
  removalRefusal,
  SESSION_IDLE_MS,
  SESSION_ABSOLUTE_MS,
  sessionExpired,
} from '../../src/domain/accounts.ts';
import { ROLES } from '../../src/domain/tiers.ts';

test('isEmail: local@domain.tld, at most 320 characters', () => {
  for (const s of ['alice@example.com', 'a.b+tag@sub.example.co', 'x@a-b.io']) assert.equal(isEmail(s), true, s);
  for (const s of [
    'alice',
    'alice@localhost',
    '@example.com',
    'alice@',
    'al ice@example.com',
    'alice@-example.com',
    'a<b>@example.com',
  ]) {
    assert.equal(isEmail(s), false, s);
  }
  const local = 'l'.repeat(64);
  const domain = (last: number) => `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(last)}.com`;
  const at320 = `${local}@${domain(59)}`;
  assert.equal(at320.length, 320);
  assert.equal(isEmail(at320), true);
  const at321 = `${local}@${domain(60)}`;
  assert.equal(at321.length, 321);
  assert.equal(isEmail(at321), false);
});

test('normalizeEmail: trimmed, lower case', () => {
  assert.equal(normalizeEmail('  Alice.Smith@Example.COM \n'), 'alice.smith@example.com');
  assert.equal(normalizeEmail('bob@example.com'), 'bob@example.com');
});

test('sessionExpired: absolute expiry and 12 hours idle, each reached at its instant', () => {
  const now = new Date('2026-11-21T12:00:00Z');
  const at = (ms: number) => new Date(now.getTime() + ms);
  assert.equal(SESSION_IDLE_MS, 12 * HOUR_MS);
  assert.equal(SESSION_ABSOLUTE_MS, 7 * 24 * HOUR_MS);
  assert.equal(sessionExpired({ expires_at: at(1), last_seen_at: at(-1) }, now), false);
  assert.equal(sessionExpired({ expires_at: at(0), last_seen_at: at(-1) }, now), true, 'expires_at reached');
  assert.equal(sessionExpired({ expires_at: at(-1), last_seen_at: now }, now), true);
  assert.equal(sessionExpired({ expires_at: at(HOUR_MS), last_seen_at: at(-SESSION_IDLE_MS + 1) }, now), false);
  assert.equal(
    sessionExpired({ expires_at: at(HOUR_MS), last_seen_at: at(-SESSION_IDLE_MS) }, now),
    true,
    '12 hours idle',
  );
  assert.equal(sessionExpired({ expires_at: at(HOUR_MS), last_seen_at: at(-SESSION_IDLE_MS - 1) }, now), true);
  assert.equal(
    sessionExpired({ expires_at: at(SESSION_ABSOLUTE_MS), last_seen_at: at(HOUR_MS) }, now),
    false,
    'seen after now: not idle',
  );
});

test('removalRefusal: the owner never; a viewer removes nobody; owners and admins remove admins and viewers', () => {
  const table = ROLES.map((actor) => ROLES.map((target) => removalRefusal(actor, target)));
  assert.deepEqual(ROLES, ['owner', 'admin', 'viewer']);
  assert.deepEqual(table, [
    ['owner_cannot_be_removed', null, null],
    ['owner_cannot_be_removed', null, null],
    ['owner_cannot_be_removed', 'role_required', 'role_required'],
  ]);
});
