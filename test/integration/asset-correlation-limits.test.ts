// Limits and keys of v1 asset correlation, exactly per spec §5, §7, §8: batch size, the per-key rate
// shared with v2, trial batch and total limits, partner monthly limit, counters exact under 20 parallel requests.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import { testApp, seedOrg, seedKey, type TestApp, type SeededKey } from '../helpers/app.ts';

let t: TestApp;
const NOW = '2026-11-21T12:00:00Z';
before(async () => {
  t = await testApp({ now: NOW });
});
after(async () => {
  await t.close();
});

const asset = (i: number) => ({
  asset_id: `lim-${i}`,
  vendor: 'Siemens',
  product: 'SIMATIC S7-1500',
  version: 'V2.9.2',
});
const assets = (n: number) => Array.from({ length: n }, (_, i) => asset(i));
const post = (k: { auth: Record<string, string> }, body: unknown, url = '/api/v1/assets/correlate-cves') =>
  t.app.inject({ method: 'POST', url, headers: k.auth, payload: body as object });

async function trialKey(): Promise<SeededKey> {
  const o = await seedOrg(t.store, { tier: 'free' });
  return seedKey(t.store, o.orgId, o.memberId, { kind: 'trial', expiresAt: new Date(Date.parse(NOW) + 86_400_000) });
}
const trialUsed = async (orgId: number) =>
  (await sql<{ used: number }>`SELECT used FROM trial_usage WHERE org_id = ${orgId}`.execute(t.store.db)).rows[0]
    ?.used ?? 0;
const partnerUsed = async (keyId: number) =>
  (await sql<{ used: number }>`SELECT used FROM partner_usage WHERE key_id = ${keyId}`.execute(t.store.db)).rows[0]
    ?.used ?? 0;

describe('batch size (§7, §8)', () => {
  test('200 assets pass; 201 → 413 BATCH_TOO_LARGE with max 200 and received, on correlate-cves and /check', async () => {
    const k = await seedOrg(t.store, { tier: 'professional' });
    assert.equal((await post(k, { assets: assets(200) })).statusCode, 200);
    for (const url of ['/api/v1/assets/correlate-cves', '/api/v1/assets/correlate-cves/check']) {
      const r = await post(k, { assets: assets(201) }, url);
      assert.equal(r.statusCode, 413, r.body);
      const e = r.json().error;
      assert.deepEqual(
        [e.code, e.max, e.detail.max, e.detail.received, e.detail.error, e.action, e.retryable],
        ['BATCH_TOO_LARGE', 200, 200, 201, 'batch_too_large', 'reduce_batch', false],
      );
      assert.equal(e.message, 'At most 200 assets per call');
    }
    // check-windows counts hosts, and says so.
    const host = {
      os_product: 'Windows Server 2019 Standard',
      edition_id: 'ServerStandard',
      os_build: '10.0.17763.6189',
      architecture: 'x64',
      installation_type: 'Server',
      collected_at: '2026-11-20T08:00:00Z',
    };
    const w = await post(
      k,
      { windows_hosts: Array.from({ length: 201 }, (_, i) => ({ ...host, asset_id: `w-${i}` })) },
      '/api/v1/assets/check-windows',
    );
    assert.equal(w.statusCode, 413, w.body);
    assert.deepEqual(
      [w.json().error.code, w.json().error.max, w.json().error.message],
      ['BATCH_TOO_LARGE', 200, 'At most 200 hosts per call'],
    );
  });
});

describe('trial keys (§7, §8)', () => {
  test('25 assets pass; 26 → 413 TRIAL_BATCH_LIMIT (max 25, received 26); nothing counted', async () => {
    const k = await trialKey();
    assert.equal((await post(k, { assets: assets(25) })).statusCode, 200);
    assert.equal(await trialUsed(k.orgId), 25);
    const r = await post(k, { assets: assets(26) }, '/api/v1/assets/correlate-cves/check');
    assert.equal(r.statusCode, 413);
    const e = r.json().error;
    assert.deepEqual(
      [e.code, e.max, e.detail.max, e.detail.received, e.action],
      ['TRIAL_BATCH_LIMIT', 25, 25, 26, 'reduce_batch'],
    );
    assert.equal(await trialUsed(k.orgId), 25);
  });

  test('750 checks in total: a request needing more than remain → 429 TRIAL_ENDED reason limit, nothing processed', async () => {
    const k = await trialKey();
    await sql`UPDATE trial_usage SET used = 740 WHERE org_id = ${k.orgId}`.execute(t.store.db).then(async (r) => {
      if (!Number(r.numAffectedRows))
        await sql`INSERT INTO trial_usage (org_id, used) VALUES (${k.orgId}, 740)`.execute(t.store.db);
    });
    const env = await t.app.services.environments.create(k.orgId, { name: 'Trial plant' });
    const r = await post(k, { assets: assets(11), environment_id: env.id });
    assert.equal(r.statusCode, 429, r.body);
    const e = r.json().error;
    assert.deepEqual(
      [
        e.code,
        e.detail.reason,
        e.detail.used,
        e.detail.limit,
        e.detail.remaining,
        e.detail.requested,
        e.retryable,
        e.retry_after_seconds,
        e.action,
      ],
      ['TRIAL_ENDED', 'limit', 740, 750, 10, 11, false, null, 'contact_us'],
    );
    assert.equal(await trialUsed(k.orgId), 740);
    assert.deepEqual(await t.app.services.assets.stored(k.orgId, env.id), []);
    // Exactly the remainder passes; then every request is refused.
    assert.equal((await post(k, { assets: assets(10) })).statusCode, 200);
    assert.equal(await trialUsed(k.orgId), 750);
    const over = (await post(k, { assets: assets(1) }, '/api/v1/assets/correlate-cves/check')).json().error;
    assert.deepEqual(
      [over.code, over.detail.used, over.detail.remaining, over.detail.requested],
      ['TRIAL_ENDED', 750, 0, 1],
    );
  });

  test('expired after 14 days → 403 TRIAL_ENDED reason expired', async () => {
    const o = await seedOrg(t.store, { tier: 'free' });
    const k = await seedKey(t.store, o.orgId, o.memberId, { kind: 'trial', expiresAt: new Date(Date.parse(NOW) - 1) });
    const r = await post(k, { assets: assets(1) });
    assert.equal(r.statusCode, 403);
    assert.deepEqual([r.json().error.code, r.json().error.detail.reason], ['TRIAL_ENDED', 'expired']);
  });

  test('counter exact under 20 parallel requests: 700 used, 20 × 25 → exactly 2 pass, used 750', async () => {
    const k = await trialKey();
    await sql`INSERT INTO trial_usage (org_id, used) VALUES (${k.orgId}, 700)`.execute(t.store.db);
    const rs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(
          k,
          { assets: assets(25) },
          i % 2 ? '/api/v1/assets/correlate-cves/check' : '/api/v1/assets/correlate-cves',
        ),
      ),
    );
    const codes = rs.map((r) => r.statusCode).sort();
    assert.deepEqual([codes.filter((c) => c === 200).length, codes.filter((c) => c === 429).length], [2, 18]);
    assert.equal(await trialUsed(k.orgId), 750);
  });
});

describe('partner keys (§7 PARTNER_LIMIT)', () => {
  test('monthly limit: 429 PARTNER_LIMIT with used, limit, remaining, requested, resets_at; nothing processed; exact under 20 parallel', async () => {
    const o = await seedOrg(t.store, { tier: 'professional' });
    const k = await seedKey(t.store, o.orgId, null, { role: 'admin', kind: 'partner', scopes: ['read'] });
    await sql`UPDATE api_keys SET monthly_asset_limit = 100 WHERE id = ${k.keyId}`.execute(t.store.db);
    const rs = await Promise.all(Array.from({ length: 20 }, () => post(k, { assets: assets(10) })));
    assert.deepEqual(
      [rs.filter((r) => r.statusCode === 200).length, rs.filter((r) => r.statusCode === 429).length],
      [10, 10],
    );
    assert.equal(await partnerUsed(k.keyId), 100);
    const r = await post(k, { assets: assets(1) }, '/api/v1/assets/correlate-cves/check');
    assert.equal(r.statusCode, 429);
    const e = r.json().error;
    assert.deepEqual(
      [
        e.code,
        e.detail.used,
        e.detail.limit,
        e.detail.remaining,
        e.detail.requested,
        e.detail.resets_at,
        e.reset_at,
        e.action,
        e.retryable,
      ],
      [
        'PARTNER_LIMIT',
        100,
        100,
        0,
        1,
        '2026-12-01T00:00:00.000Z',
        '2026-12-01T00:00:00.000Z',
        'wait_until_reset',
        false,
      ],
    );
    assert.equal(await partnerUsed(k.keyId), 100);
    // check-windows spends the same monthly checks.
    const w = await post(
      k,
      {
        windows_hosts: [
          {
            asset_id: 'p-1',
            os_product: 'Windows Server 2019 Standard',
            edition_id: 'ServerStandard',
            os_build: '10.0.17763.6189',
            architecture: 'x64',
            installation_type: 'Server',
            collected_at: '2026-11-20T08:00:00Z',
          },
        ],
      },
      '/api/v1/assets/check-windows',
    );
    assert.equal(w.statusCode, 429);
    assert.equal(w.json().error.code, 'PARTNER_LIMIT');
  });
});

describe('partner keys on check-windows: one check per accepted host', () => {
  test('refused hosts are not charged: 12 hosts with 3 refused spend 9; an all-refused call is its 422, nothing spent; 429 only for the accepted hosts', async () => {
    // Hosts are validated before they are charged: charged first, 12 hosts (3 refused) with 10 checks left would be
    // refused with PARTNER_LIMIT (requested 12), and a call of refused hosts only would be a 429, not its 422.
    const o = await seedOrg(t.store, { tier: 'professional' });
    const k = await seedKey(t.store, o.orgId, null, { role: 'admin', kind: 'partner', scopes: ['read'] });
    await sql`UPDATE api_keys SET monthly_asset_limit = 10 WHERE id = ${k.keyId}`.execute(t.store.db);
    const host = (i: number, os_build = '10.0.17763.6189') => ({
      asset_id: `pw-${i}`,
      os_product: 'Windows Server 2019 Standard',
      edition_id: 'ServerStandard',
      os_build,
      architecture: 'x64',
      installation_type: 'Server',
      collected_at: '2026-11-20T08:00:00Z',
    });
    const hosts = Array.from({ length: 12 }, (_, i) => host(i, i % 4 === 3 ? 'bad' : undefined));
    const r = await post(k, { windows_hosts: hosts }, '/api/v1/assets/check-windows');
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().data.hosts.length, 9);
    assert.deepEqual(
      r.json().data.rejected.map((x: { index: number }) => x.index),
      [3, 7, 11],
    );
    assert.equal(await partnerUsed(k.keyId), 9);
    const refused = await post(
      k,
      { windows_hosts: [host(20, 'bad'), host(21, 'bad'), host(22, 'bad')] },
      '/api/v1/assets/check-windows',
    );
    assert.equal(refused.statusCode, 422, refused.body);
    assert.equal(refused.json().error.code, 'VALIDATION_ERROR');
    assert.equal(await partnerUsed(k.keyId), 9);
    const over = await post(
      k,
      { windows_hosts: [host(30), host(31), host(32, 'bad')] },
      '/api/v1/assets/check-windows',
    );
    assert.equal(over.statusCode, 429, over.body);
    assert.deepEqual(
      [
        over.json().error.code,
        over.json().error.detail.used,
        over.json().error.detail.remaining,
        over.json().error.detail.requested,
      ],
      ['PARTNER_LIMIT', 9, 1, 2],
    );
    assert.equal(await partnerUsed(k.keyId), 9);
    const last = await post(k, { windows_hosts: [host(40)] }, '/api/v1/assets/check-windows');
    assert.equal(last.statusCode, 200, last.body);
    assert.equal(await partnerUsed(k.keyId), 10);
  });
});

describe('per-key rate (§8): 60 requests and 5,000 assets per minute, one budget with v2', () => {
  test('the request budget is shared: v2 calls and v1 calls count against one key', async () => {
    const k = await seedOrg(t.store, { tier: 'professional' });
    // 59 requests by v2 (refused for their empty host list after being counted), then v1 is the 60th; the 61st is refused.
    for (let i = 0; i < 59; i++)
      await t.app.inject({
        method: 'POST',
        url: '/api/v2/assets/correlate',
        headers: k.auth,
        payload: { windows_hosts: [] },
      });
    assert.equal((await post(k, { assets: assets(1) })).statusCode, 200);
    const r = await post(k, { assets: assets(1) }, '/api/v1/assets/correlate-cves/check');
    assert.equal(r.statusCode, 429, r.body);
    const e = r.json().error;
    assert.deepEqual(
      [e.code, e.detail.error, e.detail.limit, e.retryable, e.action],
      ['RATE_LIMITED', 'rate_limited', 60, true, 'retry_later'],
    );
    assert.ok(e.retry_after_seconds >= 1 && e.retry_after_seconds <= 60);
    assert.equal(r.headers['retry-after'], String(e.retry_after_seconds));
  });

  test('the asset budget: 25 calls of 200 assets pass (5,000), the 26th is refused', async () => {
    const k = await seedOrg(t.store, { tier: 'professional' });
    for (let i = 0; i < 25; i++)
      assert.equal(
        (await post(k, { assets: assets(200) }, '/api/v1/assets/correlate-cves/check')).statusCode,
        200,
        `call ${i}`,
      );
    const r = await post(k, { assets: assets(1) });
    assert.equal(r.statusCode, 429);
    assert.equal(r.json().error.detail.counts, 'assets or hosts');
    assert.equal(r.json().error.detail.limit, 5000);
  });
});
