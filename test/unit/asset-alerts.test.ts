// Environment-asset matches of the alert run (src/domain/asset-alerts.ts; docs/alerts.md "Asset matches"): the
// same verdict as correlation at the range boundary, family and CPE lookups, one verdict shared by organizations
// with the same nameplate, and Windows hosts through their MSRC product.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assetHits, buildAssetIndex, type EnvAsset } from '../../src/domain/asset-alerts.ts';
import { rangeRows } from '../../src/domain/correlate.ts';
import type { AffectedRange } from '../../src/domain/ranges.ts';
import { validateHost, type WindowsHost } from '../../src/domain/windows/validate.ts';
import { EvaluationRun } from '../../src/domain/windows/evaluate.ts';
import { fixtureIndex } from './windows/fixture-index.ts';

const range = (o: Partial<AffectedRange> = {}): AffectedRange => ({
  source: 'csaf', vendor: 'Siemens', product: 'SIMATIC S7-1500 family', cpe: null, status: 'affected', version: null,
  start: null, end: { version: 'V2.9.2', inclusive: false }, changes: [], text: null, fixedIn: 'V2.9.2', runningOn: null, versionType: null, defaultStatus: null, ...o,
});
const rows = (cve: string, rs: AffectedRange[]) => rangeRows([{ source: 'csaf', source_key: 'ICSA-00-000-00', ranges: rs }]).map((r) => ({ ...r, cve_id: cve }));
const asset = (org: number, id: string, version: string | null, o: Partial<EnvAsset> = {}): EnvAsset => ({
  org_id: org, environment: `Plant ${org}`, asset_id: id, vendor: 'Siemens AG', product: 'SIMATIC S7-1500 CPU 1518-4 PN/DP', version, cpe: null, ...o,
});
const brief = (hs: ReturnType<typeof assetHits>) => hs.map((h) => `${h.org_id}:${h.asset_id}:${h.status}`).sort();

test('the range boundary decides as correlation does: below the end alerts, at the end does not', () => {
  const ix = buildAssetIndex([asset(1, 'below', 'V2.9.1'), asset(1, 'at', 'V2.9.2'), asset(1, 'above', 'V3.0')], []);
  const hits = assetHits(ix, rows('CVE-2024-0001', [range()]), []);
  assert.deepEqual(brief(hits), ['1:below:affected']);
  assert.match(hits[0].reason, /version V2\.9\.1 is in < V2\.9\.2/);
  assert.equal(hits[0].product, 'Siemens AG SIMATIC S7-1500 CPU 1518-4 PN/DP V2.9.1');
});

test('an unknown version is needs_review; another vendor or a less specific product is no match', () => {
  const ix = buildAssetIndex([
    asset(1, 'unknown', null), asset(1, 'other-vendor', 'V1.0', { vendor: 'Schneider Electric' }), asset(1, 'vague', 'V1.0', { product: 'SIMATIC' }),
  ], []);
  assert.deepEqual(brief(assetHits(ix, rows('CVE-2024-0001', [range()]), [])), ['1:unknown:needs_review']);
});

test('organizations with the same nameplate each get their own hit; CPE tokens find an asset named otherwise', () => {
  const cpe = 'cpe:2.3:o:siemens:simatic_s7-1500_firmware:*:*:*:*:*:*:*:*';
  const ix = buildAssetIndex([asset(1, 'a', 'V2.0'), asset(2, 'b', 'V2.0'), asset(3, 'c', 'V2.0', { product: 'Line 4 PLC', cpe })], []);
  const hits = assetHits(ix, rows('CVE-2024-0002', [range({ cpe })]), []);
  assert.deepEqual(brief(hits), ['1:a:affected', '2:b:affected', '3:c:affected']);
  assert.deepEqual(hits.map((h) => h.environment).sort(), ['Plant 1', 'Plant 2', 'Plant 3']);
});

const WS2019 = {
  os_product: 'Windows Server 2019 Datacenter', edition_id: 'ServerDatacenter', display_version: '1809', architecture: 'x64',
  installation_type: 'Server', installed_kbs: null, kb_source: 'Get-HotFix', esu_enrolled: '', collected_at: '2026-07-01T08:00:00Z',
};
const winHost = (id: string, build: string): WindowsHost => {
  const v = validateHost({ ...WS2019, asset_id: id, os_build: build });
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return v.host;
};
/** The Windows engine over the real MSRC fixture documents, counting evaluations. */
function evaluator() {
  const run = new EvaluationRun(fixtureIndex(), () => undefined, '2026-07-10');
  const e = Object.assign((h: WindowsHost) => { e.calls++; return run.evaluate(h, []); }, { calls: 0 });
  return e;
}

test('a Windows host is alerted by the engine verdict: below the fixed build affected, at it not alerted', () => {
  // CVE-2024-38063 (TCP/IP, August 2024): Windows Server 2019 is fixed in build 17763.6293 (the September 2024 revision of Microsoft's row).
  const ix = buildAssetIndex([], [
    { org_id: 7, environment: 'Servers', asset_id: 'old', host: winHost('old-host-0001', '10.0.17763.6054') },
    { org_id: 7, environment: 'Servers', asset_id: 'fixed', host: winHost('fixed-host-0001', '10.0.17763.6293') },
    { org_id: 8, environment: 'Hall', asset_id: 'twin', host: winHost('twin-host-0001', '10.0.17763.6054') },
  ]);
  assert.equal(ix.hostProfiles.length, 2, 'two hosts on one build share a profile');
  const ev = evaluator();
  const hits = assetHits(ix, [], ['CVE-2024-38063', 'CVE-2024-38063'], ev);
  assert.deepEqual(hits.map((h) => [h.org_id, h.asset_id, h.kind, h.status]), [[7, 'old', 'windows_host', 'affected'], [8, 'twin', 'windows_host', 'affected']]);
  assert.match(hits[0].product, /Windows Server 2019/);
  assert.match(hits[0].reason, /^Open on Windows Server 2019.*build 10\.0\.17763\.6054 is below the fixed build 10\.0\.17763\.6293/);
  // Each profile is evaluated once, however many chunks ask (the verdicts are kept on the index).
  assetHits(ix, [], ['CVE-2024-38063'], ev);
  assert.equal(ev.calls, 2);
});

test('without a Microsoft CVE in the chunk, or without an evaluator, no host is evaluated', () => {
  const ix = buildAssetIndex([], [{ org_id: 7, environment: 'Servers', asset_id: 'old', host: winHost('old-host-0001', '10.0.17763.6054') }]);
  const ev = evaluator();
  assert.deepEqual(assetHits(ix, [], [], ev), []);
  assert.deepEqual(assetHits(ix, [], ['CVE-2024-38063']), []);
  assert.equal(ev.calls, 0);
  // A CVE of another product (not in this host's results) does not alert it.
  assert.deepEqual(assetHits(ix, [], ['CVE-2099-0001'], ev), []);
});
