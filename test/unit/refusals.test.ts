// The one table from a service Refusal to its spec §7 error (http/refusals.ts, ADR 0099), rendered as the error
// handler renders it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderError, ERRORS } from '../../src/http/errors.ts';
import { refusalError, REFUSALS } from '../../src/http/refusals.ts';
import { caught, environmentNotFound, invalidInput, Refusal } from '../../src/services/refusal.ts';
import { AccountError } from '../../src/services/account-errors.ts';
import { TRIAL_CONTACT_URL } from '../../src/domain/tiers.ts';

const render = (r: Refusal) => renderError(refusalError(r));

test('a refusal without a message answers in the catalogue wording; one with a message in its own', () => {
  const r = render(environmentNotFound(7));
  assert.equal(r.status, 404);
  assert.deepEqual(r.body, {
    code: 'NOT_FOUND',
    message: ERRORS.ENVIRONMENT_NOT_FOUND.message,
    retryable: false,
    retry_after_seconds: null,
    action: 'fix_input',
    detail: { error: 'environment_not_found', environment_id: 7 },
  });
  assert.equal(
    render(
      new Refusal('trial_checks_used', 'This request needs 30 asset checks and 5 remain; nothing was processed', {
        used: 745,
      }),
    ).body.message,
    'This request needs 30 asset checks and 5 remain; nothing was processed',
  );
});

test('invalid_input: the fields are the detail list and the refused records ride in data', () => {
  const e = refusalError(
    invalidInput(
      'Every asset was refused; see data.rejected',
      [{ field: 'body.assets', message: 'every asset was refused', type: 'value_error.assets' }],
      { rejected: [{ index: 0 }] },
    ),
  );
  const { status, body } = renderError(e);
  assert.equal(status, 422);
  assert.deepEqual(body.detail, [
    { field: 'body.assets', message: 'every asset was refused', type: 'value_error.assets' },
  ]);
  assert.deepEqual(e.opts.data, { rejected: [{ index: 0 }] });
});

test('partner_limit gives reset_at from resets_at; rate_limited its Retry-After from retry_after', () => {
  const p = render(
    new Refusal('partner_limit', null, {
      used: 9990,
      limit: 10000,
      remaining: 10,
      requested: 20,
      resets_at: '2027-01-01T00:00:00.000Z',
    }),
  );
  assert.equal(p.status, 429);
  assert.equal(p.body.reset_at, '2027-01-01T00:00:00.000Z');
  assert.deepEqual(p.body.detail, {
    error: 'partner_limit',
    used: 9990,
    limit: 10000,
    remaining: 10,
    requested: 20,
    resets_at: '2027-01-01T00:00:00.000Z',
  });
  const q = render(new AccountError('rate_limited', 'Too many sign-in links', { retry_after: 42 }));
  assert.equal(q.status, 429);
  assert.equal(q.retryAfter, 42);
});

test('account refusals: the code is detail.error where the spec names it, the status from the catalogue', () => {
  const cap = render(
    new AccountError('cap_exceeded', 'The plan allows 5 members', { resource: 'members', limit: 5, used: 5 }),
  );
  assert.equal(cap.status, 403);
  assert.deepEqual(cap.body.detail, { error: 'cap_exceeded', resource: 'members', limit: 5, used: 5 });
  assert.deepEqual(render(new AccountError('email_taken', 'taken')).body.detail, { error: 'email_taken' });
  assert.equal(render(new AccountError('email_taken', 'taken')).status, 409);
  assert.deepEqual(render(new AccountError('not_a_member', 'no')).body.detail, { error: 'not_found' });
  assert.equal(render(new AccountError('trial_ended', 'used')).status, 409);
  assert.deepEqual(render(new AccountError('invalid_email', 'not an address')).body.detail, [
    { field: 'body.email', message: 'not an address', type: 'format' },
  ]);
  assert.deepEqual(render(new AccountError('owner_cannot_be_removed', 'no')).body.detail, {
    error: 'owner_cannot_be_removed',
  });
});

test('API keys, webhooks and training: the status and detail of each refusal', () => {
  const key = render(new Refusal('api_key_revoked', 'API key revoked'));
  assert.equal(key.status, 401);
  assert.deepEqual(
    [key.body.code, key.body.message, key.body.detail],
    ['AUTH_REQUIRED', 'API key revoked', { error: 'api_key_revoked' }],
  );
  const trial = render(
    new Refusal('trial_over', 'The trial has ended; this key is no longer accepted', { reason: 'ended' }),
  );
  assert.equal(trial.status, 403);
  assert.equal(trial.body.code, 'TRIAL_ENDED');
  assert.equal(
    JSON.stringify(trial.body.detail),
    JSON.stringify({ error: 'trial_ended', reason: 'ended', contact_url: TRIAL_CONTACT_URL }),
  );
  const rotation = render(new Refusal('rotation_conflict', 'overlapped'));
  assert.deepEqual([rotation.status, rotation.body.detail], [409, { error: 'rotation_conflict' }]);
  const missing = render(
    new Refusal('module_not_found', 'No training module "x"', { resource: 'training_module', identifier: 'x' }),
  );
  assert.deepEqual(
    [missing.status, missing.body.detail],
    [404, { error: 'not_found', resource: 'training_module', identifier: 'x' }],
  );
  const started = render(new Refusal('module_not_started', 'not started', { module_id: 'x' }));
  assert.deepEqual([started.status, started.body.detail], [409, { error: 'module_not_started', module_id: 'x' }]);
});

test('every code has a row that answers a client error', () => {
  for (const code of Object.keys(REFUSALS) as (keyof typeof REFUSALS)[]) {
    const detail = code === 'invalid_input' ? { fields: [] } : {};
    const { status } = render(new Refusal(code, 'why', detail));
    assert.ok(status >= 400 && status < 500, `${code} answers ${status}`);
  }
});

test('caught hands back a refusal of the codes asked for and throws anything else on', () => {
  const r = environmentNotFound(3);
  assert.equal(caught(r, ['environment_not_found']), r);
  assert.throws(
    () => caught(r, ['invalid_input']),
    (e) => e === r,
  );
  const other = new Error('boom');
  assert.throws(
    () => caught(other, ['invalid_input']),
    (e) => e === other,
  );
});
