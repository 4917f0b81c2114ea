// The merge rules of src/domain/merge.ts one by one (docs/enrichment.md "Merge precedence"): record order, the CVSS
// fallback chain and its tie-breaks, titles, dates, references, EPSS. Small hand-made records pin each rule; the
// real fixtures are merged in enrichment.test.ts and cve5.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseCvss, cvssTier, mergeSources, orderRecords } from '../../src/domain/merge.ts';
import type { CsafAdvisoryFacts, CveSourceRecord, CvssMetric, KevFacts } from '../../src/domain/records.ts';

const CVE = 'CVE-2024-0001';
function rec(source: CveSourceRecord['source'], o: Partial<CveSourceRecord> = {}): CveSourceRecord {
  return {
    source,
    source_key: '',
    cve_id: CVE,
    description: null,
    title: null,
    published: null,
    modified: null,
    cvss: [],
    cwes: [],
    affected: [],
    references: [],
    assigner: null,
    status: null,
    ...o,
  };
}
const metric = (version: CvssMetric['version'], o: Partial<CvssMetric> = {}): CvssMetric => ({
  version,
  vector: `CVSS:${version}/AV:N`,
  score: 5,
  scored_by: null,
  type: null,
  ...o,
});
const advisory = (id: string, published: string | null, o: Partial<CsafAdvisoryFacts> = {}): CsafAdvisoryFacts => ({
  advisory_id: id,
  title: `Advisory ${id}`,
  url: null,
  json_url: null,
  published,
  fixes: [],
  vendor_fixes: [],
  remediation_categories: [],
  ...o,
});
const kev = (date_added: string): KevFacts => ({
  date_added,
  vendor_project: 'Acme',
  product: 'Widget',
  vulnerability_name: 'Acme Widget flaw',
  short_description: '',
  required_action: 'Patch.',
  due_date: null,
  known_ransomware_campaign_use: 'Unknown',
  notes: '',
});

test('record order: source precedence, then CSAF advisories by release date, then by key', () => {
  const a = rec('csaf', { source_key: 'icsa-24-001-02', advisory: advisory('ICSA-24-001-02', '2024-01-01T00:00:00Z') });
  const b = rec('csaf', { source_key: 'icsa-24-001-01', advisory: advisory('ICSA-24-001-01', '2024-01-01T00:00:00Z') });
  const c = rec('csaf', { source_key: 'icsa-23-001-01', advisory: advisory('ICSA-23-001-01', '2023-06-01T00:00:00Z') });
  const d = rec('csaf', { source_key: 'icsa-00', advisory: advisory('ICSA-00', null) });
  const k = rec('kev');
  const n = rec('nvd');
  const m = rec('msrc');
  const v = rec('cve5');
  const keys = (rs: CveSourceRecord[]) => orderRecords(rs).map((r) => `${r.source}:${r.source_key}`);
  const want = [
    'nvd:',
    'cve5:',
    'csaf:icsa-00',
    'csaf:icsa-23-001-01',
    'csaf:icsa-24-001-01',
    'csaf:icsa-24-001-02',
    'msrc:',
    'kev:',
  ];
  assert.deepEqual(keys([k, a, m, b, n, c, v, d]), want);
  assert.deepEqual(keys([d, c, b, a, v, n, m, k].reverse()), want);
  assert.deepEqual(keys([b, a]), ['csaf:icsa-24-001-01', 'csaf:icsa-24-001-02']);
  assert.deepEqual(keys([a, b]), ['csaf:icsa-24-001-01', 'csaf:icsa-24-001-02']);
  // Release date decides before the key; no date sorts first.
  const late = rec('csaf', { source_key: 'a-late', advisory: advisory('A', '2024-05-01T00:00:00Z') });
  const early = rec('csaf', { source_key: 'z-early', advisory: advisory('Z', '2023-05-01T00:00:00Z') });
  assert.deepEqual(keys([late, early]), ['csaf:z-early', 'csaf:a-late']);
  assert.deepEqual(keys([early, late]), ['csaf:z-early', 'csaf:a-late']);
  assert.deepEqual(keys([late, d, early]), ['csaf:icsa-00', 'csaf:z-early', 'csaf:a-late']);
  assert.deepEqual(
    keys([rec('nvd', { source_key: 'b' }), rec('nvd', { source_key: 'a' })]),
    ['nvd:a', 'nvd:b'],
    'records without an advisory: by key',
  );
  const same = [rec('csaf', { source_key: 'x' }), rec('csaf', { source_key: 'x', description: 'second' })];
  assert.deepEqual(
    orderRecords(same).map((r) => r.description),
    [null, 'second'],
    'equal keys keep their order',
  );
  const input = [k, n];
  orderRecords(input);
  assert.deepEqual(input, [k, n], 'the input is not sorted in place');
});

test('CVSS tiers: NVD 0; the CNA (CVE 5 CNA container, MSRC) 1; CISA (CVE 5 ADP, CSAF) 2; anything else 3', () => {
  assert.equal(cvssTier('nvd', metric('3.1', { type: 'Secondary' })), 0);
  assert.equal(cvssTier('cve5', metric('3.1', { type: 'CNA' })), 1);
  assert.equal(cvssTier('cve5', metric('3.1', { type: null })), 1);
  assert.equal(cvssTier('cve5', metric('3.1', { type: 'ADP' })), 2);
  assert.equal(cvssTier('msrc', metric('3.1', { type: 'ADP' })), 1);
  assert.equal(cvssTier('csaf', metric('3.1')), 2);
  assert.equal(cvssTier('kev', metric('3.1')), 3);
});

test('chooseCvss: the first tier with a metric, the first source in it, newest version, Primary first, then by vector', () => {
  assert.equal(chooseCvss([]), null);
  assert.equal(chooseCvss([rec('nvd'), rec('csaf')]), null);
  const adp = metric('3.1', { type: 'ADP', scored_by: 'CISA-ADP' });
  const cna = metric('3.0', { type: 'CNA', scored_by: 'acme' });
  const ms = metric('3.1', { scored_by: 'microsoft' });
  const cs = metric('4.0', { scored_by: 'csaf' });
  const kv = metric('4.0', { scored_by: 'kev' });
  // Tier 1 beats tier 2 even when the tier-2 metric is newer and its source comes first.
  assert.equal(
    chooseCvss(orderRecords([rec('cve5', { cvss: [adp] }), rec('csaf', { cvss: [cs] }), rec('msrc', { cvss: [ms] })])),
    ms,
  );
  assert.equal(
    chooseCvss(orderRecords([rec('cve5', { cvss: [adp, cna] }), rec('msrc', { cvss: [ms] })])),
    cna,
    'first source of the tier',
  );
  assert.equal(
    chooseCvss(orderRecords([rec('cve5', { cvss: [adp] }), rec('csaf', { cvss: [cs] })])),
    adp,
    'tier 2: cve5 before csaf',
  );
  assert.equal(chooseCvss(orderRecords([rec('kev', { cvss: [kv] }), rec('csaf', { cvss: [cs] })])), cs);
  assert.equal(chooseCvss([rec('kev', { cvss: [kv] })]), kv);
  const nvdV2 = metric('2.0', { type: 'Primary' });
  const nvdV30 = metric('3.0', { type: 'Primary' });
  const nvdV31s = metric('3.1', { type: 'Secondary', vector: 'CVSS:3.1/A' });
  const nvdV31p = metric('3.1', { type: 'Primary', vector: 'CVSS:3.1/Z' });
  const nvdV40 = metric('4.0', { type: 'Secondary' });
  assert.equal(
    chooseCvss([rec('nvd', { cvss: [nvdV2, nvdV30, nvdV31s, nvdV31p] }), rec('cve5', { cvss: [cna] })]),
    nvdV31p,
  );
  assert.equal(chooseCvss([rec('nvd', { cvss: [nvdV31p, nvdV2, nvdV40] })]), nvdV40);
  assert.equal(chooseCvss([rec('nvd', { cvss: [nvdV2, nvdV30] })]), nvdV30);
  assert.equal(chooseCvss([rec('nvd', { cvss: [nvdV30, nvdV2] })]), nvdV30);
  assert.equal(chooseCvss([rec('nvd', { cvss: [nvdV31p, nvdV31s] })]), nvdV31p);
  // Same version and type: the smaller vector, whatever the input order.
  const x = metric('3.1', { type: 'Secondary', vector: 'CVSS:3.1/AV:L' });
  const y = metric('3.1', { type: 'Secondary', vector: 'CVSS:3.1/AV:N' });
  assert.equal(chooseCvss([rec('nvd', { cvss: [y, x] })]), x);
  assert.equal(chooseCvss([rec('nvd', { cvss: [x, y] })]), x);
  const x2 = metric('3.1', { type: 'Secondary', vector: 'CVSS:3.1/AV:L', score: 9 });
  assert.equal(chooseCvss([rec('nvd', { cvss: [x2, x] })]), x2, 'equal vectors keep their order');
});

test('mergeSources: sources in precedence order, once each, epss only for this CVE; other CVEs records ignored', () => {
  const other = rec('kev', { cve_id: 'CVE-2024-0002', description: 'not mine', kev: kev('2020-01-01') });
  const m = mergeSources(
    CVE,
    [
      rec('kev', { kev: kev('2024-02-01') }),
      rec('csaf', { source_key: 'b' }),
      rec('csaf', { source_key: 'a' }),
      rec('nvd'),
      other,
    ],
    { cve_id: CVE, epss: 0.1, percentile: 0.5, date: '2026-01-01' } as never,
  );
  assert.deepEqual(m.sources, ['nvd', 'csaf', 'kev', 'epss']);
  assert.equal(m.kev!.date_added, '2024-02-01');
  assert.equal(m.description, null);
  assert.equal(m.epss!.cve_id, CVE);
  const w = mergeSources(CVE, [rec('nvd')], {
    cve_id: 'CVE-2024-0002',
    epss: 0.1,
    percentile: 0.5,
    date: '2026-01-01',
  } as never);
  assert.deepEqual(w.sources, ['nvd']);
  assert.equal(w.epss, null);
  assert.equal(mergeSources(CVE, [rec('nvd')]).epss, null);
});

test('mergeSources: description from the first source that has one, with its source', () => {
  const m = mergeSources(CVE, [
    rec('kev', { description: 'kev text' }),
    rec('csaf', { description: 'csaf text' }),
    rec('nvd', { description: '' }),
  ]);
  assert.equal(m.description, 'csaf text');
  assert.equal(m.description_source, 'csaf');
  const none = mergeSources(CVE, [rec('nvd')]);
  assert.equal(none.description, null);
  assert.equal(none.description_source, null);
});

test("mergeSources: titles the CVE record (the CNA's), CSAF, MSRC, KEV, without titles that are only the CVE id", () => {
  const m = mergeSources(CVE, [
    rec('cve5', { title: 'CNA title' }),
    rec('kev', { title: 'KEV title' }),
    rec('msrc', { title: ' cve-2024-0001 ' }),
    rec('csaf', { source_key: 'b', title: 'CSAF B', advisory: advisory('B', '2024-02-01T00:00:00Z') }),
    rec('csaf', { source_key: 'a', title: 'CSAF A', advisory: advisory('A', '2024-01-01T00:00:00Z') }),
    rec('csaf', { source_key: 'c', title: 'CVE-2024-9999' }),
    rec('nvd', { title: 'NVD has no title rule' }),
  ]);
  assert.deepEqual(m.titles, [
    { source: 'cve5', title: 'CNA title' },
    { source: 'csaf', title: 'CSAF A' },
    { source: 'csaf', title: 'CSAF B' },
    { source: 'kev', title: 'KEV title' },
  ]);
  // The CVE's own id in any spelling or padding is no title, also for an id the canonical pattern does not cover.
  const odd = 'CVE-2024-1';
  assert.deepEqual(
    mergeSources(odd, [
      rec('csaf', { cve_id: odd, title: ' cve-2024-1 ' }),
      rec('kev', { cve_id: odd, title: 'Real title' }),
    ]).titles,
    [{ source: 'kev', title: 'Real title' }],
  );
  assert.deepEqual(mergeSources(CVE, [rec('csaf', { title: ' CVE-2023-1234 ' })]).titles, []);
  assert.deepEqual(mergeSources(odd, [rec('csaf', { cve_id: odd, title: 'CVE-2024-12' })]).titles, [
    { source: 'csaf', title: 'CVE-2024-12' },
  ]);
  assert.deepEqual(
    mergeSources(CVE, [rec('msrc', { title: 'Windows Kernel Elevation of Privilege Vulnerability' })]).titles,
    [{ source: 'msrc', title: 'Windows Kernel Elevation of Privilege Vulnerability' }],
  );
});

test('mergeSources: publication date NVD, else the CVE record, else the earliest of advisories, MSRC and KEV', () => {
  const adv = (id: string, d: string | null) => rec('csaf', { source_key: id, advisory: advisory(id, d) });
  const ms = rec('msrc', { published: '2024-03-12T07:00:00Z', modified: '2024-03-20T07:00:00Z' });
  const kv = rec('kev', { kev: kev('2024-01-05') });
  // A CSAF record's own published/modified fields are not the advisory's release date.
  const csafOwn = rec('csaf', {
    source_key: 'C',
    advisory: advisory('C', '2024-02-15T00:00:00Z'),
    published: '2019-01-01T00:00:00Z',
    modified: '2031-01-01T00:00:00Z',
  });
  const base = [adv('A', '2024-02-01T00:00:00Z'), adv('B', null), csafOwn, ms, kv];
  let m = mergeSources(CVE, [
    rec('nvd', { published: '2024-04-01T00:00:00Z', modified: '2024-05-01T00:00:00Z' }),
    rec('cve5', { published: '2024-03-01T00:00:00Z', modified: '2024-03-02T00:00:00Z' }),
    ...base,
  ]);
  assert.deepEqual([m.published, m.modified], ['2024-04-01T00:00:00Z', '2024-05-01T00:00:00Z']);
  m = mergeSources(CVE, [
    rec('nvd'),
    rec('cve5', { published: '2024-03-01T00:00:00Z', modified: '2024-03-02T00:00:00Z' }),
    ...base,
  ]);
  assert.deepEqual([m.published, m.modified], ['2024-03-01T00:00:00Z', '2024-03-02T00:00:00Z']);
  m = mergeSources(CVE, base);
  assert.deepEqual([m.published, m.modified], ['2024-01-05T00:00:00.000Z', '2024-03-20T07:00:00Z']);
  m = mergeSources(CVE, base.slice(0, 4));
  assert.deepEqual([m.published, m.modified], ['2024-02-01T00:00:00Z', '2024-03-20T07:00:00Z']);
  m = mergeSources(CVE, base.slice(0, 3));
  assert.deepEqual([m.published, m.modified], ['2024-02-01T00:00:00Z', '2024-02-01T00:00:00Z']);
  m = mergeSources(CVE, [adv('A', '2024-02-01T00:00:00Z'), rec('msrc', { published: '2024-01-12T07:00:00Z' })]);
  assert.deepEqual(
    [m.published, m.modified],
    ['2024-01-12T07:00:00Z', '2024-01-12T07:00:00Z'],
    'modified falls back to published',
  );
  m = mergeSources(CVE, [
    rec('csaf', { advisory: advisory('D', null), published: '2019-01-01T00:00:00Z', modified: '2031-01-01T00:00:00Z' }),
    kv,
  ]);
  assert.deepEqual(
    [m.published, m.modified],
    ['2024-01-05T00:00:00.000Z', '2024-01-05T00:00:00.000Z'],
    'only NVD, the CVE record and MSRC give record dates',
  );
  m = mergeSources(CVE, [adv('B', null), rec('kev', { kev: { ...kev(''), date_added: '' } })]);
  assert.deepEqual([m.published, m.modified], [null, null]);
});

test('mergeSources: CWEs and references de-duplicated in source order, tags of a repeated URL added once', () => {
  const m = mergeSources(CVE, [
    rec('csaf', {
      cwes: [79, 20],
      references: [
        { url: 'https://a.test/1', tags: ['Vendor Advisory', 'Patch'], provided_by: 'csaf' },
        { url: 'https://a.test/2', tags: [], provided_by: 'csaf' },
      ],
    }),
    rec('nvd', { cwes: [20], references: [{ url: 'https://a.test/1', tags: ['Patch'], provided_by: 'nvd@nist.gov' }] }),
  ]);
  assert.deepEqual(m.cwes, [20, 79]);
  assert.deepEqual(m.references, [
    { url: 'https://a.test/1', tags: ['Patch', 'Vendor Advisory'], provided_by: 'nvd@nist.gov' },
    { url: 'https://a.test/2', tags: [], provided_by: 'csaf' },
  ]);
});

test('mergeSources: advisories carry the vendors of their listed products; KEV, MSRC, CVE 5 facts and assigner', () => {
  const m = mergeSources(CVE, [
    rec('csaf', {
      advisory: advisory('ICSA-1', null),
      affected: [
        { vendor: 'Siemens', product: 'A', origin: 'csaf' },
        { vendor: 'Siemens', product: 'B', origin: 'csaf' },
        { vendor: 'Moxa', product: 'C', origin: 'csaf' },
      ],
    }),
    rec('msrc', { msrc: { exploited: true, publicly_disclosed: false, severity: 'Important' } }),
    rec('cve5', { cve5: { assigner_short_name: 'siemens', ssvc_exploitation: 'poc', kev_date_added: null } }),
    rec('nvd', { assigner: 'productcert@siemens.com', affected: [{ vendor: 'siemens', product: 'a', origin: 'cpe' }] }),
  ]);
  assert.deepEqual(
    m.advisories.map((a) => [a.advisory_id, a.vendors]),
    [['ICSA-1', ['Siemens', 'Moxa']]],
  );
  assert.deepEqual(m.msrc, { exploited: true, publicly_disclosed: false, severity: 'Important' });
  assert.deepEqual(m.cve5, { assigner_short_name: 'siemens', ssvc_exploitation: 'poc', kev_date_added: null });
  assert.equal(m.assigner, 'productcert@siemens.com');
  assert.deepEqual(
    m.affected.map((a) => a.product),
    ['a', 'A', 'B', 'C'],
  );
  const nvdV31 = metric('3.1', { type: 'Primary' });
  const cnaV40 = metric('4.0', { type: 'CNA' });
  const csafV30 = metric('3.0');
  const all = mergeSources(CVE, [
    rec('csaf', { cvss: [csafV30] }),
    rec('cve5', { cvss: [cnaV40] }),
    rec('nvd', { cvss: [nvdV31] }),
  ]);
  assert.deepEqual(all.all_cvss, [nvdV31, cnaV40, csafV30]);
  assert.equal(all.cvss, nvdV31);
  const bare = mergeSources(CVE, [rec('kev')]);
  assert.deepEqual([bare.kev, bare.msrc, bare.cve5, bare.assigner, bare.cvss], [null, null, null, null, null]);
  assert.deepEqual(bare.advisories, []);
});
