// The reviewed override table (src/domain/windows/overrides.ts) applied to an index built here from the real June
// 2026 CVRF document alone (test/fixtures/msrc/2026-Jun.xml.gz), not the shared fixture index: the CVE-2026-50507
// row MSRC serves for Windows Server 2025 (the client LCU) is replaced by the server KB and build, linked with the
// URL Microsoft gives for that KB; without the table the served row stays; a record that finds no row is not applied.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readMsrcFile } from '../../../src/ingest/msrc.ts';
import { IndexBuilder, type Fix, type ProductIndex } from '../../../src/domain/windows/evaluation-index.ts';
import { WINDOWS_PRODUCTS } from '../../../src/domain/windows/products.ts';
import { OVERRIDES, applyOverrides } from '../../../src/domain/windows/overrides.ts';
import { FIXTURE_DIR } from './fixture-index.ts';

function juneIndex(overrides?: Parameters<IndexBuilder['finish']>[0]) {
  const b = new IndexBuilder(new Map());
  b.add(readMsrcFile(`${FIXTURE_DIR}/2026-Jun.xml.gz`));
  return b.finish(overrides);
}
const fixesOf = (ix: ReturnType<typeof juneIndex>, pid: string) =>
  ix.products.get(pid)!.cves.get('CVE-2026-50507')!.fixes;

test("the override replaces the served client KB on both Server 2025 products, with Microsoft's own URL for the server KB", () => {
  const ix = juneIndex();
  assert.deepEqual(ix.overridesApplied, ['msrc-2026-jun-cve-2026-50507-server2025']);
  for (const pid of ['12436', '12437']) {
    const f = fixesOf(ix, pid).find((x) => x.overrideId);
    assert.ok(f, `${pid}: an overridden row`);
    assert.deepEqual(
      [f.kb, f.rawBuild, f.overrideId],
      ['KB5094125', '10.0.26100.32995', 'msrc-2026-jun-cve-2026-50507-server2025'],
    );
    assert.ok(f.build, 'the used build is a valid fixed build');
    assert.match(f.url ?? '', /KB5094125|5094125/, 'the URL MSRC gives for KB5094125 on this product');
    assert.ok(!fixesOf(ix, pid).some((x) => x.kb === 'KB5094126'), `${pid}: the client LCU row is gone`);
  }
  // Windows 11 24H2 (12389) keeps the client KB it is served.
  assert.ok(fixesOf(ix, '12389').some((x) => x.kb === 'KB5094126' && !x.overrideId));
});

test('without the table the served row stays; a record whose row is not found is not applied', () => {
  const plain = juneIndex([]);
  assert.deepEqual(plain.overridesApplied, []);
  assert.ok(
    fixesOf(plain, '12436').some((x) => x.kb === 'KB5094126' && x.rawBuild === '10.0.26100.8655' && !x.overrideId),
  );
  const stale = { ...OVERRIDES[0], id: 'stale', servedFixedBuild: '10.0.26100.1' };
  assert.deepEqual(juneIndex([stale]).overridesApplied, []);
  const elsewhere = { ...OVERRIDES[0], id: 'elsewhere', productIds: ['99999'] };
  assert.deepEqual(applyOverrides(juneIndex([]).products, [elsewhere]), []);
});

// Hand-made product rows for the matching rule itself: KB and FixedBuild must both be the served ones.
function rows(pid: string, cves: Record<string, Partial<Fix>[]>): ProductIndex {
  const product = WINDOWS_PRODUCTS.get(pid)!;
  const fix = (f: Partial<Fix>): Fix => ({
    kb: null,
    kind: 'security_update',
    subType: null,
    rawBuild: null,
    build: null,
    supersedes: [],
    url: null,
    docId: 'd',
    overrideId: null,
    ...f,
  });
  const meta = (cve: string) => ({
    cve,
    title: '',
    description: null,
    publishedAt: null,
    docId: 'd',
    docRevisionDate: null,
    cvrfUrl: null,
    advisoryUrl: null,
    exploited: false,
    publiclyDisclosed: false,
    cwes: [],
    cvssScore: null,
    cvssVector: null,
  });
  return {
    product,
    kbs: new Map(),
    lcuSeries: [],
    mrSeries: [],
    dataAsOf: null,
    cves: new Map(
      Object.entries(cves).map(([c, fs]) => [
        c,
        { meta: meta(c), severity: null, cvssScore: null, fixes: fs.map(fix) },
      ]),
    ),
  };
}
const REC = {
  id: 'r1',
  cve: 'CVE-2026-0001',
  productIds: ['12436', '12437'],
  servedKb: 'KB1000001',
  servedFixedBuild: '10.0.26100.100',
  useKb: 'KB1000002',
  useFixedBuild: '10.0.26100.32995',
  evidence: 'e',
  reviewed: '2026-11-21',
};

test('a row is replaced only when both its KB and its FixedBuild are the served ones; the URL comes from a row MSRC itself serves', () => {
  const pi = rows('12436', {
    'CVE-2026-0002': [{ kb: 'KB1000002', rawBuild: '10.0.26100.32995', url: 'https://catalog/KB1000002' }],
    'CVE-2026-0001': [
      { kb: 'KB1000001', rawBuild: '10.0.26100.100', url: 'served-url' },
      { kb: 'KB1000001', rawBuild: '10.0.26100.101', url: 'u2' },
      { kb: 'KB1000009', rawBuild: '10.0.26100.100', url: 'u3' },
    ],
  });
  const products = new Map([['12436', pi]]);
  assert.deepEqual(applyOverrides(products, [REC]), ['r1']);
  const [a, b, c] = pi.cves.get('CVE-2026-0001')!.fixes;
  assert.deepEqual(
    [a.kb, a.rawBuild, a.build?.text, a.url, a.overrideId],
    ['KB1000002', '10.0.26100.32995', '10.0.26100.32995', 'https://catalog/KB1000002', 'r1'],
  );
  assert.deepEqual([b.kb, b.rawBuild, b.url, b.overrideId], ['KB1000001', '10.0.26100.101', 'u2', null]);
  assert.deepEqual([c.kb, c.rawBuild, c.url, c.overrideId], ['KB1000009', '10.0.26100.100', 'u3', null]);
  // The other product of the record has no row for the CVE; a product missing from the map is skipped.
  const other = rows('12437', { 'CVE-2026-0009': [{ kb: 'KB1000001', rawBuild: '10.0.26100.100' }] });
  assert.deepEqual(applyOverrides(new Map([['12437', other]]), [REC]), []);
  assert.equal(other.cves.get('CVE-2026-0009')!.fixes[0].kb, 'KB1000001');
});

test('no URL is made up: none when the used KB is served nowhere else, or only on overridden rows or without a URL', () => {
  const alone = rows('12436', {
    'CVE-2026-0001': [{ kb: 'KB1000001', rawBuild: '10.0.26100.100', url: null }],
    'CVE-2026-0003': [{ kb: 'KB1000002', url: null }],
  });
  applyOverrides(new Map([['12436', alone]]), [REC]);
  assert.equal(alone.cves.get('CVE-2026-0001')!.fixes[0].url, null);
  // The replaced row's own URL is the served KB's page, never taken for the used KB (looked up before the row
  // changes), whether or not the used KB is served elsewhere.
  const own = rows('12436', {
    'CVE-2026-0001': [{ kb: 'KB1000001', rawBuild: '10.0.26100.100', url: 'https://catalog/KB1000001' }],
  });
  applyOverrides(new Map([['12436', own]]), [REC]);
  assert.deepEqual(
    [own.cves.get('CVE-2026-0001')!.fixes[0].kb, own.cves.get('CVE-2026-0001')!.fixes[0].url],
    ['KB1000002', null],
  );
  const ownAndServed = rows('12436', {
    'CVE-2026-0001': [{ kb: 'KB1000001', rawBuild: '10.0.26100.100', url: 'https://catalog/KB1000001' }],
    'CVE-2026-0002': [{ kb: 'KB1000002', url: 'https://catalog/KB1000002' }],
  });
  applyOverrides(new Map([['12436', ownAndServed]]), [REC]);
  assert.equal(ownAndServed.cves.get('CVE-2026-0001')!.fixes[0].url, 'https://catalog/KB1000002');
  const overridden = rows('12436', {
    'CVE-2026-0000': [
      { kb: 'KB1000002', url: 'from-an-override', overrideId: 'x' },
      { kb: 'KB1000003', url: 'other-kb' },
    ],
    'CVE-2026-0001': [{ kb: 'KB1000001', rawBuild: '10.0.26100.100', url: null }],
  });
  applyOverrides(new Map([['12436', overridden]]), [REC]);
  assert.equal(overridden.cves.get('CVE-2026-0001')!.fixes[0].url, null);
  // An invalid used build for the product leaves the row without a build.
  const bad = rows('12436', { 'CVE-2026-0001': [{ kb: 'KB1000001', rawBuild: '10.0.26100.100' }] });
  applyOverrides(new Map([['12436', bad]]), [{ ...REC, useFixedBuild: '6.3.9600.1' }]);
  assert.deepEqual(
    [bad.cves.get('CVE-2026-0001')!.fixes[0].rawBuild, bad.cves.get('CVE-2026-0001')!.fixes[0].build],
    ['6.3.9600.1', null],
  );
});
