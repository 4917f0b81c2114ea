// The rules of domain/correlate.ts one by one, each with its sentence: the row order of rangeRows, describe(), every
// review reason of a range, the statuses changes[] give, "running on" platforms, the ranking of rows, and matchRow
// on stored keys. Ranges are shaped as the readers produce them from the fixtures (CVE-2023-0228, ABB Symphony Plus
// S+ Operations; CVE-2023-28489, Siemens CP-8031 firmware running on its hardware).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  describe,
  matchRow,
  rangeAnswer,
  rangeRows,
  sourceLabel,
  verdict,
  verdictStatus,
  type Asset,
  type RangeRow,
} from '../../src/domain/correlate.ts';
import type { AffectedRange } from '../../src/domain/ranges.ts';

const base: AffectedRange = {
  source: 'nvd',
  vendor: 'abb',
  product: 'symphony_plus_s+_operations',
  cpe: 'cpe:2.3:a:abb:symphony_plus_s\\+_operations:*:*:*:*:*:*:*:*',
  status: 'affected',
  version: null,
  start: null,
  end: null,
  versionType: null,
  changes: [],
  defaultStatus: null,
  fixedIn: null,
  runningOn: null,
  text: null,
};
const abb = (version: string | null): Asset => ({ vendor: 'ABB', product: 'Symphony Plus S+ Operations', version });
const b = (version: string, inclusive: boolean) => ({ version, inclusive });
const exact = { confidence: 'exact' as const, basis: 'test' };

function rows(ranges: AffectedRange[], sourceKey = 'CVE-2023-0228') {
  return rangeRows([{ source: ranges[0].source, source_key: sourceKey, ranges }]);
}
function one(asset: Asset, r: AffectedRange) {
  return rangeAnswer(asset, rows([r])[0], exact);
}
function decide(asset: Asset, ranges: AffectedRange[]) {
  return verdict(
    asset,
    rows(ranges).map((row) => ({ row, match: exact })),
  );
}

test('rangeRows: records in (source, source_key) order, rows numbered in that order; no vendor or no product key: no row', () => {
  const r = (product: string): AffectedRange => ({ ...base, cpe: null, product });
  const out = rangeRows([
    { source: 'nvd', source_key: 'CVE-2023-0228', ranges: [r('nvd one'), r('nvd two')] },
    { source: 'csaf', source_key: 'ICSA-23-068-03', ranges: [r('csaf b')] },
    { source: 'cve5', source_key: 'CVE-2023-0228', ranges: [r('cve5')] },
    { source: 'csaf', source_key: 'ICSA-23-068-02', ranges: [r('csaf a')] },
    { source: 'csaf', source_key: 'ICSA-23-068-04' },
    { source: 'cve5', source_key: 'CVE-2023-0227', ranges: [{ ...r('x'), vendor: 'n/a' }, r('---'), r('cve5 early')] },
  ]);
  assert.deepEqual(
    out.map((x) => [x.ord, x.source_key, x.product_key]),
    [
      [0, 'ICSA-23-068-02', 'csaf a'],
      [1, 'ICSA-23-068-03', 'csaf b'],
      [2, 'CVE-2023-0227', 'cve5 early'],
      [3, 'CVE-2023-0228', 'cve5'],
      [4, 'CVE-2023-0228', 'nvd one'],
      [5, 'CVE-2023-0228', 'nvd two'],
    ],
  );
  // The input is not reordered in place.
  const recs = [
    { source: 'nvd', source_key: 'b', ranges: [r('n')] },
    { source: 'csaf', source_key: 'a', ranges: [r('c')] },
  ];
  rangeRows(recs);
  assert.deepEqual(
    recs.map((x) => x.source),
    ['nvd', 'csaf'],
  );
  // Two records of one key keep their order.
  assert.deepEqual(
    rangeRows([
      { source: 'csaf', source_key: 'k', ranges: [r('second')] },
      { source: 'csaf', source_key: 'k', ranges: [r('third')] },
      { source: 'csaf', source_key: 'j', ranges: [r('first')] },
    ]).map((x) => x.product_key),
    ['first', 'second', 'third'],
  );
  const [row] = rows([base]);
  assert.deepEqual(
    [row.vendor_slug, row.product_key, row.cpe_vendor, row.cpe_product],
    ['abb', 'symphony plus s operations', 'abb', 'symphony_plus_s+_operations'],
  );
});

test('sourceLabel and describe: the words the reasons use', () => {
  assert.deepEqual(
    [sourceLabel('nvd'), sourceLabel('cve5'), sourceLabel('csaf')],
    ['NVD CPE configuration', 'CVE record', 'CISA advisory'],
  );
  assert.equal(describe({ ...base, text: '< 3.3 SP1 3.x', version: '3.3' }), '< 3.3 SP1 3.x');
  assert.equal(describe({ ...base, version: '2.1 sp2', start: b('2.0', true) }), '2.1 sp2');
  assert.equal(describe({ ...base, start: b('2.0', true), end: b('2.1', false) }), '>= 2.0, < 2.1');
  assert.equal(describe({ ...base, start: b('2.0', false), end: b('2.1', true) }), '> 2.0, <= 2.1');
  assert.equal(describe({ ...base, end: b('3.3', false) }), '< 3.3');
  assert.equal(describe(base), 'all versions');
});

test('rangeAnswer: out, in with the status stated, and each review reason word for word', () => {
  assert.deepEqual(pick(one(abb('3.4'), { ...base, end: b('3.3', false) })), ['out', 'affected', null]);
  assert.deepEqual(pick(one(abb('3.2'), { ...base, end: b('3.3', false) })), ['in', 'affected', null]);
  assert.deepEqual(pick(one(abb('3.2'), { ...base, status: 'unaffected', end: b('3.3', false) })), [
    'in',
    'unaffected',
    null,
  ]);
  assert.deepEqual(pick(one(abb('3.2'), { ...base, status: 'unknown', end: b('3.3', false) })), [
    'review',
    'unknown',
    'the NVD CPE configuration states the status of < 3.3 as unknown',
  ]);
  assert.deepEqual(pick(one(abb('3.2'), { ...base, source: 'csaf', text: '< 3.3 SP1 3.x' })), [
    'review',
    'affected',
    'version range not machine-readable: "< 3.3 SP1 3.x"',
  ]);
  assert.deepEqual(pick(one(abb(null), { ...base, source: 'cve5', version: '2.2' })), [
    'review',
    'affected',
    'version unknown; the CVE record names 2.2',
  ]);
  assert.deepEqual(pick(one(abb('8.8.5-01'), { ...base, start: b('0', true), end: b('8.8.5-02', false) })), [
    'review',
    'affected',
    'version 8.8.5-01 cannot be ordered with certainty against >= 0, < 8.8.5-02',
  ]);
  // Without notes: the same answer, no sentence.
  assert.deepEqual(pick(rangeAnswer(abb(null), rows([{ ...base, version: '2.2' }])[0], exact, false)), [
    'review',
    'affected',
    null,
  ]);
});
function pick(v: ReturnType<typeof rangeAnswer>) {
  return [v.answer, v.status, v.note];
}

test('exact versions: the same version is in, another is out, an unorderable one is reviewed', () => {
  assert.deepEqual(pick(one(abb('V2.2'), { ...base, version: '2.2' })), ['in', 'affected', null]);
  assert.deepEqual(pick(one(abb('3.0'), { ...base, version: '2.2' })), ['out', 'affected', null]);
  assert.deepEqual(pick(one(abb('build 7'), { ...base, version: '2.2' })), [
    'review',
    'affected',
    'version build 7 cannot be ordered with certainty against 2.2',
  ]);
  // changes[] apply to an exact version too.
  assert.deepEqual(pick(one(abb('2.2'), { ...base, version: '2.2', changes: [{ at: '2.2', status: 'unaffected' }] })), [
    'in',
    'unaffected',
    null,
  ]);
});

test('unknown version: every version (no bounds, no changes) is in; a version, a bound or a change asks for review', () => {
  assert.deepEqual(pick(one(abb(null), base)), ['in', 'affected', null]);
  assert.equal(
    one(abb(null), { ...base, start: b('2.0', true) }).note,
    'version unknown; the NVD CPE configuration names >= 2.0',
  );
  assert.equal(one(abb(null), { ...base, end: b('2.0', true) }).answer, 'review');
  assert.equal(
    one(abb(null), { ...base, changes: [{ at: '3.0', status: 'unaffected' }] }).note,
    'version unknown; the NVD CPE configuration names all versions',
  );
  assert.equal(decide(abb(null), [base]).reason, 'every version is affected (NVD CPE configuration CVE-2023-0228)');
});

test('changes[]: the status from each change on; a change that cannot be ordered asks for review, outside the range it does not', () => {
  const r: AffectedRange = {
    ...base,
    source: 'cve5',
    start: b('1.0', true),
    changes: [
      { at: '2.0', status: 'unaffected' },
      { at: '3.0', status: 'affected' },
    ],
  };
  assert.deepEqual(pick(one(abb('1.5'), r)), ['in', 'affected', null]);
  assert.deepEqual(pick(one(abb('2.0'), r)), ['in', 'unaffected', null]);
  assert.deepEqual(pick(one(abb('3.1'), r)), ['in', 'affected', null]);
  assert.deepEqual(pick(one(abb('2.5'), { ...r, changes: [{ at: '2.0', status: 'unknown' }] })), [
    'in',
    'unknown',
    null,
  ]);
  const odd: AffectedRange = {
    ...r,
    end: b('5.0', false),
    changes: [
      { at: '1.5', status: 'unaffected' },
      { at: 'build 7', status: 'affected' },
    ],
  };
  assert.deepEqual(pick(one(abb('2.0'), odd)), [
    'review',
    'affected',
    'version 2.0 cannot be ordered with certainty against the change at build 7',
  ]);
  const v = decide(abb('2.0'), [odd]);
  assert.deepEqual(
    [v.status, v.reason],
    ['needs_review', 'version 2.0 cannot be ordered with certainty against the change at build 7'],
  );
  assert.deepEqual(pick(one(abb('6.0'), odd)), ['out', 'affected', null]);
  assert.equal(decide(abb('6.0'), [odd]).status, 'not_affected');
  // Review for another reason: the stated status, not the one a change would give.
  assert.equal(one(abb('2.0'), { ...r, start: b('build 1', true) }).status, 'affected');
  assert.equal(
    one(abb('2.0'), { ...base, status: 'unknown', changes: [{ at: '1.0', status: 'affected' }] }).status,
    'unknown',
  );
});

test('running on a platform: one named platform of several is enough; unparseable platforms are skipped; the sentence names them all', () => {
  const fw: AffectedRange = {
    ...base,
    vendor: 'siemens',
    product: 'cp-8031_firmware',
    cpe: 'cpe:2.3:o:siemens:cp-8031_firmware:*:*:*:*:*:*:*:*',
    end: b('5.0', false),
    runningOn: ['not a cpe', 'cpe:2.3:h:siemens:cp-8050:-:*:*:*:*:*:*:*', 'cpe:2.3:h:siemens:cp-8031:-:*:*:*:*:*:*:*'],
  };
  assert.deepEqual(pick(one({ vendor: 'Siemens', product: 'CP-8031', version: '4.0' }, fw)), ['in', 'affected', null]);
  assert.deepEqual(pick(one({ vendor: 'Siemens', product: 'CP-8050', version: '4.0' }, fw)), ['in', 'affected', null]);
  const two = {
    ...fw,
    runningOn: ['cpe:2.3:h:siemens:cp-8050:-:*:*:*:*:*:*:*', 'cpe:2.3:h:siemens:cp-8031:-:*:*:*:*:*:*:*'],
  };
  // CP-8031 firmware reads as "cp 8031", the platform itself; a SICAM A8000 asset names neither platform.
  assert.deepEqual(pick(one({ vendor: 'Siemens', product: 'CP-8031 firmware', version: '4.0' }, two)), [
    'in',
    'affected',
    null,
  ]);
  assert.deepEqual(pick(one({ vendor: 'Siemens', product: 'SICAM A8000', version: '4.0' }, two)), [
    'review',
    'affected',
    'affected only when running on cpe:2.3:h:siemens:cp-8050:-:*:*:*:*:*:*:* or cpe:2.3:h:siemens:cp-8031:-:*:*:*:*:*:*:*; the asset does not name that platform',
  ]);
  // The status a change gives is kept on the review.
  const changed = { ...two, start: b('1.0', true), changes: [{ at: '2.0', status: 'unaffected' as const }] };
  assert.equal(one({ vendor: 'Siemens', product: 'SICAM A8000', version: '4.0' }, changed).status, 'unaffected');
  // An empty list applies everywhere.
  assert.deepEqual(pick(one({ vendor: 'Siemens', product: 'SICAM A8000', version: '4.0' }, { ...fw, runningOn: [] })), [
    'in',
    'affected',
    null,
  ]);
});

test('verdict: a status the range states as unknown is a review, never "not affected"', () => {
  const v = decide(abb('3.0'), [{ ...base, status: 'unknown' }]);
  assert.deepEqual(
    [v.status, v.reason],
    ['needs_review', 'the NVD CPE configuration states the status of all versions as unknown'],
  );
  assert.equal(
    verdictStatus(
      abb('3.0'),
      rows([{ ...base, status: 'unknown' }]).map((row) => ({ row, match: exact })),
    ),
    'needs_review',
  );
  const out = decide(abb('3.4'), [{ ...base, end: b('3.3', false) }]);
  assert.deepEqual(
    [out.status, out.reason, out.deciding.answer],
    [
      'not_affected',
      'version 3.4 is outside every stated range (closest: < 3.3, NVD CPE configuration CVE-2023-0228)',
      'out',
    ],
  );
});

test('verdict: rows of one source and confidence rank by their order; no row is an error', () => {
  const [r0, r1] = rows([
    { ...base, end: b('3.3', false), fixedIn: '3.3' },
    { ...base, start: b('3.0', true), fixedIn: '3.4' },
  ]);
  const v = verdict(abb('3.1'), [
    { row: r1, match: exact },
    { row: r0, match: exact },
  ]);
  assert.deepEqual([v.status, v.deciding.row.ord, v.fixed_version], ['affected', 0, '3.3']);
  const family = { confidence: 'family' as const, basis: 'family' };
  const w = verdict(abb('3.1'), [
    { row: r0, match: family },
    { row: r1, match: exact },
  ]);
  assert.deepEqual([w.deciding.row.ord, w.match], [1, exact]);
  assert.throws(() => verdict(abb('3.1'), []), { message: 'verdict needs at least one matched range' });
});

test('matchRow: names first; else the stored keys of the row (normalised or family), same vendor only', () => {
  const range: AffectedRange = { ...base, source: 'csaf', vendor: 'Siemens', product: 'LOGO! 8 BM', cpe: null };
  // A row stored with keys of its own (as read back from cve_ranges).
  const row: RangeRow = {
    ord: 0,
    source: 'csaf',
    source_key: 'ICSA-24-284-01',
    vendor_slug: 'siemens',
    product_key: 'logo',
    cpe_vendor: null,
    cpe_product: null,
    base_key: null,
    range,
  };
  assert.deepEqual(matchRow({ vendor: 'Siemens AG', product: 'LOGO!' }, row), {
    confidence: 'normalised',
    basis: 'product "LOGO!" read as "logo" (vendor siemens)',
  });
  assert.deepEqual(
    matchRow(
      { vendor: 'Siemens', product: 'LOGO! 24RCE' },
      { ...row, product_key: 'logo 24rce', range: { ...range, product: 'LOGO! 24RCE' } },
    ),
    { confidence: 'exact', basis: 'product "LOGO! 24RCE" of vendor siemens' },
  );
  assert.deepEqual(
    matchRow({ vendor: 'Siemens', product: 'LOGO! 8 BM 12/24RCE' }, { ...row, product_key: 'logo 8 bm' }),
    { confidence: 'family', basis: '"LOGO! 8 BM 12/24RCE" is in the product family "LOGO! 8 BM" (vendor siemens)' },
  );
  // A one-word stored key is a bare line name (broadLine): the family match is marked broad.
  assert.deepEqual(matchRow({ vendor: 'Siemens', product: 'LOGO! 24RCE' }, row), {
    confidence: 'family',
    broad: true,
    basis:
      '"LOGO! 24RCE" may be one of the products the source names only by its line name "LOGO! 8 BM" (vendor siemens); which models or editions it means is not stated',
  });
  assert.equal(matchRow({ vendor: 'Siemens', product: 'LOGOS' }, row), null);
  assert.equal(matchRow({ vendor: 'Schneider Electric', product: 'LOGO!' }, row), null);
  assert.equal(matchRow({ vendor: 'n/a', product: 'LOGO!' }, { ...row, vendor_slug: '' }), null);
  // The names decide first.
  assert.deepEqual(matchRow({ vendor: 'Siemens', product: 'LOGO! 8 BM' }, row), {
    confidence: 'exact',
    basis: 'product "LOGO! 8 BM" of vendor siemens',
  });
});

test("rangeRows: a range serialises the same whatever the key order it arrived in (jsonb order or the reader's)", () => {
  const full: AffectedRange = {
    ...base,
    start: b('2.0', true),
    end: b('2.9.2', false),
    changes: [{ at: '2.5', status: 'unaffected' }],
    runningOn: ['cpe:2.3:h:abb:x:-:*:*:*:*:*:*:*'],
  };
  // The same range with every key, nested ones too, in reverse order (as jsonb returns keys: by length, then bytes).
  const reverse = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).reverse()) as T;
  const shuffled = reverse({
    ...full,
    start: reverse(full.start!),
    end: reverse(full.end!),
    changes: full.changes.map(reverse),
  });
  assert.notEqual(JSON.stringify(shuffled), JSON.stringify(full));
  const [a] = rows([full]);
  const [c] = rows([shuffled]);
  assert.equal(JSON.stringify(c), JSON.stringify(a));
  assert.deepEqual(Object.keys(c.range), [
    'source',
    'vendor',
    'product',
    'cpe',
    'status',
    'version',
    'start',
    'end',
    'versionType',
    'changes',
    'defaultStatus',
    'fixedIn',
    'runningOn',
    'text',
  ]);
  assert.deepEqual(Object.keys(c.range.end!), ['version', 'inclusive']);
  assert.deepEqual(c.range, full);
});

// ICSA-20-287-01 (CISA CSAF, the snapshot's csaf-ics file): the product tree names only "NPort" (<= 2.1), while the
// advisory is about the NPort IAW5000A-I/O series.
const nport: AffectedRange = {
  ...base,
  source: 'csaf',
  vendor: 'MOXA',
  product: 'NPort',
  cpe: null,
  end: b('2.1', true),
};
const nportRow = (r: AffectedRange = nport, ord = 0, product_key = 'nport'): RangeRow => ({
  ord,
  source: r.source,
  source_key: 'ICSA-20-287-01',
  vendor_slug: 'moxa',
  product_key,
  cpe_vendor: null,
  cpe_product: null,
  base_key: null,
  range: r,
});
const moxa = (product: string, version: string | null): Asset => ({ vendor: 'Moxa', product, version });

test('broad line: a one-word source product under a longer nameplate answers at most needs_review, with its sentence', () => {
  const a = moxa('NPort 5110', '2.0');
  const m = matchRow(a, nportRow())!;
  assert.deepEqual([m.confidence, m.broad], ['family', true]);
  const v = verdict(a, [{ row: nportRow(), match: m }]);
  assert.deepEqual(
    [v.status, v.reason],
    [
      'needs_review',
      'version 2.0 is in <= 2.1 for "NPort", a product line name the CISA advisory gives without a model or edition; whether "NPort 5110" is one of the products it means decides',
    ],
  );
  assert.equal(verdictStatus(a, [{ row: nportRow(), match: m }]), 'needs_review');
  // Outside the range: not affected, as for any match.
  assert.equal(
    verdictStatus(moxa('NPort 5110', '2.2'), [
      { row: nportRow(), match: matchRow(moxa('NPort 5110', '2.2'), nportRow())! },
    ]),
    'not_affected',
  );
  // The nameplate that is the line name itself is a plain match: affected.
  const same = matchRow(moxa('NPort', '2.0'), nportRow())!;
  assert.deepEqual(
    [same.confidence, same.broad, verdictStatus(moxa('NPort', '2.0'), [{ row: nportRow(), match: same }])],
    ['exact', undefined, 'affected'],
  );
  // "not affected" through a line name is no claim about the model.
  const fixedRow = nportRow({ ...nport, status: 'unaffected', end: null, version: '2.0' });
  assert.equal(verdictStatus(a, [{ row: fixedRow, match: matchRow(a, fixedRow)! }]), 'not_affected');
  const affectedToo = [
    { row: fixedRow, match: matchRow(a, fixedRow)! },
    { row: nportRow(nport, 1), match: m },
  ];
  assert.equal(verdictStatus(a, affectedToo), 'needs_review');
});

test('broad line: not broad when the source calls the line a family or series, or the extra words start the version', () => {
  const series = nportRow({ ...nport, product: 'NPort Series' });
  assert.deepEqual(
    [
      matchRow(moxa('NPort 5110', '2.0'), series)?.broad,
      verdictStatus(moxa('NPort 5110', '2.0'), [{ row: series, match: matchRow(moxa('NPort 5110', '2.0'), series)! }]),
    ],
    [undefined, 'affected'],
  );
  const family = nportRow({ ...nport, product: 'NPort family' });
  assert.equal(matchRow(moxa('NPort 5110', '2.0'), family)?.broad, undefined);
  // "Tomcat 9" at 9.0.50 names a release of Tomcat, not another product: a plain family match.
  const tomcat: AffectedRange = {
    ...base,
    source: 'cve5',
    vendor: 'Apache Software Foundation',
    product: 'Apache Tomcat',
    cpe: null,
    start: b('9.0.0', true),
    end: b('9.0.83', false),
  };
  const tRow: RangeRow = {
    ord: 0,
    source: 'cve5',
    source_key: 'CVE-2023-46589',
    vendor_slug: 'apachesoftwarefoundation',
    product_key: 'tomcat',
    cpe_vendor: null,
    cpe_product: null,
    base_key: null,
    range: tomcat,
  };
  const asf = (product: string, version: string) => ({ vendor: 'Apache Software Foundation', product, version });
  for (const [product, version, broad] of [
    ['Tomcat 9', '9.0.50', undefined],
    ['Tomcat v9', 'V9.0.50', undefined],
    ['Tomcat 9 0', '9.0.50', undefined],
    ['Tomcat 8', '9.0.50', true],
    ['Tomcat 9', '10.1.2', true],
    ['Tomcat Native', '9.0.50', true],
  ] as const) {
    assert.equal(matchRow(asf(product, version), tRow)?.broad, broad, `${product} ${version}`);
  }
  const ok = matchRow(asf('Tomcat 9', '9.0.50'), tRow)!;
  assert.equal(verdictStatus(asf('Tomcat 9', '9.0.50'), [{ row: tRow, match: ok }]), 'affected');
  // No version: the extra words cannot be a release of it; broad.
  assert.equal(matchRow({ vendor: 'Moxa', product: 'NPort 5110', version: null }, nportRow())?.broad, true);
  // A two-word source key is a family of its own: "NPort IAW5000A" covers "NPort IAW5000A-I/O".
  const two = nportRow({ ...nport, product: 'NPort IAW5000A' }, 0, 'nport iaw5000a');
  assert.deepEqual(
    [
      matchRow(moxa('NPort IAW5000A-I/O', '2.0'), two)?.confidence,
      matchRow(moxa('NPort IAW5000A-I/O', '2.0'), two)?.broad,
    ],
    ['family', undefined],
  );
});

test("broad line: a row that names the asset's product decides, and the line name's rows are left out", () => {
  // Firefox ESR: Mozilla's records name "Firefox" and "Firefox ESR" apart; the ESR's own row decides.
  const fx = (product: string, end: string): AffectedRange => ({
    ...base,
    source: 'cve5',
    vendor: 'Mozilla',
    product,
    cpe: null,
    start: null,
    end: b(end, false),
  });
  const [fox, esr] = rangeRows([
    { source: 'cve5', source_key: 'CVE-2023-6204', ranges: [fx('Firefox', '120'), fx('Firefox ESR', '115.5')] },
  ]);
  const asset: Asset = { vendor: 'Mozilla', product: 'Firefox ESR', version: '115.5' };
  const matched = [fox, esr].map((row) => ({ row, match: matchRow(asset, row)! }));
  assert.deepEqual(
    matched.map((m) => [m.match.confidence, m.match.broad]),
    [
      ['family', true],
      ['exact', undefined],
    ],
  );
  const v = verdict(asset, matched);
  assert.deepEqual(
    [v.status, v.deciding.row.range.product, verdictStatus(asset, matched)],
    ['not_affected', 'Firefox ESR', 'not_affected'],
  );
  // Before the ESR's fix: affected by its own row, whose fix is the one named.
  const old: Asset = { ...asset, version: '115.4' };
  const o = verdict(
    old,
    [fox, esr].map((row) => ({ row, match: matchRow(old, row)! })),
  );
  assert.deepEqual([o.status, o.deciding.row.range.product], ['affected', 'Firefox ESR']);
});
