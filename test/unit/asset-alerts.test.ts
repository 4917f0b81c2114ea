// Environment-asset matches of the alert run (src/domain/asset-alerts.ts; docs/alerts.md "Asset matches"): the
// same verdict as correlation at the range boundary, family and CPE lookups, one verdict shared by organizations
// with the same nameplate, and Windows hosts through their MSRC product.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assetHits, buildAssetIndex, type EnvAsset } from '../../src/domain/asset-alerts.ts';
import { rangeRows } from '../../src/domain/correlate.ts';
import type { AffectedRange } from '../../src/domain/ranges.ts';
import type { WindowsHost } from '../../src/domain/windows/validate.ts';

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

test('a Windows host is hit through the MSRC product it maps to, once per CVE', () => {
  const host: WindowsHost = {
    asset_id: 'a1b2c3d4e5f60718', os_product: 'Windows Server 2019 Datacenter', edition_id: 'ServerDatacenter', display_version: '1809',
    os_build: '10.0.17763.8755', architecture: 'x64', installation_type: 'Server', installed_kbs: ['KB5087538'], kb_source: 'Get-HotFix',
    esu_enrolled: '', collected_at: '2026-07-01T08:00:00Z',
  } as unknown as WindowsHost;
  const ix = buildAssetIndex([], [{ org_id: 7, environment: 'Servers', asset_id: host.asset_id, host }]);
  const [productId] = [...ix.byProduct.keys()];
  assert.ok(productId, 'the host maps to a product');
  const hits = assetHits(ix, [], [{ cve_id: 'CVE-2024-38063', product_id: productId }, { cve_id: 'CVE-2024-38063', product_id: productId }, { cve_id: 'CVE-2024-38063', product_id: 'other' }]);
  assert.deepEqual(hits.map((h) => [h.org_id, h.cve_id, h.kind, h.status]), [[7, 'CVE-2024-38063', 'windows_host', 'affected']]);
  assert.match(hits[0].product, /Windows Server 2019/);
});
