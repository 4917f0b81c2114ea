// Exposure history (docs/reports.md) over HTTP and the snapshot job's service, with an injected clock: the daily
// snapshot's figures are the overview's and the triage service's (a not_affected decision on a KEV CVE takes it out
// of the open counts the next day), a second run on the same day replaces the day, 400 days are kept, bad dates get
// the spec's envelope, and the web overview says how many days there are until there are 30, then draws the line.
// Real fixtures: the NVD records and the CISA KEV cut of test/fixtures (PROVENANCE.md) for a Windows 10 workstation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import { testApp, seedOrg, seedSession, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { fixture } from '../helpers/feeds.ts';
import { CATALOGS, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import { sagePriority } from '../../src/domain/alerts.ts';
import { utcDay } from '../../src/domain/exposure.ts';
import { exposureSnapshotJob } from '../../src/jobs/reports.ts';
import pino from 'pino';

const quiet = { info() {}, warn() {} };
let t: TestApp;
let a: Awaited<ReturnType<typeof seedOrg>>;
let b: Awaited<ReturnType<typeof seedOrg>>;
let envA: number;
let envB: number;
const WS = { asset_id: 'eng-ws-01', vendor: 'Microsoft', product: 'Windows 10 22H2', version: '10.0.19045.1000' };
const PLC = { asset_id: 'plc-07', vendor: 'Acme Automation', product: 'Nothing Known', version: '1.0' };

async function call(method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string>, body?: unknown) {
  const r = await t.app.inject({
    method,
    url,
    headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
    payload: body ? JSON.stringify(body) : undefined,
  });
  return { status: r.statusCode, body: r.json() };
}
/** A whole figures object, as the job stores it. */
const figures = (open: number) =>
  JSON.stringify({
    open_cves: open,
    by_priority: { 'PATCH NOW': 0, 'PATCH NEXT': 0, MONITOR: open, IGNORE: 0 },
    by_severity: { critical: 0, high: 0, medium: open, low: 0, none: 0 },
    known_exploited: 0,
    assets_exposed: open ? 1 : 0,
    windows_eol_hosts: 0,
    decisions: { under_investigation: 0, affected: 0, not_affected: 0, fixed: 0, review_again: 0 },
    kev_mean_age_days: null,
  });
const history = async (q = '', who = a, env = envA) =>
  call('GET', `/api/v1/environments/${env}/exposure-history${q}`, who.auth);

/** The open CVEs as the API's stored results give them: affected, and no decision taking them out. */
async function openFromApi() {
  const api = (await call('GET', `/api/v1/assets/results?environment_id=${envA}`, a.auth)).body.data;
  const open = new Map<string, any>();
  for (const x of api.assets)
    for (const c of x.cves)
      if (c.status === 'affected' && (c.decision === null || c.decision.open)) open.set(c.cve_id, c);
  return open;
}

before(async () => {
  t = await testApp({ now: '2026-11-21T12:00:00Z' });
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES, fixture('kev', 'kev-cut.json')])], {
    log: quiet,
  });
  a = await seedOrg(t.store, { name: 'History Plant' });
  b = await seedOrg(t.store, { name: 'Other Plant' });
  envA = (await call('POST', '/api/v1/environments', a.auth, { name: 'Line 1' })).body.data.id;
  envB = (await call('POST', '/api/v1/environments', b.auth, { name: 'Line 9' })).body.data.id;
  assert.equal(
    (await call('POST', '/api/v1/assets/correlate-cves', a.auth, { environment_id: envA, assets: [WS, PLC] })).status,
    200,
  );
});
after(async () => {
  await t.close();
});

test("the day's snapshot holds the overview's figures; a not_affected decision on a KEV CVE leaves the open counts the next day", async () => {
  const open = await openFromApi();
  const kev = [...open.values()]
    .filter((c) => c.known_exploited)
    .map((c) => c.cve_id)
    .sort();
  assert.deepEqual(kev, ['CVE-2024-21338', 'CVE-2024-49138'], 'the KEV cut adds two CVEs the workstation matches');
  const r1 = await t.app.services.exposure.snapshotAll();
  assert.deepEqual(r1, { day: '2026-11-21', environments: 2, failed: 0, pruned: 0 });

  const h1 = await history();
  assert.equal(h1.status, 200);
  assert.equal(h1.body.data.snapshots.length, 1);
  const s = h1.body.data.snapshots[0];
  assert.equal(s.day, '2026-11-21');
  assert.equal(s.taken_at, '2026-11-21T12:00:00.000Z');
  assert.equal(s.open_cves, open.size);
  const byPriority: Record<string, number> = { 'PATCH NOW': 0, 'PATCH NEXT': 0, MONITOR: 0, IGNORE: 0 };
  for (const c of open.values()) {
    byPriority[
      sagePriority({
        kev: c.known_exploited,
        exploit_maturity: c.exploit_maturity,
        bcs: c.bcs_score,
        cvss: c.cvss.score,
        epss_percentile: c.epss.percentile,
        patch_available: c.fixed_version !== null,
        asset_match: true,
      })
    ]++;
  }
  assert.deepEqual(s.by_priority, byPriority);
  const bySeverity: Record<string, number> = { critical: 0, high: 0, medium: 0, low: 0, none: 0 };
  for (const c of open.values()) bySeverity[(c.severity ?? 'none').toLowerCase()]++;
  assert.deepEqual(s.by_severity, bySeverity);
  assert.equal(s.known_exploited, 2);
  assert.equal(s.assets_exposed, 1, 'the PLC matches nothing');
  assert.equal(s.windows_eol_hosts, 0);
  assert.deepEqual(s.decisions, { under_investigation: 0, affected: 0, not_affected: 0, fixed: 0, review_again: 0 });
  // Mean days since publication of the two open KEV CVEs, at the snapshot's time.
  const pub = await sql<{ p: Date }>`SELECT published_at AS p FROM cves WHERE cve_id = ANY(${kev}::text[])`.execute(
    t.store.db,
  );
  const ages = pub.rows.map((x) => (Date.parse('2026-11-21T12:00:00Z') - new Date(x.p).getTime()) / 86_400_000);
  assert.equal(s.kev_mean_age_days, Math.round(((ages[0] + ages[1]) / 2) * 10) / 10);

  // The next day, after a not_affected decision on one KEV CVE.
  assert.equal(
    (
      await call('PUT', `/api/v1/environments/${envA}/decisions/CVE-2024-49138`, a.auth, {
        status: 'not_affected',
        justification: 'vulnerable_code_cannot_be_controlled_by_adversary',
        impact_statement: 'No local users but the admins',
      })
    ).status,
    201,
  );
  t.clock.set('2026-11-22T00:30:00Z');
  await t.app.services.exposure.snapshotAll();
  const h2 = (await history()).body.data;
  assert.deepEqual(
    h2.snapshots.map((x: any) => x.day),
    ['2026-11-21', '2026-11-22'],
  );
  const d2 = h2.snapshots[1];
  assert.equal(d2.open_cves, open.size - 1);
  assert.equal(d2.known_exploited, 1);
  assert.equal(d2.kev_mean_age_days !== null, true);
  assert.deepEqual(d2.decisions, { under_investigation: 0, affected: 0, not_affected: 1, fixed: 0, review_again: 0 });
  assert.equal(h2.chart_ready, false);

  // A second run on the same day replaces the day's row.
  t.clock.set('2026-11-22T09:00:00Z');
  await t.app.services.exposure.snapshotAll();
  const h3 = (await history()).body.data.snapshots;
  assert.equal(h3.length, 2);
  assert.equal(h3[1].taken_at, '2026-11-22T09:00:00.000Z');

  // from/to narrow the range (both included).
  const one = (await history('?from=2026-11-22&to=2026-11-22')).body.data;
  assert.deepEqual(
    [one.from, one.to, one.snapshots.map((x: any) => x.day)],
    ['2026-11-22', '2026-11-22', ['2026-11-22']],
  );
  // The other organization's environment has its own (empty) snapshot, and A's is not found from B.
  assert.equal((await history('', b, envB)).body.data.snapshots[0].open_cves, 0);
  const foreign = await history('', b, envA);
  assert.equal(foreign.status, 404);
  assert.deepEqual([foreign.body.error.code, foreign.body.error.detail.error], ['NOT_FOUND', 'environment_not_found']);
});

test('400 days are kept: the job prunes the day before the oldest kept one, and keeps that one', async () => {
  // Today is 2026-11-22 (the clock of the test before): the oldest kept day is 399 days back.
  const insert = (day: string) =>
    sql`INSERT INTO exposure_snapshots (org_id, environment_id, day, taken_at, figures)
    VALUES (${a.orgId}, ${envA}, ${day}::date, now(), ${figures(0)}::jsonb)`.execute(t.store.db);
  await insert('2025-10-19'); // 399 days before 2026-11-22: kept
  await insert('2025-10-18'); // 400 days before: pruned
  const r = await t.app.services.exposure.snapshotAll();
  assert.equal(r.pruned, 1);
  const days = (await history('?from=2025-01-01')).body.data.snapshots.map((x: any) => x.day);
  assert.deepEqual(days.slice(0, 1), ['2025-10-19']);
  assert.ok(!days.includes('2025-10-18'));
});

test('bad dates: the spec envelope with the field, nothing read', async () => {
  const bad = await history('?from=2026-02-30');
  assert.equal(bad.status, 422);
  assert.equal(bad.body.error.code, 'VALIDATION_ERROR');
  assert.deepEqual(
    bad.body.error.detail.map((f: any) => [f.field, f.type]),
    [['query.from', 'value_error.date']],
  );
  assert.match(bad.body.error.detail[0].message, /2026-02-30 is not a calendar day/);
  const reversed = await history('?from=2026-11-22&to=2026-11-01');
  assert.equal(reversed.status, 422);
  assert.match(reversed.body.error.detail[0].message, /from \(2026-11-22\) is after to \(2026-11-01\)/);
  const shape = await history('?to=22-11-2026');
  assert.equal(shape.body.error.code, 'VALIDATION_ERROR');
  assert.ok(shape.body.error.request_id ?? shape.body.api?.request_id);
  const unknown = await history('?since=2026-01-01');
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.error.code, 'UNKNOWN_PARAMETER');
});

test('the web overview: the number of days until there are 30 snapshots, then the line of open CVEs', async () => {
  const s = await seedSession(t.store, a.orgId, a.memberId);
  const page = async () =>
    (await t.app.inject({ method: 'GET', url: '/overview', headers: { cookie: s.cookie, accept: 'text/html' } })).body;
  const before30 = await page();
  const fig = before30.slice(
    before30.indexOf(`id="chart-exposure-${envA}"`),
    before30.indexOf('</figure>', before30.indexOf(`id="chart-exposure-${envA}"`)),
  );
  assert.match(fig, /data-history-days="3"/);
  assert.match(fig, /3 days of history so far: the line is drawn once there are 30 daily snapshots/);
  assert.doesNotMatch(fig, /<svg/);

  // 30 days of snapshots (the job's rows for the days before).
  for (let i = 1; i <= 27; i++) {
    const day = new Date(Date.parse('2026-10-19T00:00:00Z') + i * 86_400_000).toISOString().slice(0, 10);
    await sql`INSERT INTO exposure_snapshots (org_id, environment_id, day, taken_at, figures)
      VALUES (${a.orgId}, ${envA}, ${day}::date, now(), ${figures(100 + i)}::jsonb) ON CONFLICT DO NOTHING`.execute(
      t.store.db,
    );
  }
  const h = (await history()).body.data;
  assert.equal(h.snapshots.length, 30);
  assert.equal(h.chart_ready, true);
  const after30 = await page();
  const line = after30.slice(
    after30.indexOf(`id="chart-exposure-${envA}"`),
    after30.indexOf('</figure>', after30.indexOf(`id="chart-exposure-${envA}"`)),
  );
  assert.match(line, /<svg role="img" aria-labelledby="chart-exposure-\d+-t chart-exposure-\d+-d"/);
  assert.match(line, /<path d="M40 \d+( L\d+ \d+){29}"/, 'one point per day');
  assert.match(line, /<td>2026-10-20<\/td><td>101<\/td>/);
  assert.match(line, /<td>2026-11-22<\/td><td>\d+<\/td>/);
});

test('the exposure-snapshot job takes the snapshot of the day it runs (the system clock) through the same service', async () => {
  const day = utcDay(new Date());
  await exposureSnapshotJob.run(
    { config: t.config, store: t.store, log: pino({ level: 'silent' }) },
    {},
    { id: 'job-1', retryCount: 0 },
  );
  const h = (await history(`?from=${day}&to=${day}`)).body.data.snapshots;
  assert.equal(h.length, 1);
  assert.equal(h[0].day, day);
  assert.equal(h[0].open_cves, (await openFromApi()).size);
  assert.equal(h[0].decisions.not_affected, 1);
});
