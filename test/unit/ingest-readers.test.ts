import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { detectFormat, detectFromHead, readFeed } from '../../src/ingest/detect.ts';
import { extractFixedVersion } from '../../src/ingest/csaf.ts';
import { parseCpe, isPlaceholderDescription } from '../../src/ingest/nvd.ts';
import { FeedFormatError, type CveSourceRecord } from '../../src/ingest/types.ts';
import { fixture, readAll, snapshotFile, cveRecords } from '../helpers/feeds.ts';

test('format detection by content, plain and gzip, for every fixture', async () => {
  const cases: [string, string][] = [
    [fixture('nvd', 'CVE-2023-0228.json'), 'nvd-record'],
    [fixture('nvd', 'nvd-api-2.0-page.assembled.json'), 'nvd-page'],
    [fixture('kev', 'kev-cut.json'), 'kev'],
    [fixture('epss', 'epss_scores-2026-09-29.head.csv'), 'epss-csv'],
    [fixture('epss', 'epss-cut.ssv.gz'), 'epss-ssv'],
    [fixture('cwe', 'cwe-cut.xml.gz'), 'cwe-xml'],
    [fixture('capec', 'capec-114-bundle.json'), 'capec-stix'],
    [snapshotFile('capec', 'capec-3.9-stix21-objects.jsonl.gz'), 'capec-stix'],
    [fixture('csaf', 'icsa-24-289-02.json'), 'csaf'],
    [fixture('csaf', 'icsa-23-262-04.json'), 'csaf'],
    [fixture('csaf', 'csaf-cut.jsonl.gz'), 'csaf-jsonl'],
    [snapshotFile('msrc', '2024-Jan.xml.gz'), 'msrc-cvrf'],
  ];
  for (const [file, fmt] of cases) assert.equal(await detectFormat(file), fmt, file);
  assert.equal(detectFromHead('hello world'), null);
  assert.equal(detectFromHead('{"foo": 1}'), null);
  await assert.rejects(async () => {
    for await (const _ of readFeed(fixture('PROVENANCE.md'))) void _;
  }, FeedFormatError);
});

test('NVD single record: description, CVSS, CWEs, CPE vendors/products, references with tags, dates', async () => {
  const [r] = await cveRecords(fixture('nvd', 'CVE-2023-0228.json'));
  assert.equal(r.cve_id, 'CVE-2023-0228');
  assert.equal(r.source, 'nvd');
  assert.match(r.description!, /^Improper Authentication vulnerability in ABB Symphony Plus S\+ Operations/);
  assert.equal(r.published, '2023-03-02T02:15:41.303Z');
  assert.deepEqual(r.cwes, [287]);
  assert.deepEqual(
    r.cvss.map((c) => [c.version, c.score, c.type]),
    [
      ['3.1', 8.8, 'Secondary'],
      ['3.1', 8.8, 'Primary'],
    ],
  );
  // The escaped CPE product (s\+_operations) is unescaped.
  assert.equal(r.affected.filter((a) => a.origin === 'cpe')[0].product, 'symphony_plus_s+_operations');
  assert.deepEqual(
    r.affected.find((a) => a.origin === 'cna'),
    { vendor: 'ABB', product: 'Symphony Plus S+ Operations', origin: 'cna' },
  );
  assert.deepEqual(r.references[0].tags, ['Vendor Advisory']);
  assert.equal(r.assigner, 'cybersecurity@ch.abb.com');
});

test('NVD: v2 + v3.1 metrics, v4.0-only records, AND configurations keep only vulnerable CPEs, placeholder descriptions dropped', async () => {
  const [pc] = await cveRecords(fixture('nvd', 'CVE-2022-31801.json'));
  assert.deepEqual(pc.cvss.map((c) => c.version).sort(), ['2.0', '3.1']);
  assert.equal(pc.cvss.find((c) => c.version === '2.0')!.vector, 'AV:N/AC:L/Au:N/C:C/I:C/A:C');
  const [rw] = await cveRecords(fixture('nvd', 'CVE-2024-9124.json'));
  assert.deepEqual(
    rw.cvss.map((c) => c.version),
    ['4.0'],
  );
  const [sie] = await cveRecords(fixture('nvd', 'CVE-2023-28489.json'));
  assert.deepEqual(
    sie.affected.map((a) => [a.product, a.cpe_part, a.version]),
    [
      ['cp-8031_firmware', 'o', '<cpci85_v05'],
      ['cp-8050_firmware', 'o', '<cpci85_v05'],
    ],
  );
  const [om] = await cveRecords(fixture('nvd', 'CVE-2022-45793.json'));
  assert.equal(om.description, null, 'the "[PROBLEMTYPE] in [VENDOR] …" template is not a description');
  assert.ok(isPlaceholderDescription('** REJECT ** This candidate was withdrawn.'));
  assert.ok(!isPlaceholderDescription('A buffer overflow in [the] parser.'));
  assert.deepEqual(parseCpe('cpe:2.3:a:abb:symphony_plus_s\\+_operations:2.1:sp2:*:*:*:*:*:*'), {
    part: 'a',
    vendor: 'abb',
    product: 'symphony_plus_s+_operations',
    version: '2.1',
  });
});

test('NVD API page: every record of the page, plus page metadata', async () => {
  const items = await readAll(fixture('nvd', 'nvd-api-2.0-page.assembled.json'));
  const meta = items.find((i) => i.kind === 'meta');
  assert.deepEqual(meta, {
    kind: 'meta',
    meta: { feed: 'nvd-page', version: '2.0', date: '2026-06-17T05:25:04.350Z', declared_count: 21 },
  });
  const ids = items.filter((i) => i.kind === 'cve').map((i) => (i as { record: CveSourceRecord }).record.cve_id);
  assert.equal(ids.length, 21);
  assert.ok(ids.includes('CVE-2024-3506') && ids.includes('CVE-2025-24983'));
});

test('KEV: entries map to records with KEV facts; the full catalog count equals its declared count (1,662)', async () => {
  const items = await readAll(snapshotFile('kev', 'known_exploited_vulnerabilities.json'));
  const meta = items.find((i) => i.kind === 'meta')!;
  assert.equal(meta.kind === 'meta' && meta.meta.declared_count, 1662);
  const recs = items.filter((i) => i.kind === 'cve');
  assert.equal(recs.length, 1662);
  const raw = JSON.parse(readFileSync(snapshotFile('kev', 'known_exploited_vulnerabilities.json'), 'utf8'));
  assert.equal(recs.length, raw.vulnerabilities.length);
  const [r] = (await cveRecords(fixture('kev', 'kev-cut.json'))).filter((x) => x.cve_id === 'CVE-2024-21338');
  assert.equal(r.title, 'Microsoft Windows Kernel Exposed IOCTL with Insufficient Access Control Vulnerability');
  assert.equal(r.kev!.date_added, '2024-03-04');
  assert.deepEqual(r.affected, [{ vendor: 'Microsoft', product: 'Windows', origin: 'kev' }]);
  assert.deepEqual(r.cwes, [822]);
});

test('EPSS official layout: model version and score date from the comment line, 5-decimal rows', async () => {
  const items = await readAll(fixture('epss', 'epss_scores-2026-09-29.head.csv'));
  assert.deepEqual(items[0], {
    kind: 'meta',
    meta: { feed: 'epss-csv', version: 'v2026.06.15', date: '2026-09-29T12:00:22Z', declared_count: null },
  });
  const rows = items.filter((i) => i.kind === 'epss');
  assert.equal(rows.length, 49);
  assert.deepEqual(rows[0], { kind: 'epss', record: { cve_id: 'CVE-1999-0001', epss: 0.03351, percentile: 0.88255 } });
});

test('EPSS plain cve;epss;percentile layout (gzip): every row, exact values', async () => {
  const items = await readAll(fixture('epss', 'epss-cut.ssv.gz'));
  const rows = items
    .filter((i) => i.kind === 'epss')
    .map((i) => (i as { record: { cve_id: string; epss: number; percentile: number } }).record);
  const text = gunzipSync(readFileSync(fixture('epss', 'epss-cut.ssv.gz')))
    .toString('utf8')
    .trim()
    .split('\n');
  assert.equal(rows.length, text.length);
  assert.deepEqual(rows[0], { cve_id: 'CVE-1999-1593', epss: 0.18126, percentile: 0.96946 });
  const line = text.find((l) => l.startsWith('CVE-2024-21338;'))!.split(';');
  assert.deepEqual(
    rows.find((r) => r.cve_id === 'CVE-2024-21338'),
    { cve_id: 'CVE-2024-21338', epss: Number(line[1]), percentile: Number(line[2]) },
  );
});

test('CWE XML: id, name, abstraction, related CAPEC; full 4.15 catalog has 964 weaknesses and 409 categories', async () => {
  const items = await readAll(fixture('cwe', 'cwe-cut.xml.gz'));
  const recs = items
    .filter((i) => i.kind === 'cwe')
    .map(
      (i) =>
        (i as { record: { id: number; name: string; abstraction: string; kind: string; capec_ids: number[] } }).record,
    );
  assert.equal(recs.length, 18);
  const w287 = recs.find((r) => r.id === 287)!;
  assert.equal(w287.name, 'Improper Authentication');
  assert.equal(w287.abstraction, 'Class');
  assert.ok(w287.capec_ids.includes(114) && w287.capec_ids.includes(22));
  const w1004 = recs.find((r) => r.id === 1004)!;
  assert.equal(w1004.name, "Sensitive Cookie Without 'HttpOnly' Flag", 'XML entities decoded');
  assert.equal(recs.find((r) => r.kind === 'category')!.id, 1020);
  const full = (await readAll(snapshotFile('cwe', 'cwec_v4.15.xml.gz')))
    .filter((i) => i.kind === 'cwe')
    .map((i) => (i as { record: { kind: string } }).record);
  assert.equal(full.filter((r) => r.kind === 'weakness').length, 964);
  assert.equal(full.filter((r) => r.kind === 'category').length, 409);
});

test('CAPEC STIX: a bundle file and the one-object-per-line catalog (615 attack patterns, CAPEC 3.9)', async () => {
  const b = (await readAll(fixture('capec', 'capec-114-bundle.json'))).filter((i) => i.kind === 'capec');
  assert.equal(b.length, 1);
  const r = (b[0] as { record: { capec_id: number; name: string; typical_severity: string | null; cwes: number[] } })
    .record;
  assert.equal(r.capec_id, 114);
  assert.equal(r.name, 'Authentication Abuse');
  assert.equal(r.typical_severity, 'Medium');
  assert.deepEqual(r.cwes, [287, 1244]);
  const all = await readAll(snapshotFile('capec', 'capec-3.9-stix21-objects.jsonl.gz'));
  assert.equal(all.filter((i) => i.kind === 'capec').length, 615);
  assert.deepEqual(
    all.find((i) => i.kind === 'meta'),
    { kind: 'meta', meta: { feed: 'capec-stix', version: '3.9', date: null, declared_count: null } },
  );
});

test('CSAF: advisory id, title, page URL, published, CVEs, products, per-product fixed versions, CVSS', async () => {
  const recs = await cveRecords(fixture('csaf', 'icsa-24-289-02.json'));
  assert.deepEqual(recs.map((r) => r.cve_id).sort(), ['CVE-2024-8530', 'CVE-2024-8531']);
  const r = recs.find((x) => x.cve_id === 'CVE-2024-8531')!;
  assert.equal(r.source_key, 'ICSA-24-289-02');
  assert.equal(r.advisory!.title, 'Schneider Electric Data Center Expert');
  assert.equal(r.advisory!.url, 'https://www.cisa.gov/news-events/ics-advisories/icsa-24-289-02');
  assert.equal(r.advisory!.published, '2024-10-08T00:00:00.000Z');
  assert.deepEqual(r.affected, [
    { vendor: 'Schneider Electric', product: 'Data Center Expert', origin: 'csaf', version: '<=8.1.1.3' },
  ]);
  assert.deepEqual(r.advisory!.fixes, [
    { product: 'Data Center Expert', version: '8.2', origin: 'product_status.fixed' },
  ]);
  assert.deepEqual(r.cvss, [
    {
      version: '3.1',
      vector: 'CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H',
      score: 7.2,
      scored_by: 'csaf',
      type: null,
    },
  ]);
  assert.deepEqual(r.cwes, [347]);
  assert.equal(r.title, 'CVE-2024-8531');
  assert.match(
    r.description!,
    /^CWE-347: Improper Verification of Cryptographic Signature vulnerability exists that could/,
  );
  // The jsonl layout yields the same records as the single documents.
  const fromJsonl = (await cveRecords(fixture('csaf', 'csaf-cut.jsonl.gz'))).filter(
    (x) => x.source_key === 'ICSA-24-289-02',
  );
  assert.deepEqual(fromJsonl, recs);
});

test('CSAF vendor_fix remediations give per-product versions; text without a version gives none', async () => {
  const recs = await cveRecords(fixture('csaf', 'icsa-24-284-01.json'));
  const r = recs.find((x) => x.cve_id === 'CVE-2024-46886')!;
  const versions = new Set(r.advisory!.fixes.map((f) => f.version));
  assert.ok(versions.has('V3.1.4'));
  assert.ok(r.advisory!.fixes.length > 1);
  assert.equal(extractFixedVersion('Update to V3.1.4 or later version'), 'V3.1.4');
  assert.equal(extractFixedVersion('Update to V9.2 SP2 Upd1 or later version'), 'V9.2 SP2 Upd1');
  assert.equal(
    extractFixedVersion('Delta recommends users update to DIAEnergie v1.10.01.009. Users can request it.'),
    'v1.10.01.009',
  );
  assert.equal(
    extractFixedVersion('Version 8.2 of EcoStruxure IT Data Center Expert includes fixes for these vulnerabilities'),
    '8.2',
  );
  assert.equal(extractFixedVersion('Update Mx6 cameras to firmware version MX-V5.2.0.61 or later'), 'MX-V5.2.0.61');
  assert.equal(extractFixedVersion('For more information, see Hitachi Energy advisory 8DBD000154.'), null);
  const none = (await cveRecords(fixture('csaf', 'icsa-24-284-12.json'))).find((x) => x.cve_id === 'CVE-2023-6874')!;
  assert.deepEqual(none.advisory!.fixes, []);
  assert.deepEqual(none.advisory!.vendor_fixes, []);
  assert.ok(none.advisory!.remediation_categories.includes('none_available'));
});
