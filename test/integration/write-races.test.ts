// Writes racing other writes of the same organization (several engineers, scripts and API replicas at once): a
// member removed while its own request runs, a webhook deleted while a delivery to it is being claimed, two people
// confirming the same new address, an account deletion under keyed traffic. Each race is made deterministic: the
// competing write is committed at the point where it bites (a test hook between the auth hook and the handler, or a
// transaction held open on a second connection until the request waits on its lock). No 500, nothing half-stored.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { sql } from '../../src/store/kysely.ts';
import { withTx } from '../../src/store/db.ts';
import { randomToken, sha256Hex } from '../../src/lib/crypto.ts';
import { insertAuthToken } from '../../src/store/account-sessions.ts';
import { deleteMembership, revokeOrgKeys } from '../../src/store/account-team.ts';
import { testApp, seedOrg, seedKey, seedSession, type TestApp } from '../helpers/app.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';

const ORIGIN = 'http://vulnintel.test';
/** A request carrying this header has its member removed (as DELETE /account/team/{id} does) after the auth hook. */
const REMOVE_ME = 'x-test-remove-member-before-handler';

let t: TestApp;
let rx: Receiver;
before(async () => {
  rx = await startReceiver();
  t = await testApp({
    env: { VULNINTEL_WEBHOOK_EGRESS_ALLOW: rx.hostPort },
    now: '2026-11-21T12:00:00Z',
    testRoutes: (app) => {
      app.addHook('preHandler', async (req) => {
        if (req.headers[REMOVE_ME] === undefined || !req.principal) return;
        const { orgId, memberId } = req.principal;
        await withTx(t.store.db, async (trx) => {
          const owner = (
            await sql<{ id: number }>`SELECT id FROM members WHERE org_id = ${orgId} AND role = 'owner'`.execute(trx)
          ).rows[0];
          await deleteMembership(trx, orgId, memberId, owner.id, new Date());
        });
      });
    },
  });
});
after(async () => {
  await t.close();
  await rx.close();
});

function call(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  return t.app.inject({
    method,
    url,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
}

const count = async (q: ReturnType<typeof sql<{ n: number }>>) => (await q.execute(t.store.db)).rows[0].n;

/** A second connection holding a transaction open (the competing request's writes, committed on cue). */
async function heldTransaction() {
  const c = new pg.Client({ connectionString: t.db.url });
  await c.connect();
  await c.query('BEGIN');
  return {
    query: (text: string, values: unknown[] = []) => c.query(text, values),
    async commit() {
      await c.query('COMMIT');
      await c.end();
    },
    async rollback() {
      await c.query('ROLLBACK').catch(() => undefined);
      await c.end();
    },
  };
}

/** Resolves once a statement of the app matching `like` waits on a lock (the race's point of contact). */
async function waitsOnLock(like: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const n = await count(sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE ${like}`);
    if (n > 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no statement like ${like} waited on a lock`);
}

describe('a member removed while its own write runs', () => {
  const writes: {
    name: string;
    method: 'POST' | 'PUT';
    url: string;
    body?: unknown;
    stored: (orgId: number, memberId: number) => Promise<number>;
  }[] = [
    {
      name: 'create an API key',
      method: 'POST',
      url: '/api/v1/account/keys',
      body: { label: 'late key' },
      stored: (o) =>
        count(
          sql<{ n: number }>`SELECT count(*)::int AS n FROM api_keys WHERE org_id = ${o} AND label LIKE 'late key%'`,
        ),
    },
    {
      name: 'start a training module',
      method: 'POST',
      url: '/api/v1/training/modules/ics-ot-security-fundamentals/start',
      stored: (o, m) =>
        count(
          sql<{ n: number }>`SELECT count(*)::int AS n FROM training_progress WHERE org_id = ${o} AND member_id = ${m}`,
        ),
    },
    {
      name: 'save notification preferences',
      method: 'PUT',
      url: '/api/v1/account/notifications',
      body: { email_enabled: true, min_severity: 'HIGH', min_bcs: null, kev_only: false, delivery: 'instant' },
      stored: (o, m) =>
        count(
          sql<{
            n: number;
          }>`SELECT count(*)::int AS n FROM notification_preferences WHERE org_id = ${o} AND member_id = ${m}`,
        ),
    },
    {
      name: 'watch a protocol',
      method: 'POST',
      url: '/api/v1/watchlist',
      body: { entity_type: 'protocol', entity_id: 'modbus' },
      stored: (o) => count(sql<{ n: number }>`SELECT count(*)::int AS n FROM watchlist_entries WHERE org_id = ${o}`),
    },
    {
      name: 'create a feed token',
      method: 'POST',
      url: '/api/v1/feeds/tokens',
      body: { label: 'late feed' },
      stored: (o) => count(sql<{ n: number }>`SELECT count(*)::int AS n FROM feed_tokens WHERE org_id = ${o}`),
    },
    {
      name: 'invite a member',
      method: 'POST',
      url: '/api/v1/account/team/invite',
      body: { email: 'late-invitee@example.test', role: 'viewer' },
      stored: (o) => count(sql<{ n: number }>`SELECT count(*)::int AS n FROM invitations WHERE org_id = ${o}`),
    },
  ];
  for (const w of writes) {
    test(`${w.name}: 401 member_removed, nothing stored (not a 500 from the foreign key)`, async () => {
      const o = await seedOrg(t.store, { tier: 'enterprise' });
      const admin = await seedKey(t.store, o.orgId, null, { role: 'admin' });
      const r = await call(w.method, w.url, { ...admin.auth, [REMOVE_ME]: '1' }, w.body);
      assert.equal(r.statusCode, 401, r.body);
      const e = r.json().error;
      assert.deepEqual(
        [e.code, e.detail.error, e.action, e.retryable],
        ['AUTH_REQUIRED', 'member_removed', 'use_different_key', false],
      );
      assert.match(e.message, /membership of this organization was removed while the request ran; nothing was stored/);
      assert.equal(await w.stored(o.orgId, admin.memberId), 0);
      // The removal itself stands, and the key stops: the next request hears it too.
      assert.equal(
        await count(sql<{ n: number }>`SELECT count(*)::int AS n FROM members WHERE id = ${admin.memberId}`),
        0,
      );
      assert.equal((await call('GET', '/api/v1/account/me', admin.auth)).json().error.detail.error, 'api_key_revoked');
    });
  }

  test('switching to an organization whose membership was just removed: 404, and the current session still works', async () => {
    const a = await seedOrg(t.store, { tier: 'professional', name: 'Switch From' });
    const b = await seedOrg(t.store, { tier: 'professional', name: 'Switch To' });
    const person = (
      await sql<{ p: number }>`SELECT person_id AS p FROM members WHERE id = ${a.memberId}`.execute(t.store.db)
    ).rows[0].p;
    const inB = (
      await sql<{ id: number }>`INSERT INTO members (org_id, person_id, email, name, role)
      VALUES (${b.orgId}, ${person}, ${a.ownerEmail}, '', 'viewer') RETURNING id`.execute(t.store.db)
    ).rows[0].id;
    const s = await seedSession(t.store, a.orgId, a.memberId);
    // B's admin removes the membership in a transaction that commits once the switch waits on the member row.
    const removal = await heldTransaction();
    await removal.query('DELETE FROM members WHERE id = $1', [inB]);
    const switching = call('POST', '/api/v1/auth/switch-org', { ...s, origin: ORIGIN }, { org_id: b.orgId });
    await waitsOnLock('INSERT INTO sessions%');
    await removal.commit();
    const r = await switching;
    assert.equal(r.statusCode, 404, r.body);
    assert.equal(r.json().error.detail.error, 'not_found');
    assert.match(r.json().error.message, /not a member of an active organization with this id/);
    const me = await call('GET', '/api/v1/account/me', s);
    assert.equal(me.statusCode, 200, 'the session the switch would have replaced is still valid');
    assert.equal(me.json().data.org_id, a.orgId);
    assert.equal(
      await count(
        sql<{ n: number }>`SELECT count(*)::int AS n FROM sessions WHERE org_id = ${b.orgId} AND member_id = ${inB}`,
      ),
      0,
    );
  });
});

describe('a webhook deleted while a delivery to it is being claimed', () => {
  async function hookOrg() {
    const o = await seedOrg(t.store, { tier: 'standard' });
    const mk = async (label: string) => {
      const r = await call('POST', '/api/v1/webhooks', o.auth, { label, url: `${rx.base}/ok/${label}` });
      assert.equal(r.statusCode, 201, r.body);
      return r.json().data.id as number;
    };
    return { o, mk };
  }
  const deliveries = (id: number) =>
    count(sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = ${id}`);

  test('POST /webhooks/{id}/test: 404 not_found, nothing sent or recorded (not a 500 from the foreign key)', async () => {
    const { o, mk } = await hookOrg();
    const id = await mk(`gone-${Date.now()}`);
    const sent = rx.received.length;
    const del = await heldTransaction();
    await del.query('DELETE FROM webhooks WHERE id = $1', [id]);
    const testing = call('POST', `/api/v1/webhooks/${id}/test`, o.auth);
    await waitsOnLock('%INSERT INTO webhook_deliveries%');
    await del.commit();
    const r = await testing;
    assert.equal(r.statusCode, 404, r.body);
    assert.deepEqual([r.json().error.code, r.json().error.detail.error], ['NOT_FOUND', 'not_found']);
    assert.equal(rx.received.length, sent, 'nothing sent');
    assert.equal(await deliveries(id), 0);
  });

  test('a cve.alert: the deleted webhook is skipped, the others delivered (the alert run no longer fails)', async () => {
    const { o, mk } = await hookOrg();
    const kept = await mk(`kept-${Date.now()}`);
    const gone = await mk(`gone-${Date.now()}`);
    const del = await heldTransaction();
    await del.query('DELETE FROM webhooks WHERE id = $1', [gone]);
    const cve = `CVE-2026-${Date.now() % 100000}`;
    const delivering = t.app.services.webhooks.deliverAlert(o.orgId, {
      event: 'cve.alert',
      version: '1.0',
      timestamp: '2026-11-21T12:00:00Z',
      data: {
        cve_id: cve,
        title: 'Race',
        cvss_score: 9.8,
        cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
        patch_status: 'unknown',
        kev_flagged: true,
        epss_score: 0.5,
        sage_priority: 'PATCH NOW',
        published_at: '2026-11-20T10:00:00Z',
        url: `https://vulnintel.test/cve/${cve}`,
        executive_summary: null,
        mitigation: null,
        causal_boundary: null,
        virtual_patch: null,
        watchlist_match: { entity_type: 'vendor', entity_name: 'Siemens' },
      },
    });
    await waitsOnLock('%INSERT INTO webhook_deliveries%');
    await del.commit();
    const results = await delivering;
    assert.deepEqual(
      results.map((x) => [x.webhook_id, x.outcome]).sort(),
      [
        [kept, 'delivered'],
        [gone, 'skipped'],
      ].sort(),
    );
    assert.equal(await deliveries(kept), 1);
    assert.equal(await deliveries(gone), 0);
  });
});

test('two people confirm a change to the same new address at once: one gets it, the other 409 email_taken (not a 500)', async () => {
  const a = await seedOrg(t.store, { name: 'Email A' });
  const b = await seedOrg(t.store, { name: 'Email B' });
  const personOf = async (m: number) =>
    (await sql<{ p: number }>`SELECT person_id AS p FROM members WHERE id = ${m}`.execute(t.store.db)).rows[0].p;
  const [pa, pb] = [await personOf(a.memberId), await personOf(b.memberId)];
  const target = `shared-${Date.now()}@example.test`;
  const token = randomToken();
  await insertAuthToken(t.store.db, {
    tokenHash: sha256Hex(token),
    purpose: 'email_change',
    personId: pb,
    newEmail: target,
    expiresAt: new Date('2100-01-01T00:00:00Z'),
  });
  // A's confirmation is under way (its address already changed, not yet committed) when B follows its link.
  const first = await heldTransaction();
  await first.query('UPDATE persons SET email = $1 WHERE id = $2', [target, pa]);
  const confirming = t.app.inject({
    method: 'GET',
    url: `/api/v1/auth/confirm-email?token=${encodeURIComponent(token)}`,
  });
  await waitsOnLock('UPDATE persons SET email%');
  await first.commit();
  const r = await confirming;
  assert.equal(r.statusCode, 409, r.body);
  assert.equal(r.json().error.detail.error, 'email_taken');
  assert.equal(r.json().error.message, 'Another account already uses this email address');
  const emails = (
    await sql<{
      id: number;
      email: string;
    }>`SELECT id, email FROM persons WHERE id IN (${pa}, ${pb}) ORDER BY id`.execute(t.store.db)
  ).rows;
  assert.deepEqual(Object.fromEntries(emails.map((x) => [x.id, x.email])), { [pa]: target, [pb]: b.ownerEmail });
  // B is as it was: its sessions still work.
  const s = await seedSession(t.store, b.orgId, b.memberId);
  assert.equal((await call('GET', '/api/v1/account/me', s)).json().data.email, b.ownerEmail);
});

test('DELETE /account while a keyed request counts its call: both complete, no deadlock (not a 500 for one of them)', async () => {
  const o = await seedOrg(t.store, { name: 'Deleted Under Traffic', tier: 'professional' });
  const s = await seedSession(t.store, o.orgId, o.memberId);
  // A keyed request's first call of the month (store/identity.ts recordApiCall): the key's row, then an insert that
  // refers to the organization, in one statement. Here its two halves, with the deletion in between.
  const counting = await heldTransaction();
  await counting.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [o.keyId]);
  const deleting = call(
    'DELETE',
    '/api/v1/account',
    { ...s, origin: ORIGIN },
    { confirmation: 'delete my organization and all its data' },
  );
  await waitsOnLock('%UPDATE api_keys k SET revoked_at%');
  await counting.query(
    `INSERT INTO api_usage_monthly AS u (org_id, month, calls) VALUES ($1, date_trunc('month', now())::date, 1)
    ON CONFLICT (org_id, month) DO UPDATE SET calls = u.calls + 1`,
    [o.orgId],
  );
  await counting.commit();
  const r = await deleting;
  assert.equal(r.statusCode, 200, r.body);
  assert.equal(r.json().data.status, 'deactivated');
  const org = (
    await sql<{ status: string; live_keys: number; calls: number }>`SELECT o.status,
    (SELECT count(*)::int FROM api_keys k WHERE k.org_id = o.id AND k.revoked_at IS NULL) AS live_keys,
    (SELECT calls FROM api_usage_monthly u WHERE u.org_id = o.id) AS calls
    FROM organizations o WHERE o.id = ${o.orgId}`.execute(t.store.db)
  ).rows[0];
  assert.deepEqual(org, { status: 'deactivated', live_keys: 0, calls: 1 });
  assert.equal((await call('GET', '/api/v1/account/me', o.auth)).statusCode, 401);
});

test('a key created while the organization is being deleted: 401 org_removed, no key stored (not a 201 and a live key in a deleted organization)', async () => {
  const o = await seedOrg(t.store, { name: 'Deleted While Keying', tier: 'professional' });
  const keysBefore = await count(sql<{ n: number }>`SELECT count(*)::int AS n FROM api_keys WHERE org_id = ${o.orgId}`);
  // The deletion holds the organization's row (deactivated, not yet committed) when the key is asked for.
  const deleting = await heldTransaction();
  await deleting.query(`UPDATE organizations SET status = 'deactivated', deleted_at = now() WHERE id = $1`, [o.orgId]);
  const creating = call('POST', '/api/v1/account/keys', o.auth, { label: 'late key' });
  await waitsOnLock('SELECT%FROM organizations%FOR NO KEY UPDATE%');
  await deleting.commit();
  const r = await creating;
  assert.equal(r.statusCode, 401, r.body);
  assert.deepEqual([r.json().error.code, r.json().error.detail.error], ['AUTH_REQUIRED', 'org_removed']);
  assert.equal(
    await count(sql<{ n: number }>`SELECT count(*)::int AS n FROM api_keys WHERE org_id = ${o.orgId}`),
    keysBefore,
  );
});

test("multi-key updates lock keys in id order: revoking an organization's keys next to a flush of last_used_at waits, never deadlocks", async () => {
  const o = await seedOrg(t.store, { name: 'Key Lock Order', tier: 'professional' });
  const second = await seedKey(t.store, o.orgId, o.memberId, {});
  // Key ids are random: the lower and the higher of the two.
  const [lo, hi] = [o.keyId, second.keyId].sort((a, b) => a - b);
  // The lower key's row rewritten: the table's physical order is now the higher key first, so a statement locking
  // in scan order takes the higher key first.
  await sql`UPDATE api_keys SET label = 'rewritten' WHERE id = ${lo}`.execute(t.store.db);
  // Another replica's flush (in key-id order): the lower key first…
  const flush = await heldTransaction();
  await flush.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [lo]);
  // A sequential scan (as the planner takes on a small table, or with stale statistics) meets the rows in their
  // physical order; the index on org_id happened to give id order.
  const revoking = withTx(t.store.db, async (trx) => {
    await sql`SELECT set_config('enable_indexscan', 'off', true), set_config('enable_bitmapscan', 'off', true), set_config('deadlock_timeout', '200ms', true)`.execute(
      trx,
    );
    await revokeOrgKeys(trx, o.orgId, new Date());
  });
  await waitsOnLock('%api_keys%');
  // …then the higher: free, since the revocation waits on the lower key before it takes the higher one.
  try {
    await flush.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [hi]);
    await flush.commit();
  } catch (e) {
    await flush.rollback();
    throw e;
  }
  await revoking;
  const live = await count(
    sql<{ n: number }>`SELECT count(*)::int AS n FROM api_keys WHERE org_id = ${o.orgId} AND revoked_at IS NULL`,
  );
  assert.equal(live, 0);
});
