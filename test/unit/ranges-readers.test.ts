// Structured ranges from the real NVD and CSAF fixtures (test/fixtures/PROVENANCE.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { csafRecords } from '../../src/ingest/csaf.ts';
import { nvdRecordFromCve } from '../../src/ingest/nvd.ts';

const nvd = (id: string) => {
  const d = JSON.parse(readFileSync(`test/fixtures/nvd/${id}.json`, 'utf8'));
  return nvdRecordFromCve(d.cve ?? d);
};
const csaf = (id: string) => csafRecords(JSON.parse(readFileSync(`test/fixtures/csaf/${id}.json`, 'utf8')));

test('NVD: versionStart/End bounds, exact versions with their update component, and * as every version', () => {
  const r = nvd('CVE-2023-0228').ranges!;
  assert.deepEqual(r[0], {
    source: 'nvd',
    vendor: 'abb',
    product: 'symphony_plus_s+_operations',
    cpe: 'cpe:2.3:a:abb:symphony_plus_s\\+_operations:*:*:*:*:*:*:*:*',
    status: 'affected',
    version: null,
    start: { version: '2.0', inclusive: true },
    end: { version: '2.1', inclusive: false },
    versionType: null,
    changes: [],
    defaultStatus: null,
    fixedIn: null,
    runningOn: null,
    text: null,
  });
  assert.equal(r[2].version, '2.1');
  assert.equal(r[3].version, '2.1 sp2');
  const all = nvd('CVE-2022-31801').ranges!;
  assert.equal(all.length, 3);
  for (const x of all) assert.deepEqual([x.version, x.start, x.end, x.runningOn], [null, null, null, null]);
});

test('NVD: firmware vulnerable only on its hardware (AND configuration) carries runningOn', () => {
  const r = nvd('CVE-2023-28489').ranges!;
  assert.equal(r[0].product, 'cp-8031_firmware');
  assert.deepEqual(r[0].runningOn, ['cpe:2.3:h:siemens:cp-8031:-:*:*:*:*:*:*:*']);
  assert.deepEqual(r[0].end, { version: 'cpci85_v05', inclusive: false });
  // Platforms themselves are not affected ranges.
  assert.ok(r.every((x) => !x.cpe!.includes(':h:')));
});

test('CSAF: vers: ranges, free text kept when not certain, exact versions, fixed versions per product', () => {
  const siemens = csaf('icsa-24-284-01').find((x) => x.cve_id === 'CVE-2024-46886')!.ranges!;
  const drive = siemens.find((x) => x.product.startsWith('SIMATIC Drive Controller CPU 1504D'))!;
  assert.deepEqual(
    [drive.vendor, drive.status, drive.end, drive.fixedIn, drive.text],
    ['Siemens', 'affected', { version: 'V3.1.4', inclusive: false }, 'V3.1.4', null],
  );
  const abb = csaf('icsa-23-068-03')[0].ranges!;
  assert.deepEqual(
    abb.map((x) => [x.version, x.text]),
    [
      [null, '3.3 SP2 (part of SPR1 2023.0)'],
      [null, '< 3.3 SP1 3.x'],
      ['2.2', null],
      [null, '< 2.1 SP2'],
    ],
  );
  const cp = csaf('icsa-23-103-07')[0].ranges!;
  assert.deepEqual(cp[0].end, { version: 'CPCI85 V05', inclusive: false });
});
