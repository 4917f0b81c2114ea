// Environment-asset matches of the alert run (spec §6 `entity_type: environment`; docs/alerts.md "Asset
// matches"), over real records: the NVD baseline, assets stored through correlate-cves and Windows hosts through
// the v2 route, then the CISA advisories (new ranges for known CVEs) and a new Windows CVE listed in the real MSRC
// document. Each organization is alerted for its own assets only, a version outside the range is not, and a CVE
// matched by a watch entry and an asset is one alert naming both.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { importMsrcDocuments } from '../../src/services/import/msrc-documents.ts';
import { fixture } from '../helpers/feeds.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import { FIXTURE_DIR } from '../unit/windows/fixture-index.ts';
import { createAlertService } from '../../src/services/alerts.ts';
import type { AlertRunReport } from '../../src/services/alert-run.ts';

let t: TestApp;
const quiet = { info() {}, warn() {} };
let a: Awaited<ReturnType<typeof seedOrg>>;
let b: Awaited<ReturnType<typeof seedOrg>>;

/**
 * Real Windows Server 2019 host records (as the v2 tests send them): one on the July 2024 build, below the fix of
 * CVE-2024-38063 (17763.6293), and one on a 2026 build that carries it.
 */
const HOST = {
  asset_id: 'a1b2c3d4e5f60718',
  os_product: 'Windows Server 2019 Datacenter',
  edition_id: 'ServerDatacenter',
  display_version: '1809',
  os_build: '10.0.17763.6054',
  architecture: 'x64',
  installation_type: 'Server',
  installed_kbs: ['KB5040430'],
  kb_source: 'Get-HotFix',
  esu_enrolled: '',
  collected_at: '2026-07-01T08:00:00Z',
};
const PATCHED = { ...HOST, asset_id: 'b2c3d4e5f6071829', os_build: '10.0.17763.8755', installed_kbs: ['KB5087538'] };

async function call(method: 'GET' | 'POST', url: string, headers: Record<string, string>, body?: unknown) {
  const r = await t.app.inject({
    method,
    url,
    headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
    payload: body ? JSON.stringify(body) : undefined,
  });
  return { status: r.statusCode, body: r.json() };
}
async function environment(auth: Record<string, string>, name: string): Promise<number> {
  const r = await call('POST', '/api/v1/environments', auth, { name });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data.id as number;
}
type Alert = {
  cve_id: string;
  sage_priority: string;
  reasons: string[];
  change_kinds: string[];
  watchlist_match: { entity_type: string; entity_name: string };
  payload: { data: Record<string, any> };
};
async function alertsOf(auth: Record<string, string>): Promise<Map<string, Alert>> {
  const r = await call('GET', '/api/v1/alerts?per_page=100', auth);
  assert.equal(r.status, 200);
  return new Map((r.body.data as Alert[]).map((x) => [x.cve_id, x]));
}

let report: AlertRunReport;

before(async () => {
  t = await testApp({ now: '2026-07-10T12:00:00Z' });
  // The bulk baseline (no changes) and the MSRC data.
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES])], { log: quiet });
  await importMsrcDocuments(t.store.db, [FIXTURE_DIR]);
  a = await seedOrg(t.store, { name: 'Assets A', tier: 'professional' });
  b = await seedOrg(t.store, { name: 'Assets B', tier: 'professional' });
  const envA = await environment(a.auth, 'Data hall A');
  const envB = await environment(b.auth, 'Data hall B');
  // A: Data Center Expert 8.1.1.0 (inside "<= 8.1.1.3" of ICSA-24-289-02) and a Windows Server 2019 host; A also
  // watches Schneider Electric. B: the fixed 8.2 (outside) and a Siemens CP-8031 module below CPCI85 V05 (ICSA-23-103-07).
  const ca = await call('POST', '/api/v1/assets/correlate-cves', a.auth, {
    environment_id: envA,
    assets: [{ asset_id: 'dce-1', vendor: 'Schneider Electric', product: 'Data Center Expert', version: '8.1.1.0' }],
  });
  assert.equal(ca.status, 200, JSON.stringify(ca.body));
  const cb = await call('POST', '/api/v1/assets/correlate-cves', b.auth, {
    environment_id: envB,
    assets: [
      { asset_id: 'dce-9', vendor: 'Schneider Electric', product: 'Data Center Expert', version: '8.2' },
      { asset_id: 'rtu-1', vendor: 'Siemens', product: 'CP-8031 MASTER MODULE (6MF2803-1AA00)', version: 'CPCI85 V04' },
    ],
  });
  assert.equal(cb.status, 200, JSON.stringify(cb.body));
  const w = await call('POST', '/api/v2/assets/correlate', a.auth, {
    environment_id: envA,
    windows_hosts: [HOST, PATCHED],
  });
  assert.equal(w.status, 200, JSON.stringify(w.body));
  assert.equal(
    (await call('POST', '/api/v1/watchlist', a.auth, { entity_type: 'vendor', entity_id: 'schneider-electric' }))
      .status,
    201,
  );
  // The changes: the advisories state ranges for known CVEs; CVE-2024-38063 (Windows TCP/IP) is new.
  await importPaths(t.store.db, [feedDir([...CSAF_FIXTURES, fixture('nvd', 'CVE-2024-38063.json')])], { log: quiet });
  const svc = createAlertService(t.store.db, {
    publicUrl: t.config.publicUrl,
    now: () => new Date('2026-07-10T12:15:00Z'),
    chunkSize: 4,
  });
  report = (await svc.run('cli')) as AlertRunReport;
});
after(async () => {
  await t.close();
});

test('an asset inside the range alerts its organization; with a watch entry it is one alert naming both', async () => {
  const dce = (await alertsOf(a.auth)).get('CVE-2024-8531');
  assert.ok(dce, 'CVE-2024-8531 alerted A');
  assert.deepEqual(dce.change_kinds, ['advisory_added', 'ranges_changed']);
  assert.ok(dce.reasons.includes('affected versions changed'));
  // The asset is the more specific match; the payload names the watch entry and the asset.
  assert.deepEqual(dce.watchlist_match, { entity_type: 'environment', entity_name: 'Data hall A' });
  const m = dce.payload.data.matches as Record<string, unknown>[];
  assert.deepEqual(
    m.map((x) => [x.entity_type, x.entity_name, x.asset_id ?? null, x.status ?? null]),
    [
      ['vendor', 'Schneider Electric', null, null],
      ['environment', 'Data hall A', 'dce-1', 'affected'],
    ],
  );
  assert.equal(m[1].asset_kind, 'asset');
  assert.equal(m[1].product, 'Schneider Electric Data Center Expert 8.1.1.0');
  assert.match(String(m[1].reason), /version 8\.1\.1\.0 is in <= 8\.1\.1\.3/);
  assert.deepEqual(dce.payload.data.asset_matches, { affected: 1, needs_review: 0 });
  assert.deepEqual(dce.payload.data.watchlist_match, dce.watchlist_match);
});

test('an asset of a version outside the range is not alerted; the other organization gets only its own', async () => {
  const mine = await alertsOf(b.auth);
  // B's Data Center Expert is 8.2, the fixed version: nothing for CVE-2024-8531, and B watches nothing.
  assert.equal(mine.has('CVE-2024-8531'), false);
  // B's RTU module is below CPCI85 V05: alerted, naming B's environment only.
  const rtu = mine.get('CVE-2023-28489');
  assert.ok(rtu, 'CVE-2023-28489 alerted B');
  assert.deepEqual(rtu.watchlist_match, { entity_type: 'environment', entity_name: 'Data hall B' });
  assert.deepEqual(
    (rtu.payload.data.matches as { asset_id: string }[]).map((x) => x.asset_id),
    ['rtu-1'],
  );
  // Nothing of A's in B's list and the reverse.
  assert.deepEqual([...mine.keys()].sort(), ['CVE-2023-28489']);
  const theirs = await alertsOf(a.auth);
  assert.equal(theirs.has('CVE-2023-28489'), false);
  for (const x of theirs.values())
    for (const e of x.payload.data.matches as { entity_name: string }[]) assert.notEqual(e.entity_name, 'Data hall B');
  assert.ok(report.alerts_stored >= 3);
});

test('a Windows host is matched by the engine verdict on its build; the patched host is not; the match feeds sage_priority', async () => {
  const w = (await alertsOf(a.auth)).get('CVE-2024-38063');
  assert.ok(w, 'the new Windows CVE alerted A through its host');
  assert.deepEqual(w.change_kinds, ['new_cve']);
  assert.deepEqual(w.watchlist_match, { entity_type: 'environment', entity_name: 'Data hall A' });
  // Only the host below the fixed build; the host on the 2026 build carries the fix.
  const ms = w.payload.data.matches as Record<string, unknown>[];
  assert.deepEqual(
    ms.map((x) => x.asset_id),
    [HOST.asset_id],
  );
  assert.deepEqual(w.payload.data.asset_matches, { affected: 1, needs_review: 0 });
  const [h] = ms;
  assert.deepEqual([h.asset_id, h.asset_kind, h.status], [HOST.asset_id, 'windows_host', 'affected']);
  assert.match(String(h.product), /Windows Server 2019/);
  assert.match(String(h.reason), /build 10\.0\.17763\.6054 is below the fixed build 10\.0\.17763\.6293/);
  // CVSS 9.8, no exploit, not KEV: the asset match alone makes it at least MONITOR (docs/alerts.md).
  assert.notEqual(w.sage_priority, 'IGNORE');
  // B has no Windows host: no alert.
  assert.equal((await alertsOf(b.auth)).has('CVE-2024-38063'), false);
});

test('warm(): with environment hosts stored, the Windows index is loaded before the first run, which reuses it', async () => {
  const svc = createAlertService(t.store.db, {
    publicUrl: t.config.publicUrl,
    now: () => new Date('2026-07-10T12:30:00Z'),
  });
  assert.equal(svc.windowsData, null);
  assert.equal(await svc.warm(), true);
  const data = svc.windowsData!;
  // One WindowsData per database in a process: the v2 routes' (which built the index for the host's correlate call).
  assert.equal(data, t.app.services.windows.data);
  assert.equal(data.loads.builds, 1);
  // A change to a Windows CVE: the run evaluates the host with the index already built.
  await sql`INSERT INTO cve_changes (seq, cve_id, kind, before, after) VALUES (nextval('cve_changes_seq'), 'CVE-2024-38063', 'epss_threshold',
    '{"epss_percentile": null, "band": null}'::jsonb, '{"epss_percentile": 0.95, "band": 4}'::jsonb)`.execute(
    t.store.db,
  );
  const r = (await svc.run('cli')) as AlertRunReport;
  assert.equal(r.cves, 1);
  assert.equal(data.loads.builds, 1, 'the run did not build the index again');
  const alerts = await sql<{
    n: number;
  }>`SELECT count(*)::int AS n FROM alerts WHERE run_id = ${r.run_id} AND org_id = ${a.orgId} AND cve_id = 'CVE-2024-38063'`.execute(
    t.store.db,
  );
  assert.equal(alerts.rows[0].n, 1, 'the host below the fix is alerted in the warmed run');
});

test('warm(): without environment hosts nothing is loaded', async () => {
  await sql`UPDATE organizations SET status = 'deactivated' WHERE id = ${a.orgId}`.execute(t.store.db);
  try {
    const svc = createAlertService(t.store.db, { publicUrl: t.config.publicUrl, now: () => new Date() });
    assert.equal(await svc.warm(), false);
    assert.equal(svc.windowsData, null);
  } finally {
    await sql`UPDATE organizations SET status = 'active' WHERE id = ${a.orgId}`.execute(t.store.db);
  }
});
