// The priority order of spec §4.2 (src/domain/windows/priority.ts): each key in turn decides only when every key
// before it ties, with its direction and its null rule; CVE ids compare by year and number, not as text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  comparePriority,
  compareCveId,
  desc,
  exploitClass,
  staticOrder,
  STATUS_ORDER,
  type Sortable,
  type SortKeys,
} from '../../../src/domain/windows/priority.ts';

const keys = (o: Partial<SortKeys> = {}): SortKeys => ({
  kev: false,
  exploit: false,
  fixTier: 0,
  bcs: 5,
  cvss: 5,
  epss: 0.1,
  published: null,
  fixAvailable: true,
  ...o,
});
const item = (id: string, o: Partial<SortKeys> = {}, status: Sortable['status'] = 'confirmed open'): Sortable => ({
  cve_id: id,
  status,
  known_exploited: o.kev ?? false,
  _k: keys(o),
});
const order = (xs: Sortable[]) => [...xs].sort(comparePriority).map((x) => x.cve_id);

test('status first: confirmed open, then needs review, then cleared; it outweighs every other key', () => {
  assert.deepEqual(STATUS_ORDER, { 'confirmed open': 0, 'needs review': 1, 'cleared (patched)': 2 });
  assert.deepEqual(
    order([
      item('CVE-2024-0003', { kev: true, bcs: 10 }, 'cleared (patched)'),
      item('CVE-2024-0002', { kev: true, bcs: 10 }, 'needs review'),
      item('CVE-2024-0001', { bcs: 0 }, 'confirmed open'),
    ]),
    ['CVE-2024-0001', 'CVE-2024-0002', 'CVE-2024-0003'],
  );
});

test('then known-exploited, then exploit available, then the fix tier (0 before 2), each only on a tie before it', () => {
  assert.deepEqual(order([item('CVE-2024-0001', { bcs: 10 }), item('CVE-2024-0002', { kev: true, bcs: 1 })]), [
    'CVE-2024-0002',
    'CVE-2024-0001',
  ]);
  assert.deepEqual(order([item('CVE-2024-0001', { bcs: 10 }), item('CVE-2024-0002', { exploit: true, bcs: 1 })]), [
    'CVE-2024-0002',
    'CVE-2024-0001',
  ]);
  assert.deepEqual(
    order([item('CVE-2024-0001', { kev: true }), item('CVE-2024-0002', { exploit: true, fixTier: 0 })]),
    ['CVE-2024-0001', 'CVE-2024-0002'],
  );
  assert.deepEqual(
    order([
      item('CVE-2024-0001', { fixTier: 2, bcs: 10 }),
      item('CVE-2024-0002', { fixTier: 1, bcs: 1 }),
      item('CVE-2024-0003', { fixTier: 0, bcs: 0 }),
    ]),
    ['CVE-2024-0003', 'CVE-2024-0002', 'CVE-2024-0001'],
  );
});

test('then BCS, CVSS, EPSS, each descending with a missing value last; then the CVE id', () => {
  assert.deepEqual(order([item('CVE-2024-0001', { bcs: 7 }), item('CVE-2024-0002', { bcs: 7.5 })]), [
    'CVE-2024-0002',
    'CVE-2024-0001',
  ]);
  assert.deepEqual(order([item('CVE-2024-0001', { cvss: 9 }), item('CVE-2024-0002', { cvss: 9.8 })]), [
    'CVE-2024-0002',
    'CVE-2024-0001',
  ]);
  assert.deepEqual(order([item('CVE-2024-0001', { epss: 0.2 }), item('CVE-2024-0002', { epss: 0.3 })]), [
    'CVE-2024-0002',
    'CVE-2024-0001',
  ]);
  assert.deepEqual(order([item('CVE-2024-0001', { bcs: null }), item('CVE-2024-0002', { bcs: 0 })]), [
    'CVE-2024-0002',
    'CVE-2024-0001',
  ]);
  assert.deepEqual(order([item('CVE-2024-0002'), item('CVE-2024-0001')]), ['CVE-2024-0001', 'CVE-2024-0002']);
  assert.equal(staticOrder(keys(), keys()), 0);
  assert.equal(staticOrder(keys({ bcs: 1 }), keys({ bcs: 2, cvss: 0 })), 1);
  assert.equal(desc(null, null), 0);
  assert.equal(desc(0, null), -1);
  assert.equal(desc(null, 0), 1);
  assert.equal(desc(2, 3), 1);
});

test('CVE ids by year, then by number (9999 before 10000), then as text', () => {
  assert.ok(compareCveId('CVE-2024-9999', 'CVE-2024-10000') < 0);
  assert.ok(compareCveId('CVE-2023-50000', 'CVE-2024-1000') < 0);
  assert.ok(compareCveId('CVE-2024-1000', 'CVE-2024-1000') === 0);
  assert.ok(compareCveId('CVE-2024-1000', 'CVE-2024-999') > 0);
});

test('exploit class: known exploited 0, exploit available 1, neither 2', () => {
  assert.deepEqual(
    [exploitClass(true, true), exploitClass(true, false), exploitClass(false, true), exploitClass(false, false)],
    [0, 0, 1, 2],
  );
});
