import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readMsrcFile } from '../../../src/ingest/msrc.ts';
import { msrcCveRecords, msrcFamilyProduct, msrcVendor } from '../../../src/ingest/msrc-cves.ts';
import { FIXTURE_DIR } from './fixture-index.ts';
import { cvssTier, mergeSources, msrcIsCna } from '../../../src/domain/merge.ts';
import type { CveSourceRecord, CvssMetric } from '../../../src/domain/records.ts';
import { buildCveDocument } from '../../../src/domain/enrich.ts';
import { OTHER_REFERENCES_CAP } from '../../../src/domain/references.ts';
import { cveRecords, fixture, realCatalogs } from '../../helpers/feeds.ts';
import { isCveId } from '../../../src/domain/cve-id.ts';

const NOW = '2026-11-20T00:00:00.000Z';

test('MSRC CVE records for the corpus: CVE-2024-38063 from the real August 2024 document', () => {
  const recs = msrcCveRecords(readMsrcFile(`${FIXTURE_DIR}/2024-Aug.xml.gz`));
  assert.ok(recs.every((r) => isCveId(r.cve_id) && r.source === 'msrc'));
  const r = recs.find((x) => x.cve_id === 'CVE-2024-38063')!;
  assert.equal(r.title, 'Windows TCP/IP Remote Code Execution Vulnerability');
  assert.deepEqual(r.cvss, [
    {
      version: '3.1',
      vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:U/RL:O/RC:C',
      score: 9.8,
      scored_by: 'Microsoft',
      type: null,
    },
  ]);
  assert.deepEqual(r.cwes, [191]);
  assert.equal(r.published, '2024-08-13T07:00:00.000Z');
  assert.equal(r.msrc.severity, 'Critical');
  assert.equal(r.msrc.exploited, false);
  assert.equal(r.msrc.publicly_disclosed, false);
  assert.ok(
    r.affected.some((a) => a.vendor === 'Microsoft' && a.product === 'Windows Server 2019 (Server Core installation)'),
  );
  assert.ok(r.affected.every((a) => a.origin === 'msrc'));
  assert.deepEqual(r.references[0], {
    url: 'https://msrc.microsoft.com/update-guide/en-US/vulnerability/CVE-2024-38063',
    tags: ['Vendor Advisory'],
    provided_by: 'msrc',
  });
});

test('exploited flag, and no advisory link invented when the document states none', () => {
  const recs = msrcCveRecords(readMsrcFile(`${FIXTURE_DIR}/2020-Jan.xml.gz`));
  const r = recs.find((x) => x.cve_id === 'CVE-2020-0601')!;
  assert.equal(r.msrc.severity, 'Important');
  assert.ok(r.references.every((x) => !x.tags.includes('Vendor Advisory')));
  const pn = msrcCveRecords(readMsrcFile(`${FIXTURE_DIR}/2021-Jul.xml.gz`)).find((x) => x.cve_id === 'CVE-2021-34527')!;
  assert.equal(pn.msrc.exploited, true);
});

test('Azure Linux / CBL-Mariner packages carry the CNA as vendor, Microsoft stays for its own products', () => {
  const recs = msrcCveRecords(readMsrcFile(`${FIXTURE_DIR}/2024-Aug.xml.gz`));
  const byId = (id: string) => recs.find((x) => x.cve_id === id)!;
  // Linux kernel CVE fixed in the Mariner kernel package: the kernel's CNA is its vendor.
  const kernel = byId('CVE-2024-42232');
  assert.equal(kernel.assigner, 'Linux');
  assert.ok(kernel.affected.length > 0 && kernel.affected.every((a) => a.vendor === 'Linux'));
  assert.ok(kernel.affected.some((a) => /CBL Mariner|Azure Linux/.test(a.product ?? '')));
  assert.ok(byId('CVE-2024-7592').affected.every((a) => a.vendor === 'Python Software Foundation'));
  // A coordinator CNA (MITRE, GitHub) names no vendor: the products are kept without one.
  assert.equal(byId('CVE-2024-42459').assigner, 'mitre');
  assert.ok(
    byId('CVE-2024-42459').affected.length > 0 && byId('CVE-2024-42459').affected.every((a) => a.vendor === 'n/a'),
  );
  assert.ok(byId('CVE-2024-41957').affected.every((a) => a.vendor === 'n/a'));
  // Chrome-assigned Edge CVEs and Microsoft's own stay Microsoft's.
  assert.ok(byId('CVE-2024-7967').affected.every((a) => a.vendor === 'Microsoft'));
  assert.ok(byId('CVE-2024-38063').affected.every((a) => a.vendor === 'Microsoft'));
});

test('msrcVendor: e-mail CNAs, coordinators and opaque ids', () => {
  const m = ['cbl2 curl 8.8.0-2 on CBL Mariner 2.0'];
  assert.equal(msrcVendor('secalert_us@oracle.com', m), 'Oracle');
  assert.equal(msrcVendor('oracle', m), 'oracle');
  assert.equal(msrcVendor('cve@mitre.org', m), null);
  assert.equal(msrcVendor('talos-cna@cisco.com', m), null);
  assert.equal(msrcVendor('416baaa9-dc9f-4396-8d5f-8c081fb06d67', m), null);
  assert.equal(msrcVendor('Microsoft', m), 'Microsoft');
  assert.equal(msrcVendor('Chrome', ['Microsoft Edge (Chromium-based)']), 'Microsoft');
  assert.equal(
    msrcVendor('oracle', ['CBL Mariner 2.0 x64', 'Windows 11 Version 24H2 for x64-based Systems']),
    'Microsoft',
  );
});

test("Vendor Fix URLs the document states are Patch references: patch rule 4 applies, advisories stay Microsoft's", async () => {
  const jan = msrcCveRecords(readMsrcFile(`${FIXTURE_DIR}/2020-Jan.xml.gz`));
  const r = jan.find((x) => x.cve_id === 'CVE-2020-0601')!;
  // No advisory link in this document, six distinct KB links on the Update Catalog, in document order.
  assert.equal(r.references.length, 6);
  assert.deepEqual(r.references[0], {
    url: 'https://catalog.update.microsoft.com/v7/site/Search.aspx?q=KB4534293',
    tags: ['Patch'],
    provided_by: 'msrc',
  });
  assert.ok(
    r.references.every(
      (x) => x.tags.length === 1 && x.tags[0] === 'Patch' && /^https:\/\/catalog\.update\.microsoft\.com\//.test(x.url),
    ),
  );
  const d = buildCveDocument(mergeSources('CVE-2020-0601', [r]), await realCatalogs(), NOW).doc;
  assert.equal(d.patch.status, 'patched');
  assert.equal(d.patch.patch_url, 'https://catalog.update.microsoft.com/v7/site/Search.aspx?q=KB4534293');
  assert.deepEqual(d.references.vendor_advisories, []);
  // The fix links are not the CVE's references (spec §2.5): none in other_references.
  assert.deepEqual(d.references.other_references, []);
  assert.equal(d.references.other_references_total, 0);
  // .NET CVE with 40 fix links for the KBs of every product: none of them in other_references; the fix stays.
  const net = jan.find((x) => x.cve_id === 'CVE-2020-0605')!;
  assert.equal(new Set(net.references.map((x) => x.url)).size, net.references.length);
  assert.ok(net.references.filter((x) => x.tags.includes('Patch')).length > OTHER_REFERENCES_CAP);
  const nd = buildCveDocument(mergeSources('CVE-2020-0605', [net]), await realCatalogs(), NOW).doc;
  assert.deepEqual(nd.references.other_references, []);
  assert.equal(nd.references.other_references_total, 0);
  assert.equal(
    nd.patch.patch_url,
    net.references.find((x) => x.tags.includes('Patch'))!.url,
    'the fix is still read from them',
  );
  // With the CVE record's own references (NVD), those stay in other_references.
  const nvdRef: CveSourceRecord = {
    ...net,
    source: 'nvd',
    source_key: 'nvd',
    references: [{ url: 'https://example.org/writeup', tags: ['Third Party Advisory'], provided_by: 'nvd@nist.gov' }],
    msrc: undefined,
  } as CveSourceRecord;
  const withNvd = buildCveDocument(mergeSources('CVE-2020-0605', [net, nvdRef]), await realCatalogs(), NOW).doc;
  assert.deepEqual(
    withNvd.references.other_references.map((o) => o.url),
    ['https://example.org/writeup'],
  );
  assert.ok(nd.references.vendor_advisories.every((v) => new URL(v.url).hostname.endsWith('.microsoft.com')));
  assert.equal(nd.patch.status, 'patched');
  // The Windows 10 August 2024 TCP/IP CVE keeps its advisory first and adds its KB links.
  const tcp = msrcCveRecords(readMsrcFile(`${FIXTURE_DIR}/2024-Aug.xml.gz`)).find(
    (x) => x.cve_id === 'CVE-2024-38063',
  )!;
  assert.deepEqual(tcp.references[0].tags, ['Vendor Advisory']);
  assert.ok(tcp.references.length > 1 && tcp.references.slice(1).every((x) => x.tags[0] === 'Patch'));
});

test('primary product of a Microsoft CVE is its family-level name from the product tree; every product stays listed', async () => {
  const aug = readMsrcFile(`${FIXTURE_DIR}/2024-Aug.xml.gz`);
  // Product Family branches are read from the tree, the same from the XML and the JSON form.
  assert.equal(aug.families!.get('11655'), 'Browser');
  assert.equal(aug.families!.get('12357'), 'Mariner');
  const json = readMsrcFile(`${FIXTURE_DIR}-json/2024-Aug.json.gz`);
  assert.deepEqual([...json.families!].sort(), [...aug.families!].sort());
  const recs = msrcCveRecords(aug);
  const tcp = recs.find((x) => x.cve_id === 'CVE-2024-38063')!;
  assert.equal(tcp.affected[0].product, 'Windows');
  const listed = tcp.affected.map((a) => a.product);
  assert.ok(listed.includes('Windows 10 Version 1607 for 32-bit Systems'));
  assert.ok(listed.includes('Windows Server 2019 (Server Core installation)'));
  const d = buildCveDocument(mergeSources('CVE-2024-38063', [tcp]), await realCatalogs(), NOW).doc;
  assert.equal(d.affected.primary_product, 'Windows');
  assert.equal(d.affected.primary_vendor, 'Microsoft');
  assert.equal(d.affected.products.length, listed.length);
  assert.ok(d.affected.products.includes('Windows 10 Version 1607 for 32-bit Systems'));
  // Mixed .NET Core / .NET Framework / PowerShell under "Developer Tools" (2020-Jan): the base name most share.
  const net = msrcCveRecords(readMsrcFile(`${FIXTURE_DIR}/2020-Jan.xml.gz`)).find((x) => x.cve_id === 'CVE-2020-0605')!;
  assert.equal(net.affected[0].product, 'Microsoft .NET Framework');
  // Mariner packages get no Microsoft family name.
  const kernel = recs.find((x) => x.cve_id === 'CVE-2024-42232')!;
  assert.ok(kernel.affected.every((a) => a.product !== 'Windows' && /CBL Mariner|Azure Linux/.test(a.product ?? '')));
});

test('msrcFamilyProduct: shared leading words less edition words, then a product-naming family', () => {
  const w = (name: string, family: string | null = 'Windows') => ({ name, family });
  assert.equal(
    msrcFamilyProduct([w('Windows 10 Version 1607 for 32-bit Systems'), w('Windows Server 2019')]),
    'Windows',
  );
  assert.equal(
    msrcFamilyProduct([w('Windows Server 2019'), w('Windows Server 2022 (Server Core installation)')]),
    'Windows Server',
  );
  assert.equal(msrcFamilyProduct([w('Windows 11 Version 24H2 for x64-based Systems')]), 'Windows');
  assert.equal(msrcFamilyProduct([w('.NET 6.0', 'Developer Tools'), w('.NET 8.0', 'Developer Tools')]), '.NET');
  assert.equal(
    msrcFamilyProduct([
      w('Microsoft Office 2019 for Mac', 'Microsoft Office'),
      w('Microsoft 365 Apps for Enterprise for 64-bit Systems', 'Microsoft Office'),
    ]),
    'Microsoft Office',
  );
  assert.equal(msrcFamilyProduct([w('Microsoft Edge (Chromium-based)', 'Browser')]), 'Microsoft Edge');
  // The family holding most products decides; a category family and nothing shared gives null.
  assert.equal(
    msrcFamilyProduct([
      w('Windows 10 Version 22H2 for x64-based Systems'),
      w('Windows 11 Version 23H2 for ARM64-based Systems'),
      w('Microsoft Visual Studio 2022 version 17.10', 'Developer Tools'),
    ]),
    'Windows',
  );
  assert.equal(msrcFamilyProduct([w('Microsoft Teams', 'Apps'), w('Power BI Desktop', 'Apps')]), 'Microsoft Teams');
  assert.equal(msrcFamilyProduct([]), null);
});

test("CVSS chain: MSRC is the numbering authority only for Microsoft's CVEs; on another CNA's CVE CISA-ADP comes first (CVE-2024-42461, elliptic)", async () => {
  // The CVE record: CNA "mitre" states no CVSS, CISA-ADP scores 5.3 (MEDIUM). MSRC lists the CVE for the Azure Linux
  // nodejs package (CNA note "mitre") with its own 9.1: that is not the numbering authority's score.
  const [cve5] = await cveRecords(fixture('cve5', 'CVE-2024-42461.json'));
  const msrc = msrcCveRecords(readMsrcFile(`${FIXTURE_DIR}/2024-Aug.xml.gz`)).find(
    (x) => x.cve_id === 'CVE-2024-42461',
  )!;
  assert.equal(msrc.assigner, 'mitre');
  assert.deepEqual(
    msrc.cvss.map((m) => m.score),
    [9.1],
  );
  assert.equal(msrcIsCna(msrc.assigner), false);
  assert.equal(cvssTier('msrc', msrc.cvss[0] as CvssMetric, msrc.assigner), 3);
  const merged = mergeSources('CVE-2024-42461', [cve5, msrc as unknown as CveSourceRecord]);
  assert.equal(merged.cvss?.scored_by, 'CISA-ADP');
  const { doc } = buildCveDocument(merged, await realCatalogs(), NOW);
  assert.deepEqual(
    [doc.scoring.cvss.score, doc.scoring.cvss.vector, doc.scoring.cvss.severity, doc.severity],
    [5.3, 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N', 'MEDIUM', 'MEDIUM'],
  );
  // MSRC alone still scores it (anything else, tier 3), and Microsoft's own CVEs keep MSRC in the CNA tier.
  assert.equal(
    buildCveDocument(mergeSources('CVE-2024-42461', [msrc as unknown as CveSourceRecord]), await realCatalogs(), NOW)
      .doc.scoring.cvss.score,
    9.1,
  );
  const own = msrcCveRecords(readMsrcFile(`${FIXTURE_DIR}/2024-Aug.xml.gz`)).find(
    (x) => x.cve_id === 'CVE-2024-38063',
  )!;
  assert.equal(own.assigner, 'Microsoft');
  assert.equal(cvssTier('msrc', own.cvss[0] as CvssMetric, own.assigner), 1);
  assert.equal(msrcIsCna(null), true, "documents before CNA notes list only Microsoft's CVEs");
  assert.equal(msrcIsCna('secure@microsoft.com'), true);
});
