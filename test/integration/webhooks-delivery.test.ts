// Webhook delivery (spec §3.1, §6; docs/reliability.md W1–W14, S5): the service against scripted loopback
// receivers. Failure modes (200, 204, 302 not followed, 410, 500, a late answer past the injected deadline, a reset
// socket, headers then a stall, an endless body), no retries, each CVE once per webhook under concurrency, a process
// killed between claim and send never resending, exactly one disable from ten parallel failures, a resolver whose
// answer turns private between create and delivery, Discord embeds, two organizations, and a model-based test of
// deliver-ok / deliver-fail / enable / rotate against the state machine.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import {
  startReceiver,
  verifySpecSignature,
  verifyStandardSignature,
  type Receiver,
} from '../helpers/webhook-receiver.ts';
import { createWebhookService, type WebhookService } from '../../src/services/webhooks.ts';
import { createWebhookEgress } from '../../src/lib/egress.ts';
import type { Resolver } from '../../src/lib/egress-policy.ts';
import { loadConfig } from '../../src/config.ts';
import { WEBHOOK_TIMEOUT_MS, afterDelivery, type AlertPayload } from '../../src/domain/webhooks.ts';
import { getWebhook } from '../../src/store/webhooks.ts';
import { Refusal, type FieldProblem } from '../../src/services/refusal.ts';

const DEADLINE_MS = 300;
let t: TestApp;
let rx: Receiver;
let elsewhere: Receiver;
let dataDir: string;
const egresses: { close(): Promise<void> }[] = [];

before(async () => {
  elsewhere = await startReceiver();
  rx = await startReceiver({ redirectTo: `${elsewhere.base}/ok` });
  t = await testApp();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'vi-hooks-'));
});
after(async () => {
  for (const e of egresses) await e.close();
  await t.close();
  await rx.close();
  await elsewhere.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A webhook service on the test database: loopback receivers allowed, the deadline shortened to 300 ms. */
function service(
  o: {
    resolver?: Resolver;
    allow?: string[];
    afterClaim?: () => void;
    onDisabled?: (e: { webhookId: number }) => void;
  } = {},
): WebhookService {
  const allow = o.allow ?? [rx.hostPort, elsewhere.hostPort];
  const config = loadConfig({
    VULNINTEL_DATA_DIR: dataDir,
    VULNINTEL_WEBHOOK_EGRESS_ALLOW: allow.join(','),
    LOG_LEVEL: 'silent',
  });
  const egress = createWebhookEgress({ testAllowList: allow, resolver: o.resolver, timeoutMs: DEADLINE_MS });
  egresses.push(egress);
  return createWebhookService({
    db: t.store.db,
    clock: t.clock,
    config,
    egress,
    resolver: o.resolver,
    timeoutMs: DEADLINE_MS,
    afterClaim: o.afterClaim,
    onDisabled: o.onDisabled,
  });
}

let cveSeq = 1000;
function alert(over: Partial<AlertPayload['data']> = {}): AlertPayload {
  const id = `CVE-2026-${cveSeq++}`;
  return {
    event: 'cve.alert',
    version: '1.0',
    timestamp: '2026-11-21T12:00:00Z',
    data: {
      cve_id: id,
      title: 'Ünïcödé title — “quotes” 🛡',
      cvss_score: 9.8,
      cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      patch_status: 'unknown',
      kev_flagged: true,
      epss_score: 0.91,
      sage_priority: 'PATCH NOW',
      published_at: '2026-11-20T10:00:00Z',
      url: `https://vulnintel.test/cve/${id}`,
      executive_summary: 'AI text\nwith a newline and \u2028 separator',
      mitigation: null,
      causal_boundary: null,
      virtual_patch: null,
      watchlist_match: { entity_type: 'vendor', entity_name: 'Siemens' },
      reason: 'added to KEV',
      ...over,
    },
  };
}

const count = (r: Receiver, prefix: string) => r.received.filter((x) => x.path.startsWith(prefix)).length;

describe('outcomes of one delivery (W4, W5, W14)', () => {
  let org: Awaited<ReturnType<typeof seedOrg>>;
  let svc: WebhookService;
  before(async () => {
    org = await seedOrg(t.store, { name: 'Outcomes Org', tier: 'professional' });
    svc = service();
  });

  const cases: [string, string, 'delivered' | 'failed', number | null, RegExp | null][] = [
    ['200', '/ok/m', 'delivered', 200, null],
    ['204', '/no-content/m', 'delivered', 204, null],
    ['302 (never followed)', '/redirect/m', 'failed', 302, /^HTTP 302: redirects are not followed$/],
    ['410', '/gone/m', 'failed', 410, /^HTTP 410$/],
    ['500', '/error/m', 'failed', 500, /^HTTP 500$/],
    ['a 200 after the deadline', '/slow/1500/m', 'failed', null, /^timeout: /],
    ['a reset socket', '/reset/m', 'failed', null, /^network_error: /],
    ['headers then a stall', '/stall/m', 'failed', 200, /^timeout: /],
    ['an endless body', '/endless/m', 'failed', 200, /^response_too_large: /],
  ];
  for (const [name, p, outcome, status, error] of cases) {
    test(`${name} → ${outcome}; one request, never retried, a second alert run sends nothing`, async () => {
      const created = await svc.create(
        { orgId: org.orgId, tier: 'professional' },
        { label: name, url: `${rx.base}${p}/${cveSeq}` },
      );
      // Only this webhook active: disable the earlier ones.
      await t.store.db
        .updateTable('webhooks')
        .set({ enabled: false, disabled_reason: 'consecutive_failures' })
        .where('org_id', '=', org.orgId)
        .where('id', '!=', created.webhook.id)
        .execute();
      const a = alert();
      const before = rx.received.length;
      const started = Date.now();
      const [r] = await svc.deliverAlert(org.orgId, a);
      const took = Date.now() - started;
      assert.equal(r.outcome, outcome, JSON.stringify(r));
      assert.equal(r.http_status, status);
      if (error) assert.match(r.error ?? '', error);
      else assert.equal(r.error, null);
      assert.ok(took < DEADLINE_MS + 700, `settled within the deadline: ${took} ms`);
      assert.equal(rx.received.length, before + 1, 'exactly one request');
      const got = rx.received.at(-1)!;
      assert.ok(verifySpecSignature(created.secret, got), 'signature over the raw bytes received');
      assert.deepEqual(JSON.parse(got.raw.toString('utf8')), a, 'the bytes signed are the payload sent');
      // A second run over the same alert: skipped, nothing sent.
      const again = await svc.deliverAlert(org.orgId, a);
      assert.deepEqual(
        again.map((x) => x.outcome),
        ['skipped'],
      );
      assert.equal(rx.received.length, before + 1);
      const w = await getWebhook(t.store.db, org.orgId, created.webhook.id);
      assert.equal(w!.consecutive_failures, outcome === 'delivered' ? 0 : 1);
      const d = await svc.deliveries({ orgId: org.orgId, tier: 'professional' }, created.webhook.id, 1, 10);
      assert.equal(d.deliveries.length, 1);
      assert.equal(d.deliveries[0].status, outcome);
      assert.equal(d.deliveries[0].cve_id, a.data.cve_id);
      assert.equal(d.deliveries[0].http_status, status);
    });
  }

  test('the 302 target receives nothing (S4)', () => {
    assert.equal(elsewhere.received.length, 0);
  });

  test('the default deadline is 10 s; the 300 ms here is injected', () => {
    assert.equal(WEBHOOK_TIMEOUT_MS, 10_000);
  });
});

describe('concurrency (W7, W8)', () => {
  test('ten failing deliveries in parallel: exactly one disable', async () => {
    const org = await seedOrg(t.store, { name: 'Ten failures', tier: 'standard' });
    const disables: number[] = [];
    const svc = service({ onDisabled: (e) => disables.push(e.webhookId) });
    const c = await svc.create({ orgId: org.orgId, tier: 'standard' }, { label: 'fails', url: `${rx.base}/error/ten` });
    const results = (await Promise.all(Array.from({ length: 10 }, () => svc.deliverAlert(org.orgId, alert())))).flat();
    const failed = results.filter((r) => r.outcome === 'failed');
    assert.ok(failed.length >= 5, `at least five were claimed before the disable: ${failed.length}`);
    assert.equal(results.filter((r) => r.disabled).length, 1, 'exactly one outcome disabled the webhook');
    assert.deepEqual(disables, [c.webhook.id]);
    const w = await getWebhook(t.store.db, org.orgId, c.webhook.id);
    assert.equal(w!.enabled, false);
    assert.equal(w!.disabled_reason, 'consecutive_failures');
    assert.equal(w!.consecutive_failures, failed.length);
    // Disabled: nothing more is attempted.
    const before = rx.received.length;
    assert.deepEqual(await svc.deliverAlert(org.orgId, alert()), []);
    assert.equal(rx.received.length, before);
  });

  test('two concurrent deliveries of the same CVE: one arrival per webhook', async () => {
    const org = await seedOrg(t.store, { name: 'Concurrent runs', tier: 'standard' });
    const svc1 = service();
    const svc2 = service();
    const secrets: string[] = [];
    for (const n of [1, 2]) {
      const c = await svc1.create(
        { orgId: org.orgId, tier: 'standard' },
        { label: `twice ${n}`, url: `${rx.base}/ok/twice-${n}` },
      );
      secrets.push(c.secret);
    }
    const a = alert();
    const results = (
      await Promise.all([
        svc1.deliverAlert(org.orgId, a),
        svc2.deliverAlert(org.orgId, a),
        svc1.deliverAlert(org.orgId, a),
      ])
    ).flat();
    assert.equal(results.filter((r) => r.outcome === 'delivered').length, 2);
    assert.equal(results.filter((r) => r.outcome === 'skipped').length, 4);
    for (const n of [1, 2]) {
      const got = rx.received.filter((x) => x.path === `/ok/twice-${n}`);
      assert.equal(got.length, 1, `webhook ${n} got the CVE once`);
      assert.ok(verifySpecSignature(secrets[n - 1], got[0]));
      assert.equal(JSON.parse(got[0].raw.toString()).data.cve_id, a.data.cve_id);
    }
  });

  test('a process killed between claim and send: nothing is sent, then or on the next run', async () => {
    const org = await seedOrg(t.store, { name: 'Killed run', tier: 'standard' });
    const svc = service();
    const c = await svc.create({ orgId: org.orgId, tier: 'standard' }, { label: 'kill', url: `${rx.base}/ok/kill` });
    const a = alert();
    const out = await new Promise<{ code: number | null; signal: string | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/webhook-child.ts'], {
        env: {
          ...process.env,
          DATABASE_URL: t.db.url,
          VULNINTEL_DATA_DIR: dataDir,
          WEBHOOK_ALLOW: rx.hostPort,
          ORG_ID: String(org.orgId),
          ALERT: JSON.stringify(a),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
      });
      child.on('exit', (code, signal) => resolve({ code, signal, stdout }));
    });
    assert.equal(out.signal, 'SIGKILL', out.stdout);
    assert.equal(out.stdout, 'claimed\n');
    assert.equal(count(rx, '/ok/kill'), 0);
    const d = await svc.deliveries({ orgId: org.orgId, tier: 'standard' }, c.webhook.id, 1, 10);
    assert.deepEqual(
      d.deliveries.map((x) => [x.status, x.cve_id, x.sent_at]),
      [['claimed', a.data.cve_id, null]],
    );
    const again = await svc.deliverAlert(org.orgId, a);
    assert.deepEqual(
      again.map((x) => x.outcome),
      ['skipped'],
    );
    assert.equal(count(rx, '/ok/kill'), 0, 'never resent');
  });
});

describe('egress at every delivery (S5), Discord (W12), tenants (W9)', () => {
  test('a resolver that answers public at create and private at delivery: the delivery is refused, counted as a failure, no packet', async () => {
    const org = await seedOrg(t.store, { name: 'Rebinding', tier: 'standard' });
    let answer = '93.184.216.34';
    const resolver: Resolver = async (host) => {
      if (host !== 'rebind.example') throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return [{ address: answer, family: 4 }];
    };
    const svc = service({ resolver, allow: [] });
    // Public at create: created.
    const c = await svc.create(
      { orgId: org.orgId, tier: 'standard' },
      { label: 'rebind', url: 'https://rebind.example/hook' },
    );
    answer = '10.0.0.5';
    const [r] = await svc.deliverAlert(org.orgId, alert());
    assert.equal(r.outcome, 'failed');
    assert.match(r.error ?? '', /^blocked_address: rebind\.example resolves to 10\.0\.0\.5/);
    assert.equal(r.http_status, null);
    assert.equal((await getWebhook(t.store.db, org.orgId, c.webhook.id))!.consecutive_failures, 1);
    // At create, the same answer is refused without naming the address.
    await assert.rejects(
      svc.create({ orgId: org.orgId, tier: 'standard' }, { label: 'rebind 2', url: 'https://rebind.example/other' }),
      (e) => {
        assert.ok(e instanceof Refusal && e.code === 'invalid_input', String(e));
        assert.deepEqual(
          (e.detail.fields as FieldProblem[]).map((f) => [f.field, f.type]),
          [['body.url', 'url_not_allowed']],
        );
        assert.ok(!e.message.includes('10.0.0.5'), e.message);
        return true;
      },
    );
  });

  test('Discord URLs: an embed, no signature headers', async () => {
    const org = await seedOrg(t.store, { name: 'Discord', tier: 'standard' });
    // discord.com pinned to the loopback receiver through the test list and the injected resolver.
    const resolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const svc = service({ resolver, allow: [`discord.com:${rx.port}`] });
    const c = await svc.create(
      { orgId: org.orgId, tier: 'standard' },
      { label: 'discord', url: `http://discord.com:${rx.port}/api/webhooks/123/tok` },
    );
    assert.equal(c.webhook.kind, 'discord');
    const a = alert();
    const [r] = await svc.deliverAlert(org.orgId, a);
    assert.equal(r.outcome, 'delivered', JSON.stringify(r));
    const got = rx.received.at(-1)!;
    assert.equal(got.path, '/api/webhooks/123/tok');
    for (const h of [
      'x-vulnintel-signature',
      'x-vulnintel-timestamp',
      'x-vulnintel-version',
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]) {
      assert.equal(got.headers[h], undefined, h);
    }
    assert.equal(got.headers['user-agent'], 'Vulnintel-Alert/1.0');
    const body = JSON.parse(got.raw.toString());
    assert.equal(body.embeds[0].title, `${a.data.cve_id}: ${a.data.title}`);
    assert.equal(body.embeds[0].url, a.data.url);
  });

  test('every active webhook of the organization gets the alert; disabled ones and other organizations never do', async () => {
    const svc = service();
    const orgs = await Promise.all(['W9 A', 'W9 B'].map((name) => seedOrg(t.store, { name, tier: 'enterprise' })));
    const ids: Record<string, number> = {};
    for (const [i, o] of orgs.entries()) {
      for (const k of ['on', 'off']) {
        const c = await svc.create(
          { orgId: o.orgId, tier: 'enterprise' },
          { label: k, url: `${rx.base}/ok/w9-${i}-${k}` },
        );
        ids[`${i}-${k}`] = c.webhook.id;
      }
      await t.store.db
        .updateTable('webhooks')
        .set({ enabled: false, disabled_reason: 'consecutive_failures' })
        .where('id', '=', ids[`${i}-off`])
        .execute();
    }
    const a = alert();
    const r = await svc.deliverAlert(orgs[0].orgId, a);
    assert.deepEqual(
      r.map((x) => [x.webhook_id, x.outcome]),
      [[ids['0-on'], 'delivered']],
    );
    assert.deepEqual(
      ['0-on', '0-off', '1-on', '1-off'].map((k) => count(rx, `/ok/w9-${k}`)),
      [1, 0, 0, 0],
    );
  });

  test('a plan without webhook_delivery: nothing is claimed or sent', async () => {
    const org = await seedOrg(t.store, { name: 'Downgraded', tier: 'standard' });
    const svc = service();
    await svc.create({ orgId: org.orgId, tier: 'standard' }, { label: 'x', url: `${rx.base}/ok/downgraded` });
    await t.store.db.updateTable('organizations').set({ tier: 'free' }).where('id', '=', org.orgId).execute();
    const r = await svc.deliverAlert(org.orgId, alert());
    // No webhook to deliver to (the alert is then no_webhooks, docs/alerts.md), as for a deactivated organization.
    assert.deepEqual(r, []);
    assert.equal(count(rx, '/ok/downgraded'), 0);
    await t.store.db
      .updateTable('organizations')
      .set({ tier: 'standard', status: 'deactivated' })
      .where('id', '=', org.orgId)
      .execute();
    assert.deepEqual(await svc.deliverAlert(org.orgId, alert()), []);
    assert.equal(count(rx, '/ok/downgraded'), 0);
  });
});

describe('model-based: deliver-ok, deliver-fail, enable, rotate against the state machine (W6, W11)', () => {
  interface Model {
    enabled: boolean;
    failures: number;
    secret: string;
    previous: string[];
  }
  interface Real {
    svc: WebhookService;
    orgId: number;
    id: number;
  }
  const actor = (r: Real) => ({ orgId: r.orgId, tier: 'professional' as const });

  class Deliver implements fc.AsyncCommand<Model, Real> {
    constructor(readonly ok: boolean) {}
    check() {
      return true;
    }
    async run(m: Model, r: Real) {
      const path = this.ok ? `/ok/model-${r.id}` : `/error/model-${r.id}`;
      assert.equal((await r.svc.update(actor(r), r.id, { url: `${rx.base}${path}` })).url, `${rx.base}${path}`);
      const before = rx.received.length;
      const res = await r.svc.deliverAlert(r.orgId, alert());
      if (!m.enabled) {
        assert.deepEqual(res, [], 'a disabled webhook is not attempted');
        assert.equal(rx.received.length, before);
      } else {
        assert.equal(res.length, 1);
        assert.equal(res[0].outcome, this.ok ? 'delivered' : 'failed');
        const got = rx.received.at(-1)!;
        assert.equal(rx.received.length, before + 1);
        assert.ok(
          verifySpecSignature(m.secret, got) && verifyStandardSignature(m.secret, got),
          'signed with the current secret',
        );
        for (const old of m.previous)
          assert.equal(verifySpecSignature(old, got), false, 'never with a rotated-out secret');
        const next = afterDelivery({ enabled: m.enabled, consecutiveFailures: m.failures }, this.ok);
        assert.equal(res[0].disabled, m.enabled && !next.enabled);
        m.enabled = next.enabled;
        m.failures = next.consecutiveFailures;
      }
      await same(m, r);
    }
    toString() {
      return this.ok ? 'deliver-ok' : 'deliver-fail';
    }
  }
  class Enable implements fc.AsyncCommand<Model, Real> {
    check() {
      return true;
    }
    async run(m: Model, r: Real) {
      assert.equal((await r.svc.enable(actor(r), r.id)).status, 'active');
      m.enabled = true;
      m.failures = 0;
      await same(m, r);
    }
    toString() {
      return 'enable';
    }
  }
  class Rotate implements fc.AsyncCommand<Model, Real> {
    check() {
      return true;
    }
    async run(m: Model, r: Real) {
      const res = await r.svc.rotateSecret(actor(r), r.id);
      assert.notEqual(res.secret, m.secret);
      m.previous.push(m.secret);
      m.secret = res.secret;
      await same(m, r);
    }
    toString() {
      return 'rotate';
    }
  }
  async function same(m: Model, r: Real) {
    const g = await r.svc.get(actor(r), r.id);
    assert.equal(g.status, m.enabled ? 'active' : 'disabled');
    assert.equal(g.consecutive_failures, m.failures);
    assert.equal(g.disabled_reason, m.enabled ? null : 'consecutive_failures');
  }

  test('fast-check commands', async () => {
    const org = await seedOrg(t.store, { name: 'Model', tier: 'professional' });
    const svc = service();
    const commands = [
      fc.constant(new Deliver(true)),
      fc.constant(new Deliver(false)),
      fc.constant(new Deliver(false)),
      fc.constant(new Enable()),
      fc.constant(new Rotate()),
    ];
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 14 }), async (cmds) => {
        const c = await svc.create(
          { orgId: org.orgId, tier: 'professional' },
          { label: `model ${randomBytes(3).toString('hex')}`, url: `${rx.base}/ok/model` },
        );
        const model: Model = { enabled: true, failures: 0, secret: c.secret, previous: [] };
        await fc.asyncModelRun(() => ({ model, real: { svc, orgId: org.orgId, id: c.webhook.id } }), cmds);
        await svc.remove({ orgId: org.orgId, tier: 'professional' }, c.webhook.id);
      }),
      { numRuns: 25 },
    );
  });
});
