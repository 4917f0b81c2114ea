// The verdict paths of src/domain/windows/verdict.ts on the real MSRC documents of test/fixtures/msrc, each with its
// full verdict: a pre-2021 fix bracketed by the LCU series (no FixedBuild), a fix outside the cumulative series
// (with and without a build for the product), a servicing stack update alone, a product without update, and
// hotpatch builds below and above the fixed build. The same rules case by case on small hand-built indexes: verdict.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cveOf, evalHost } from './fixture-index.ts';
import { WHY_BELOW, WHY_BUILD, WHY_SERIES_CLEAR } from '../../../src/domain/windows/verdict-facts.ts';

const CATALOG = 'https://catalog.update.microsoft.com/v7/site/Search.aspx?q=';
const listed = (kbs?: string[]) => (kbs ? { installed_kbs: kbs, kb_source: 'Get-HotFix' } : {});
const s2019 = (build: string, kbs?: string[]) =>
  evalHost({
    asset_id: 's',
    os_product: 'Windows Server 2019 Standard',
    edition_id: 'ServerStandard',
    os_build: build,
    architecture: 'x64',
    installation_type: 'Server',
    ...listed(kbs),
  });
const w11 = (build: string) =>
  evalHost({
    asset_id: 'w',
    os_product: 'Windows 11 Pro',
    edition_id: 'Professional',
    os_build: build,
    architecture: 'x64',
    installation_type: 'Client',
  });
const w10 = (build: string, kbs?: string[]) =>
  evalHost({
    asset_id: 'l',
    os_product: 'Windows 10 Enterprise 2015 LTSB',
    edition_id: 'EnterpriseS',
    os_build: build,
    architecture: 'x64',
    installation_type: 'Client',
    ...listed(kbs),
  });

test('CVE-2020-0601 on Server 2019 (KB4534273, January 2020, no FixedBuild): cleared from the first build-known LCU after it, else the KB list decides', () => {
  const fix = {
    fixType: 'kb',
    fixedBuild: null,
    kb: 'KB4534273',
    fixClass: 'lcu',
    fixMonth: '2020-01',
    fixUrl: `${CATALOG}KB4534273`,
    derived: true,
  } as const;
  // KB5003646 (June 2021, 10.0.17763.1999) is the lowest build-known LCU released in or after January 2020.
  const at = cveOf(s2019('10.0.17763.1999'), 'CVE-2020-0601');
  assert.equal(at.p.clearAt?.kb, 'KB5003646');
  assert.deepEqual(at.v, { ...fix, note: null, status: 'cleared (patched)', why: WHY_SERIES_CLEAR });
  assert.deepEqual(cveOf(s2019('10.0.17763.1998'), 'CVE-2020-0601').v, {
    ...fix,
    status: 'needs review',
    note: 'Microsoft gives no fixed build for KB4534273 (2020-01) and no build-known update brackets build 10.0.17763.1998',
    why: 'no fixed build to compare',
  });
  assert.deepEqual(cveOf(s2019('10.0.17763.1998', ['KB4534273']), 'CVE-2020-0601').v, {
    ...fix,
    status: 'cleared (patched)',
    note: null,
    why: 'the KB list contains KB4534273 or a later cumulative update',
  });
});

test('a fix outside the cumulative series: needs review whatever the build, cleared by its KB in the list', () => {
  const fix = {
    fixType: 'kb',
    derived: false,
    fixedBuild: '10.0.17763.4131',
    kb: 'KB5023702',
    fixClass: 'other',
    fixMonth: '2021-06',
    fixUrl: `${CATALOG}KB5023702`,
  } as const;
  assert.deepEqual(cveOf(s2019('10.0.17763.9000'), 'CVE-2021-26414').v, {
    ...fix,
    status: 'needs review',
    why: 'the fix is not a cumulative update',
    note: "KB5023702 (build 10.0.17763.4131) is not one of this product's monthly cumulative updates (for example a Safe OS/WinRE, Secure Boot or other separate update); the OS build cannot confirm it. Check that KB5023702 is installed",
  });
  assert.deepEqual(cveOf(s2019('10.0.17763.9000', ['KB5023702']), 'CVE-2021-26414').v, {
    ...fix,
    status: 'cleared (patched)',
    note: null,
    why: 'the KB list contains KB5023702',
  });
  // CVE-2022-2601 on Windows 11 24H2: MSRC gives a 22621 FixedBuild, a build of Windows 11 22H2's line: the row is
  // another product's (cross-product.ts), so no KB of this product is named and the note gives the evidence.
  assert.deepEqual(cveOf(w11('10.0.26100.9000'), 'CVE-2022-2601').v, {
    fixType: 'kb',
    derived: false,
    fixedBuild: null,
    kb: null,
    fixClass: null,
    fixMonth: null,
    fixUrl: null,
    status: 'needs review',
    why: "Microsoft's row names another product's update",
    note: "Microsoft lists KB5055528 with fixed build 10.0.22621.5189 for Windows 11 Version 24H2 for x64-based Systems, which is a build of Windows 11 Version 22H2 for x64-based Systems, not of this product's line. Another product's update cannot confirm or clear this CVE here: check with Microsoft which update of Windows 11 Version 24H2 for x64-based Systems fixes it",
  });
});

test('only a servicing stack update (CVE-2021-26414 on Windows 10 1507), and no update at all (CVE-2022-37966 on Server 2019)', () => {
  const ssu = {
    fixType: 'kb',
    derived: false,
    fixedBuild: null,
    kb: 'KB5023787',
    fixClass: 'ssu',
    fixMonth: '2021-06',
    fixUrl: `${CATALOG}KB5023787`,
    why: 'servicing stack update',
  } as const;
  assert.deepEqual(cveOf(w10('10.0.10240.20000'), 'CVE-2021-26414').v, {
    ...ssu,
    status: 'needs review',
    note: 'Microsoft lists only the servicing stack update KB5023787; check that it is installed',
  });
  assert.deepEqual(cveOf(w10('10.0.10240.20000', ['KB5023787']), 'CVE-2021-26414').v, {
    ...ssu,
    status: 'cleared (patched)',
    note: null,
  });
  assert.deepEqual(cveOf(s2019('10.0.17763.9000'), 'CVE-2022-37966').v, {
    status: 'confirmed open',
    fixedBuild: null,
    kb: null,
    note: null,
    fixClass: null,
    fixMonth: null,
    fixUrl: null,
    derived: false,
    why: 'Microsoft lists this product as affected and publishes no update for it',
    fixType: 'none',
  });
});

test('CVE-2026-21519 on Windows 11 24H2: the hotpatch build 7781 clears below the LCU build 7840; 7782 is open', () => {
  const lcu = {
    fixedBuild: '10.0.26100.7840',
    kb: 'KB5077181',
    fixClass: 'lcu',
    fixMonth: '2026-02',
    fixUrl: `${CATALOG}KB5077181`,
    derived: false,
    fixType: 'kb',
    note: null,
  } as const;
  assert.deepEqual(cveOf(w11('10.0.26100.7781'), 'CVE-2026-21519').v, {
    ...lcu,
    status: 'cleared (patched)',
    why: 'the host is on hotpatch KB5077212 (build 10.0.26100.7781), which Microsoft lists as fixing this CVE',
  });
  assert.deepEqual(cveOf(w11('10.0.26100.7782'), 'CVE-2026-21519').v, {
    ...lcu,
    status: 'confirmed open',
    why: WHY_BELOW,
  });
  assert.deepEqual(cveOf(w11('10.0.26100.7840'), 'CVE-2026-21519').v, {
    ...lcu,
    status: 'cleared (patched)',
    why: WHY_BUILD,
  });
});

test('CVE-2022-37992 on Server 2022: the hotpatch build 1251 is above the LCU build 1249, so the build clears it', () => {
  const h = evalHost({
    asset_id: 's22',
    os_product: 'Windows Server 2022 Standard',
    edition_id: 'ServerStandard',
    os_build: '10.0.20348.1251',
    architecture: 'x64',
    installation_type: 'Server',
  });
  const c = cveOf(h, 'CVE-2022-37992');
  assert.deepEqual(
    c.p.hot.map((f) => `${f.kb} ${f.build?.text}`),
    ['KB5019080 10.0.20348.1251'],
  );
  assert.deepEqual(
    [c.v.status, c.v.kb, c.v.fixedBuild, c.v.why],
    ['cleared (patched)', 'KB5019081', '10.0.20348.1249', WHY_BUILD],
  );
});
