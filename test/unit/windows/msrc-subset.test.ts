// The Windows subset kept in the database (src/domain/windows/msrc-subset.ts), on the real June 2026 CVRF document:
// only Windows products, only the parts the index reads, and the same evaluation index as the whole document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readMsrcFile } from '../../../src/ingest/msrc.ts';
import { IndexBuilder } from '../../../src/domain/windows/evaluation-index.ts';
import { windowsSubset } from '../../../src/domain/windows/msrc-subset.ts';
import { WINDOWS_PRODUCTS } from '../../../src/domain/windows/products.ts';
import type { MsrcDocument, MsrcVulnerability } from '../../../src/domain/windows/msrc-types.ts';
import { FIXTURE_DIR } from './fixture-index.ts';

// Read at module load; the subset is taken inside each test (a mutation run measures what the tests execute).
const doc = readMsrcFile(`${FIXTURE_DIR}/2026-Jun.xml.gz`);

function indexOf(d: typeof doc) {
  const b = new IndexBuilder(new Map());
  b.add(d);
  return b.finish([]);
}
/** Per product: each CVE with its fixes (KB, build, type) and severity, in a stable order. */
function shape(ix: ReturnType<typeof indexOf>) {
  return [...ix.products]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([pid, pi]) => [
      pid,
      [...pi.cves]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([cve, pc]) => [cve, pc.severity, pc.cvssScore, pc.fixes.map((f) => [f.kb, f.rawBuild, f.url]).sort()]),
    ]);
}

test('only Windows products and the CVEs that touch them; document fields kept', () => {
  const sub = windowsSubset(doc);
  assert.deepEqual(
    [sub.id, sub.title, sub.initialReleaseDate, sub.currentReleaseDate, sub.revisionNumber],
    [doc.id, doc.title, doc.initialReleaseDate, doc.currentReleaseDate, doc.revisionNumber],
  );
  assert.ok(sub.products.size > 0 && sub.products.size < doc.products.size);
  for (const id of sub.products.keys()) assert.ok(WINDOWS_PRODUCTS.has(id), id);
  for (const [id, name] of doc.products) if (WINDOWS_PRODUCTS.has(id)) assert.equal(sub.products.get(id), name);
  assert.ok(sub.vulnerabilities.length > 0 && sub.vulnerabilities.length < doc.vulnerabilities.length);
  const kept = new Set(sub.vulnerabilities.map((v) => v.cve));
  for (const v of doc.vulnerabilities) {
    const touches =
      v.knownAffected.some((p) => WINDOWS_PRODUCTS.has(p)) ||
      v.remediations.some((r) => r.type === 'Vendor Fix' && r.productIds.some((p) => WINDOWS_PRODUCTS.has(p)));
    assert.equal(kept.has(v.cve), touches, v.cve);
  }
  assert.deepEqual([...sub.advisoryUrls.keys()].sort(), [...doc.advisoryUrls.keys()].filter((c) => kept.has(c)).sort());
  for (const v of sub.vulnerabilities) {
    for (const r of v.remediations) {
      assert.equal(r.type, 'Vendor Fix');
      assert.ok(r.productIds.length > 0 && r.productIds.every((p) => WINDOWS_PRODUCTS.has(p)));
    }
    for (const t of v.threats) {
      assert.ok(t.type === 'Exploit Status' || t.type === 'Severity', t.type);
      assert.ok(t.productIds.every((p) => WINDOWS_PRODUCTS.has(p)));
    }
    for (const s of v.scoreSets)
      assert.ok(s.productIds.length > 0 && s.productIds.every((p) => WINDOWS_PRODUCTS.has(p)));
    assert.ok(v.notes.every((n) => n.type === 'Description' && n.text.trim() !== ''));
    assert.ok(v.revisions.every((r) => r.description === ''));
    assert.ok(v.knownAffected.every((p) => WINDOWS_PRODUCTS.has(p)));
  }
});

test('the subset builds the same evaluation index as the whole document', () => {
  const whole = indexOf(doc);
  const part = indexOf(windowsSubset(doc));
  assert.ok(whole.products.size > 5);
  assert.deepEqual(shape(part), shape(whole));
  assert.deepEqual([...part.cves.keys()].sort(), [...whole.cves.keys()].sort());
  for (const [cve, m] of whole.cves) {
    const p = part.cves.get(cve)!;
    assert.deepEqual(
      [p.title, p.exploited, p.publishedAt, p.cvssScore],
      [m.title, m.exploited, m.publishedAt, m.cvssScore],
      cve,
    );
  }
});

test('a hand-made document: every kept part cut to Windows products, exactly', () => {
  const rem = (type: string, productIds: string[], kb = '5000001') => ({
    type,
    description: kb,
    url: `https://catalog.example/${kb}`,
    supercedence: null,
    productIds,
    subType: 'Security Update',
    fixedBuild: '10.0.17763.1',
    restartRequired: 'Yes',
  });
  const vuln = (cve: string, o: Partial<MsrcVulnerability>): MsrcVulnerability => ({
    cve,
    title: `${cve} title`,
    notes: [],
    cwes: [],
    knownAffected: [],
    threats: [],
    scoreSets: [],
    remediations: [],
    revisions: [],
    ...o,
  });
  const OFFICE = '9999';
  const win = '11571';
  const input: MsrcDocument = {
    id: '2021-Jan',
    title: 'January 2021',
    initialReleaseDate: '2021-01-12T08:00:00Z',
    currentReleaseDate: '2021-01-20T08:00:00Z',
    revisionNumber: '3',
    products: new Map([
      [win, 'Windows Server 2019'],
      [OFFICE, 'Microsoft Office'],
    ]),
    families: new Map([[win, 'Windows']]),
    advisoryUrls: new Map([
      ['CVE-2021-0001', 'https://a/1'],
      ['CVE-2021-0002', 'https://a/2'],
      ['CVE-2021-0003', 'https://a/3'],
    ]),
    vulnerabilities: [
      vuln('CVE-2021-0001', {
        notes: [
          { type: 'Description', title: 'd', text: 'What it is' },
          { type: 'Description', title: 'e', text: '  ' },
          { type: 'FAQ', title: 'f', text: 'q' },
        ],
        cwes: [{ id: 'CWE-20', name: 'Improper Input Validation' }],
        knownAffected: [OFFICE, win],
        threats: [
          { type: 'Exploit Status', description: 'Exploited:No', productIds: [] },
          { type: 'Severity', description: 'Important', productIds: [OFFICE, win] },
          { type: 'Severity', description: 'Critical', productIds: [OFFICE] },
          { type: 'Impact', description: 'Remote Code Execution', productIds: [win] },
        ],
        scoreSets: [
          { baseScore: 7.8, temporalScore: 6.8, vector: 'v', productIds: [win, OFFICE] },
          { baseScore: 5, temporalScore: null, vector: null, productIds: [OFFICE] },
        ],
        remediations: [
          rem('Vendor Fix', [OFFICE, win]),
          rem('Vendor Fix', [OFFICE], '5000002'),
          rem('Release Notes', [win], '5000003'),
        ],
        revisions: [{ number: '1.0', date: '2021-01-12T08:00:00', description: '<p>Information published.</p>' }],
      }),
      vuln('CVE-2021-0002', {
        knownAffected: [OFFICE],
        remediations: [rem('Vendor Fix', [OFFICE])],
        threats: [{ type: 'Exploit Status', description: 'x', productIds: [] }],
      }),
      vuln('CVE-2021-0003', { knownAffected: [win] }),
      vuln('CVE-2021-0004', { remediations: [rem('Vendor Fix', [win], '5000004')] }),
    ],
  };
  const sub = windowsSubset(input);
  assert.deepEqual(sub, {
    id: '2021-Jan',
    title: 'January 2021',
    initialReleaseDate: '2021-01-12T08:00:00Z',
    currentReleaseDate: '2021-01-20T08:00:00Z',
    revisionNumber: '3',
    products: new Map([[win, 'Windows Server 2019']]),
    advisoryUrls: new Map([
      ['CVE-2021-0001', 'https://a/1'],
      ['CVE-2021-0003', 'https://a/3'],
    ]),
    vulnerabilities: [
      vuln('CVE-2021-0001', {
        notes: [{ type: 'Description', title: 'd', text: 'What it is' }],
        cwes: [{ id: 'CWE-20', name: 'Improper Input Validation' }],
        knownAffected: [win],
        threats: [
          { type: 'Exploit Status', description: 'Exploited:No', productIds: [] },
          { type: 'Severity', description: 'Important', productIds: [win] },
        ],
        scoreSets: [{ baseScore: 7.8, temporalScore: 6.8, vector: 'v', productIds: [win] }],
        remediations: [rem('Vendor Fix', [win])],
        revisions: [{ number: '1.0', date: '2021-01-12T08:00:00', description: '' }],
      }),
      vuln('CVE-2021-0003', { knownAffected: [win] }),
      vuln('CVE-2021-0004', { remediations: [rem('Vendor Fix', [win], '5000004')] }),
    ],
  });
  // The input is not changed.
  assert.deepEqual(input.vulnerabilities[0].remediations[0].productIds, [OFFICE, win]);
  assert.equal(input.vulnerabilities[0].revisions[0].description, '<p>Information published.</p>');
});
