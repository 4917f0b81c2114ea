// CVE Record Format 5 (the CVE Program's records, CISA Vulnrichment): the reader, its merge with the other sources,
// SSVC exploitation, and the numbering authority's references as vendor advisories (spec §2.5). Real records only
// (test/fixtures/cve5, PROVENANCE.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { detectFormat } from '../../src/ingest/detect.ts';
import { cve5RecordFrom, ssvcExploitation } from '../../src/ingest/cve5.ts';
import { rangesOfAffected } from '../../src/ingest/cve5-affected.ts';
import { mergeSources, chooseCvss } from '../../src/domain/merge.ts';
import { buildCveDocument } from '../../src/domain/enrich.ts';
import type { CveSourceRecord } from '../../src/ingest/types.ts';
import { cveRecords, fixture, readAll, realCatalogs, snapshotFile } from '../helpers/feeds.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const cve5 = (id: string) => fixture('cve5', `${id}.json`);

async function docFor(cve: string, files: string[]) {
  const recs = (await cveRecords(...files)).filter((r) => r.cve_id === cve);
  return buildCveDocument(mergeSources(cve, recs), await realCatalogs(), NOW).doc;
}

test('detect: a CVE record file is cve5, the JSON Lines corpus (gzip) cve5-jsonl, by content', async () => {
  assert.equal(await detectFormat(cve5('CVE-2023-40159')), 'cve5');
  assert.equal(await detectFormat(fixture('cve5', 'records.jsonl.gz')), 'cve5-jsonl');
  const items = await readAll(fixture('cve5', 'records.jsonl.gz'));
  assert.deepEqual(
    items.map((i) => (i.kind === 'cve' ? i.record.cve_id : i.kind)),
    [
      'CVE-1999-0006',
      'CVE-2016-15040',
      'CVE-2017-2680',
      'CVE-2019-0714',
      'CVE-2019-25161',
      'CVE-2019-7256',
      'CVE-2020-36695',
      'CVE-2023-20209',
      'CVE-2023-40159',
    ],
  );
  // One record read as a file equals the same record read from the lines.
  const [one] = await cveRecords(cve5('CVE-2023-40159'));
  const fromLines = items.flatMap((i) => (i.kind === 'cve' && i.record.cve_id === 'CVE-2023-40159' ? [i.record] : []));
  assert.deepEqual([one], fromLines);
});

test('reader: CNA title, description, dates, CWE, CVSS 3.1 and 4.0 (CNA), tags in the NVD spelling', async () => {
  const [r] = await cveRecords(cve5('CVE-2023-40159'));
  assert.equal(r.source, 'cve5');
  assert.equal(r.title, 'Philips Vue PACS Exposure of Sensitive Information to an Unauthorized Actor');
  assert.match(r.description ?? '', /Philips Vue PACS/);
  assert.equal(r.assigner, 'icscert');
  assert.equal(r.published, '2024-07-18T16:19:22.089Z');
  assert.equal(r.modified, '2024-08-02T18:24:55.536Z');
  assert.deepEqual(r.cwes, [200]);
  assert.deepEqual(
    r.cvss.map((m) => [m.version, m.score, m.scored_by, m.type]),
    [
      ['4.0', 8.8, 'icscert', 'CNA'],
      ['3.1', 8.2, 'icscert', 'CNA'],
    ],
  );
  assert.deepEqual(r.cve5, { assigner_short_name: 'icscert', ssvc_exploitation: 'none', kev_date_added: null });
  const m = await cveRecords(cve5('CVE-2020-36695'));
  assert.deepEqual(
    m[0].references.map((x) => [x.tags, x.provided_by]),
    [
      [['Vendor Advisory'], 'cna:Hitachi'],
      [['Vendor Advisory', 'x_transferred'], 'adp:CVE'],
    ],
  );
});

test('reader: ADP CVSS, CWE and CPE products when the CNA gave none (CVE-1999-0006); n/a vendor is no vendor', async () => {
  const [r] = await cveRecords(cve5('CVE-1999-0006'));
  assert.deepEqual(
    r.cvss.map((m) => [m.version, m.score, m.scored_by, m.type]),
    [['3.1', 9.8, 'CISA-ADP', 'ADP']],
  );
  assert.ok(r.cwes.includes(121));
  assert.deepEqual(
    r.affected.map((a) => [a.vendor, a.product, a.origin, a.cpe_part, a.version]),
    [['qualcomm', 'qpopper', 'cpe', 'a', '2.4']],
  );
  // The CVE Program container's transferred references come once each (dedupe happens at merge).
  assert.ok(r.references.some((x) => x.provided_by === 'adp:CVE' && x.tags.includes('Vendor Advisory')));
});

test('reader: REJECTED records become empty records (status Rejected), so the CVE leaves the corpus unless another source describes it', async () => {
  const [r] = await cveRecords(cve5('CVE-2019-25161'));
  assert.equal(r.status, 'Rejected');
  assert.equal(r.description, null);
  assert.deepEqual([r.cvss, r.references, r.affected, r.ranges], [[], [], [], []]);
  const merged = mergeSources('CVE-2019-25161', [r]);
  assert.equal(merged.description, null);
});

test('ranges: lessThan / lessThanOrEqual, changes[], defaultStatus, versionType; `*` and 0 are unbounded; words stay text', async () => {
  const [h] = await cveRecords(cve5('CVE-2020-36695'));
  const dm = h.ranges!.find((x) => x.product === 'Hitachi Device Manager')!;
  assert.deepEqual(
    {
      start: dm.start,
      end: dm.end,
      status: dm.status,
      defaultStatus: dm.defaultStatus,
      versionType: dm.versionType,
      changes: dm.changes,
      fixedIn: dm.fixedIn,
      text: dm.text,
    },
    {
      start: null,
      end: { version: '8.8.5-02', inclusive: false },
      status: 'affected',
      defaultStatus: 'unaffected',
      versionType: 'custom',
      changes: [{ at: '8.8.5-02', status: 'unaffected' }],
      fixedIn: '8.8.5-02',
      text: null,
    },
  );
  const [w] = await cveRecords(cve5('CVE-2016-15040'));
  // The CNA's (no vendor: "n/a"), then CISA-ADP's with its CPE; `*` and `0` as the start both mean unbounded.
  assert.deepEqual(
    w.ranges!.map((x) => [x.vendor, x.product, x.cpe, x.start, x.end, x.versionType]),
    [
      ['', 'Kento Post View Counter', null, null, { version: '2.8', inclusive: true }, 'semver'],
      [
        'kentothemes',
        'kento-post-view-counter',
        'cpe:2.3:a:kentothemes:kento-post-view-counter:*:*:*:*:*:*:*:*',
        null,
        { version: '2.8', inclusive: true },
        'semver',
      ],
    ],
  );
  // Siemens writes the range into `version`: "All versions < V4.1.1 Patch04" is certain, an exclusive upper bound.
  const [s] = await cveRecords(cve5('CVE-2017-2680'));
  const dk = s.ranges!.find(
    (x) => x.product === 'Development/Evaluation Kits for PROFINET IO: DK Standard Ethernet Controller',
  )!;
  assert.deepEqual(
    [dk.start, dk.end, dk.fixedIn, dk.text],
    [null, { version: 'V4.1.1 Patch04', inclusive: false }, 'V4.1.1 Patch04', null],
  );
  // Microsoft's "lessThan: publication" is no version: kept as text (needs review), with the CPE the CNA gave.
  const [ms] = await cveRecords(cve5('CVE-2019-0714'));
  const w1703 = ms.ranges!.find((x) => x.product === 'Windows 10 Version 1703')!;
  assert.deepEqual(
    [w1703.start, w1703.end, w1703.text, w1703.cpe],
    [null, null, '10.0.0 < publication', 'cpe:2.3:o:microsoft:windows_10:1703:*:*:*:*:*:*:*'],
  );
  // Exact versions (Cisco's list) are one range each.
  const [c] = await cveRecords(cve5('CVE-2023-20209'));
  assert.ok(
    c.ranges!.some((x) => x.version === 'X8.5.1' && x.start === null && x.end === null && x.status === 'affected'),
  );
  // An entry with no versions states its defaultStatus for all versions; a nameless entry gives no range.
  assert.deepEqual(
    rangesOfAffected({ vendor: 'Acme', product: 'Widget', defaultStatus: 'affected' }).map((x) => [
      x.status,
      x.version,
      x.start,
      x.end,
    ]),
    [['affected', null, null, null]],
  );
  assert.deepEqual(
    rangesOfAffected({ vendor: 'n/a', product: 'n/a', versions: [{ version: 'n/a', status: 'affected' }] }),
    [],
  );
});

test('SSVC Exploitation: case varies in the data (PoC, Active); poc sets poc_available and POC maturity, active sets actively_exploited', async () => {
  assert.equal(ssvcExploitation([{ other: { type: 'ssvc', content: { options: [{ Exploitation: 'PoC' }] } } }]), 'poc');
  assert.equal(
    ssvcExploitation([{ other: { type: 'ssvc', content: { options: [{ Exploitation: 'Active' }] } } }]),
    'active',
  );
  assert.equal(ssvcExploitation([{ other: { type: 'kev', content: {} } }]), null);
  const p = await docFor('CVE-2023-20209', [cve5('CVE-2023-20209')]);
  assert.equal(p.exploitation.poc_available, true);
  assert.equal(p.exploitation.exploit_maturity, 'POC');
  assert.equal(p.exploitation.actively_exploited, false);
  assert.equal(p.exploitation.kev_flagged, false);
  const none = await docFor('CVE-2023-40159', [cve5('CVE-2023-40159')]);
  assert.deepEqual(
    [none.exploitation.poc_available, none.exploitation.exploit_maturity, none.exploitation.actively_exploited],
    [false, 'NONE', false],
  );
  // CVE-2019-7256: SSVC "Active" → actively exploited; its CISA-ADP KEV marker alone does not flag KEV (the catalog decides).
  const a = await docFor('CVE-2019-7256', [cve5('CVE-2019-7256')]);
  assert.equal(a.exploitation.actively_exploited, true);
  assert.equal(a.exploitation.kev_flagged, false);
  assert.equal(a.exploitation.kev_added_at, null);
});

test('merge: NVD first for text and CVSS; the CVE record fills in what NVD lacks; CNA CVSS before CISA-ADP', async () => {
  const r = JSON.parse(readFileSync(cve5('CVE-2023-40159'), 'utf8')) as unknown;
  const rec = cve5RecordFrom(r);
  // CNA score (4.0) chosen over nothing else.
  assert.equal(chooseCvss([rec])?.version, '4.0');
  // A CNA 3.1 score is chosen before a CISA-ADP 4.0 one (the chain: NVD, CNA, CISA-ADP), whatever the versions.
  const adp = {
    ...rec,
    cvss: [
      { ...rec.cvss[1] },
      { version: '4.0' as const, vector: rec.cvss[0].vector, score: 1, scored_by: 'CISA-ADP', type: 'ADP' },
    ],
  };
  assert.equal(chooseCvss([adp])?.scored_by, 'icscert');
  assert.equal(chooseCvss([adp])?.version, '3.1');
  // NVD wins when it has a score.
  const nvdRec: CveSourceRecord = {
    ...rec,
    source: 'nvd',
    cvss: [
      {
        version: '3.1',
        vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N',
        score: 5.3,
        scored_by: 'nvd@nist.gov',
        type: 'Primary',
      },
    ],
    cve5: undefined,
    ranges: undefined,
  };
  assert.equal(chooseCvss([rec, nvdRec])?.scored_by, 'nvd@nist.gov');
  const merged = mergeSources('CVE-2023-40159', [rec, nvdRec]);
  assert.deepEqual(merged.sources, ['nvd', 'cve5']);
  assert.equal(merged.published, nvdRec.published);
  // The CNA title is a source title.
  const d = await docFor('CVE-2023-40159', [cve5('CVE-2023-40159')]);
  assert.equal(d.title, 'Philips Vue PACS Exposure of Sensitive Information to an Unauthorized Actor');
  assert.deepEqual(d.sources, ['cve5']);
  assert.equal(d.scoring.cvss.version, '4.0');
  assert.equal(d.affected.primary_vendor, 'Philips');
});

test("references (§2.5): the numbering authority's own references are vendor advisories when the CNA is the vendor (Siemens), not otherwise", async () => {
  const s = await docFor('CVE-2017-2680', [cve5('CVE-2017-2680')]);
  // Every Siemens page the Siemens CNA lists, tagged or not; SecurityTracker, SecurityFocus and ICS-CERT are not.
  assert.deepEqual(
    s.references.vendor_advisories.map((v) => v.url),
    [
      'https://cert-portal.siemens.com/productcert/pdf/ssa-546832.pdf',
      'https://cert-portal.siemens.com/productcert/pdf/ssa-293562.pdf',
      'https://www.siemens.com/cert/pool/cert/siemens_security_advisory_ssa-284673.pdf',
      'https://cert-portal.siemens.com/productcert/pdf/ssa-284673.pdf',
      'https://cert-portal.siemens.com/productcert/html/ssa-293562.html',
      'https://cert-portal.siemens.com/productcert/html/ssa-284673.html',
      'https://cert-portal.siemens.com/productcert/html/ssa-546832.html',
    ],
  );
  assert.ok(s.references.vendor_advisories.every((v) => v.provided_by === 'cna:siemens'));
  assert.deepEqual(
    s.references.other_references.map((o) => o.url),
    [
      'http://www.securitytracker.com/id/1038463',
      'http://www.securityfocus.com/bid/98369',
      'https://ics-cert.us-cert.gov/advisories/ICSA-18-023-02',
    ],
  );
  // icscert (CISA) is not Philips: its untagged link to philips.com is no vendor advisory.
  const p = await docFor('CVE-2023-40159', [cve5('CVE-2023-40159')]);
  assert.deepEqual(p.references.vendor_advisories, []);
  assert.ok(p.references.other_references.some((o) => o.url === 'http://www.philips.com/productsecurity'));
});

test('snapshot: the bundled CVE 5 file is recognised and read by content', async () => {
  assert.equal(await detectFormat(snapshotFile('cve5', 'vulnrichment-cve5.jsonl.gz')), 'cve5-jsonl');
});

test('ranges: free-text versions whose meaning is certain ("9.0.0.M1 to 9.0.9") become bounds (CVE-2018-8034)', () => {
  const r = cve5RecordFrom(JSON.parse(readFileSync(cve5('CVE-2018-8034'), 'utf8')));
  assert.deepEqual(
    (r.ranges ?? []).map((x) => [x.vendor, x.product, x.status, x.start, x.end, x.text, x.fixedIn]),
    [
      [
        'Apache Software Foundation',
        'Apache Tomcat',
        'affected',
        { version: '9.0.0.M1', inclusive: true },
        { version: '9.0.9', inclusive: true },
        null,
        null,
      ],
      [
        'Apache Software Foundation',
        'Apache Tomcat',
        'affected',
        { version: '8.5.0', inclusive: true },
        { version: '8.5.31', inclusive: true },
        null,
        null,
      ],
      [
        'Apache Software Foundation',
        'Apache Tomcat',
        'affected',
        { version: '8.0.0.RC1', inclusive: true },
        { version: '8.0.52', inclusive: true },
        null,
        null,
      ],
      [
        'Apache Software Foundation',
        'Apache Tomcat',
        'affected',
        { version: '7.0.35', inclusive: true },
        { version: '7.0.88', inclusive: true },
        null,
        null,
      ],
    ],
  );
});
