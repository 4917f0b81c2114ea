import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readMsrcFile } from '../../../src/ingest/msrc.ts';
import { msrcCveRecords } from '../../../src/ingest/msrc-cves.ts';
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
