// Alert delivery after a run (spec §6; docs/alerts.md "Delivery"): the stored alerts go to every active
// webhook of their organization through the run's job wiring (deliverPendingAlerts), signed as the spec says and
// checked by a loopback receiver; each alert records its outcome (delivered, failed, no_webhooks); a repeated
// delivery, or one after a crash between send and record, sends nothing twice.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from '../../src/store/kysely.ts';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { startReceiver, verifySpecSignature, type Receiver } from '../helpers/webhook-receiver.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { fixture } from '../helpers/feeds.ts';
import { CATALOGS, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import { createAlertService } from '../../src/services/alerts.ts';
import type { AlertRunReport } from '../../src/services/alert-run.ts';
import { createWebhookService } from '../../src/services/webhooks.ts';
import { deliverPendingAlerts } from '../../src/jobs/alerts.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { recordChanges } from '../../src/store/changes.ts';

let t: TestApp;
let rx: Receiver;
let dataDir: string;
let config: Config;
const quiet = { info() {}, warn() {} };
type Org = Awaited<ReturnType<typeof seedOrg>>;
let good: Org; // one working webhook
let broken: Org; // one webhook answering 500
let none: Org; // no webhook
let goodSecret: string;

const svc = () =>
  createAlertService(t.store.db, { publicUrl: t.config.publicUrl, now: () => new Date('2026-11-21T12:15:00Z') });
const deliver = () => deliverPendingAlerts(t.store.db, config, svc(), () => {});
async function statuses(orgId: number): Promise<Map<string, string>> {
  const r = await sql<{
    cve_id: string;
    delivery_status: string;
  }>`SELECT cve_id, delivery_status FROM alerts WHERE org_id = ${orgId}`.execute(t.store.db);
  return new Map(r.rows.map((x) => [x.cve_id, x.delivery_status]));
}
async function watch(o: Org) {
  const r = await t.app.inject({
    method: 'POST',
    url: '/api/v1/watchlist',
    headers: { ...o.auth, 'content-type': 'application/json' },
    payload: JSON.stringify({ entity_type: 'vendor', entity_id: 'microsoft' }),
  });
  assert.equal(r.statusCode, 201);
}

before(async () => {
  rx = await startReceiver();
  t = await testApp();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'vi-alert-delivery-'));
  config = loadConfig({
    VULNINTEL_DATA_DIR: dataDir,
    VULNINTEL_WEBHOOK_EGRESS_ALLOW: rx.hostPort,
    LOG_LEVEL: 'silent',
  });
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES])], { log: quiet });
  good = await seedOrg(t.store, { name: 'Delivery Good' });
  broken = await seedOrg(t.store, { name: 'Delivery Broken' });
  none = await seedOrg(t.store, { name: 'Delivery None' });
  for (const o of [good, broken, none]) await watch(o);
  const hooks = createWebhookService({ db: t.store.db, clock: t.clock, config });
  const g = await hooks.create(
    { orgId: good.orgId, tier: 'professional' },
    { label: 'good', url: `${rx.base}/ok/good` },
  );
  await hooks.create(
    { orgId: broken.orgId, tier: 'professional' },
    { label: 'broken', url: `${rx.base}/error/broken` },
  );
  goodSecret = g.secret;
  await hooks.close();
});
after(async () => {
  await t.close();
  await rx.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test("a run's alerts are delivered, signed, and each records its outcome", async () => {
  await importPaths(t.store.db, [feedDir([fixture('kev', 'kev-cut.json')])], { log: quiet });
  const r = (await svc().run('cli')) as AlertRunReport;
  assert.ok(r.alerts_stored >= 3, 'every organization got alerts');
  const goodAlerts = await statuses(good.orgId);
  assert.ok(goodAlerts.size > 0);
  assert.ok(
    [...goodAlerts.values()].every((s) => s === 'pending'),
    'stored pending',
  );

  const d = await deliver();
  const n = goodAlerts.size;
  assert.equal(d.alerts, r.alerts_stored);
  assert.deepEqual(
    [d.delivered, d.failed, d.no_webhooks, d.skipped],
    [n, (await statuses(broken.orgId)).size, (await statuses(none.orgId)).size, 0],
  );
  for (const s of (await statuses(good.orgId)).values()) assert.equal(s, 'delivered');
  for (const s of (await statuses(broken.orgId)).values()) assert.equal(s, 'failed');
  for (const s of (await statuses(none.orgId)).values()) assert.equal(s, 'no_webhooks');

  // The good receiver got each of its organization's alerts once, signed over the exact bytes, with the stored payload.
  const got = rx.received.filter((x) => x.path === '/ok/good');
  assert.equal(got.length, n);
  for (const x of got) assert.ok(verifySpecSignature(goodSecret, x), 'the spec signature verifies');
  const cves = got.map((x) => JSON.parse(x.raw.toString('utf8')).data.cve_id as string).sort();
  assert.deepEqual(cves, [...goodAlerts.keys()].sort());
  const k = JSON.parse(got.find((x) => x.raw.includes('CVE-2024-21338'))!.raw.toString('utf8'));
  assert.equal(k.event, 'cve.alert');
  assert.equal(k.data.kev_flagged, true);
  assert.deepEqual(k.data.watchlist_match, { entity_type: 'vendor', entity_name: 'Microsoft' });
  assert.equal(rx.received.filter((x) => x.path === '/error/broken').length, (await statuses(broken.orgId)).size);
});

test('nothing is sent twice: a repeated delivery, and one after a crash between send and record', async () => {
  const before = rx.received.length;
  const again = await deliver();
  assert.deepEqual(again, { alerts: 0, delivered: 0, failed: 0, no_webhooks: 0, skipped: 0 });
  // A worker that sent and died before recording leaves its alerts pending: the next delivery finds every
  // webhook already claimed for those CVEs and sends nothing.
  await sql`UPDATE alerts SET delivery_status = 'pending' WHERE org_id IN (${good.orgId}, ${broken.orgId})`.execute(
    t.store.db,
  );
  const resumed = await deliver();
  assert.ok(resumed.alerts > 0);
  assert.equal(resumed.skipped, resumed.alerts);
  assert.equal(rx.received.length, before, 'no request sent');
  for (const s of (await statuses(good.orgId)).values()) assert.equal(s, 'skipped');
  // And a new run with no new changes stores nothing and delivers nothing.
  const r = (await svc().run('cli')) as AlertRunReport;
  assert.equal(r.alerts_stored, 0);
  assert.equal((await deliver()).alerts, 0);
  assert.equal(rx.received.length, before);
});

test('a webhook whose secret this process cannot open fails alone: recorded but never counted toward the disable (our fault), the other organizations still delivered', async () => {
  const other = await seedOrg(t.store, { name: 'Delivery Other Key' });
  await watch(other);
  // Created by a process with another sealing key (say a replica without the shared VULNINTEL_SECRET_KEY).
  const foreign = createWebhookService({ db: t.store.db, clock: t.clock, config, secretKey: Buffer.alloc(32, 7) });
  const h = await foreign.create(
    { orgId: other.orgId, tier: 'professional' },
    { label: 'sealed elsewhere', url: `${rx.base}/ok/other` },
  );
  await foreign.close();
  // A second webhook of the good organization, sealed with this process's key: it was sent nothing yet.
  const own = createWebhookService({ db: t.store.db, clock: t.clock, config });
  await own.create({ orgId: good.orgId, tier: 'professional' }, { label: 'good 2', url: `${rx.base}/ok/good2` });
  await own.close();
  // A new change of a Microsoft CVE for the next run (the watches are on the vendor).
  const id = 'CVE-2024-21338';
  await t.store.db
    .transaction()
    .execute((tx) =>
      recordChanges(tx, [{ cve_id: id, kind: 'cvss_changed', before: { score: 7.0 }, after: { score: 7.8 } }], null),
    );
  const r = (await svc().run('cli')) as AlertRunReport;
  assert.ok(r.alerts_stored >= 2);
  const sent = rx.received.length;
  const d = await deliver();
  assert.ok(d.failed >= 1 && d.delivered >= 1, JSON.stringify(d));
  assert.equal((await statuses(other.orgId)).get(id), 'failed');
  assert.equal(rx.received.filter((x) => x.path === '/ok/other').length, 0, 'nothing sent for the unreadable secret');
  assert.deepEqual(
    rx.received.slice(sent).map((x) => x.path),
    ['/ok/good2'],
    'the good organization got its alert',
  );
  const row = await sql<{
    status: string;
    error: string;
    failures: number;
  }>`SELECT d.status, d.error, w.consecutive_failures AS failures
    FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.webhook_id = ${h.webhook.id}`.execute(
    t.store.db,
  );
  assert.equal(row.rows.length, 1);
  assert.match(
    row.rows[0].error,
    /^secret_unreadable: the signing secret does not open with this process's sealing key/,
  );
  assert.equal(row.rows[0].failures, 0, 'our fault: never counted toward the disable');
});

test('two deliveries at once (a shell run next to the scheduled one): each alert is sent once and keeps the outcome of the delivery that sent it', async () => {
  const twice = await seedOrg(t.store, { name: 'Delivery Twice' });
  await watch(twice);
  const own = createWebhookService({ db: t.store.db, clock: t.clock, config });
  // A receiver that takes 300 ms to answer 200: the second delivery reaches each alert while the first is sending it.
  await own.create({ orgId: twice.orgId, tier: 'professional' }, { label: 'slow', url: `${rx.base}/slow/300` });
  await own.close();
  const ids = ['CVE-2024-21338', 'CVE-2024-49138'];
  await t.store.db.transaction().execute((tx) =>
    recordChanges(
      tx,
      ids.map((cve_id) => ({ cve_id, kind: 'cvss_changed' as const, before: { score: 7.0 }, after: { score: 7.8 } })),
      null,
    ),
  );
  const r = (await svc().run('cli')) as AlertRunReport;
  assert.ok(r.alerts_stored >= 2);
  const sent = rx.received.length;
  const [a, b] = await Promise.all([deliver(), deliver()]);
  // Every stored alert is reported by exactly one of the two deliveries.
  assert.equal(a.alerts + b.alerts, r.alerts_stored, JSON.stringify([a, b]));
  const mine = await statuses(twice.orgId);
  assert.deepEqual([...mine.keys()].sort(), ids);
  for (const [cve, s] of mine) assert.equal(s, 'delivered', `${cve} was delivered, and says so`);
  const arrived = rx.received
    .slice(sent)
    .filter((x) => x.path === '/slow/300')
    .map((x) => JSON.parse(x.raw.toString('utf8')).data.cve_id as string);
  assert.deepEqual(arrived.sort(), ids, 'each CVE sent once');
});

test('an organization whose plan no longer has webhooks: its alerts are no_webhooks (docs/alerts.md), nothing sent, nothing claimed', async () => {
  const down = await seedOrg(t.store, { name: 'Delivery Downgraded', tier: 'standard' });
  await watch(down);
  const own = createWebhookService({ db: t.store.db, clock: t.clock, config });
  const h = await own.create(
    { orgId: down.orgId, tier: 'standard' },
    { label: 'kept', url: `${rx.base}/ok/downgraded` },
  );
  await own.close();
  await sql`UPDATE organizations SET tier = 'free' WHERE id = ${down.orgId}`.execute(t.store.db);
  await t.store.db
    .transaction()
    .execute((tx) =>
      recordChanges(
        tx,
        [{ cve_id: 'CVE-2024-49138', kind: 'cvss_changed', before: { score: 7.0 }, after: { score: 7.8 } }],
        null,
      ),
    );
  await svc().run('cli');
  await deliver();
  assert.deepEqual([...(await statuses(down.orgId)).entries()], [['CVE-2024-49138', 'no_webhooks']]);
  assert.equal(rx.received.filter((x) => x.path === '/ok/downgraded').length, 0);
  const claims = await sql<{
    n: number;
  }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = ${h.webhook.id}`.execute(t.store.db);
  assert.equal(claims.rows[0].n, 0, "no claim: back on a paid plan, the webhook still gets this CVE's next alert");
});

test('the AI texts follow the plan (spec §2.8 sage_visible): below Professional, the summary truncated and the remediation guidance withheld, in the webhook body and in GET /api/v1/alerts', async () => {
  const std = await seedOrg(t.store, { name: 'Delivery Standard', tier: 'standard' });
  await watch(std);
  const own = createWebhookService({ db: t.store.db, clock: t.clock, config });
  const h = await own.create({ orgId: std.orgId, tier: 'standard' }, { label: 'std', url: `${rx.base}/ok/standard` });
  await own.close();
  const id = 'CVE-2024-21338';
  await t.store.db
    .transaction()
    .execute((tx) =>
      recordChanges(tx, [{ cve_id: id, kind: 'cvss_changed', before: { score: 7.0 }, after: { score: 7.8 } }], null),
    );
  await svc().run('cli');
  await deliver();
  // What a Professional organization gets of the same CVE: the full texts (GET /api/v1/cves/{id} shows the same).
  const list = async (o: Org) => {
    const r = await t.app.inject({ method: 'GET', url: `/api/v1/alerts?cve_id=${id}`, headers: o.auth });
    assert.equal(r.statusCode, 200);
    return JSON.parse(r.body).data[0].payload.data as { executive_summary: string | null; mitigation: string | null };
  };
  const full = await list(good);
  assert.ok(full.executive_summary && full.executive_summary.length > 200 && !full.executive_summary.endsWith('…'));
  assert.ok(full.mitigation && full.mitigation.length > 0);
  const detail = JSON.parse((await t.app.inject({ method: 'GET', url: `/api/v1/cves/${id}`, headers: std.auth })).body)
    .data.sage;
  assert.equal(detail.remediation_guidance, null);

  const listed = await list(std);
  assert.equal(listed.mitigation, null);
  assert.equal(listed.executive_summary, detail.executive_summary, 'the truncated summary of the CVE API');
  assert.ok(listed.executive_summary!.endsWith('…'));
  const got = rx.received.filter((x) => x.path === '/ok/standard');
  assert.equal(got.length, 1);
  assert.ok(verifySpecSignature(h.secret, got[0]), 'signed over the bytes sent');
  const body = JSON.parse(got[0].raw.toString('utf8')).data;
  assert.equal(body.mitigation, null);
  assert.equal(body.executive_summary, detail.executive_summary);
  assert.equal(body.cve_id, id);
});

test('organizations are delivered side by side: a receiver slow on every alert holds up only its own organization, whose alerts stay in order', async () => {
  const slow = await seedOrg(t.store, { name: 'Delivery Slow Lane' });
  const fast = await seedOrg(t.store, { name: 'Delivery Fast Lane' });
  for (const o of [slow, fast]) await watch(o);
  const ids = ['CVE-2024-21338', 'CVE-2024-49138'];
  await t.store.db.transaction().execute((tx) =>
    recordChanges(
      tx,
      ids.map((cve_id) => ({ cve_id, kind: 'cvss_changed' as const, before: { score: 7.0 }, after: { score: 7.8 } })),
      null,
    ),
  );
  await svc().run('cli');
  const events: string[] = [];
  // The slow organization's receiver takes 400 ms an alert; everyone else's answers at once.
  const rep = await svc().deliverPending(async (orgId, payload) => {
    const who = orgId === slow.orgId ? 'slow' : orgId === fast.orgId ? 'fast' : 'other';
    events.push(`${who} start ${payload.data.cve_id}`);
    if (who === 'slow') await new Promise((r) => setTimeout(r, 400));
    events.push(`${who} end ${payload.data.cve_id}`);
    return [{ outcome: 'delivered' as const }];
  });
  assert.ok(rep.alerts >= 4 && rep.delivered === rep.alerts, JSON.stringify(rep));
  const slowEvents = events.filter((e) => e.startsWith('slow'));
  const fastEnds = events.filter((e) => e.startsWith('fast end'));
  assert.equal(fastEnds.length, 2);
  // Both of the fast organization's alerts went while the slow one's first alert was still being sent.
  const firstSlowEnd = events.indexOf(slowEvents[1]);
  assert.ok(events.indexOf(fastEnds[1]) < firstSlowEnd, events.join('\n'));
  // The slow organization's own alerts one after the other, oldest first.
  assert.deepEqual(
    slowEvents.map((e) => e.split(' ')[1]),
    ['start', 'end', 'start', 'end'],
  );
  const order = (
    await sql<{
      cve_id: string;
    }>`SELECT cve_id FROM alerts WHERE org_id = ${slow.orgId} ORDER BY created_at, id`.execute(t.store.db)
  ).rows.map((r) => r.cve_id);
  assert.deepEqual(
    slowEvents.filter((e) => e.includes('start')).map((e) => e.split(' ')[2]),
    order,
  );
  assert.deepEqual([...(await statuses(slow.orgId)).values()], ['delivered', 'delivered']);
});

test('an error in one lane (the database gone) stops every lane after its alert and is thrown; the alert it was on stays pending', async () => {
  const o = await seedOrg(t.store, { name: 'Delivery Error Lane' });
  await watch(o);
  await t.store.db
    .transaction()
    .execute((tx) =>
      recordChanges(
        tx,
        [{ cve_id: 'CVE-2024-21338', kind: 'cvss_changed', before: { score: 7.0 }, after: { score: 7.8 } }],
        null,
      ),
    );
  await svc().run('cli');
  let calls = 0;
  await assert.rejects(
    svc().deliverPending(async (orgId) => {
      calls++;
      if (orgId === o.orgId) throw new Error('connection terminated');
      return [{ outcome: 'delivered' as const }];
    }),
    /connection terminated/,
  );
  assert.deepEqual([...(await statuses(o.orgId)).entries()], [['CVE-2024-21338', 'pending']]);
  assert.ok(calls >= 1);
  // The next delivery picks it up.
  await svc().deliverPending(async () => [{ outcome: 'delivered' as const }]);
  assert.deepEqual([...(await statuses(o.orgId)).entries()], [['CVE-2024-21338', 'delivered']]);
});
