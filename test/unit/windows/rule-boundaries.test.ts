// Boundaries of the §4.2 rules that a mutation run showed no test pinned, and rule 4 for a bare
// "Windows" product name, each on the real MSRC documents in test/fixtures/msrc.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cveOf, evalHost, fixtureIndex } from './fixture-index.ts';
import { viewHost } from '../../../src/domain/windows/view.ts';

const ALL = {
  include_cleared: true,
  sort: 'priority',
  confirmed_only: false,
  known_exploited_only: false,
  fix_available_only: false,
  cve_page: null,
  cve_page_size: null,
} as const;

test("rule 2/7: a fix released in the end-of-support month is installable, the next month's needs ESU (Windows 7, support end 2020-01-14)", () => {
  const h = evalHost({
    asset_id: 'w7',
    os_product: 'Windows 7 Professional',
    edition_id: 'Professional',
    os_build: '6.1.7601.24544',
    architecture: 'x64',
    installation_type: 'Client',
    installed_kbs: [],
    kb_source: 'Get-HotFix',
    esu_enrolled: 'no',
  });
  assert.equal(h.microsoft_product, 'Windows 7 for x64-based Systems Service Pack 1');
  assert.equal(h.end_of_life, true);
  assert.match(h.map_note ?? '', /support end 2020-01-14/);
  // CVE-2020-0620: fixed by the January 2020 rollup KB4534310, the month support ended.
  const jan = cveOf(h, 'CVE-2020-0620');
  assert.equal(jan.v.fixMonth, '2020-01');
  assert.equal(jan.status, 'confirmed open');
  assert.equal(jan.v.fixType, 'kb');
  const janGroup = h.fix_groups.find((g) => g.cve_ids.includes('CVE-2020-0620'))!;
  assert.equal(janGroup.fix_type, 'kb');
  assert.equal(janGroup.kb, 'KB4534310');
  // CVE-2021-31956: June 2021, after the end of support: ESU.
  const jun = cveOf(h, 'CVE-2021-31956');
  assert.equal(jun.v.fixType, 'esu');
  assert.equal(h.fix_groups.find((g) => g.cve_ids.includes('CVE-2021-31956'))!.fix_type, 'esu');
});

test('rule 2: only a strictly later monthly rollup clears a legacy CVE; one the index places in the fix month does not (Server 2012 R2)', () => {
  const host = (kb: string, build: string) =>
    evalHost({
      asset_id: 's12',
      os_product: 'Windows Server 2012 R2 Standard',
      edition_id: 'ServerStandard',
      os_build: build,
      architecture: 'x64',
      installation_type: 'Server',
      installed_kbs: [kb],
      kb_source: 'Get-HotFix',
    });
  const pi = [...fixtureIndex().products.values()].find((p) => p.product.name === 'Windows Server 2012 R2')!;
  // CVE-2021-31183 is fixed by KB5004298 (rollup) / KB5004285 (security only) in July 2021. KB5010419 is a
  // rollup the July 2021 document lists, so the index places it in the same month: not a later rollup.
  assert.equal(pi.kbs.get('KB5010419')?.kind, 'monthly_rollup');
  assert.equal(pi.kbs.get('KB5010419')?.month, '2021-07');
  const same = cveOf(host('KB5010419', '6.3.9600.1'), 'CVE-2021-31183');
  assert.equal(same.v.fixMonth, '2021-07');
  assert.equal(same.status, 'confirmed open');
  assert.match(same.v.why, /nor a later monthly rollup/);
  // The November 2022 rollup is later: it clears the CVE (derived, and said so), the host on its build.
  const nov = pi.kbs.get('KB5020023')!;
  assert.equal(nov.month, '2022-11');
  const later = cveOf(host('KB5020023', nov.build!.text), 'CVE-2021-31183');
  assert.equal(later.status, 'cleared (patched)');
  assert.equal(later.v.derived, true);
  assert.match(later.v.why, /KB5020023, a later monthly rollup \(2022-11\)/);
});

test('rule 4: a bare "Windows" with a full build stays product-level; map_note names the products the build fits', () => {
  const rec = { asset_id: 'bw', edition_id: 'Professional', os_build: '10.0.19045.7417', architecture: 'x64' };
  const named = evalHost({ ...rec, os_product: 'Windows 10 Pro' });
  const bare = evalHost({ ...rec, os_product: 'Windows' });
  assert.equal(named.patch_resolved, true);
  assert.ok(named.counts.cleared > 0, 'by build the named host has cleared CVEs');
  assert.equal(bare.patch_resolved, false);
  assert.deepEqual(
    bare.labels,
    ['product-level (bare product name)', 'end of life'],
    'Windows 10 22H2 Pro ended 2025-10-14',
  );
  assert.equal(bare.microsoft_product, 'Windows 10 Version 22H2 for x64-based Systems');
  assert.match(
    bare.map_note ?? '',
    /os_product is only "Windows": the host stays product-level whatever the build; build 10\.0\.19045\.7417 fits Windows 10 Version 22H2 for x64-based Systems/,
  );
  // Every CVE needs review, and the counts cover the same CVEs as the named host's.
  assert.equal(bare.items.length, named.items.length);
  assert.ok(bare.items.every((i) => i.status === 'needs review'));
  assert.deepEqual(bare.counts, { confirmed_open: 0, cleared: 0, needs_review: named.items.length });
  const c = viewHost(bare, ALL).cves[0];
  assert.match(c.priority_reason, /^Needs review: os_product is only "Windows"/);
  // A build shared by several products: they are all named, and the host is still product-level.
  const shared = evalHost({
    asset_id: 'bw2',
    os_product: 'Windows',
    edition_id: '',
    os_build: '10.0.26100.8655',
    architecture: 'x64',
    installation_type: '',
  });
  assert.equal(shared.patch_resolved, false);
  assert.deepEqual(shared.candidate_products, [
    'Windows 11 Version 24H2 for x64-based Systems',
    'Windows Server 2025',
    'Windows Server 2025 (Server Core installation)',
  ]);
  assert.match(
    shared.map_note ?? '',
    /fits Windows 11 Version 24H2 for x64-based Systems; Windows Server 2025; Windows Server 2025 \(Server Core installation\)/,
  );
  assert.ok(shared.items.every((i) => i.status === 'needs review'));
  // A three-part build with a bare name: product-level, and labelled needs revision too.
  const rev = evalHost({ ...rec, os_product: 'Windows', os_build: '10.0.19045' });
  assert.deepEqual(rev.labels, ['product-level (bare product name)', 'needs revision', 'end of life']);
});
