// The alert run (spec §6; docs/alerts.md) over real feeds imported in steps: changes since the last
// completed run matched against every active organization's watchlist, stored pending delivery, listed per
// organization; a second run finds nothing new; a run that dies midway resumes without storing anything twice;
// two runs at once: one runs, the other is told it is busy.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { fixture } from '../helpers/feeds.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import { createAlertService } from '../../src/services/alerts.ts';
import type { AlertRunReport } from '../../src/services/alert-run.ts';
import { withAlertLock } from '../../src/store/alert-runs.ts';

let t: TestApp;
const quiet = { info() {}, warn() {} };
let a: Awaited<ReturnType<typeof seedOrg>>;
let b: Awaited<ReturnType<typeof seedOrg>>;
let idle: Awaited<ReturnType<typeof seedOrg>>;

async function call(method: 'GET' | 'POST', url: string, headers: Record<string, string>, body?: unknown) {
  const r = await t.app.inject({
    method,
    url,
    headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
    payload: body ? JSON.stringify(body) : undefined,
  });
  return { status: r.statusCode, body: r.json() };
}
const svc = (afterChunk?: (n: number) => void) =>
  createAlertService(t.store.db, {
    publicUrl: t.config.publicUrl,
    now: () => new Date('2026-11-21T12:15:00Z'),
    afterChunk,
    chunkSize: 3,
  });

before(async () => {
  t = await testApp();
  // The bulk baseline (no changes), then the advisories (changes), before any organization watches anything.
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES])], { log: quiet });
  a = await seedOrg(t.store, { name: 'Alert A' });
  b = await seedOrg(t.store, { name: 'Alert B' });
  idle = await seedOrg(t.store, { name: 'Alert Idle' });
  // A watches Microsoft and one CVE; B watches a protocol nobody's KEV CVE names; idle watches the vendor too but is deactivated.
  assert.equal(
    (await call('POST', '/api/v1/watchlist', a.auth, { entity_type: 'vendor', entity_id: 'microsoft' })).status,
    201,
  );
  assert.equal(
    (await call('POST', '/api/v1/watchlist', a.auth, { entity_type: 'cve', entity_id: 'CVE-2024-49138' })).status,
    201,
  );
  assert.equal(
    (await call('POST', '/api/v1/watchlist', b.auth, { entity_type: 'vendor', entity_id: 'schneider-electric' }))
      .status,
    201,
  );
  assert.equal(
    (await call('POST', '/api/v1/watchlist', idle.auth, { entity_type: 'vendor', entity_id: 'microsoft' })).status,
    201,
  );
  await sql`UPDATE organizations SET status = 'deactivated' WHERE id = ${idle.orgId}`.execute(t.store.db);
});
after(async () => {
  await t.close();
});

test('KEV additions alert the organizations watching them, with the reasons and the spec §6 payload', async () => {
  await importPaths(t.store.db, [feedDir([fixture('kev', 'kev-cut.json')])], { log: quiet });
  const r = (await svc().run('cli')) as AlertRunReport;
  assert.equal(r.resumed, false);
  assert.equal(r.from_seq, 0);
  assert.ok(r.to_seq > 0);
  const list = await call('GET', '/api/v1/alerts', a.auth);
  assert.equal(list.status, 200);
  const byCve = new Map(list.body.data.map((x: { cve_id: string }) => [x.cve_id, x]));
  const k = byCve.get('CVE-2024-21338') as Record<string, any>;
  assert.ok(k, 'the Microsoft KEV addition alerted A');
  assert.deepEqual(k.reasons, ['added to KEV', 'exploit maturity FUNCTIONAL → WEAPONIZED']);
  assert.deepEqual(k.change_kinds, ['kev_added', 'exploit_maturity_up']);
  assert.deepEqual(k.watchlist_match, { entity_type: 'vendor', entity_name: 'Microsoft' });
  assert.equal(k.delivery_status, 'pending');
  assert.ok(['PATCH NOW', 'PATCH NEXT'].includes(k.sage_priority), 'KEV is at least PATCH NEXT');
  const d = k.payload.data;
  assert.equal(k.payload.event, 'cve.alert');
  assert.equal(k.payload.version, '1.0');
  assert.equal(k.payload.timestamp, '2026-11-21T12:15:00.000Z');
  assert.equal(d.cve_id, 'CVE-2024-21338');
  assert.equal(d.kev_flagged, true);
  assert.equal(d.sage_priority, k.sage_priority);
  assert.equal(d.url, `${t.config.publicUrl}/cve/CVE-2024-21338`);
  assert.equal(typeof d.cvss_score, 'number');
  assert.match(d.cvss_vector, /^CVSS:3\.1\//);
  assert.deepEqual(d.watchlist_match, k.watchlist_match);
  // The watched CVE is named as itself, the most specific match.
  const w = byCve.get('CVE-2024-49138') as Record<string, any>;
  assert.deepEqual(w.watchlist_match, { entity_type: 'cve', entity_name: 'CVE-2024-49138' });
  // B watches neither; the deactivated organization gets nothing.
  assert.equal((await call('GET', '/api/v1/alerts', b.auth)).body.pagination.total, 0);
  const idleRows = await sql<{ n: number }>`SELECT count(*)::int AS n FROM alerts WHERE org_id = ${idle.orgId}`.execute(
    t.store.db,
  );
  assert.equal(idleRows.rows[0].n, 0);

  // Nothing changed since: the next run stores nothing and starts where this one ended.
  const again = (await svc().run('cli')) as AlertRunReport;
  assert.deepEqual([again.from_seq, again.to_seq, again.cves, again.alerts_stored], [r.to_seq, r.to_seq, 0, 0]);
});

test('filters: sage_priority, cve_id, match_type, since; two organizations see only their own', async () => {
  await importPaths(t.store.db, [feedDir(CSAF_FIXTURES)], { log: quiet });
  const r = (await svc().run('cli')) as AlertRunReport;
  assert.ok(r.alerts_stored > 0);
  const bl = await call('GET', '/api/v1/alerts', b.auth);
  assert.ok(bl.body.pagination.total > 0, 'the Schneider Electric advisories alerted B');
  assert.ok(
    bl.body.data.every(
      (x: { watchlist_match: { entity_name: string } }) => x.watchlist_match.entity_name === 'Schneider Electric',
    ),
  );
  const al = await call('GET', '/api/v1/alerts?per_page=100', a.auth);
  const aIds = new Set(al.body.data.map((x: { id: number }) => x.id));
  assert.ok(bl.body.data.every((x: { id: number }) => !aIds.has(x.id)));

  const one = await call('GET', '/api/v1/alerts?cve_id=cve-2024-21338', a.auth);
  assert.deepEqual(
    one.body.data.map((x: { cve_id: string }) => x.cve_id),
    ['CVE-2024-21338'],
  );
  const pr = bl.body.data[0].sage_priority as string;
  const byPr = await call('GET', `/api/v1/alerts?sage_priority=${encodeURIComponent(pr)}`, b.auth);
  assert.ok(
    byPr.body.data.length > 0 && byPr.body.data.every((x: { sage_priority: string }) => x.sage_priority === pr),
  );
  assert.equal((await call('GET', '/api/v1/alerts?match_type=cve', a.auth)).body.data[0].cve_id, 'CVE-2024-49138');
  assert.equal(
    (await call('GET', `/api/v1/alerts?since=${encodeURIComponent('2999-01-01T00:00:00Z')}`, a.auth)).body.pagination
      .total,
    0,
  );
  assert.equal((await call('GET', '/api/v1/alerts?sage_priority=SOON', a.auth)).status, 422);
  assert.equal((await call('GET', '/api/v1/alerts?nope=1', a.auth)).status, 400);
  assert.equal((await call('GET', '/api/v1/alerts', {})).status, 401);
});

test('a run that dies midway is resumed over the same window without storing anything twice', async () => {
  // Changes for many CVEs in one window: EPSS scores.
  await importPaths(t.store.db, [feedDir([fixture('epss', 'epss-cut.ssv.gz')])], { log: quiet });
  // Everyone in A watches every vendor of the corpus, so the window has more than one chunk of matches.
  await sql`INSERT INTO watchlist_entries (org_id, entity_type, entity_key) SELECT ${a.orgId}, 'vendor', slug FROM vendors
    ON CONFLICT DO NOTHING`.execute(t.store.db);
  const window = await sql<{ n: number }>`SELECT count(DISTINCT ch.cve_id)::int AS n FROM cve_changes ch
    WHERE ch.seq > (SELECT max(to_seq) FROM alert_runs WHERE status = 'completed')`.execute(t.store.db);
  assert.ok(window.rows[0].n > 0);
  const count = async () =>
    (await sql<{ n: number }>`SELECT count(*)::int AS n FROM alerts`.execute(t.store.db)).rows[0].n;
  const before = await count();
  await assert.rejects(
    svc(() => {
      throw new Error('killed after the first chunk');
    }).run('cli'),
    /killed/,
  );
  const partial = await count();
  assert.ok(partial > before, 'the first chunk was committed');
  const running = await sql<{ id: number }>`SELECT id FROM alert_runs WHERE status = 'running'`.execute(t.store.db);
  assert.equal(running.rows.length, 1);
  const resumed = (await svc().run('cli')) as AlertRunReport;
  assert.equal(resumed.resumed, true);
  assert.equal(resumed.run_id, Number(running.rows[0].id));
  assert.equal(
    resumed.alerts_stored,
    resumed.alerts_total - (partial - before),
    'only the alerts the dead run had not stored',
  );
  assert.ok(resumed.alerts_stored > 0, 'the window had more than the one chunk the dead run committed');
  const dup = await sql<{
    n: number;
  }>`SELECT count(*)::int AS n FROM (SELECT org_id, cve_id, run_id FROM alerts GROUP BY 1, 2, 3 HAVING count(*) > 1) x`.execute(
    t.store.db,
  );
  assert.equal(dup.rows[0].n, 0);
});

test('a run while another holds the alert-run lock is busy and touches nothing (single flight with the shell command)', async () => {
  const runs = async () =>
    (await sql<{ n: number }>`SELECT count(*)::int AS n FROM alert_runs`.execute(t.store.db)).rows[0].n;
  const n = await runs();
  const held = await withAlertLock(t.store.db, async () => svc().run('schedule'));
  assert.deepEqual(held, { ran: true, value: 'busy' });
  assert.equal(await runs(), n);
});

test("one timestamp form on every surface: the CVE API, the list card, the webhook payload, changes and alerts write the same CVE's published_at alike", async () => {
  const FORM = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
  const alert = (await call('GET', '/api/v1/alerts', a.auth)).body.data.find(
    (x: { cve_id: string }) => x.cve_id === 'CVE-2024-21338',
  );
  const payload = alert.payload.data.published_at as string;
  assert.match(payload, FORM);
  const detail = (await call('GET', '/api/v1/cves/CVE-2024-21338', a.auth)).body.data;
  assert.equal(detail.temporal.published_at, payload, 'CVE API and webhook payload');
  assert.match(detail.temporal.kev_added_at, FORM);
  const kev = (await call('GET', '/api/v1/cves/kev?per_page=100', a.auth)).body.data.find(
    (c: { cve_id: string }) => c.cve_id === 'CVE-2024-21338',
  );
  assert.equal(kev.published_at, payload, 'KEV list card');
  assert.match(alert.created_at, FORM);
  assert.match(alert.payload.timestamp, FORM);
  for (const url of ['/api/v1/changes?limit=50', '/api/v1/cves/CVE-2024-21338/history']) {
    const changes = await call('GET', url, a.auth);
    assert.equal(changes.status, 200, JSON.stringify(changes.body));
    assert.ok(changes.body.data.length > 0, url);
    for (const c of changes.body.data) assert.match(c.changed_at, FORM, url);
  }
  const feed = await t.app.inject({ method: 'GET', url: '/api/v1/changes?limit=1', headers: a.auth });
  assert.match(feed.json().api.timestamp, FORM, 'the envelope');
});
