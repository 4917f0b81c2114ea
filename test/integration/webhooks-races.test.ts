// Webhook writes racing each other over HTTP (docs/webhooks.md): concurrent rotate-secret calls on one webhook (one
// wins, the others 409 rotation_conflict, and the winner's secret is the one that signs), and the per-plan cap on
// webhooks per organization (403 cap_exceeded, never exceeded by parallel creates).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { startReceiver, verifyStandardSignature, type Receiver } from '../helpers/webhook-receiver.ts';

let t: TestApp;
let rx: Receiver;

before(async () => {
  rx = await startReceiver();
  t = await testApp({ env: { VULNINTEL_WEBHOOK_EGRESS_ALLOW: rx.hostPort }, now: '2026-11-21T12:00:00Z' });
});
after(async () => {
  await t.close();
  await rx.close();
});

type Json = Record<string, any>;
async function call(auth: Record<string, string>, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) {
  const r = await t.app.inject({
    method,
    url,
    headers: body === undefined ? auth : { ...auth, 'content-type': 'application/json' },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.statusCode, body: r.json() as Json, text: r.body };
}

describe('rotate-secret under concurrency', () => {
  test('ten concurrent rotate-secret calls: one 200 with the secret in force, nine 409 rotation_conflict; the next delivery verifies with the winner', async () => {
    const org = await seedOrg(t.store, { name: 'Rotate Race Org', tier: 'standard' });
    const created = await call(org.auth, 'POST', '/api/v1/webhooks', { label: 'raced', url: `${rx.base}/ok/raced` });
    assert.equal(created.status, 201, created.text);
    const id = created.body.data.id;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => call(org.auth, 'POST', `/api/v1/webhooks/${id}/rotate-secret`, {})),
    );
    const won = answers.filter((a) => a.status === 200);
    const lost = answers.filter((a) => a.status !== 200);
    assert.equal(won.length, 1, JSON.stringify(answers.map((a) => a.status)));
    assert.equal(lost.length, 9);
    for (const a of lost) {
      assert.equal(a.status, 409, a.text);
      assert.equal(a.body.error.code, 'CONFLICT');
      assert.equal(a.body.error.detail.error, 'rotation_conflict');
      assert.match(a.body.error.message, /another rotate-secret of this webhook/i);
      assert.ok(!a.text.includes('whsec_'), 'a refused rotation shows no secret');
    }
    const secret = won[0].body.data.secret as string;
    assert.match(secret, /^whsec_/);
    const sent = rx.received.length;
    const test = await call(org.auth, 'POST', `/api/v1/webhooks/${id}/test`, {});
    assert.equal(test.status, 200, test.text);
    assert.equal(test.body.data.outcome, 'delivered');
    const got = rx.received.slice(sent).find((x) => x.path === '/ok/raced');
    assert.ok(got, 'the test delivery reached the receiver');
    assert.ok(verifyStandardSignature(secret, got), "the winner's secret verifies the next delivery");
    assert.ok(!verifyStandardSignature(created.body.data.secret, got), 'the first secret no longer does');
  });

  test('rotations one after the other each win (a conflict is only an overlap)', async () => {
    const org = await seedOrg(t.store, { name: 'Rotate Serial Org', tier: 'standard' });
    const created = await call(org.auth, 'POST', '/api/v1/webhooks', { label: 'serial', url: `${rx.base}/ok/serial` });
    const secrets = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const r = await call(org.auth, 'POST', `/api/v1/webhooks/${created.body.data.id}/rotate-secret`, {});
      assert.equal(r.status, 200, r.text);
      secrets.add(r.body.data.secret);
    }
    assert.equal(secrets.size, 3);
  });
});

describe('the per-plan cap on webhooks per organization', () => {
  test('thirty parallel creates on Standard (cap 20): exactly 20 created, ten 403 cap_exceeded naming the cap; a deleted one makes room for one', async () => {
    const org = await seedOrg(t.store, { name: 'Webhook Cap Org', tier: 'standard' });
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        call(org.auth, 'POST', '/api/v1/webhooks', { label: `hook ${i}`, url: `${rx.base}/ok/cap${i}` }),
      ),
    );
    const created = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status !== 201);
    assert.equal(created.length, 20, JSON.stringify(answers.map((a) => a.status)));
    for (const a of refused) {
      assert.equal(a.status, 403, a.text);
      assert.equal(a.body.error.code, 'FORBIDDEN');
      assert.equal(a.body.error.detail.error, 'cap_exceeded');
      assert.equal(a.body.error.detail.resource, 'webhooks');
      assert.equal(a.body.error.detail.limit, 20);
      assert.equal(a.body.error.detail.used, 20);
      assert.match(a.body.error.message, /The plan allows 20 webhooks; 20 exist/);
      assert.ok(!a.text.includes('whsec_'));
    }
    const stored = await t.store.db
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('org_id', '=', org.orgId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(stored.n), 20, 'nothing stored past the cap');
    const usage = await call(org.auth, 'GET', '/api/v1/account/usage');
    assert.equal(usage.status, 200, usage.text);
    assert.deepEqual(usage.body.data.webhooks, {
      used: 20,
      limit: 20,
      remaining: 0,
      plan_limit: 20,
      overridden: false,
    });
    // At the cap, one more is refused; after a delete, one fits again (the boundary is the cap itself).
    assert.equal(
      (await call(org.auth, 'POST', '/api/v1/webhooks', { label: 'one more', url: `${rx.base}/ok/more` })).status,
      403,
    );
    assert.equal((await call(org.auth, 'DELETE', `/api/v1/webhooks/${created[0].body.data.id}`)).status, 200);
    assert.equal(
      (await call(org.auth, 'POST', '/api/v1/webhooks', { label: 'fits again', url: `${rx.base}/ok/again` })).status,
      201,
    );
    assert.equal(
      (await call(org.auth, 'POST', '/api/v1/webhooks', { label: 'over again', url: `${rx.base}/ok/over` })).status,
      403,
    );
  });

  test('an operator override of the organization raises or lowers its cap (vulnintel org caps --webhooks)', async () => {
    const org = await seedOrg(t.store, { name: 'Webhook Override Org', tier: 'standard' });
    await t.app.services.accountPreferences.setCapOverrides(org.orgId, { webhooks: 1 });
    assert.equal(
      (await call(org.auth, 'POST', '/api/v1/webhooks', { label: 'first', url: `${rx.base}/ok/o1` })).status,
      201,
    );
    const second = await call(org.auth, 'POST', '/api/v1/webhooks', { label: 'second', url: `${rx.base}/ok/o2` });
    assert.equal(second.status, 403, second.text);
    assert.deepEqual(
      [second.body.error.detail.resource, second.body.error.detail.limit, second.body.error.detail.used],
      ['webhooks', 1, 1],
    );
    const usage = await call(org.auth, 'GET', '/api/v1/account/usage');
    assert.deepEqual(usage.body.data.webhooks, { used: 1, limit: 1, remaining: 0, plan_limit: 20, overridden: true });
  });
});
