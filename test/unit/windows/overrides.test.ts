// The reviewed override table (src/domain/windows/overrides.ts) applied to an index built here from the real June
// 2026 CVRF document alone (test/fixtures/msrc/2026-Jun.xml.gz), not the shared fixture index: the CVE-2026-50507
// row MSRC serves for Windows Server 2025 (the client LCU) is replaced by the server KB and build, linked with the
// URL Microsoft gives for that KB; without the table the served row stays; a record that finds no row is not applied.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readMsrcFile } from '../../../src/ingest/msrc.ts';
import { IndexBuilder } from '../../../src/domain/windows/evaluation-index.ts';
import { OVERRIDES, applyOverrides } from '../../../src/domain/windows/overrides.ts';
import { FIXTURE_DIR } from './fixture-index.ts';

function juneIndex(overrides?: Parameters<IndexBuilder['finish']>[0]) {
  const b = new IndexBuilder(new Map());
  b.add(readMsrcFile(`${FIXTURE_DIR}/2026-Jun.xml.gz`));
  return b.finish(overrides);
}
const fixesOf = (ix: ReturnType<typeof juneIndex>, pid: string) => ix.products.get(pid)!.cves.get('CVE-2026-50507')!.fixes;

test('the override replaces the served client KB on both Server 2025 products, with Microsoft\'s own URL for the server KB', () => {
  const ix = juneIndex();
  assert.deepEqual(ix.overridesApplied, ['msrc-2026-jun-cve-2026-50507-server2025']);
  for (const pid of ['12436', '12437']) {
    const f = fixesOf(ix, pid).find((x) => x.overrideId);
    assert.ok(f, `${pid}: an overridden row`);
    assert.deepEqual([f.kb, f.rawBuild, f.overrideId], ['KB5094125', '10.0.26100.32995', 'msrc-2026-jun-cve-2026-50507-server2025']);
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
  assert.ok(fixesOf(plain, '12436').some((x) => x.kb === 'KB5094126' && x.rawBuild === '10.0.26100.8655' && !x.overrideId));
  const stale = { ...OVERRIDES[0], id: 'stale', servedFixedBuild: '10.0.26100.1' };
  assert.deepEqual(juneIndex([stale]).overridesApplied, []);
  const elsewhere = { ...OVERRIDES[0], id: 'elsewhere', productIds: ['99999'] };
  assert.deepEqual(applyOverrides(juneIndex([]).products, [elsewhere]), []);
});
