// GET/PUT /api/v1/account/notifications (per member) and GET /api/v1/account/usage (environments, assets and
// members against the effective caps: plan from configuration, or the organization's override set with
// `vulnintel org caps`), over HTTP against PostgreSQL.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, seedOrg, seedKey, seedSession, type TestApp } from '../helpers/app.ts';
import { runCli } from '../../src/cli.ts';
import { storeResults } from '../../src/store/windows.ts';
import { parsePlanCaps } from '../../src/domain/plan-caps.ts';
import { readFileSync } from 'node:fs';
import { sql } from '../../src/store/kysely.ts';

let t: TestApp;
before(async () => {
  t = await testApp({ now: '2026-11-21T12:00:00Z', env: { VULNINTEL_PLAN_CAPS: '{"standard":{"assets":300}}' } });
  process.env.DATABASE_URL = t.db.url;
  process.env.LOG_LEVEL = 'silent';
  process.env.VULNINTEL_PLAN_CAPS = '{"standard":{"assets":300}}';
});
after(async () => {
  delete process.env.VULNINTEL_PLAN_CAPS;
  await t.close();
});

const PREFS = { email_enabled: true, min_severity: 'CRITICAL', min_bcs: 8.5, kev_only: true, delivery: 'instant' };
const put = (headers: Record<string, string>, payload: unknown) =>
  t.app.inject({ method: 'PUT', url: '/api/v1/account/notifications', headers, payload: payload as object });
const getPrefs = (headers: Record<string, string>) =>
  t.app.inject({ method: 'GET', url: '/api/v1/account/notifications', headers });

describe('notification preferences', () => {
  test('defaults until saved; PUT replaces them; per member', async () => {
    const o = await seedOrg(t.store, { name: 'Prefs Org' });
    const other = await seedKey(t.store, o.orgId, null, { role: 'admin' });
    const d = await getPrefs(o.auth);
    assert.equal(d.statusCode, 200, d.body);
    assert.deepEqual(d.json().data, {
      email_enabled: true,
      min_severity: 'HIGH',
      min_bcs: null,
      kev_only: false,
      delivery: 'daily_digest',
      customized: false,
      updated_at: null,
    });
    const p = await put(o.auth, PREFS);
    assert.equal(p.statusCode, 200, p.body);
    assert.deepEqual(p.json().data, { ...PREFS, customized: true, updated_at: '2026-11-21T12:00:00.000Z' });
    assert.deepEqual((await getPrefs(o.auth)).json().data, {
      ...PREFS,
      customized: true,
      updated_at: '2026-11-21T12:00:00.000Z',
    });
    // Another member of the same organization still has the defaults.
    assert.equal((await getPrefs(other.auth)).json().data.customized, false);
    // A second PUT replaces the whole set; thresholds may be cleared with null.
    const p2 = await put(o.auth, {
      email_enabled: false,
      min_severity: null,
      min_bcs: null,
      kev_only: false,
      delivery: 'daily_digest',
    });
    assert.deepEqual(
      { ...p2.json().data, updated_at: null },
      {
        email_enabled: false,
        min_severity: null,
        min_bcs: null,
        kev_only: false,
        delivery: 'daily_digest',
        customized: true,
        updated_at: null,
      },
    );
    const rows = await t.store.db
      .selectFrom('notification_preferences')
      .selectAll()
      .where('org_id', '=', o.orgId)
      .execute();
    assert.equal(rows.length, 1);
  });

  test('min_bcs is stored to one decimal; bounds 0 and 10 accepted', async () => {
    const o = await seedOrg(t.store, { name: 'Prefs bounds' });
    assert.equal((await put(o.auth, { ...PREFS, min_bcs: 7.25 })).json().data.min_bcs, 7.3);
    assert.equal((await put(o.auth, { ...PREFS, min_bcs: 0 })).json().data.min_bcs, 0);
    assert.equal((await put(o.auth, { ...PREFS, min_bcs: 10 })).json().data.min_bcs, 10);
  });

  test('invalid bodies → 422 on the field, nothing stored', async () => {
    const o = await seedOrg(t.store, { name: 'Prefs invalid' });
    const cases: [unknown, string][] = [
      [{ ...PREFS, min_severity: 'high' }, 'min_severity'],
      [{ ...PREFS, min_bcs: 10.5 }, 'min_bcs'],
      [{ ...PREFS, min_bcs: -1 }, 'min_bcs'],
      [{ ...PREFS, delivery: 'weekly' }, 'delivery'],
      [{ ...PREFS, email_enabled: 'yes' }, 'email_enabled'],
      [{ ...PREFS, extra: 1 }, ''],
      [{ email_enabled: true }, ''],
    ];
    for (const [body, field] of cases) {
      const r = await put(o.auth, body);
      assert.equal(r.statusCode, 422, `${JSON.stringify(body)}: ${r.body}`);
      assert.equal(r.json().error.code, 'VALIDATION_ERROR');
      if (field) assert.ok(JSON.stringify(r.json().error.detail).includes(field), r.body);
    }
    const rows = await t.store.db
      .selectFrom('notification_preferences')
      .selectAll()
      .where('org_id', '=', o.orgId)
      .execute();
    assert.equal(rows.length, 0);
  });

  test('a "value or null" field with a bad value reports one error that says what is accepted; nothing stored', async () => {
    const o = await seedOrg(t.store, { name: 'Prefs unions' });
    const cases: [Record<string, unknown>, { field: string; message: string; type: string }][] = [
      [
        { min_severity: 5 },
        {
          field: 'body.min_severity',
          message: 'must be one of: LOW, MEDIUM, HIGH, CRITICAL, or null',
          type: 'type_error.enum',
        },
      ],
      [
        { min_severity: 'high' },
        {
          field: 'body.min_severity',
          message: 'must be one of: LOW, MEDIUM, HIGH, CRITICAL, or null',
          type: 'type_error.enum',
        },
      ],
      [{ min_bcs: '7.5' }, { field: 'body.min_bcs', message: 'must be a number or null', type: 'type_error.number' }],
      // A number out of range: the range is what is wrong, not that it is no null.
      [{ min_bcs: 10.5 }, { field: 'body.min_bcs', message: 'must be <= 10', type: 'value_error.number.not_le' }],
    ];
    for (const [change, error] of cases) {
      const r = await put(o.auth, { ...PREFS, ...change });
      assert.equal(r.statusCode, 422, r.body);
      assert.equal(r.json().error.code, 'VALIDATION_ERROR');
      assert.deepEqual(r.json().error.detail, [error], JSON.stringify(change));
    }
    const rows = await t.store.db
      .selectFrom('notification_preferences')
      .selectAll()
      .where('org_id', '=', o.orgId)
      .execute();
    assert.equal(rows.length, 0);
  });

  test('a viewer sets their own preferences (session with Origin, or a write-scope key); a read-only key may not', async () => {
    const o = await seedOrg(t.store, { name: 'Prefs viewer' });
    const v = await seedKey(t.store, o.orgId, null, { role: 'viewer' });
    const s = await seedSession(t.store, o.orgId, v.memberId);
    assert.equal((await put({ ...s, origin: 'http://vulnintel.test' }, PREFS)).statusCode, 200);
    assert.equal((await put(s, PREFS)).json().error.detail.error, 'origin_refused');
    const ro = await seedKey(t.store, o.orgId, v.memberId, { scopes: ['read'] });
    assert.equal((await put(ro.auth, PREFS)).json().error.detail.error, 'insufficient_scope');
    assert.equal((await getPrefs(ro.auth)).json().data.min_severity, 'CRITICAL');
    assert.equal((await getPrefs({})).statusCode, 401);
  });
});

describe('usage against the effective caps', () => {
  const usage = (headers: Record<string, string>) =>
    t.app.inject({ method: 'GET', url: '/api/v1/account/usage', headers });

  test('counts environments, distinct stored assets and members; caps from the plan table and VULNINTEL_PLAN_CAPS', async () => {
    const o = await seedOrg(t.store, { name: 'Usage Org', tier: 'standard' });
    await seedKey(t.store, o.orgId, null, { role: 'viewer' });
    const e1 = await t.app.services.environments.create(o.orgId, { name: 'Line A' });
    await t.app.services.environments.create(o.orgId, { name: 'Line B' });
    const host = (id: string) => ({ asset_id: id, host: {}, warnings: [], result: {}, data_as_of: null });
    await storeResults(
      t.store.db,
      o.orgId,
      e1.id,
      '2026-07-10',
      'vi-req-000000000001',
      [host('hmi-01'), host('hmi-02'), host('eng-01')],
      [],
    );
    await storeResults(t.store.db, o.orgId, null, '2026-07-10', 'vi-req-000000000002', [host('hmi-01')], []);
    const r = await usage(o.auth);
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json().data, {
      tier: 'standard',
      environments: { used: 2, limit: 3, remaining: 1, plan_limit: 3, overridden: false },
      assets: { used: 3, limit: 300, remaining: 297, plan_limit: 300, overridden: false },
      members: { used: 2, limit: 2, remaining: 0, plan_limit: 2, overridden: false },
      webhooks: { used: 0, limit: 20, remaining: 20, plan_limit: 20, overridden: false },
    });
  });

  test('`vulnintel org caps` overrides per organization; "plan" clears; -1 = unlimited; another organization is untouched', async () => {
    const o = await seedOrg(t.store, { name: 'Override Org', tier: 'standard' });
    const other = await seedOrg(t.store, { name: 'Plain Org', tier: 'standard' });
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(
      ['org', 'caps', '--org', String(o.orgId), '--members', '10', '--assets', 'unlimited', '--json'],
      { out: (s) => out.push(s), err: (s) => err.push(s) },
    );
    assert.equal(code, 0, err.join('\n'));
    assert.deepEqual(JSON.parse(out[0]).members, { used: 1, limit: 10, remaining: 9, plan_limit: 2, overridden: true });
    const d = (await usage(o.auth)).json().data;
    assert.deepEqual(d.members, { used: 1, limit: 10, remaining: 9, plan_limit: 2, overridden: true });
    assert.deepEqual(d.assets, { used: 0, limit: -1, remaining: -1, plan_limit: 300, overridden: true });
    assert.deepEqual(d.environments, { used: 0, limit: 3, remaining: 3, plan_limit: 3, overridden: false });
    assert.equal((await usage(other.auth)).json().data.members.limit, 2);
    // Clearing one override keeps the other.
    assert.equal(
      await runCli(['org', 'caps', '--org', String(o.orgId), '--members', 'plan'], { out: () => {}, err: () => {} }),
      0,
    );
    const d2 = (await usage(o.auth)).json().data;
    assert.equal(d2.members.limit, 2);
    assert.equal(d2.members.overridden, false);
    assert.equal(d2.assets.limit, -1);
    // The text form, and refusals.
    const text: string[] = [];
    await runCli(['org', 'caps', '--org', String(o.orgId)], { out: (s) => text.push(s), err: () => {} });
    assert.deepEqual(text, [
      `Organization ${o.orgId} (standard):`,
      '  environments: 0 of 3 (plan)',
      '  assets: 0 of unlimited (override; plan 300)',
      '  members: 1 of 2 (plan)',
      '  webhooks: 0 of 20 (plan)',
    ]);
    assert.equal(
      await runCli(['org', 'caps', '--org', String(other.orgId), '--environments=-1'], {
        out: () => {},
        err: () => {},
      }),
      0,
    );
    assert.equal((await usage(other.auth)).json().data.environments.limit, -1);
    const bad: string[] = [];
    assert.notEqual(
      await runCli(['org', 'caps', '--org', String(o.orgId), '--members', 'lots'], {
        out: () => {},
        err: (s) => bad.push(s),
      }),
      0,
    );
    assert.match(bad.join('\n'), /--members must be a whole number/);
    const none: string[] = [];
    assert.equal(
      await runCli(['org', 'caps', '--org', '999999999', '--members', '3'], {
        out: () => {},
        err: (s) => none.push(s),
      }),
      1,
    );
    assert.match(none.join('\n'), /No organization 999999999/);
  });

  test('an override set with `vulnintel org caps` moves both the usage report and the invite refusal (one table, one store)', async () => {
    const o = await seedOrg(t.store, { name: 'Seat Org', tier: 'standard' });
    const invite = (email: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/account/team/invite',
        headers: o.auth,
        payload: { email, role: 'viewer' },
      });
    const refusal = async (email: string) => {
      const r = await invite(email);
      assert.equal(r.statusCode, 403, r.body);
      const e = r.json().error;
      return {
        code: e.code,
        error: e.detail.error,
        resource: e.detail.resource,
        limit: e.detail.limit,
        used: e.detail.used,
      };
    };
    assert.equal(
      await runCli(['org', 'caps', '--org', String(o.orgId), '--members', '3'], { out: () => {}, err: () => {} }),
      0,
    );
    assert.deepEqual((await usage(o.auth)).json().data.members, {
      used: 1,
      limit: 3,
      remaining: 2,
      plan_limit: 2,
      overridden: true,
    });
    assert.equal((await invite('a@example.test')).statusCode, 201);
    assert.equal((await invite('b@example.test')).statusCode, 201);
    // A pending invitation holds a seat in the report as in the check.
    assert.deepEqual((await usage(o.auth)).json().data.members, {
      used: 3,
      limit: 3,
      remaining: 0,
      plan_limit: 2,
      overridden: true,
    });
    assert.deepEqual(await refusal('c@example.test'), {
      code: 'FORBIDDEN',
      error: 'cap_exceeded',
      resource: 'members',
      limit: 3,
      used: 3,
    });
    // Raised: the next invite fits; cleared: back to the plan's 2 in both places.
    assert.equal(
      await runCli(['org', 'caps', '--org', String(o.orgId), '--members', '4'], { out: () => {}, err: () => {} }),
      0,
    );
    assert.equal((await invite('c@example.test')).statusCode, 201);
    assert.equal(
      await runCli(['org', 'caps', '--org', String(o.orgId), '--members', 'plan'], { out: () => {}, err: () => {} }),
      0,
    );
    assert.deepEqual((await usage(o.auth)).json().data.members, {
      used: 4,
      limit: 2,
      remaining: 0,
      plan_limit: 2,
      overridden: false,
    });
    assert.deepEqual(await refusal('d@example.test'), {
      code: 'FORBIDDEN',
      error: 'cap_exceeded',
      resource: 'members',
      limit: 2,
      used: 4,
    });
    // /account/org shows the same store and table.
    const org = (await t.app.inject({ method: 'GET', url: '/api/v1/account/org', headers: o.auth })).json().data;
    assert.deepEqual([org.cap_overrides, org.caps], [{}, { members: 2, environments: 3, assets: 300, webhooks: 20 }]);
  });

  test('migration 0840 moves org_cap_overrides rows into organizations.cap_overrides and drops the table', async () => {
    const a = await seedOrg(t.store, { name: 'Moved A' });
    const b = await seedOrg(t.store, { name: 'Moved B' });
    const db = t.store.db;
    await sql`UPDATE organizations SET cap_overrides = '{"members": 4, "assets": 7}' WHERE id = ${a.orgId}`.execute(db);
    await sql`CREATE TABLE org_cap_overrides (org_id bigint PRIMARY KEY, members integer, environments integer, assets integer, updated_at timestamptz NOT NULL)`.execute(
      db,
    );
    await sql`INSERT INTO org_cap_overrides VALUES (${a.orgId}, 9, NULL, -1, now()), (${b.orgId}, NULL, 2, NULL, now())`.execute(
      db,
    );
    await sql
      .raw(readFileSync(new URL('../../src/store/migrations/0840_one_cap_override_store.sql', import.meta.url), 'utf8'))
      .execute(db);
    const rows = await sql<{
      id: number;
      cap_overrides: object;
    }>`SELECT id, cap_overrides FROM organizations WHERE id IN (${a.orgId}, ${b.orgId}) ORDER BY id = ${a.orgId} DESC`.execute(
      db,
    );
    assert.deepEqual(
      rows.rows.map((r) => r.cap_overrides),
      [{ members: 9, assets: -1 }, { environments: 2 }],
    );
    assert.equal(
      (await sql<{ t: string | null }>`SELECT to_regclass('org_cap_overrides')::text AS t`.execute(db)).rows[0].t,
      null,
    );
  });

  test('VULNINTEL_PLAN_CAPS is validated', () => {
    assert.equal(parsePlanCaps('{"enterprise":{"members":40}}').enterprise.members, 40);
    assert.equal(parsePlanCaps('{"enterprise":{"members":40}}').standard.members, 2);
    assert.throws(() => parsePlanCaps('{"gold":{}}'), /unknown tier "gold"/);
    assert.throws(() => parsePlanCaps('{"free":{"seats":3}}'), /unknown cap "seats"/);
    assert.throws(() => parsePlanCaps('{"free":{"assets":-2}}'), /free\.assets must be an integer/);
    assert.throws(() => parsePlanCaps('nope'), /not valid JSON/);
  });

  test('any member reads the usage (viewer included); no credential → 401', async () => {
    const o = await seedOrg(t.store, { name: 'Usage viewer' });
    const v = await seedKey(t.store, o.orgId, null, { role: 'viewer', scopes: ['read'] });
    assert.equal((await usage(v.auth)).statusCode, 200);
    assert.equal((await usage({})).statusCode, 401);
  });
});
