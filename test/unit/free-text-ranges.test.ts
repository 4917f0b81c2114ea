// Free-text ranges read into structured ones (domain/free-text-ranges.ts), on the spellings of the CVE records
// (../shared/data/cve5) and CISA advisories (../shared/data/csaf-ics) the comments name, and the verdicts they give
// through the readers (ingest/cve5.ts rangesOfAffected) and correlation (domain/correlate.ts verdict).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFreeText } from '../../src/domain/free-text-ranges.ts';
import { rangeRows, verdict, verdictStatus, type Asset } from '../../src/domain/correlate.ts';
import { rangesOfAffected } from '../../src/ingest/cve5-affected.ts';
import type { AffectedRange } from '../../src/domain/ranges.ts';

const b = (version: string, inclusive: boolean) => ({ version, inclusive });
const pieces = (text: string, vendor: string, product: string) =>
  readFreeText(text, vendor, product)?.pieces.map((p) => [p.version, p.start, p.end, p.fixedIn]);
const exact = { confidence: 'exact' as const, basis: 'test' };

function decide(asset: Asset, ranges: AffectedRange[], source = 'cve5', key = 'CVE-test') {
  const matched = rangeRows([{ source, source_key: key, ranges }]).map((row) => ({ row, match: exact }));
  const v = verdict(asset, matched);
  assert.equal(verdictStatus(asset, matched), v.status, 'verdictStatus agrees with verdict');
  return v;
}
/** The CVE 5 reader's ranges of one affected[] entry with one `version` text. */
const cve5 = (vendor: string, product: string, version: string, status = 'affected') =>
  rangesOfAffected({ vendor, product, versions: [{ version, status }] });
/** Each row [asset version, expected status]. */
function statusesAt(at: (version: string) => string, rows: [string, string][]): void {
  for (const [version, status] of rows) assert.equal(at(version), status, version);
}

test('"All versions", "All versions < X", "All versions prior to X"', () => {
  assert.deepEqual(readFreeText('All versions', 'Siemens', 'SIMATIC'), { all: true, pieces: [], condition: null });
  assert.deepEqual(pieces('All versions < V16 Update 3a', 'Siemens', 'SIMATIC HMI Comfort Panels'), [
    [null, null, b('V16 Update 3a', false), 'V16 Update 3a'],
  ]);
  assert.deepEqual(pieces('All versions < V1.0 SP1 Update 1', 'Siemens', 'SIMATIC'), [
    [null, null, b('V1.0 SP1 Update 1', false), 'V1.0 SP1 Update 1'],
  ]);
  assert.deepEqual(pieces('All versions prior to v9.3.0', 'Schneider Electric', 'EcoStruxure'), [
    [null, null, b('v9.3.0', false), 'v9.3.0'],
  ]);
});

test('"prior to", "before", "and prior", "and earlier", "and below", "up to and including"', () => {
  // CVE-2023-6408, CVE-2022-40267, CVE-2021-44168, CVE-2019-5591
  assert.deepEqual(pieces('Versions prior to 5.4.2.2', 'Schneider Electric', 'X'), [
    [null, null, b('5.4.2.2', false), '5.4.2.2'],
  ]);
  assert.deepEqual(pieces('Versions prior to sv3.60', 'Schneider Electric', 'X'), [
    [null, null, b('sv3.60', false), 'sv3.60'],
  ]);
  assert.deepEqual(pieces('Versions 9.8 and prior', 'Schneider Electric', 'X'), [[null, null, b('9.8', true), null]]);
  assert.deepEqual(pieces('versions 66 and prior', 'Mitsubishi Electric', 'X'), [[null, null, b('66', true), null]]);
  assert.deepEqual(pieces('FortiOS before 7.0.3', 'Fortinet', 'FortiOS'), [[null, null, b('7.0.3', false), '7.0.3']]);
  assert.deepEqual(pieces('FortiOS 6.2.0 and below.', 'Fortinet', 'FortiOS'), [[null, null, b('6.2.0', true), null]]);
  assert.deepEqual(pieces('up to and including 2.3', 'Acme', 'Widget'), [[null, null, b('2.3', true), null]]);
  assert.deepEqual(
    pieces('Included in CX-One CXONE-AL[][]D-V4 V9.80 and earlier', 'OMRON Corporation', 'CX-Programmer'),
    [[null, null, b('V9.80', true), null]],
  );
});

test('"X through Y", "X-Y", "X - Y", "X to Y": both ends included', () => {
  assert.deepEqual(pieces('12.4.1-12.4.11', 'Hitachi Energy', 'RTU500'), [
    [null, b('12.4.1', true), b('12.4.11', true), null],
  ]);
  assert.deepEqual(pieces('Version 16.00 - 16.20.02', 'Rockwell Automation', 'X'), [
    [null, b('16.00', true), b('16.20.02', true), null],
  ]);
  assert.deepEqual(
    pieces(
      'STARDOM FCN Controller and FCJ Controller R4.10 to R4.31',
      'Yokogawa',
      'STARDOM FCN Controller and FCJ Controller',
    ),
    [[null, b('R4.10', true), b('R4.31', true), null]],
  );
  assert.deepEqual(pieces('1.1.1-1.1.1i', 'OpenSSL', 'OpenSSL'), [[null, b('1.1.1', true), b('1.1.1i', true), null]]);
  // a hotfix or a revision is one version, not two
  assert.deepEqual(pieces('10.2.7-h3', 'Palo Alto Networks', 'PAN-OS'), [['10.2.7-h3', null, null, null]]);
});

test('lists separated by "|" or ",", a ">=" item joined with the "<"/"<=" after it; "N.x" branches', () => {
  // ICSA-20-051-01 (B&R), ICSA-24-116-02 (Hitachi Energy), CVE-2023-29180 (FortiOS, "6.2..14" as written)
  assert.deepEqual(
    pieces('2.7 | 3.0.71 | 3.0.80 | >= 4.0.x | <= 4.6.4', 'B&R Industrial Automation', 'Automation Runtime'),
    [
      ['2.7', null, null, null],
      ['3.0.71', null, null, null],
      ['3.0.80', null, null, null],
      [null, b('4.0', true), b('4.6.4', true), null],
    ],
  );
  assert.deepEqual(pieces('>=4.0|<4.5.x', 'Hitachi Energy', 'X'), [[null, b('4.0', true), b('4.5', false), '4.5']]);
  assert.deepEqual(pieces('>= 6.2.0, <= 6.2..14', 'Fortinet', 'FortiOS'), [
    [null, b('6.2.0', true), b('6.2..14', true), null],
  ]);
  assert.deepEqual(pieces('12.6.X', 'Hitachi Energy', 'RTU500'), [['12.6.*', null, null, null]]);
  assert.deepEqual(pieces('>= R4.01.00 | <= R6.07.00 (Including CENTUM VP Entry Class)', 'Yokogawa', 'CENTUM VP'), [
    [null, b('R4.01.00', true), b('R6.07.00', true), null],
  ]);
});

test('"Fixed in X (Affected A-B)": the affected range with its fix', () => {
  // CVE-2022-2097
  assert.deepEqual(pieces('Fixed in OpenSSL 3.0.5 (Affected 3.0.0-3.0.4)', 'OpenSSL', 'OpenSSL'), [
    [null, b('3.0.0', true), b('3.0.4', true), '3.0.5'],
  ]);
  assert.deepEqual(pieces('Fixed in OpenSSL 1.0.2zc-dev (Affected 1.0.2-1.0.2zb)', 'OpenSSL', 'OpenSSL'), [
    [null, b('1.0.2', true), b('1.0.2zb', true), '1.0.2zc'],
  ]);
  assert.deepEqual(pieces('Fixed in OpenSSL 3.0.1 (Affected 3.0.0)', 'OpenSSL', 'OpenSSL'), [
    ['3.0.0', null, null, '3.0.1'],
  ]);
});

test('per-line fixes: "<V33.017_V34.014_V35.013_V36.011" is one fix per major line', () => {
  // ICSA-24-284-20 (ControlLogix/GuardLogix 5580)
  const expected = [
    [null, null, b('V33.017', false), 'V33.017'],
    [null, b('34', true), b('V34.014', false), 'V34.014'],
    [null, b('35', true), b('V35.013', false), 'V35.013'],
    [null, b('36', true), b('V36.011', false), 'V36.011'],
  ];
  assert.deepEqual(pieces('<V33.017_V34.014_V35.013_V36.011', 'Rockwell Automation', 'GuardLogix 5580'), expected);
  assert.deepEqual(
    pieces(
      'Rockwell Automation GuardLogix 5580: <V33.017_V34.014_V35.013_V36.011',
      'Rockwell Automation',
      'GuardLogix 5580',
    ),
    expected,
  );
  // lines not ascending: no reading
  assert.equal(readFreeText('<V34.014_V33.017', 'Rockwell Automation', 'GuardLogix 5580'), null);
});

test('underscores for spaces in a Siemens spelling are no per-line fixes: "<V18_Update_2"', () => {
  // CISA CSAF (Siemens SIMATIC STEP 7 / WinCC TIA Portal) "<V18_Update_2", "<V7.5_SP2_Update_15"
  assert.deepEqual(pieces('<V18_Update_2', 'Siemens', 'SIMATIC STEP 7 V18'), [
    [null, null, b('V18_Update_2', false), 'V18_Update_2'],
  ]);
  assert.deepEqual(pieces('<V7.5_SP2_Update_15', 'Siemens', 'SIMATIC WinCC V7.5'), [
    [null, null, b('V7.5_SP2_Update_15', false), 'V7.5_SP2_Update_15'],
  ]);
  const product = 'SIMATIC STEP 7 V18';
  const ranges = cve5('Siemens', product, '<V18_Update_2');
  const at = (version: string) => decide({ vendor: 'Siemens', product, version }, ranges).status;
  statusesAt(at, [
    ['V18 Update 1', 'affected'],
    ['V18 Update 2', 'not_affected'],
    ['V18 Upd 3', 'not_affected'],
    ['V17 Update 7', 'affected'],
  ]);
});

test('a condition in words is kept, never dropped', () => {
  // ICSA-22-123-01, ICSA-22-174-02 (Yokogawa CENTUM VP)
  const r = readFreeText('>= R6.01.10 | <= R6.09.00 - (if VP6E5000 is installed)', 'Yokogawa', 'CENTUM VP')!;
  assert.deepEqual(
    [r.pieces.map((p) => [p.start, p.end]), r.condition],
    [[[b('R6.01.10', true), b('R6.09.00', true)]], 'if VP6E5000 is installed'],
  );
  const cams = readFreeText(
    '>= R3.08.10 | <= R3.09.00. | LHS4800 (CAMS for HIS)  is installed.',
    'Yokogawa',
    'CENTUM VP',
  )!;
  assert.deepEqual(
    [cams.pieces.map((p) => [p.start, p.end]), cams.condition],
    [[[b('R3.08.10', true), b('R3.09.00', true)]], 'LHS4800 (CAMS for HIS) is installed'],
  );
  const named = readFreeText(
    'CENTUM VP (Including CENTUM VP Entry Class): R6.01.10 through R6.09.00 - (if VP6E5000 is installed)',
    'Yokogawa',
    'CENTUM VP',
  )!;
  assert.equal(named.condition, 'if VP6E5000 is installed');
  assert.equal(
    readFreeText('All versions (affected only if the CAMS function is used)', 'Yokogawa', 'CENTUM VP')?.condition,
    'affected only if the CAMS function is used',
  );
});

test("unreadable text is no reading (the reader keeps it as text): words, other products' names, unknown suffixes", () => {
  for (const [t, v, p] of [
    ['10.0.0 < publication', 'Microsoft', 'Windows 10'],
    ['Modbus TCP <= v7.11', 'Pepperl+Fuchs', 'ICDM-RX'],
    ['< 3.3 SP1 3.x', 'ABB', 'S+ Operations'],
    ['andriod9_android10_android11', 'unisoc', 'SC9863A'],
    ['SMR Jul-2024 Release in Android 12, 13, 14', 'Samsung Mobile', 'Samsung Mobile Devices'],
    ['1.00 dated 16-12-2020', 'D-Link', 'DAP-1360'],
    ['See references', 'Acme', 'X'],
    ['unspecified <= latest', 'mlflow', 'mlflow'],
  ])
    assert.equal(readFreeText(t, v, p), null, t);
});

test("verdicts: the issue's spellings decide where they were needs_review, both sides of each boundary", () => {
  const at = (vendor: string, product: string, version: string): Asset => ({ vendor, product, version });
  // Schneider "Versions prior to sv3.60" asked with 3.50 and 3.60
  const sch = cve5('Schneider Electric', 'EcoStruxure Power Operation', 'Versions prior to sv3.60');
  assert.equal(decide(at('Schneider Electric', 'EcoStruxure Power Operation', '3.50'), sch).status, 'affected');
  assert.equal(decide(at('Schneider Electric', 'EcoStruxure Power Operation', '3.60'), sch).status, 'not_affected');
  // Mitsubishi "versions 66 and prior" asked with 66 and 67
  const mit = cve5('Mitsubishi Electric Corporation', 'MELSEC iQ-F', 'versions 66 and prior');
  assert.equal(decide(at('Mitsubishi Electric', 'MELSEC iQ-F', '66'), mit).status, 'affected');
  assert.equal(decide(at('Mitsubishi Electric', 'MELSEC iQ-F', '67'), mit).status, 'not_affected');
  // Siemens "All versions < V16 Update 3a"
  const sie = cve5('Siemens', 'SIMATIC HMI Comfort Panels', 'All versions < V16 Update 3a');
  assert.equal(decide(at('Siemens', 'SIMATIC HMI Comfort Panels', 'V16 Update 3'), sie).status, 'affected');
  assert.equal(decide(at('Siemens', 'SIMATIC HMI Comfort Panels', 'V16 Update 3a'), sie).status, 'not_affected');
  // Siemens ">= V1.0 SP1 < V1.0 SP2" asked with V2.0 SP1 (out) and V1.0 SP1 Update 4 (in)
  const sp = cve5('Siemens', 'SIMATIC X', '>= V1.0 SP1 < V1.0 SP2');
  assert.equal(decide(at('Siemens', 'SIMATIC X', 'V2.0 SP1'), sp).status, 'not_affected');
  assert.equal(decide(at('Siemens', 'SIMATIC X', 'V1.0 SP1 Update 4'), sp).status, 'affected');
  // "< V7.5.2.13" against V7.5 SP2 Update 15: a mix of schemes, said in the reason
  const mix = decide(
    at('Siemens', 'SIMATIC WinCC', 'V7.5 SP2 Update 15'),
    cve5('Siemens', 'SIMATIC WinCC', '< V7.5.2.13'),
  );
  assert.equal(mix.status, 'needs_review');
  assert.match(mix.reason, /mixes version schemes/);
  // OpenSSL "Fixed in OpenSSL 3.0.5 (Affected 3.0.0-3.0.4)"
  const ossl = cve5('OpenSSL', 'OpenSSL', 'Fixed in OpenSSL 3.0.5 (Affected 3.0.0-3.0.4)');
  assert.deepEqual(
    [
      decide(at('OpenSSL', 'OpenSSL', '3.0.4'), ossl).status,
      decide(at('OpenSSL', 'OpenSSL', '3.0.4'), ossl).fixed_version,
    ],
    ['affected', '3.0.5'],
  );
  assert.equal(decide(at('OpenSSL', 'OpenSSL', '3.0.5'), ossl).status, 'not_affected');
  // FortiOS ">= 6.2.0, <= 6.2..14" asked with 7.2.7 (certainly outside) and 6.2.5 (cannot be said)
  const forti = cve5('Fortinet', 'FortiOS', '>= 6.2.0, <= 6.2..14');
  assert.equal(decide(at('Fortinet', 'FortiOS', '7.2.7'), forti).status, 'not_affected');
  assert.equal(decide(at('Fortinet', 'FortiOS', '6.2.5'), forti).status, 'needs_review');
  // unreadable text stays needs_review, quoted
  const pub = decide(
    at('Microsoft', 'Windows 10', '10.0.19045.1'),
    rangesOfAffected({
      vendor: 'Microsoft',
      product: 'Windows 10',
      versions: [{ version: '10.0.0', lessThan: 'publication', status: 'affected' }],
    }),
  );
  assert.equal(pub.status, 'needs_review');
  assert.match(
    pub.reason,
    /not machine-readable: "10\.0\.0 < publication": the CVE record ends the range at the update published with the CVE, and names no version for it/,
  );
  // another unreadable end keeps the plain sentence
  const other = decide(
    at('Microsoft', 'Windows 10', '10.0.19045.1'),
    rangesOfAffected({
      vendor: 'Microsoft',
      product: 'Windows 10',
      versions: [{ version: '10.0.0', lessThan: 'publications', status: 'affected' }],
    }),
  );
  assert.match(other.reason, /not machine-readable: "10\.0\.0 < publications"$/);
});

test('verdicts: structured CVE record bounds written with spaces are versions in their scheme ("0 < V2.0 SP1", "0 <= Version 4.1.5")', () => {
  const sp = rangesOfAffected({
    vendor: 'Siemens',
    product: 'SIMATIC X',
    versions: [{ version: '0', lessThan: 'V2.0 SP1', status: 'affected', versionType: 'custom' }],
  });
  assert.deepEqual([sp[0].end, sp[0].text], [b('V2.0 SP1', false), null]);
  assert.equal(decide({ vendor: 'Siemens', product: 'SIMATIC X', version: 'V2.0' }, sp).status, 'affected');
  assert.equal(decide({ vendor: 'Siemens', product: 'SIMATIC X', version: 'V2.0 SP1' }, sp).status, 'not_affected');
  const em = rangesOfAffected({
    vendor: 'Emerson',
    product: 'ROC800',
    versions: [{ version: '0', lessThanOrEqual: 'Version 4.1.5', status: 'affected', versionType: 'custom' }],
  });
  assert.equal(decide({ vendor: 'Emerson', product: 'ROC800', version: '4.1.5' }, em).status, 'affected');
  assert.equal(decide({ vendor: 'Emerson', product: 'ROC800', version: '4.1.6' }, em).status, 'not_affected');
  // ABB ">= 1.0:0, <= 3.2.1" asked with 3.2.1 and 3.2.2
  const abb = rangesOfAffected({
    vendor: 'ABB',
    product: 'Ability',
    versions: [{ version: '1.0:0', lessThanOrEqual: '3.2.1', status: 'affected', versionType: 'custom' }],
  });
  assert.equal(decide({ vendor: 'ABB', product: 'Ability', version: '3.2.1' }, abb).status, 'affected');
  assert.equal(decide({ vendor: 'ABB', product: 'Ability', version: '3.2.2' }, abb).status, 'not_affected');
  // PAN-OS lessThan "10.2.7-h3" (CVE-2024-3382) asked with 10.2.7 and 10.2.7-h3
  const pan = rangesOfAffected({
    vendor: 'Palo Alto Networks',
    product: 'PAN-OS',
    versions: [{ version: '10.2.0', lessThan: '10.2.7-h3', status: 'affected', versionType: 'custom' }],
  });
  assert.equal(decide({ vendor: 'Palo Alto Networks', product: 'PAN-OS', version: '10.2.7' }, pan).status, 'affected');
  assert.equal(
    decide({ vendor: 'Palo Alto Networks', product: 'PAN-OS', version: '10.2.7-h3' }, pan).status,
    'not_affected',
  );
});

test("verdicts: per-line fixes decide by the fix of the version's own major line", () => {
  const rock = cve5('Rockwell Automation', 'GuardLogix 5580', '<V33.017_V34.014_V35.013_V36.011');
  const at = (version: string) => decide({ vendor: 'Rockwell Automation', product: 'GuardLogix 5580', version }, rock);
  assert.deepEqual([at('34.011').status, at('34.011').fixed_version], ['affected', 'V34.014']);
  assert.equal(at('34.014').status, 'not_affected');
  assert.equal(at('33.016').status, 'affected');
  assert.equal(at('33.017').status, 'not_affected');
  assert.equal(at('32.011').status, 'affected');
  assert.equal(at('36.010').status, 'affected');
  assert.equal(at('36.011').status, 'not_affected');
  assert.equal(at('37.011').status, 'not_affected');
});

test('verdicts: a condition keeps an in-range version needs_review with the condition quoted; outside the range it is not affected', () => {
  const yk = cve5('Yokogawa', 'CENTUM VP', '>= R6.01.10 | <= R6.09.00 - (if VP6E5000 is installed)');
  assert.equal(yk[0].condition, 'if VP6E5000 is installed');
  const inside = decide({ vendor: 'Yokogawa', product: 'CENTUM VP', version: 'R6.05.00' }, yk);
  assert.equal(inside.status, 'needs_review');
  assert.match(inside.reason, /only under a condition: "if VP6E5000 is installed"/);
  assert.equal(decide({ vendor: 'Yokogawa', product: 'CENTUM VP', version: 'R6.09.01' }, yk).status, 'not_affected');
  assert.equal(decide({ vendor: 'Yokogawa', product: 'CENTUM VP', version: 'R6.01.00' }, yk).status, 'not_affected');
  // the same text stating the range unaffected: not affected only under the condition, so needs_review too
  const un = cve5('Yokogawa', 'CENTUM VP', '>= R6.01.10 | <= R6.09.00 - (if VP6E5000 is installed)', 'unaffected');
  const unIn = decide({ vendor: 'Yokogawa', product: 'CENTUM VP', version: 'R6.05.00' }, un);
  assert.equal(unIn.status, 'needs_review');
  assert.match(unIn.reason, /not affected only under a condition/);
  // Yokogawa ">= R4.01.00 | <= R6.07.00 (Including CENTUM VP Entry Class)" asked with R5.04.20: the note widens, no condition
  const wide = cve5('Yokogawa', 'CENTUM VP', '>= R4.01.00 | <= R6.07.00 (Including CENTUM VP Entry Class)');
  assert.equal(decide({ vendor: 'Yokogawa', product: 'CENTUM VP', version: 'R5.04.20' }, wide).status, 'affected');
  assert.equal(decide({ vendor: 'Yokogawa', product: 'CENTUM VP', version: 'R6.07.01' }, wide).status, 'not_affected');
});

test('variants: an asset naming no variant is decided when every listed variant (two or more) agrees; else needs_review', () => {
  // Siemens names S7-1500 CPUs with their order numbers in brackets (ICSA advisories): the nameplate names none.
  const v = (product: string, end: string): AffectedRange => ({
    ...rangesOfAffected({
      vendor: 'Siemens',
      product,
      versions: [{ version: '0', lessThan: end, status: 'affected', versionType: 'custom' }],
    })[0],
  });
  const asset: Asset = { vendor: 'Siemens', product: 'SIMATIC S7-1500 CPU 1511-1 PN', version: 'V2.9.2' };
  const agree = [
    v('SIMATIC S7-1500 CPU 1511-1 PN (6ES7511-1AK02-0AB0)', 'V2.9.4'),
    v('SIMATIC S7-1500 CPU 1511-1 PN (6ES7511-1AK01-0AB0)', 'V2.9.7'),
  ];
  const decideVariants = (ranges: AffectedRange[], a: Asset) => {
    const rows = rangeRows([{ source: 'cve5', source_key: 'CVE-test', ranges }]);
    const matched = rows.map((row) => ({ row, match: { confidence: 'variant' as const, basis: 'test' } }));
    const out = verdict(a, matched);
    assert.equal(verdictStatus(a, matched), out.status);
    return out;
  };
  const yes = decideVariants(agree, asset);
  assert.equal(yes.status, 'affected');
  assert.match(yes.reason, /every variant the sources list/);
  // one variant fixed at this version, the other not: which variant the asset is decides
  assert.equal(
    decideVariants([agree[0], v('SIMATIC S7-1500 CPU 1511-1 PN (6ES7511-1AK01-0AB0)', 'V2.9.2')], asset).status,
    'needs_review',
  );
  // both fixed: not affected
  assert.equal(decideVariants(agree, { ...asset, version: 'V2.9.7' }).status, 'not_affected');
  // one variant alone: the asset may be another
  assert.equal(decideVariants([agree[0]], asset).status, 'needs_review');
});

test('RPM builds of a package the product carries (CVE 5 packageName, versionType "rpm") are the package\'s, never the product\'s version', () => {
  // CVE-2023-38200, Red Hat's affected entry as written: keylime builds within Red Hat Enterprise Linux 9
  const entry = {
    cpes: ['cpe:/a:redhat:enterprise_linux:9::appstream'],
    vendor: 'Red Hat',
    product: 'Red Hat Enterprise Linux 9',
    versions: [{ status: 'unaffected', version: '0:6.5.2-6.el9_2', lessThan: '*', versionType: 'rpm' }],
    packageName: 'keylime',
    collectionURL: 'https://access.redhat.com/downloads/content/package-browser/',
    defaultStatus: 'affected',
  };
  const ranges = rangesOfAffected(entry);
  assert.equal(ranges.length, 1);
  assert.equal(ranges[0].package, 'keylime');
  assert.deepEqual(ranges[0].start, b('0:6.5.2-6.el9_2', true));
  const rhel = (version: string) =>
    decide({ vendor: 'Red Hat', product: 'Red Hat Enterprise Linux 9', version }, ranges);
  for (const v of ['9.2', '0:6.5.2-5.el9_2', '0:6.5.2-6.el9_2', '0:6.5.2-7.el9_2']) {
    const d = rhel(v);
    assert.equal(d.status, 'needs_review', v);
    assert.match(
      d.reason,
      /for the package "keylime" of "Red Hat Enterprise Linux 9", not for the product's own version/,
    );
  }
  // The same entry with the package as the product (no packageName): the builds are the product's, ordered by rpm.
  const own = rangesOfAffected({ ...entry, product: 'keylime', packageName: undefined });
  assert.equal(own[0].package, undefined);
  const keylime = (version: string) => decide({ vendor: 'Red Hat', product: 'keylime', version }, own).status;
  assert.equal(keylime('0:6.5.2-6.el9_2'), 'not_affected');
  assert.equal(keylime('0:6.5.2-7.el9_2'), 'not_affected');
  assert.equal(keylime('0:6.5.2-5.el9_2'), 'affected');
  assert.equal(keylime('6.5.2'), 'needs_review');
  // another versionType keeps the product's versions (no package): the rule is the RPM builds'
  assert.equal(
    rangesOfAffected({ ...entry, versions: [{ status: 'affected', version: '6.5.2', versionType: 'custom' }] })[0]
      .package,
    undefined,
  );
});

test('"<product> N.x.x: V and below": a range within the branch, from the branch\'s start', () => {
  // CVE-2024-26294 (Aruba ClearPass Policy Manager), CVE-2024-31466 ("InstantOS or ArubaOS (access points) 10.5.x.x: …")
  const cpm = 'Aruba ClearPass Policy Manager';
  assert.deepEqual(
    pieces('ClearPass Policy Manager 6.11.x: 6.11.6 and below', 'Hewlett Packard Enterprise (HPE)', cpm),
    [[null, b('6.11', true), b('6.11.6', true), null]],
  );
  const aps = 'Aruba InstantOS and Aruba Access Points running ArubaOS 10';
  assert.deepEqual(
    pieces(
      'InstantOS or ArubaOS (access points) 10.5.x.x: 10.5.1.0 and below.',
      'Hewlett Packard Enterprise (HPE)',
      aps,
    ),
    [[null, b('10.5', true), b('10.5.1.0', true), null]],
  );
  // a version of the rest outside the branch, or a word in front that is not the product's: no reading
  assert.equal(
    readFreeText('ArubaOS 10.5.x.x: 10.4.0.0 and below', 'Hewlett Packard Enterprise (HPE)', 'ArubaOS'),
    null,
  );
  assert.equal(readFreeText('Foo 10.5.x.x: 10.5.1.0 and below', 'Hewlett Packard Enterprise (HPE)', 'ArubaOS'), null);
  const ranges = cve5('Hewlett Packard Enterprise (HPE)', cpm, 'ClearPass Policy Manager 6.11.x: 6.11.6 and below');
  const at = (version: string) =>
    decide({ vendor: 'Hewlett Packard Enterprise (HPE)', product: cpm, version }, ranges).status;
  statusesAt(at, [
    ['6.10.8', 'not_affected'],
    ['6.11', 'affected'],
    ['6.11.0', 'affected'],
    ['6.11.6', 'affected'],
    ['6.11.7', 'not_affected'],
    ['6.12.0', 'not_affected'],
  ]);
});

test('"<= 3.4.4 Build 16102416": the release decides where it differs, the build is never guessed', () => {
  // CVE-2019-16670 (Weidmüller IE-SW-PL18M-2GC14TX2ST, CISA CSAF product_version_range)
  const product = 'IE-SW-PL18M-2GC14TX2ST firmware';
  assert.deepEqual(pieces('<= 3.4.4 Build 16102416', 'Weidmueller', product), [
    [null, null, b('3.4.4 Build 16102416', true), null],
  ]);
  const [p] = readFreeText('<= 3.4.4 Build 16102416', 'Weidmueller', product)!.pieces;
  const ranges: AffectedRange[] = [
    {
      source: 'csaf',
      vendor: 'Weidmueller',
      product,
      cpe: null,
      status: 'affected',
      version: null,
      start: p.start,
      end: p.end,
      versionType: null,
      changes: [],
      defaultStatus: null,
      fixedIn: null,
      runningOn: null,
      text: null,
    },
  ];
  const at = (version: string) =>
    decide({ vendor: 'Weidmueller', product, version }, ranges, 'csaf', 'ICSA-test').status;
  statusesAt(at, [
    ['3.4.3', 'affected'],
    ['3.4.4', 'needs_review'],
    ['3.4.5', 'not_affected'],
  ]);
});

test('a version in brackets: "<=(R4.10)"', () => {
  // CVE-2018-10592 (Yokogawa STARDOM Controller FCN-RTU, CISA CSAF product_version_range)
  const product = 'STARDOM Controller FCN-RTU';
  assert.deepEqual(pieces('<=(R4.10)', 'Yokogawa', product), [[null, null, b('R4.10', true), null]]);
  assert.equal(readFreeText('<=(R4.10', 'Yokogawa', product), null);
  const ranges = cve5('Yokogawa', product, '<=(R4.10)');
  const at = (version: string) => decide({ vendor: 'Yokogawa', product, version }, ranges).status;
  statusesAt(at, [
    ['R4.09', 'affected'],
    ['R4.10', 'affected'],
    ['R4.20', 'not_affected'],
  ]);
});
