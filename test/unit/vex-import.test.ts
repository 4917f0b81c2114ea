// Reading VEX documents back (src/domain/vex-import.ts): our IRIs, the due date, version ranges, and what is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readVexDocument, versionIn } from '../../src/domain/vex-import.ts';
import { refOfIri, splitDue } from '../../src/domain/vex-statements.ts';
import { compareVersions } from '../../src/domain/versions.ts';

test('our IRIs read back: an asset (its id decoded), the environment; anything else is not ours', () => {
  assert.deepEqual(refOfIri('https://v.example/environments/7/assets/plc%2F1'), { asset_id: 'plc/1' });
  assert.deepEqual(refOfIri('https://v.example/environments/7'), { environment: true });
  assert.equal(refOfIri('https://v.example/environments/7/assets'), null);
  assert.equal(refOfIri('pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1'), null);
});

test('the due date comes back from "(due YYYY-MM-DD)" at the end only', () => {
  assert.deepEqual(splitDue('Patch at the outage (due 2027-03-15)'), {
    action: 'Patch at the outage',
    due: '2027-03-15',
  });
  assert.deepEqual(splitDue('(due 2027-03-15) is what we said'), {
    action: '(due 2027-03-15) is what we said',
    due: null,
  });
  assert.deepEqual(splitDue(null), { action: null, due: null });
});

test('CycloneDX affects versions: an exact version, or a vers range whose every constraint holds (bounds included)', () => {
  const r = { range: 'vers:generic/>=2.9|<=4.1' };
  assert.equal(versionIn('2.9', r, compareVersions), true);
  assert.equal(versionIn('4.1', r, compareVersions), true);
  assert.equal(versionIn('4.2', r, compareVersions), false);
  assert.equal(versionIn('2.8', r, compareVersions), false);
  assert.equal(versionIn('3.0', { range: 'vers:generic/>2.9|<3.0' }, compareVersions), false);
  assert.equal(versionIn('4.2', { version: '4.2' }, compareVersions), true);
  assert.equal(versionIn('4.2', { version: '4.20' }, compareVersions), false);
  assert.equal(versionIn('1.0', { range: 'not a range' }, compareVersions), false);
});

test('a document is OpenVEX or CycloneDX; statements without a CVE id or a known status are listed as skipped', () => {
  assert.equal(readVexDocument({ document: {} }).ok, false);
  const r = readVexDocument({
    '@context': 'https://openvex.dev/ns/v0.2.0',
    timestamp: '2026-01-01T00:00:00Z',
    statements: [
      { vulnerability: { name: 'GHSA-xxxx' }, status: 'fixed' },
      { vulnerability: { name: 'cve-2024-0001' }, status: 'maybe' },
      { vulnerability: { '@id': 'https://www.cve.org/CVERecord?id=CVE-2024-0002' }, status: 'fixed' },
    ],
  });
  assert.ok(r.ok);
  assert.deepEqual(r.skipped, [
    { index: 0, reason: 'no CVE id' },
    { index: 1, reason: 'status maybe' },
  ]);
  assert.deepEqual(
    r.statements.map((s) => [s.cve_id, s.status, s.timestamp, s.products]),
    [['CVE-2024-0002', 'fixed', '2026-01-01T00:00:00.000Z', []]],
  );
});
