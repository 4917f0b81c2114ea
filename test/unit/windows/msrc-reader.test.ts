import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { looksLikeMsrc, parseMsrcBuffer, parseUpdatesIndex, readMsrcFile } from '../../../src/ingest/msrc.ts';
import { msrcDateToIso } from '../../../src/ingest/msrc-text.ts';
import { parseCvrfXml } from '../../../src/ingest/msrc-xml.ts';
import { FIXTURE_DIR } from './fixture-index.ts';

const JSON_FIXTURE = new URL('../../fixtures/msrc-json/2024-Aug.json.gz', import.meta.url);

test('XML: the June 2026 document, its dates without zone read as UTC, products keyed by ID', () => {
  const d = readMsrcFile(`${FIXTURE_DIR}/2026-Jun.xml.gz`);
  assert.equal(d.id, '2026-Jun');
  assert.equal(d.title, 'June 2026 Security Updates');
  assert.equal(d.currentReleaseDate, '2026-07-05T14:46:17.000Z');
  assert.equal(d.initialReleaseDate, '2026-06-09T07:00:00.000Z');
  assert.equal(d.revisionNumber, '1130');
  assert.equal(d.products.get('12436'), 'Windows Server 2025');
  assert.equal(d.products.get('20853'), 'Windows 11 version 26H1 for x64-based Systems');
  assert.equal(d.vulnerabilities.length, 1279);
  const v = d.vulnerabilities.find((x) => x.cve === 'CVE-2026-50507')!;
  const fix = v.remediations.find((r) => r.type === 'Vendor Fix' && r.productIds.includes('12436'))!;
  assert.equal(fix.description, '5094126');
  assert.equal(fix.fixedBuild, '10.0.26100.8655');
  assert.equal(fix.subType, 'Security Update');
  assert.equal(fix.supercedence, '5089549');
  assert.equal(fix.url, 'https://catalog.update.microsoft.com/v7/site/Search.aspx?q=KB5094126');
  assert.equal(
    d.advisoryUrls.get('CVE-2026-50507'),
    'https://msrc.microsoft.com/update-guide/en-US/vulnerability/CVE-2026-50507',
  );
});

test('XML: threats, CVSS, CWE, exploited flag and revisions of CVE-2024-38063', () => {
  const d = readMsrcFile(`${FIXTURE_DIR}/2024-Aug.xml.gz`);
  const v = d.vulnerabilities.find((x) => x.cve === 'CVE-2024-38063')!;
  assert.equal(v.title, 'Windows TCP/IP Remote Code Execution Vulnerability');
  assert.deepEqual(
    v.cwes.map((c) => c.id),
    ['CWE-191'],
  );
  assert.ok(
    v.threats.some((t) => t.type === 'Severity' && t.description === 'Critical' && t.productIds.includes('11571')),
  );
  assert.ok(v.threats.some((t) => t.type === 'Exploit Status' && /Exploited:No/.test(t.description)));
  assert.equal(v.scoreSets[0].baseScore, 9.8);
  assert.match(v.scoreSets[0].vector ?? '', /^CVSS:3\.1\/AV:N/);
  assert.ok(v.revisions.some((r) => r.number === '2.0' && r.date === '2024-09-10T07:00:00'));
  const fix = v.remediations.find((r) => r.type === 'Vendor Fix' && r.productIds.includes('11571'))!;
  assert.equal(fix.description, '5043050');
  assert.equal(fix.fixedBuild, '10.0.17763.6293');
});

test('JSON form (converted from the same XML per §1.5) reads to the same document', () => {
  const x = readMsrcFile(`${FIXTURE_DIR}/2024-Aug.xml.gz`);
  const j = parseMsrcBuffer(readFileSync(JSON_FIXTURE));
  assert.equal(j.id, x.id);
  assert.equal(j.title, x.title);
  assert.equal(j.currentReleaseDate, x.currentReleaseDate);
  assert.equal(j.revisionNumber, x.revisionNumber);
  assert.deepEqual([...j.products], [...x.products]);
  assert.deepEqual([...j.advisoryUrls], [...x.advisoryUrls]);
  assert.equal(j.vulnerabilities.length, x.vulnerabilities.length);
  assert.deepEqual(j.vulnerabilities, x.vulnerabilities);
});

test('JSON: numeric enum types map back to names; Type 2 is a Vendor Fix', () => {
  const doc = parseMsrcBuffer(
    Buffer.from(
      JSON.stringify({
        DocumentTitle: { Value: 'T' },
        DocumentTracking: {
          Identification: { ID: { Value: '2024-Aug' } },
          CurrentReleaseDate: '2026-06-28T01:56:08',
          RevisionHistory: [{ Number: '547' }],
        },
        ProductTree: {
          Branch: [
            {
              Items: [{ Items: [{ ProductID: '11571', Value: 'Windows Server 2019' }], Type: 1, Name: 'Windows' }],
              Type: 0,
              Name: 'Microsoft',
            },
          ],
        },
        Vulnerability: [
          {
            CVE: 'CVE-2024-38063',
            Title: { Value: 'x' },
            Threats: [
              { Type: 3, Description: { Value: 'Critical' }, ProductID: ['11571'] },
              { Type: 1, Description: { Value: 'Exploited:Yes' } },
            ],
            Remediations: [
              {
                Type: 2,
                Description: { Value: '5043050' },
                ProductID: ['11571'],
                SubType: 'Security Update',
                FixedBuild: '10.0.17763.6293',
              },
            ],
            ProductStatuses: [{ Type: 3, ProductID: ['11571'] }],
          },
        ],
      }),
    ),
  );
  assert.equal(doc.currentReleaseDate, '2026-06-28T01:56:08.000Z');
  assert.equal(doc.products.get('11571'), 'Windows Server 2019');
  const v = doc.vulnerabilities[0];
  assert.deepEqual(
    v.threats.map((t) => t.type),
    ['Severity', 'Exploit Status'],
  );
  assert.equal(v.remediations[0].type, 'Vendor Fix');
  assert.deepEqual(v.knownAffected, ['11571']);
});

test('plain and gzip bytes give the same document; the form is sniffed, not taken from the name', () => {
  const gz = readFileSync(`${FIXTURE_DIR}/2022-Nov.xml.gz`);
  const plain = gunzipSync(gz);
  assert.deepEqual(parseMsrcBuffer(plain).vulnerabilities.length, parseMsrcBuffer(gz).vulnerabilities.length);
  assert.ok(looksLikeMsrc(gz));
  assert.ok(!looksLikeMsrc(Buffer.from('{"vulnerabilities":[]}')));
  assert.throws(() => parseMsrcBuffer(gzipSync('hello')), /neither XML nor JSON/);
  assert.throws(() => parseCvrfXml('<a><b>x</b></a>'), /not an MSRC CVRF document/);
  assert.throws(() => parseCvrfXml(plain.subarray(0, 5000).toString('utf8') + '<vuln:Vuln'), /truncated/);
});

test('/updates index and date handling', () => {
  const idx = parseUpdatesIndex(JSON.parse(readFileSync(`${FIXTURE_DIR}/updates-index.json`, 'utf8')));
  assert.equal(idx.length, 190);
  const aug = idx.find((e) => e.id === '2024-Aug')!;
  assert.equal(aug.cvrfUrl, 'https://api.msrc.microsoft.com/cvrf/v3.0/cvrf/2024-Aug');
  assert.equal(aug.currentReleaseDate, readMsrcFile(`${FIXTURE_DIR}/2024-Aug.xml.gz`).currentReleaseDate);
  assert.equal(msrcDateToIso('2026-07-05T14:46:17'), '2026-07-05T14:46:17.000Z');
  assert.equal(msrcDateToIso('2026-07-05T14:46:17Z'), '2026-07-05T14:46:17.000Z');
  assert.equal(msrcDateToIso(''), null);
  assert.throws(() => parseUpdatesIndex({ value: 3 }), /no value/);
});

test('/updates index: a non-string title, severity or URL is dropped, never stringified to [object Object]', () => {
  const real = (
    JSON.parse(readFileSync(`${FIXTURE_DIR}/updates-index.json`, 'utf8')) as { value: Record<string, unknown>[] }
  ).value[0];
  const [e] = parseUpdatesIndex({
    value: [{ ...real, DocumentTitle: { en: 'x' }, Severity: { level: 1 }, CvrfUrl: ['u'] }],
  });
  assert.deepEqual([e.id, e.title, e.severity, e.cvrfUrl], ['1999-Sep', '', null, '']);
});
