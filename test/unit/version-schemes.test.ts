import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  comparatorOf,
  distinctIn,
  compareSchneider,
  compareSiemens,
  compareYokogawa,
  explainUnordered,
  orderableIn,
  rangeReadable,
  schemeOf,
  type Scheme,
} from '../../src/domain/version-schemes.ts';
import {
  compareBind,
  compareCisco,
  compareHotfix,
  compareJuniper,
  compareRpm,
  parseEvr,
  rpmvercmp,
} from '../../src/domain/version-schemes-it.ts';
import { certainPrefix, general, type Compare } from '../../src/domain/version-grammar.ts';
import type { AffectedRange } from '../../src/domain/ranges.ts';

// Spellings as the CVE records (../shared/data/cve5) and CISA advisories (../shared/data/csaf-ics) write them.

/** Each row [a, b, expected]: the comparator's answer for a against b. */
function orders(cmp: Compare, rows: [string, string, ReturnType<Compare>][]): void {
  for (const [a, b, want] of rows) assert.equal(cmp(a, b), want, `${a} vs ${b}`);
}

test('schemeOf: the vendor decides (Siemens, Rockwell, Schneider, Yokogawa, Fortinet, Palo Alto, ISC, F5, Cisco); OpenSSL by its product; else dotted', () => {
  const rows: [string, string, Scheme][] = [
    ['Siemens', 'SIMATIC WinCC', 'siemens'],
    ['Siemens AG', 'SIMATIC WinCC', 'siemens'],
    ['Rockwell Automation', 'GuardLogix 5580', 'rockwell'],
    ['Schneider Electric', 'EcoStruxure', 'schneider'],
    ['Yokogawa', 'CENTUM VP', 'yokogawa'],
    ['OpenSSL', 'OpenSSL', 'openssl'],
    ['Debian', 'openssl', 'openssl'],
    ['Fortinet', 'FortiOS', 'hotfix'],
    ['Palo Alto Networks', 'PAN-OS', 'hotfix'],
    ['ISC', 'BIND 9', 'bind'],
    ['F5', 'BIG-IP', 'f5'],
    ['Cisco', 'Cisco IOS XE Software', 'cisco'],
    ['Juniper Networks', 'Junos OS', 'juniper'],
    ['Emerson', 'ROC800', 'dotted'],
  ];
  for (const [vendor, product, scheme] of rows) assert.equal(schemeOf(vendor, product), scheme, `${vendor} ${product}`);
});

test('Siemens: V<major>.<minor> [SP<n>] [Update|Upd <n><letter>] [HF<n>] ordered as (core, SP, update, letter, HF)', () => {
  // ICSA-21-033-02 "All versions < V16 Update 3a"; CSAF "< V14 SP1 Update 14"; "< V7.5 Upd 3" (WinCC)
  orders(compareSiemens, [
    ['V7.5 SP2 Update 15', 'V7.5 Upd 3', 1],
    ['V7.5 Upd 3', 'V7.5 Update 3', 0],
    ['V7.5 Upd 2', 'V7.5 Upd 3', -1],
    ['V7.5 SP2 Update 15', 'V7.5 SP2', 1],
    ['V7.5 SP1 Update 20', 'V7.5 SP2', -1],
    ['V16 Update 3', 'V16 Update 3a', -1],
    ['V16 Update 3a', 'V16 Update 3a', 0],
    ['V16 Update 3b', 'V16 Update 3a', 1],
    ['V16 Update 4', 'V16 Update 3a', 1],
    ['V1.0 SP1 Update 1', 'V1.0 SP1', 1],
    ['V1.0 SP1', 'V1.0 SP1 Update 1', -1],
    ['V2.0 SP1', 'V1.0 SP2', 1],
    ['V4.7 SP6 HF1', 'V4.7 SP6', 1],
    ['V4.7 SP6 HF1', 'V4.7 SP7', -1],
    ['V15.1', 'V15.1 Upd 3', -1],
    ['V16', 'V15.1 Upd 3', 1],
    // CISA CSAF "<V18_Update_2", "<V7.5_SP2_Update_15" (underscores for spaces)
    ['V18 Update 2', 'V18_Update_2', 0],
    ['V18 Update 1', 'V18_Update_2', -1],
    ['V18 Update 3', 'V18_Update_2', 1],
    ['V7.5 SP2 Update 14', 'V7.5_SP2_Update_15', -1],
    ['V7.5_SP2_Update_15', 'V7.5 SP2 Upd 15', 0],
  ]);
});

test('Siemens: a service-pack spelling against a plain version of more components is a mix of schemes, decided only where the written components differ', () => {
  // WinCC: "< V7.5.2.13" against an asset "V7.5 SP2 Update 15": SP2 may be the .2
  orders(compareSiemens, [
    ['V7.5 SP2 Update 15', 'V7.5.2.13', 'needs_review'],
    ['V7.5.2.13', 'V7.5 SP2 Update 15', 'needs_review'],
  ]);
  assert.match(explainUnordered('siemens', 'V7.5 SP2 Update 15', 'V7.5.2.13')!, /mixes version schemes/);
  orders(compareSiemens, [
    ['V7.5 SP2 Update 15', 'V7.6.0.1', -1],
    ['V7.6.0.1', 'V7.5 SP2 Update 15', 1],
    ['V7.5 SP2', 'V7.4.1.3', 1],
  ]);
  // a plain version of no more components than the core is ordered as usual
  orders(compareSiemens, [
    ['V7.5 SP2', 'V7.5', 1],
    ['V7.5 SP2', 'V7.5.0', 1],
  ]);
});

test('Rockwell and F5: dotted numerics ("V33.017" = "33.17"; four-part "16.1.4.1" after "16.1.4")', () => {
  const c = comparatorOf('rockwell');
  orders(c, [
    ['34.011', 'V34.014', -1],
    ['V34.014', 'v.34.014', 0],
    ['34.015', 'V34.014', 1],
  ]);
  const f5 = comparatorOf('f5');
  orders(f5, [
    ['16.1.4', '16.1.4.1', -1],
    ['16.1.4.1', '16.1.4.1', 0],
    ['16.1.4.2', '16.1.4.1', 1],
    ['16.1.4', '16.1.5', -1],
  ]);
});

test('Schneider: SV, V and no letters are one version; an IR build comes after its release and before the next', () => {
  // CVE-2023-6408 "Versions prior to sv3.60"; ICSA-23-201-01 "< SV3.51"; "<= SV1.70 IR22"
  orders(compareSchneider, [
    ['3.50', 'SV3.51', -1],
    ['3.51', 'SV3.51', 0],
    ['V3.52', 'sv3.51', 1],
    ['SV1.70 IR22', 'SV1.70', 1],
    ['SV1.70 IR22', 'SV1.70 IR23', -1],
    ['SV1.70 IR22', 'SV1.80', -1],
  ]);
});

test('Yokogawa: R<major>.<minor>.<patch>, the R optional on either side', () => {
  orders(compareYokogawa, [
    ['R5.04.20', 'R4.01.00', 1],
    ['R5.04.20', 'R6.07.00', -1],
    ['5.04.20', 'R5.04.20', 0],
    ['R6.07.00', 'R6.07.00', 0],
    ['R6.07.01', 'R6.07.00', 1],
  ]);
});

test('OpenSSL: letter releases after the plain release (1.1.1 < 1.1.1i < 1.1.1l < 1.1.1za < 1.1.2)', () => {
  const c = comparatorOf('openssl');
  orders(c, [
    ['1.1.1', '1.1.1i', -1],
    ['1.1.1i', '1.1.1i', 0],
    ['1.1.1j', '1.1.1i', 1],
    ['1.0.2zb', '1.0.2zc', -1],
    ['1.1.1za', '1.1.2', -1],
  ]);
});

test('Fortinet and Palo Alto hotfixes: 10.2.7 < 10.2.7-h3 < 10.2.7-h4 < 10.2.8', () => {
  // CVE-2024-3382: PAN-OS lessThan "10.2.7-h3"
  orders(compareHotfix, [
    ['10.2.7', '10.2.7-h3', -1],
    ['10.2.7-h3', '10.2.7-h3', 0],
    ['10.2.7-h4', '10.2.7-h3', 1],
    ['10.2.8', '10.2.7-h3', 1],
    ['10.2.6-h9', '10.2.7', -1],
  ]);
  // the general comparator refuses it: "-h3" is no pre-release
  assert.equal(general('10.2.7', '10.2.7-h3'), 'needs_review');
});

test('BIND: -S (Supported Preview) editions ordered within their edition; across editions needs_review with the reason', () => {
  // CVE-2023-4408: "9.18.11-S1" through "9.18.24-S1" beside "9.18.0" through "9.18.24"
  orders(compareBind, [
    ['9.18.24', '9.18.24', 0],
    ['9.18.25', '9.18.24', 1],
    ['9.18.11-S1', '9.18.24-S1', -1],
    ['9.18.24-S1', '9.18.24-S1', 0],
    ['9.18.24', '9.18.24-S1', 'needs_review'],
  ]);
  assert.match(explainUnordered('bind', '9.18.24', '9.18.11-S1')!, /Supported Preview/);
});

test('Juniper: Junos releases 22.4 < 22.4R1 < 22.4R1-S1 < 22.4R3-S3 < 23.1; -EVO only against -EVO', () => {
  // the Junos records' ">= 22.4, < 22.4R3-S3" and ">= 22.4-EVO, < 22.4R3-EVO"
  orders(compareJuniper, [
    ['22.4', '22.4R1', -1],
    ['22.4R1', '22.4R1-S1', -1],
    ['22.4R3-S2', '22.4R3-S3', -1],
    ['22.4R3-S3', '22.4r3-s3', 0],
    ['22.4R3-S4', '22.4R3-S3', 1],
    ['22.4R4', '22.4R3-S3', 1],
    ['23.1R1', '22.4R3-S3', 1],
    ['22.4R2-EVO', '22.4R3-EVO', -1],
    ['22.4R3-EVO', '22.4R3-EVO', 0],
    ['22.4R2', '22.4R3-EVO', 'needs_review'],
  ]);
});

test('Cisco NX-OS "6.0(2)A3(1)" and IOS XE 3 "3.7.4aS": one train at a time; two trains are distinct but not ordered', () => {
  // CVE-2024-20267 (NX-OS: "6.0(2)A3(1)" … "7.0(3)I7(5a)", "7.0(3)F3(3)"), CVE-2023-20109 (IOS XE: "3.7.4aS", "3.3.0SG")
  orders(compareCisco, [
    ['6.0(2)A3(1)', '6.0(2)A3(2)', -1],
    ['6.0(2)A3(2)', '6.0(2)A3(2)', 0],
    ['6.0(2)A3(4)', '6.0(2)A4(1)', -1],
    ['6.0(2)A4(1)', '6.0(2)A3(4)', 1],
    ['7.0(3)I7(5)', '7.0(3)I7(5a)', -1],
    ['7.0(3)I7(5b)', '7.0(3)I7(5a)', 1],
    ['7.0(3)I7(5a)', '7.0(3)I7(6)', -1],
    ['6.0(2)A8(11)', '7.0(3)A1(1)', -1],
    ['7.0(3)F3(3)', '7.0(3)I7(5)', 'needs_review'],
    // a train without a number: "7.3(0)DX(1)"
    ['7.3(0)DX(1)', '7.3(0)DX(1)', 0],
    ['7.3(0)DX(1)', '7.3(0)DX(2)', -1],
    ['7.3(0)DX(1)', '7.3(0)D1(1)', 'needs_review'],
    ['7.0\\(3\\)f3\\(3\\)', '7.0(3)F3(3)', 0],
    ['3.7.4aS', '3.7.4aS', 0],
    ['3.7.4S', '3.7.4aS', -1],
    ['3.7.4bS', '3.7.4aS', 1],
    ['3.7.5S', '3.7.4bS', 1],
    ['3.3.0SG', '3.3.2SG', -1],
    ['3.3.0SG', '3.3.0S', 'needs_review'],
    ['3.7.4aS', '6.0(2)A3(1)', 'needs_review'],
    // an IOS train still through the general comparator
    ['15.2(4)M', '15.2(4)M1', -1],
  ]);
  assert.equal(distinctIn('cisco', '7.0(3)F3(3)', '7.0(3)I7(5)'), true);
  assert.equal(distinctIn('cisco', '3.3.0SG', '3.3.0S'), true);
  assert.equal(distinctIn('cisco', '9.3(5)', '7.0(3)I7(5)'), true);
  assert.equal(distinctIn('cisco', '7.0(3)I7(5)', '7.0(3)I7(6)'), false);
  assert.equal(distinctIn('cisco', '11.7.0', '11.7.0-406'), false);
  assert.equal(distinctIn('dotted', '7.0(3)F3(3)', '7.0(3)I7(5)'), false);
  assert.match(explainUnordered('cisco', '7.0(3)F3(3)', '7.0(3)I7(5)')!, /two trains/);
});

test('Cisco ISE patches "2.6.0 p1" after their release; AsyncOS builds "11.7.0-406" within theirs', () => {
  // CVE-2023-20175 (ISE: "2.6.0 p1" … "3.2.0_p1"), CVE-2024-20256 (Secure Web Appliance: "11.7.0-406", "11.7.1-049")
  orders(compareCisco, [
    ['2.6.0', '2.6.0 p1', -1],
    ['2.6.0 p1', '2.6.0_p1', 0],
    ['2.6.0 p2', '2.6.0 p1', 1],
    ['2.6.0 p12', '2.7.0', -1],
    ['2.7.0_p1', '2.6.0 p12', 1],
    ['11.7.0-406', '11.7.0-418', -1],
    ['11.7.0-418', '11.7.0-418', 0],
    ['11.7.1-006', '11.7.0-418', 1],
    ['11.7.0', '11.7.0-406', 'needs_review'],
    ['11.7.1', '11.7.0-406', 1],
    ['11.6.9', '11.7.0-406', -1],
    ['2.6.0 p1', '2.6.0-406', 'needs_review'],
  ]);
  assert.match(explainUnordered('cisco', '11.7.0', '11.7.0-406')!, /"11.7.0" names no build of its release/);
});

test('Cisco trains: through the general comparator, one train at a time', () => {
  const c = comparatorOf('cisco');
  orders(c, [
    ['15.2(4)M', '15.2(4)M1', -1],
    ['15.2(4)M2', '15.2(4)M1', 1],
    ['15.2(4)M', '15.2(4)E', 'needs_review'],
  ]);
});

test('schemeOf: versionType "rpm" is the RPM scheme whoever ships it; any other versionType leaves the vendor\'s', () => {
  assert.equal(schemeOf('Red Hat', 'Red Hat Enterprise Linux 9', 'rpm'), 'rpm');
  assert.equal(schemeOf('SUSE', 'SUSE Linux Enterprise Server 15', 'RPM'), 'rpm');
  assert.equal(schemeOf('Red Hat', 'Red Hat Enterprise Linux 9', 'custom'), 'dotted');
  assert.equal(schemeOf('Red Hat', 'Red Hat Enterprise Linux 9', 'rpmx'), 'dotted');
  assert.equal(schemeOf('Siemens', 'SIMATIC', null), 'siemens');
});

test('RPM: rpmvercmp, the order rpm installs by (numbers above letters, "~" before the end, "^" after it)', () => {
  orders(
    (a, b) => rpmvercmp(a, b),
    [
      ['1.0', '1.0', 0],
      ['1.0', '1.0.1', -1],
      ['1.0.10', '1.0.9', 1],
      ['1.0010', '1.10', 0],
      ['1.0a', '1.0', 1],
      ['1.0a', '1.0.1', -1],
      ['1.0', '1.0a1', -1],
      ['2.0a', '2.0.a', 0],
      ['1.0~rc1', '1.0', -1],
      ['1.0~rc1', '1.0~rc2', -1],
      ['1.0^git1', '1.0', 1],
      ['1.0^git1', '1.0.1', -1],
      ['1.0^', '1.0^', 0],
      ['a', '1', -1],
      ['1', 'a', 1],
    ],
  );
});

test('RPM: EVRs ordered by epoch, version, release; a spelling without a release is never ordered against a build', () => {
  // CVE-2023-38200 (keylime, Red Hat Enterprise Linux 9): unaffected from "0:6.5.2-6.el9_2"
  assert.deepEqual(parseEvr('0:6.5.2-6.el9_2'), { epoch: 0, version: '6.5.2', release: '6.el9_2' });
  assert.deepEqual(parseEvr('v1.1.0-10'), { epoch: 0, version: '1.1.0', release: '10' });
  assert.deepEqual(parseEvr('6.5.2'), { epoch: 0, version: '6.5.2', release: null });
  assert.equal(parseEvr('6.5.2 (el9)'), null);
  orders(compareRpm, [
    ['0:6.5.2-6.el9_2', '0:6.5.2-6.el9_2', 0],
    ['6.5.2-6.el9_2', '0:6.5.2-6.el9_2', 0],
    ['0:6.5.2-5.el9_2', '0:6.5.2-6.el9_2', -1],
    ['0:6.5.2-7.el9', '0:6.5.2-6.el9_2', 1],
    ['0:6.5.1-9.el9', '0:6.5.2-6.el9_2', -1],
    ['1:6.5.1-1.el9', '0:6.5.2-6.el9_2', 1],
    // CVE-2023-33951: the kernel and the kernel-rt builds of one product
    ['0:5.14.0-284.75.1.el9_2', '0:5.14.0-284.74.1.el9_2', 1],
    ['0:5.14.0-284.75.1.el9_2', '0:5.14.0-284.75.1.el9_2', 0],
    // CVE-2024-1132 "1.2-23" (Migration Toolkit for Runtimes)
    ['1.2-22', '1.2-23', -1],
    ['1.2-23', '1.2-23', 0],
    ['1.2-24', '1.2-23', 1],
    ['9.2', '0:6.5.2-6.el9_2', 'needs_review'],
    ['6.5.2', '0:6.5.2-6.el9_2', 'needs_review'],
    ['0:6.5.2-6.el9_2', '7', 'needs_review'],
    ['9.2', '9.3', -1],
  ]);
  assert.match(
    explainUnordered('rpm', '9.2', '0:6.5.2-6.el9_2')!,
    /"0:6\.5\.2-6\.el9_2" is an RPM package build .* "9\.2" names no release/,
  );
  assert.equal(explainUnordered('rpm', '9.2', '9.3'), null);
});

test('dotted: whatever the versionType; a readable prefix orders a broken spelling where the components already differ', () => {
  // CVE-2023-29180 ">= 6.2.0, <= 6.2..14" (FortiOS) asked with 7.2.7; ABB ">= 1.0:0, <= 3.2.1" asked with 3.2.1
  assert.deepEqual(certainPrefix('6.2..14'), [6, 2]);
  assert.deepEqual(certainPrefix('1.0:0'), [1, 0]);
  assert.equal(certainPrefix('10.0.0 < publication'), null);
  assert.equal(certainPrefix('6.2.14'), null);
  orders(general, [
    ['7.2.7', '6.2..14', 1],
    ['6.1.9', '6.2..14', -1],
    ['6.2.5', '6.2..14', 'needs_review'],
    ['3.2.1', '1.0:0', 1],
    ['1.0.5', '1.0:0', 'needs_review'],
    ['0.9', '1.0:0', -1],
    // CVE-2019-16670 (Weidmüller, CISA CSAF) "<= 3.4.4 Build 16102416": the release is certain, the build is not ordered
    ['3.4.3', '3.4.4 Build 16102416', -1],
    ['3.4.5', '3.4.4 Build 16102416', 1],
    ['3.4.4', '3.4.4 Build 16102416', 'needs_review'],
    ['3.4.4.1', '3.4.4 Build 16102416', 'needs_review'],
    ['3.4.4 Build 16102417', '3.4.4 Build 16102416', 'needs_review'],
  ]);
  assert.deepEqual(certainPrefix('3.4.4 Build 16102416'), [3, 4, 4]);
  assert.equal(certainPrefix('3.4.4 Build'), null);
  assert.equal(certainPrefix('3.4.4 Build 1610 2416 17'), null);
});

test('orderableIn and rangeReadable: what the range census counts as a machine range', () => {
  assert.equal(orderableIn('siemens', 'V7.5 SP2 Update 15'), true);
  assert.equal(orderableIn('dotted', 'V7.5 SP2 Update 15'), false);
  assert.equal(orderableIn('hotfix', '10.2.7-h3'), true);
  assert.equal(orderableIn('dotted', 'QCA6574AU'), false);
  assert.equal(orderableIn('rpm', '0:6.5.2-6.el9_2'), true);
  assert.equal(orderableIn('dotted', '0:6.5.2-6.el9_2'), false);
  const base: AffectedRange = {
    source: 'cve5',
    vendor: 'Siemens',
    product: 'SIMATIC WinCC',
    cpe: null,
    status: 'affected',
    version: null,
    start: null,
    end: { version: 'V7.5 SP2 Update 15', inclusive: false },
    versionType: null,
    changes: [],
    defaultStatus: null,
    fixedIn: null,
    runningOn: null,
    text: null,
  };
  assert.equal(rangeReadable(base), true);
  assert.equal(rangeReadable({ ...base, vendor: 'Acme' }), false);
  assert.equal(rangeReadable({ ...base, end: null, text: '10.0.0 < publication' }), false);
  assert.equal(rangeReadable({ ...base, end: { version: '6.1.*', inclusive: true } }), true);
  // CVE-2023-38200: keylime builds within Red Hat Enterprise Linux 9 are no range of the product's versions
  const rpm = {
    ...base,
    vendor: 'Red Hat',
    product: 'keylime',
    end: null,
    start: { version: '0:6.5.2-6.el9_2', inclusive: true },
    versionType: 'rpm',
  };
  assert.equal(rangeReadable(rpm), true);
  assert.equal(rangeReadable({ ...rpm, versionType: null }), false);
  assert.equal(rangeReadable({ ...rpm, product: 'Red Hat Enterprise Linux 9', package: 'keylime' }), false);
});

// ---- total orders on each scheme's own grammar -------------------------------------------------------------------

const nat = (max: number) => fc.integer({ min: 0, max });
const siemensV = fc
  .tuple(
    nat(20),
    nat(9),
    fc.option(nat(5), { nil: undefined }),
    fc.option(nat(20), { nil: undefined }),
    fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
    fc.option(nat(5), { nil: undefined }),
    fc.constantFrom('Update', 'Upd'),
  )
  .map(
    ([a, b, sp, up, l, hf, word]) =>
      `V${a}.${b}${sp !== undefined ? ` SP${sp}` : ''}${up !== undefined ? ` ${word} ${up}${l ?? ''}` : ''}${hf !== undefined ? ` HF${hf}` : ''}`,
  );
const dotted = fc.array(nat(30), { minLength: 1, maxLength: 5 }).map((p) => p.join('.'));
/** [scheme (and which of its grammars), spellings of that grammar]. */
const GRAMMARS: [string, fc.Arbitrary<string>][] = [
  ['siemens', siemensV],
  ['rockwell', fc.tuple(nat(40), nat(999)).map(([a, b]) => `V${a}.${String(b).padStart(3, '0')}`)],
  [
    'schneider',
    fc
      .tuple(fc.constantFrom('SV', 'V', ''), nat(9), nat(99), fc.option(nat(30), { nil: undefined }))
      .map(([p, a, b, ir]) => `${p}${a}.${b}${ir !== undefined ? ` IR${ir}` : ''}`),
  ],
  [
    'yokogawa',
    fc
      .tuple(fc.constantFrom('R', ''), nat(9), nat(20), nat(99))
      .map(([r, a, b, c]) => `${r}${a}.${String(b).padStart(2, '0')}.${String(c).padStart(2, '0')}`),
  ],
  [
    'openssl',
    fc
      .tuple(nat(3), nat(1), nat(2), fc.option(fc.constantFrom('a', 'i', 'z', 'za', 'zb'), { nil: undefined }))
      .map(([a, b, c, l]) => `${a}.${b}.${c}${l ?? ''}`),
  ],
  [
    'hotfix',
    fc.tuple(dotted, fc.option(nat(20), { nil: undefined })).map(([v, h]) => (h !== undefined ? `${v}-h${h}` : v)),
  ],
  ['bind', fc.tuple(nat(9), nat(20), nat(40)).map(([a, b, c]) => `${a}.${b}.${c}-S${(c % 3) + 1}`)],
  ['f5', fc.tuple(nat(17), nat(1), nat(9), nat(9)).map(([a, b, c, d]) => `${a}.${b}.${c}.${d}`)],
  [
    'juniper',
    fc
      .tuple(nat(24), nat(4), fc.option(nat(5), { nil: undefined }), fc.option(nat(9), { nil: undefined }))
      .map(([a, b, r, x]) => `${a}.${b}${r !== undefined ? `R${r + 1}${x !== undefined ? `-S${x}` : ''}` : ''}`),
  ],
  [
    'rpm',
    fc
      .tuple(
        fc.option(nat(2), { nil: undefined }),
        fc.array(fc.oneof(nat(30).map(String), fc.constantFrom('a', 'b', 'rc', 'git', 'el')), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.constantFrom('', '~rc1', '^git1'),
        fc.array(fc.oneof(nat(30).map(String), fc.constantFrom('el9', 'el8_6', 'fc39')), {
          minLength: 1,
          maxLength: 3,
        }),
      )
      .map(
        ([e, v, t, r]) =>
          `${e !== undefined ? `${e}:` : ''}${/^\d/.test(v[0]) ? '' : '0.'}${v.join('.')}${t}-${r.join('.')}`,
      ),
  ],
  [
    'cisco NX-OS',
    fc
      .tuple(nat(10), nat(3), nat(5), fc.constantFrom('', 'a'), nat(9), nat(20), fc.constantFrom('', 'a', 'b'))
      .map(([a, b, c, i, t, r, l]) => `${a}.${b}(${c}${i})I${t}(${r}${l})`),
  ],
  ['cisco IOS XE 3', fc.tuple(nat(17), nat(9), fc.constantFrom('', 'a', 't')).map(([a, b, i]) => `3.${a}.${b}${i}S`)],
  [
    'cisco patch',
    fc.tuple(dotted, fc.option(nat(20), { nil: undefined })).map(([v, p]) => (p !== undefined ? `${v} p${p}` : v)),
  ],
  ['cisco build', fc.tuple(dotted, nat(999)).map(([v, b]) => `${v}-${String(b).padStart(3, '0')}`)],
  [
    'cisco',
    fc
      .tuple(nat(15), nat(9), nat(9), fc.option(nat(9), { nil: undefined }))
      .map(([a, b, c, r]) => `${a}.${b}(${c})M${r ?? ''}`),
  ],
  ['dotted', dotted],
];

for (const [scheme, arb] of GRAMMARS) {
  test(`${scheme}: the comparator is a total order on its scheme (total, reflexive, antisymmetric, transitive)`, () => {
    const cmp: Compare = comparatorOf(scheme.split(' ')[0] as Scheme);
    fc.assert(
      fc.property(arb, arb, arb, (a, b, c) => {
        const ab = cmp(a, b);
        const bc = cmp(b, c);
        const ac = cmp(a, c);
        assert.notEqual(ab, 'needs_review', `${a} vs ${b}`);
        assert.notEqual(bc, 'needs_review');
        assert.notEqual(ac, 'needs_review');
        assert.equal(cmp(a, a), 0);
        assert.equal(cmp(b, a), ab === 0 ? 0 : -(ab as number));
        if (ab !== 'needs_review' && bc !== 'needs_review' && ab <= 0 && bc <= 0)
          assert.ok((ac as number) <= 0, `${a} <= ${b} <= ${c}`);
        if (ab !== 'needs_review' && bc !== 'needs_review' && ab >= 0 && bc >= 0)
          assert.ok((ac as number) >= 0, `${a} >= ${b} >= ${c}`);
      }),
      { numRuns: 300 },
    );
  });
}
