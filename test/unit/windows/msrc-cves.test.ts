import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readMsrcFile } from '../../../src/ingest/msrc.ts';
import { msrcCveRecords, msrcVendor } from '../../../src/ingest/msrc-cves.ts';
import { FIXTURE_DIR } from './fixture-index.ts';

test('MSRC CVE records for the corpus: CVE-2024-38063 from the real August 2024 document', () => {
  const recs = msrcCveRecords(readMsrcFile(`${FIXTURE_DIR}/2024-Aug.xml.gz`));
  assert.ok(recs.every((r) => /^CVE-\d{4}-\d{4,}$/.test(r.cve_id) && r.source === 'msrc'));
  const r = recs.find((x) => x.cve_id === 'CVE-2024-38063')!;
  assert.equal(r.title, 'Windows TCP/IP Remote Code Execution Vulnerability');
  assert.deepEqual(r.cvss, [{ version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:U/RL:O/RC:C', score: 9.8, scored_by: 'Microsoft', type: null }]);
  assert.deepEqual(r.cwes, [191]);
  assert.equal(r.published, '2024-08-13T07:00:00.000Z');
  assert.equal(r.msrc.severity, 'Critical');
  assert.equal(r.msrc.exploited, false);
  assert.equal(r.msrc.publicly_disclosed, false);
  assert.ok(r.affected.some((a) => a.vendor === 'Microsoft' && a.product === 'Windows Server 2019 (Server Core installation)'));
  assert.ok(r.affected.every((a) => a.origin === 'msrc'));
  assert.deepEqual(r.references, [{ url: 'https://msrc.microsoft.com/update-guide/en-US/vulnerability/CVE-2024-38063', tags: ['Vendor Advisory'], provided_by: 'msrc' }]);
});

test('exploited flag, and no advisory link invented when the document states none', () => {
  const recs = msrcCveRecords(readMsrcFile(`${FIXTURE_DIR}/2020-Jan.xml.gz`));
  const r = recs.find((x) => x.cve_id === 'CVE-2020-0601')!;
  assert.equal(r.msrc.severity, 'Important');
  assert.deepEqual(r.references, []);
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
  assert.ok(byId('CVE-2024-42459').affected.length > 0 && byId('CVE-2024-42459').affected.every((a) => a.vendor === 'n/a'));
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
  assert.equal(msrcVendor('oracle', ['CBL Mariner 2.0 x64', 'Windows 11 Version 24H2 for x64-based Systems']), 'Microsoft');
});
