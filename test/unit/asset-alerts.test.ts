// Environment-asset matches of the alert run (src/domain/asset-alerts.ts; docs/alerts.md "Asset matches"): the
// same verdict as correlation at the range boundary, family and CPE lookups, one verdict shared by organizations
// with the same nameplate, and Windows hosts through their MSRC product.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assetHits, buildAssetIndex, familyNames, openVerdicts, type EnvAsset } from '../../src/domain/asset-alerts.ts';
import { rangeRows } from '../../src/domain/correlate.ts';
import type { AffectedRange } from '../../src/domain/ranges.ts';
import { validateHost } from '../../src/domain/windows/validate.ts';
import type { WindowsHost } from '../../src/domain/windows/host-record.ts';
import { EvaluationRun } from '../../src/domain/windows/evaluate.ts';
import { fixtureIndex } from './windows/fixture-index.ts';

const range = (o: Partial<AffectedRange> = {}): AffectedRange => ({
  source: 'csaf',
  vendor: 'Siemens',
  product: 'SIMATIC S7-1500 family',
  cpe: null,
  status: 'affected',
  version: null,
  start: null,
  end: { version: 'V2.9.2', inclusive: false },
  changes: [],
  text: null,
  fixedIn: 'V2.9.2',
  runningOn: null,
  versionType: null,
  defaultStatus: null,
  ...o,
});
const rows = (cve: string, rs: AffectedRange[]) =>
  rangeRows([{ source: 'csaf', source_key: 'ICSA-00-000-00', ranges: rs }]).map((r) => ({ ...r, cve_id: cve }));
const asset = (org: number, id: string, version: string | null, o: Partial<EnvAsset> = {}): EnvAsset => ({
  org_id: org,
  environment: `Plant ${org}`,
  asset_id: id,
  vendor: 'Siemens AG',
  product: 'SIMATIC S7-1500 CPU 1518-4 PN/DP',
  version,
  cpe: null,
  ...o,
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
  const ix = buildAssetIndex(
    [
      asset(1, 'unknown', null),
      asset(1, 'other-vendor', 'V1.0', { vendor: 'Schneider Electric' }),
      asset(1, 'vague', 'V1.0', { product: 'SIMATIC' }),
    ],
    [],
  );
  assert.deepEqual(brief(assetHits(ix, rows('CVE-2024-0001', [range()]), [])), ['1:unknown:needs_review']);
});

test('a nameplate naming a product family: a row of one of its products alerts needs_review, as correlation answers it', () => {
  const cpu = range({ product: 'SIMATIC S7-1500 CPU 1511-1 PN' });
  const ix = buildAssetIndex(
    [
      asset(1, 'family-in', 'V2.8', { product: 'SIMATIC S7-1500' }),
      asset(1, 'family-out', 'V2.9.2', { product: 'SIMATIC S7-1500' }),
      asset(1, 'one-word', 'V2.8', { product: 'SIMATIC' }),
      asset(1, 'other-cpu', 'V2.8'),
    ],
    [],
  );
  const hits = assetHits(ix, rows('CVE-2024-0003', [cpu]), []);
  assert.deepEqual(brief(hits), ['1:family-in:needs_review']);
  assert.match(
    hits[0].reason,
    /^version V2\.8 is in < V2\.9\.2 for "SIMATIC S7-1500 CPU 1511-1 PN", one product of the family "SIMATIC S7-1500" the asset names/,
  );
  // A row that names the family itself decides for it: the product's row says nothing more.
  const own = assetHits(
    ix,
    rows('CVE-2024-0004', [cpu, range({ product: 'SIMATIC S7-1500', end: { version: 'V2.0', inclusive: false } })]),
    [],
  );
  assert.deepEqual(brief(own), []);
  // A name the corpus gives a product (store namedProducts) is that product, not a family: no member hit.
  const assets = [asset(1, 'family-in', 'V2.8', { product: 'SIMATIC S7-1500' })];
  assert.deepEqual(familyNames(assets), [{ slug: 'siemens', key: 'simatic s7 1500' }]);
  const named = buildAssetIndex(assets, [], new Set(['siemens\u0000simatic s7 1500']));
  assert.deepEqual(brief(assetHits(named, rows('CVE-2024-0003', [cpu]), [])), []);
});

test('organizations with the same nameplate each get their own hit; CPE tokens find an asset named otherwise', () => {
  const cpe = 'cpe:2.3:o:siemens:simatic_s7-1500_firmware:*:*:*:*:*:*:*:*';
  const ix = buildAssetIndex(
    [asset(1, 'a', 'V2.0'), asset(2, 'b', 'V2.0'), asset(3, 'c', 'V2.0', { product: 'Line 4 PLC', cpe })],
    [],
  );
  const hits = assetHits(ix, rows('CVE-2024-0002', [range({ cpe })]), []);
  assert.deepEqual(brief(hits), ['1:a:affected', '2:b:affected', '3:c:affected']);
  assert.deepEqual(hits.map((h) => h.environment).sort(), ['Plant 1', 'Plant 2', 'Plant 3']);
});

const WS2019 = {
  os_product: 'Windows Server 2019 Datacenter',
  edition_id: 'ServerDatacenter',
  display_version: '1809',
  architecture: 'x64',
  installation_type: 'Server',
  installed_kbs: null,
  kb_source: 'Get-HotFix',
  esu_enrolled: '',
  collected_at: '2026-07-01T08:00:00Z',
};
const winHost = (id: string, build: string): WindowsHost => {
  const v = validateHost({ ...WS2019, asset_id: id, os_build: build });
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  return v.host;
};
/** The Windows engine over the real MSRC fixture documents, counting evaluations. */
function evaluator() {
  const run = new EvaluationRun(fixtureIndex(), () => undefined, '2026-07-10');
  const e = Object.assign(
    (h: WindowsHost) => {
      e.calls++;
      return run.evaluate(h, []);
    },
    { calls: 0 },
  );
  return e;
}

test('a Windows host is alerted by the engine verdict: below the fixed build affected, at it not alerted', () => {
  // CVE-2024-38063 (TCP/IP, August 2024): Windows Server 2019 is fixed in build 17763.6293 (the September 2024 revision of Microsoft's row).
  const ix = buildAssetIndex(
    [],
    [
      { org_id: 7, environment: 'Servers', asset_id: 'old', host: winHost('old-host-0001', '10.0.17763.6054') },
      { org_id: 7, environment: 'Servers', asset_id: 'fixed', host: winHost('fixed-host-0001', '10.0.17763.6293') },
      { org_id: 8, environment: 'Hall', asset_id: 'twin', host: winHost('twin-host-0001', '10.0.17763.6054') },
    ],
  );
  assert.equal(ix.hostProfiles.length, 2, 'two hosts on one build share a profile');
  const ev = evaluator();
  const hits = assetHits(ix, [], ['CVE-2024-38063', 'CVE-2024-38063'], ev);
  assert.deepEqual(
    hits.map((h) => [h.org_id, h.asset_id, h.kind, h.status]),
    [
      [7, 'old', 'windows_host', 'affected'],
      [8, 'twin', 'windows_host', 'affected'],
    ],
  );
  assert.match(hits[0].product, /Windows Server 2019/);
  assert.match(
    hits[0].reason,
    /^Open on Windows Server 2019.*build 10\.0\.17763\.6054 is below the fixed build 10\.0\.17763\.6293/,
  );
  // Each profile is evaluated once, however many chunks ask (the verdicts are kept on the index).
  assetHits(ix, [], ['CVE-2024-38063'], ev);
  assert.equal(ev.calls, 2);
});

test('without a Microsoft CVE in the chunk, or without an evaluator, no host is evaluated', () => {
  const ix = buildAssetIndex(
    [],
    [{ org_id: 7, environment: 'Servers', asset_id: 'old', host: winHost('old-host-0001', '10.0.17763.6054') }],
  );
  const ev = evaluator();
  assert.deepEqual(assetHits(ix, [], [], ev), []);
  assert.deepEqual(assetHits(ix, [], ['CVE-2024-38063']), []);
  assert.equal(ev.calls, 0);
  // A CVE of another product (not in this host's results) does not alert it.
  assert.deepEqual(assetHits(ix, [], ['CVE-2099-0001'], ev), []);
});

test('the index: every whole-word prefix of the product key under the vendor slug, CPE tokens apart; no key without slug or product', () => {
  const cpe = 'cpe:2.3:o:moxa:nport_5110_firmware:*:*:*:*:*:*:*:*';
  const ix = buildAssetIndex(
    [
      asset(1, 'plc', 'V2.0'),
      asset(1, 'odd-vendor', null, { vendor: '***', product: 'Widget' }),
      asset(1, 'odd-product', null, { vendor: 'Moxa', product: '***' }),
      asset(2, 'nport', '1.0', { vendor: 'Moxa', product: 'NPort 5110', cpe }),
    ],
    [],
  );
  assert.deepEqual(
    [...ix.byKey.keys()].map((k) => k.replace('\u0000', '|')),
    [
      'siemens|simatic s7 1500 cpu 1518 4 pn dp',
      'siemens|simatic s7 1500 cpu 1518 4 pn',
      'siemens|simatic s7 1500 cpu 1518 4',
      'siemens|simatic s7 1500 cpu 1518',
      'siemens|simatic s7 1500 cpu',
      'siemens|simatic s7 1500',
      'siemens|simatic s7',
      'siemens|simatic',
      'moxa|nport 5110',
      'moxa|nport',
    ],
  );
  assert.deepEqual(
    [...ix.byCpe.keys()].map((k) => k.replace('\u0000', '|')),
    ['moxa|nport_5110_firmware'],
  );
  assert.deepEqual([ix.assets, ix.hosts], [4, 0]);
});

test('a nameplate is vendor, product, version and CPE: the same names with another CPE are decided apart', () => {
  const cpe = 'cpe:2.3:o:siemens:simatic_s7-1500_firmware:*:*:*:*:*:*:*:*';
  const ix = buildAssetIndex(
    [
      asset(1, 'plain', 'V2.0', { product: 'Line 4 PLC' }),
      asset(2, 'with-cpe', 'V2.0', { product: 'Line 4 PLC', cpe }),
      asset(3, 'twin', 'V2.0', { product: 'Line 4 PLC', cpe }),
    ],
    [],
  );
  const hits = assetHits(ix, rows('CVE-2024-0002', [range({ cpe })]), []);
  assert.deepEqual(brief(hits), ['2:with-cpe:affected', '3:twin:affected']);
  assert.deepEqual(
    hits.map((h) => [h.kind, h.product]),
    [
      ['asset', 'Siemens AG Line 4 PLC V2.0'],
      ['asset', 'Siemens AG Line 4 PLC V2.0'],
    ],
  );
  const other = 'cpe:2.3:o:siemens:simatic_s7-1200_firmware:*:*:*:*:*:*:*:*';
  const twoCpes = buildAssetIndex(
    [
      asset(4, 'other-cpe', 'V2.0', { product: 'Line 4 PLC', cpe: other }),
      asset(5, 'this-cpe', 'V2.0', { product: 'Line 4 PLC', cpe }),
    ],
    [],
  );
  assert.deepEqual(
    brief(assetHits(twoCpes, rows('CVE-2024-0002', [range({ cpe })]), [])),
    ['5:this-cpe:affected'],
    'two CPEs, two nameplates',
  );
  assert.deepEqual(
    assetHits(
      buildAssetIndex([asset(1, 'plain', 'V2.0', { product: 'Line 4 PLC' })], []),
      rows('CVE-2024-0002', [range({ cpe: other })]),
      [],
    ),
    [],
    'a row CPE no asset carries',
  );
  const noVersion = assetHits(buildAssetIndex([asset(1, 'nv', null)], []), rows('CVE-2024-0001', [range()]), []);
  assert.deepEqual(
    noVersion.map((h) => [h.product, h.status]),
    [['Siemens AG SIMATIC S7-1500 CPU 1518-4 PN/DP', 'needs_review']],
  );
});

const hostAt = (build: string) => winHost('probe-host-0001', build);
const evaluation = (build: string) =>
  new EvaluationRun(fixtureIndex(), () => undefined, '2026-07-10').evaluate(hostAt(build), []);

test("openVerdicts: open and in-review CVEs with the engine's reason; cleared ones left out", () => {
  const e = evaluation('10.0.17763.6054');
  const open = openVerdicts(e);
  assert.equal(open.size, e.counts.confirmed_open + e.counts.needs_review);
  assert.deepEqual(open.get('CVE-2024-38063'), {
    status: 'affected',
    product: 'Windows Server 2019',
    reason: 'Open on Windows Server 2019: build 10.0.17763.6054 is below the fixed build 10.0.17763.6293',
  });
  assert.deepEqual(open.get('CVE-2024-38213'), {
    status: 'needs_review',
    product: 'Windows Server 2019',
    reason:
      "Needs review on Windows Server 2019: KB5039217 (build 10.0.17763.5936) is not one of this product's monthly cumulative updates " +
      '(for example a Safe OS/WinRE, Secure Boot or other separate update); the OS build cannot confirm it. Check that KB5039217 is installed',
  });
  const cleared = e.items.find((it) => it.status === 'cleared (patched)')!;
  assert.equal(open.has(cleared.cve_id), false);
  const noBuild = openVerdicts(evaluation(''));
  assert.equal(
    noBuild.get('CVE-2024-38063')!.reason,
    'Needs review on Windows Server 2019: no os_build: only the product is known',
  );
  assert.ok([...noBuild.values()].every((v) => v.status === 'needs_review'));
});

test("openVerdicts: an item in review against its verdict carries its own note; without any note, the verdict's why", () => {
  const e = evaluation('10.0.17763.6054');
  const openItem = e.items.find((it) => it.cve_id === 'CVE-2024-38063')!;
  const reviewItem = e.items.find((it) => it.cve_id === 'CVE-2024-38213')!;
  const only = (...items: typeof e.items) =>
    [...openVerdicts({ ...e, items }).values()].map((v) => `${v.status}|${v.reason}`);
  assert.deepEqual(only({ ...openItem, status: 'needs review', note: 'the candidate products disagree' }), [
    'needs_review|Needs review on Windows Server 2019: the candidate products disagree',
  ]);
  assert.deepEqual(only({ ...openItem, status: 'needs review' }), [
    'needs_review|Needs review on Windows Server 2019: build 10.0.17763.6054 is below the fixed build 10.0.17763.6293',
  ]);
  assert.deepEqual(
    only({ ...reviewItem, note: 'not this one' }),
    [`needs_review|Needs review on Windows Server 2019: ${reviewItem.v.note}`],
    "in review as its verdict says: the verdict's note",
  );
  assert.deepEqual(only({ ...reviewItem, v: { ...reviewItem.v, note: null } as typeof reviewItem.v }), [
    `needs_review|Needs review on Windows Server 2019: ${reviewItem.v.why}`,
  ]);
});

test('rows under another vendor spelling of the same organisation find the nameplate (Apache / Apache Software Foundation)', () => {
  // The CNA's spelling of CVE-2024-34750 (test/fixtures/cve5): 9.0.0-M1 ≤ v ≤ 9.0.89.
  const cna = range({
    source: 'cve5',
    vendor: 'Apache Software Foundation',
    product: 'Apache Tomcat',
    start: { version: '9.0.0-M1', inclusive: true },
    end: { version: '9.0.89', inclusive: true },
    fixedIn: null,
  });
  const tomcat = (id: string, vendor: string, product: string, version: string) =>
    asset(1, id, version, { vendor, product });
  const ix = buildAssetIndex(
    [
      tomcat('short', 'Apache', 'Tomcat', '9.0.50'),
      tomcat('cpe-style', 'apache', 'tomcat', '9.0.90'),
      tomcat('long', 'Apache Software Foundation', 'Tomcat', '9.0.89'),
      tomcat('other', 'Eclipse Foundation', 'Tomcat', '9.0.50'),
      tomcat('httpd', 'Apache', 'HTTP Server', '9.0.50'),
    ],
    [],
  );
  assert.deepEqual(brief(assetHits(ix, rows('CVE-2024-34750', [cna]), [])), ['1:long:affected', '1:short:affected']);
  // And the other way round: the CPE spelling's row finds the nameplate typed with the long name.
  const cpe = { ...cna, vendor: 'apache', product: 'tomcat', cpe: 'cpe:2.3:a:apache:tomcat:*:*:*:*:*:*:*:*' };
  assert.deepEqual(brief(assetHits(ix, rows('CVE-2024-34750', [cpe]), [])), ['1:long:affected', '1:short:affected']);
});
