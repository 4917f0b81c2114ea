// The spellings the range census (bench/range-census.ts) found most often among the CVE Record 5 ranges that did not
// read as machine ranges, on the real strings of ../shared/data/cve5 (the CVE named beside each), both sides of each
// boundary: a release's certain prefix (domain/version-grammar.ts), platform releases (domain/versions.ts,
// domain/free-text-ranges.ts), the Ivanti and SAP schemes (domain/version-schemes-it.ts), and the CVE 5 reader's
// versions its scheme orders and ranges that hold no version (ingest/cve5.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { certainPrefix, general, type Compare } from '../../src/domain/version-grammar.ts';
import { compareVersions, type Comparison } from '../../src/domain/versions.ts';
import { compareIvanti, compareSap, parseIvanti, parseSap } from '../../src/domain/version-schemes-it.ts';
import { comparatorOf, orderableIn, rangeReadable, schemeOf } from '../../src/domain/version-schemes.ts';
import { readFreeText } from '../../src/domain/free-text-ranges.ts';
import { rangeRows, verdict, verdictStatus, type Asset } from '../../src/domain/correlate.ts';
import { rangesOfAffected } from '../../src/ingest/cve5-affected.ts';
import type { AffectedRange } from '../../src/domain/ranges.ts';

function orders(cmp: Compare, rows: [string, string, Comparison][]): void {
  for (const [a, b, want] of rows) {
    assert.equal(cmp(a, b), want, `${a} vs ${b}`);
    const back = want === 'needs_review' ? want : (-want as Comparison) || 0;
    assert.equal(cmp(b, a), back, `${b} vs ${a}`);
  }
}

const exact = { confidence: 'exact' as const, basis: 'test' };
function decide(asset: Asset, ranges: AffectedRange[]) {
  const matched = rangeRows([{ source: 'cve5', source_key: 'CVE-test', ranges }]).map((row) => ({ row, match: exact }));
  const v = verdict(asset, matched);
  assert.equal(verdictStatus(asset, matched), v.status, 'verdictStatus agrees with verdict');
  return v;
}
/** The verdict of each asset version against one CVE 5 `affected[]` entry: [version, status] rows. */
function statuses(entry: object, vendor: string, product: string, rows: [string, string][]): void {
  const ranges = rangesOfAffected(entry);
  for (const [version, status] of rows)
    assert.equal(decide({ vendor, product, version }, ranges).status, status, version);
}

test('certain prefix: a release followed by a glued suffix, a build number or build tokens is within that release', () => {
  for (const [raw, prefix] of [
    ['17.6.1z1', [17, 6, 1]], // CVE-2023-20109, Cisco IOS XE
    ['2.4.4-p9', [2, 4, 4]], // CVE-2024-39397, Adobe Commerce
    ['4.1.2cu.5182_b20201102', [4, 1, 2]], // CVE-2024-7159, TOTOLINK A3600R
    ['3.0.0.4.386_51685', [3, 0, 0, 4, 386]], // CVE-2024-0401, ASUS RT-AC67U
    ['9.2.0-9289', [9, 2, 0]], // CVE-2024-29227, Synology Surveillance Station
    ['8.8.5-02', [8, 8, 5]], // CVE-2020-36695, Hitachi Device Manager
    ['4.71 AFBT48C', [4, 71]], // CVE-2024-8278, Lenovo XCC: the release and its build id
    ['511.5 TCU4 HF3', [511, 5]], // Honeywell Experion
    ['1.2.0.14(408)', [1, 2, 0, 14]], // Tenda
  ] as [string, number[]][])
    assert.deepEqual(certainPrefix(raw), prefix, raw);
  for (const raw of [
    '1.0br_v15.03.05.16_multi_td01.bin', // CVE-2023-39670, Tenda AC6: hardware 1.0, firmware 15.03.05.16
    '1.00 dated 16-12-2020', // CVE-2023-35727, D-Link DAP-2622: words
    '2.13B01 BETA', // D-Link: a token without a digit
    '3.0.0-3.0.4', // a range
    '2.0-3', // a two-part release and a short number: may be a range
    '< 3.3 SP1 3.x',
    '3.3 SP1 3.x', // ICSA-23-068-03 (ABB): a second version pattern
    '3.4.4 Build 1610 2416 17', // more than three tokens
    '10.0.0 < publication',
    '2.4.4', // a version that parses has no prefix of its own
  ])
    assert.equal(certainPrefix(raw), null, raw);
});

test('certain prefix: ordered where the components both state differ, else needs_review', () => {
  orders(general, [
    ['17.6.2', '17.6.1z1', 1],
    ['17.6.1', '17.6.1z1', 'needs_review'],
    ['17.5.9', '17.6.1z1', -1],
    ['2.4.4-p8', '2.4.4-p9', 'needs_review'],
    ['2.4.3-p9', '2.4.4-p9', -1],
    ['2.4.5', '2.4.4-p9', 1],
    // two prefixed spellings: by their prefixes (TOTOLINK, ASUS)
    ['4.1.5cu.861_b20230220', '4.1.2cu.5182_b20201102', 1],
    ['4.1.2cu.5183_b20201103', '4.1.2cu.5182_b20201102', 'needs_review'],
    ['3.0.0.4.386_51685', '3.0.0.4.388_24762', -1],
    ['4.70', '4.71 AFBT48C', -1],
    ['4.71', '4.71 AFBT48C', 'needs_review'],
    ['4.72 AFBT50C', '4.71 AFBT48C', 1],
    // a version with a qualifier states only its written core: "7.5 SP2" may be 7.5.2
    ['7.5 SP2', '7.5.2.13-tm', 'needs_review'],
    ['7.6', '7.5.2.13-tm', 1],
    ['7.4 SP2', '7.5.2.13-tm', -1],
  ]);
});

test('property: the certain-prefix order is an interval order (antisymmetric, transitive where ordered)', () => {
  const rel = fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 2, maxLength: 4 });
  const spelling = fc
    .tuple(rel, fc.constantFrom('', 'z1', '-p9', ' AFBT48C', '_b20201102', '-406'))
    .map(([r, s]) => `${r.join('.')}${s}`);
  fc.assert(
    fc.property(spelling, spelling, spelling, (a, b, c) => {
      const ab = general(a, b);
      const ba = general(b, a);
      if (ab === 'needs_review') assert.equal(ba, 'needs_review');
      else assert.equal(ba, -ab || 0);
      if (ab === -1 && general(b, c) === -1) assert.equal(general(a, c), -1, `${a} < ${b} < ${c}`);
    }),
    { numRuns: 3000 },
  );
});

test('the CVE 5 reader: a release and its build as a bound, decided on both sides (CVE-2024-8278, Lenovo XCC)', () => {
  const entry = {
    vendor: 'Lenovo',
    product: 'HX5530 Appliance (ThinkAgile) XCC',
    versions: [{ status: 'affected', version: '0', lessThan: '4.71 AFBT48C', versionType: 'custom' }],
    defaultStatus: 'unaffected',
  };
  const [r] = rangesOfAffected(entry);
  assert.deepEqual([r.end, r.text, rangeReadable(r)], [{ version: '4.71 AFBT48C', inclusive: false }, null, true]);
  statuses(entry, 'Lenovo', 'HX5530 Appliance (ThinkAgile) XCC', [
    ['4.70', 'affected'],
    ['4.72', 'not_affected'],
    ['4.71', 'needs_review'],
  ]);
  // CVE-2024-39397 (Adobe Commerce) "<= 2.4.4-p9"
  statuses(
    {
      vendor: 'Adobe',
      product: 'Adobe Commerce',
      versions: [{ status: 'affected', version: '0', versionType: 'semver', lessThanOrEqual: '2.4.4-p9' }],
    },
    'Adobe',
    'Adobe Commerce',
    [
      ['2.4.3', 'affected'],
      ['2.4.5', 'not_affected'],
      ['2.4.4-p10', 'needs_review'],
    ],
  );
});

test('the CVE 5 reader: a version its scheme orders is that version, spaces and all (CVE-2023-20193, Cisco ISE "2.6.0 p1")', () => {
  const entry = {
    vendor: 'Cisco',
    product: 'Cisco Identity Services Engine Software',
    versions: [
      { status: 'affected', version: '2.6.0 p1' },
      { status: 'affected', version: '2.6.0 p2' },
    ],
  };
  const ranges = rangesOfAffected(entry);
  assert.deepEqual(
    ranges.map((r) => [r.version, r.text]),
    [
      ['2.6.0 p1', null],
      ['2.6.0 p2', null],
    ],
  );
  statuses(entry, 'Cisco', 'Cisco Identity Services Engine Software', [
    ['2.6.0 p1', 'affected'],
    ['2.6.0_p2', 'affected'],
    ['2.6.0 p3', 'not_affected'],
  ]);
});

test("platform releases: one platform's releases are ordered, against anything else needs_review", () => {
  orders(compareVersions, [
    ['Android 12.0', 'android_14.0', -1], // CVE-2023-32873 (MediaTek) writes "android_12.0"; CVE-2024-20022 "Android 12.0"
    ['android13', 'Android 13.0', 0], // Unisoc
    ['Android 15', 'android_14.0', 1],
    ['Android 12.0', '12.0', 'needs_review'],
    ['OpenWrt 19.07', 'Android 19.07', 'needs_review'],
    // AutomationDirect's software and firmware trains (CISA CSAF, CVE-2024-24851)
    ['SW_4.1.1.10', 'SW_4.1.1.9', 1],
    ['SW_4.1.1.10', 'FW_4.1.1.10', 'needs_review'],
  ]);
  assert.equal(compareVersions('Modbus 7.11', 'Modbus 7.12'), 'needs_review');
});

test('platform release lists: one exact version per item, a bare release of the platform named before it', () => {
  const read = (t: string) => readFreeText(t, 'MediaTek, Inc.', 'MT6789')?.pieces.map((p) => p.version);
  assert.deepEqual(read('Android 12.0, 13.0, 14.0'), ['Android 12.0', 'Android 13.0', 'Android 14.0']); // CVE-2024-20022
  assert.deepEqual(read('Android11/Android12/Android13'), ['Android 11', 'Android 12', 'Android 13']); // CVE-2022-47350
  assert.deepEqual(read('android_11_12_13'), ['android 11', 'android 12', 'android 13']); // CVE-2023-40634
  assert.deepEqual(read('android9_android10_android11'), ['android 9', 'android 10', 'android 11']);
  assert.deepEqual(read('android12.0_13.0'), ['android 12.0', 'android 13.0']);
  for (const t of [
    'andriod9_android10_android11',
    'Android 11.0, 12.0 / Linux 6.1 / IOT-v23.0 / Yocto 4.0',
    'SMR Jul-2024 Release in Android 12, 13, 14',
    'android_',
  ]) {
    assert.equal(read(t), undefined, t);
  }
});

test('verdicts on platform releases (CVE-2023-32873, MediaTek ">= android_12.0, <= android_14.0"; CVE-2024-20022 "Android 12.0, 13.0, 14.0")', () => {
  const range = {
    vendor: 'mediatek',
    product: 'mt6761',
    versions: [{ status: 'affected', version: 'android_12.0', versionType: 'custom', lessThanOrEqual: 'android_14.0' }],
  };
  statuses(range, 'MediaTek', 'MT6761', [
    ['Android 11.0', 'not_affected'],
    ['Android 12.0', 'affected'],
    ['Android 14', 'affected'],
    ['Android 15.0', 'not_affected'],
    ['13.0', 'needs_review'],
  ]);
  const list = {
    vendor: 'MediaTek, Inc.',
    product: 'MT6789',
    versions: [{ status: 'affected', version: 'Android 12.0, 13.0, 14.0' }],
  };
  statuses(list, 'MediaTek, Inc.', 'MT6789', [
    ['Android 13.0', 'affected'],
    ['Android 11.0', 'not_affected'],
    ['Android 15.0', 'not_affected'],
  ]);
});

test('Ivanti: Connect Secure releases and Endpoint Manager security updates', () => {
  assert.deepEqual(parseIvanti('22.5R1.3'), [22, 5, 0, 0, 1, 3]);
  assert.deepEqual(parseIvanti('2022 SU6'), [2022, 0, 0, 0, 6, 0]);
  assert.deepEqual(parseIvanti('2022_su6'), [2022, 0, 0, 0, 6, 0]);
  assert.equal(parseIvanti('2024 September Security Update'), null);
  assert.equal(schemeOf('Ivanti', 'Connect Secure'), 'ivanti');
  orders(compareIvanti, [
    ['22.5R1.3', '22.5R1.2', 1], // CVE-2024-21894
    ['22.5R1.3', '22.5R2', -1],
    ['9.1R17.4', '22.1R6.2', -1],
    ['22.5', '22.5R1', -1],
    ['22.5R1.3', '22.5r1.3', 0],
    ['2022 SU5', '2022 SU6', -1],
    ['2022', '2022 SU1', -1],
    ['2024', '2022 SU6', 1],
  ]);
});

test("SAP: a software component's releases are ordered, two components never (CVE-2023-37492, SAP NetWeaver AS ABAP)", () => {
  assert.deepEqual(parseSap('SAP_BASIS 731'), { component: 'sap_basis', release: [731] });
  assert.equal(parseSap('731'), null);
  assert.equal(schemeOf('SAP_SE', 'SAP NetWeaver AS ABAP and ABAP Platform'), 'sap');
  orders(compareSap, [
    ['SAP_BASIS 731', 'SAP_BASIS 740', -1],
    ['SAP_BASIS 731', 'sap_basis 731', 0],
    ['KERNEL 7.53', 'KERNEL 7.77', -1],
    ['KERNEL 8.04', 'KERNEL 7.93', 1],
    ['KERNEL 7.53', 'SAP_BASIS 753', 'needs_review'],
    ['SAP_BASIS 731', '731', 'needs_review'],
  ]);
  const entry = {
    vendor: 'SAP_SE',
    product: 'SAP NetWeaver AS ABAP and ABAP Platform',
    versions: [
      { status: 'affected', version: 'SAP_BASIS 700' },
      { status: 'affected', version: 'SAP_BASIS 731' },
    ],
  };
  statuses(entry, 'SAP', 'SAP NetWeaver AS ABAP and ABAP Platform', [
    ['SAP_BASIS 731', 'affected'],
    ['SAP_BASIS 740', 'not_affected'],
    ['731', 'needs_review'],
  ]);
});

test('property: the Ivanti and SAP comparators are total orders on their grammars', () => {
  const n = (max: number) => fc.integer({ min: 0, max });
  const ivanti = fc.oneof(
    fc.tuple(n(30), n(9), n(20), n(9)).map(([a, b, r, s]) => `${a}.${b}R${r}.${s}`),
    fc.tuple(n(3), n(9)).map(([y, s]) => `${2020 + y} SU${s}`),
  );
  const sap = fc.tuple(fc.constantFrom('SAP_BASIS', 'KERNEL'), n(9), n(99)).map(([c, a, b]) => `${c} ${a}.${b}`);
  for (const [cmp, arb, sameGrammar] of [
    [compareIvanti, ivanti, (a: string, b: string) => a.includes('SU') === b.includes('SU')],
    [compareSap, sap, (a: string, b: string) => a.split(' ')[0] === b.split(' ')[0]],
  ] as const) {
    fc.assert(
      fc.property(arb, arb, arb, (a, b, c) => {
        if (!sameGrammar(a, b) || !sameGrammar(b, c)) return;
        const ab = cmp(a, b);
        const bc = cmp(b, c);
        assert.ok(ab !== 'needs_review' && bc !== 'needs_review', `${a} vs ${b} vs ${c}`);
        assert.equal(cmp(a, a), 0);
        assert.equal(cmp(b, a), -ab || 0);
        if (ab <= 0 && bc <= 0) assert.ok((cmp(a, c) as number) <= 0, `${a} <= ${b} <= ${c}`);
      }),
      { numRuns: 2000 },
    );
  }
});

test('the CVE 5 reader: a range that holds no version stays text, answered needs_review (CVE-2023-1213, Chrome; CVE-2024-21894, Ivanti)', () => {
  const chrome = {
    vendor: 'Google',
    product: 'Chrome',
    versions: [{ version: '111.0.5563.64', status: 'affected', lessThan: '111.0.5563.64', versionType: 'custom' }],
  };
  const [r] = rangesOfAffected(chrome);
  assert.deepEqual([r.start, r.end, r.text, rangeReadable(r)], [null, null, '111.0.5563.64 < 111.0.5563.64', false]);
  const v = decide({ vendor: 'Google', product: 'Chrome', version: '110.0.5481.177' }, rangesOfAffected(chrome));
  assert.equal(v.status, 'needs_review');
  assert.match(v.reason, /not machine-readable: "111\.0\.5563\.64 < 111\.0\.5563\.64"/);
  const ivanti = {
    vendor: 'Ivanti',
    product: 'Connect Secure',
    versions: [{ status: 'affected', version: '22.1R6.2', lessThan: '22.1R6.2', versionType: 'semver' }],
  };
  assert.equal(rangesOfAffected(ivanti)[0].text, '22.1R6.2 < 22.1R6.2');
  // a start above its end holds nothing either; an inclusive end at the start holds that one version
  assert.equal(
    rangesOfAffected({
      ...chrome,
      versions: [{ version: '112.0', status: 'affected', lessThan: '111.0', versionType: 'custom' }],
    })[0].text,
    '112.0 < 111.0',
  );
  const one = {
    ...ivanti,
    versions: [{ status: 'affected', version: '2022 SU5', lessThanOrEqual: '2022 SU5', versionType: 'semver' }],
  };
  assert.deepEqual(
    rangesOfAffected(one).map((x) => [x.start, x.end, x.text]),
    [[{ version: '2022 SU5', inclusive: true }, { version: '2022 SU5', inclusive: true }, null]],
  );
  statuses(one, 'Ivanti', 'Connect Secure', [
    ['2022 SU5', 'affected'],
    ['2022 SU6', 'not_affected'],
    ['2022 SU4', 'not_affected'],
  ]);
  // a range that holds versions is read as before
  assert.equal(
    rangesOfAffected({
      ...chrome,
      versions: [{ version: '110.0', status: 'affected', lessThan: '111.0.5563.64', versionType: 'custom' }],
    })[0].text,
    null,
  );
});

test('orderableIn: what the census now counts, and what it still does not', () => {
  assert.equal(orderableIn('dotted', '4.71 AFBT48C'), true);
  assert.equal(orderableIn('dotted', 'android_12.0'), true);
  assert.equal(orderableIn('ivanti', '9.1R17.4'), true);
  assert.equal(orderableIn('dotted', '9.1R17.4'), false);
  assert.equal(orderableIn('sap', 'SAP_BASIS 731'), true);
  assert.equal(orderableIn('dotted', 'SAP_BASIS 731'), false);
  assert.equal(orderableIn('dotted', 'various'), false);
  assert.equal(comparatorOf('sap'), compareSap);
});

test('the CVE 5 reader: version "0" alone is no version: text, needs_review with why (CVE-2023-2851, CVE-2023-49721)', () => {
  const entry = {
    vendor: 'AGT Tech',
    product: 'Ceppatron',
    versions: [{ status: 'affected', version: '0' }],
    defaultStatus: 'unaffected',
  };
  const [r] = rangesOfAffected(entry);
  assert.deepEqual([r.version, r.text, rangeReadable(r)], [null, '0', false]);
  for (const version of ['0', '1.2', '10.0']) {
    const v = decide({ vendor: 'AGT Tech', product: 'Ceppatron', version }, rangesOfAffected(entry));
    assert.equal(v.status, 'needs_review', version);
    assert.match(v.reason, /"0" alone \(by the CVE schema's convention the earliest version\) with no end/);
  }
  // "0" as the start of a range is the open start, and a change at "0" keeps its meaning
  assert.deepEqual(
    rangesOfAffected({ ...entry, versions: [{ status: 'affected', version: '0', lessThan: '2.0' }] }).map((x) => [
      x.start,
      x.end,
      x.text,
    ]),
    [[null, { version: '2.0', inclusive: false }, null]],
  );
  assert.equal(
    rangesOfAffected({
      ...entry,
      versions: [{ status: 'affected', version: '0', changes: [{ at: '2.0', status: 'unaffected' }] }],
    })[0].text,
    null,
  );
});
