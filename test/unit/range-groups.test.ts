// Range groups (domain/range-groups.ts): how cve_ranges stores a CVE's range rows. A statement packs to only the fields
// it sets and unpacks to the range it was (property test over every field and strange text); rows group by source
// record and product name in the order of their first row; a stored group expands back into its rows; the set's
// digest moves with a lookup column as well as with a statement.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { rangeRows, canonicalRange, type RangeRow } from '../../src/domain/correlate.ts';
import {
  expandGroup,
  groupRows,
  groupsDigestText,
  packRange,
  unpackRange,
  type StoredGroup,
} from '../../src/domain/range-groups.ts';
import type { AffectedRange, RangeSource, RangeStatus } from '../../src/domain/ranges.ts';

const base: AffectedRange = {
  source: 'cve5',
  vendor: 'Cisco',
  product: 'IOS',
  cpe: null,
  status: 'affected',
  version: null,
  start: null,
  end: null,
  versionType: null,
  changes: [],
  defaultStatus: null,
  fixedIn: null,
  runningOn: null,
  text: null,
};

test('packRange writes only the fields a statement sets, in one order', () => {
  assert.equal(packRange({ ...base, version: '12.0(24)S' }), '{"status":"affected","version":"12.0(24)S"}');
  assert.equal(
    packRange({
      ...base,
      status: 'unaffected',
      start: { version: '6.1', inclusive: true },
      end: { version: '6.1.*', inclusive: false },
      versionType: 'semver',
      changes: [{ at: '6.1.5', status: 'unaffected' }],
      defaultStatus: 'affected',
      fixedIn: '6.1.5',
      runningOn: ['cpe:2.3:o:x:y:*:*:*:*:*:*:*:*'],
      text: 'prior to "6.2"',
    }),
    '{"status":"unaffected","start":{"version":"6.1","inclusive":true},"end":{"version":"6.1.*","inclusive":false},"versionType":"semver","changes":[{"at":"6.1.5","status":"unaffected"}],"defaultStatus":"affected","fixedIn":"6.1.5","runningOn":["cpe:2.3:o:x:y:*:*:*:*:*:*:*:*"],"text":"prior to \\"6.2\\""}',
  );
});

const text = fc.string({
  unit: fc.constantFrom('a', '1', '.', ' ', '"', '\\', '\u0000', 'é', '\u202e', '🔥', '*', '<'),
  maxLength: 12,
});
const status = fc.constantFrom<RangeStatus>('affected', 'unaffected', 'unknown');
const bound = fc.option(fc.record({ version: text, inclusive: fc.boolean() }), { nil: null });
const range = fc.record<AffectedRange>({
  source: fc.constantFrom<RangeSource>('nvd', 'cve5', 'csaf'),
  vendor: text,
  product: text,
  cpe: fc.option(text, { nil: null }),
  status,
  version: fc.option(text, { nil: null }),
  start: bound,
  end: bound,
  versionType: fc.option(text, { nil: null }),
  changes: fc.array(fc.record({ at: text, status }), { maxLength: 3 }),
  defaultStatus: fc.option(status, { nil: null }),
  fixedIn: fc.option(text, { nil: null }),
  runningOn: fc.option(fc.array(text, { maxLength: 2 }), { nil: null }),
  text: fc.option(text, { nil: null }),
});

test('a packed statement unpacks to the range it was, whatever its fields and text (property)', () => {
  fc.assert(
    fc.property(range, (r) => {
      const back = unpackRange(
        r.source,
        { vendor: r.vendor, product: r.product, cpe: r.cpe },
        JSON.parse(packRange(r)),
      );
      assert.deepEqual(back, JSON.parse(JSON.stringify(r)));
    }),
    { numRuns: 500 },
  );
});

const r = (product: string, version: string, over: Partial<AffectedRange> = {}): AffectedRange => ({
  ...base,
  product,
  version,
  ...over,
});

test('groupRows: one group per source record and product as named, in the order of its first row; statements in row order', () => {
  const rows = rangeRows([
    {
      source: 'cve5',
      source_key: 'CVE-2024-20433',
      ranges: [
        r('IOS', '12.0(24)S'),
        r('IOS XE', '3.2.0SG'),
        r('IOS', '12.0(25)S'),
        r('IOS', '12.0(26)S', { cpe: 'cpe:2.3:o:cisco:ios:12.0\\(26\\)s:*:*:*:*:*:*:*' }),
      ],
    },
    { source: 'csaf', source_key: 'ICSA-24-001-01', ranges: [r('IOS', '12.0(24)S', { source: 'csaf' })] },
  ]);
  assert.equal(rows.length, 5);
  const groups = groupRows(rows);
  assert.deepEqual(
    groups.map((g) => [g.ord, g.source, g.source_key, g.product_key, g.cpe_product]),
    [
      [0, 'csaf', 'ICSA-24-001-01', 'ios', null],
      [1, 'cve5', 'CVE-2024-20433', 'ios', null],
      [2, 'cve5', 'CVE-2024-20433', 'ios xe', null],
      [3, 'cve5', 'CVE-2024-20433', 'ios', 'ios'],
    ],
  );
  assert.equal(
    groups[1].text,
    '{"vendor":"Cisco","product":"IOS","cpe":null,"ranges":[{"status":"affected","version":"12.0(24)S"},{"status":"affected","version":"12.0(25)S"}]}',
  );
  // Stored and read back, the groups are the rows again (each with its group's ordinal), in group order.
  const back = groups.flatMap(({ text, ...g }) =>
    expandGroup({ ...g, cve_id: 'CVE-2024-20433', ranges: JSON.parse(text) as StoredGroup['ranges'] }),
  );
  const order = [0, 1, 3, 2, 4];
  assert.deepEqual(
    back.map((x) => ({ ...x, ord: -1 })),
    order.map((i) => ({ cve_id: 'CVE-2024-20433', ...rows[i], ord: -1 })),
  );
  assert.deepEqual(
    back.map((x) => x.ord),
    [0, 1, 1, 2, 3],
  );
});

test('the digest of a set moves with a statement and with a lookup column, not with nothing', () => {
  const rows = rangeRows([{ source: 'cve5', source_key: 'CVE-1', ranges: [r('IOS', '1.0'), r('IOS', '2.0')] }]);
  const digest = (rs: RangeRow[]) => groupsDigestText(groupRows(rs));
  assert.equal(
    digest(rows),
    digest(rangeRows([{ source: 'cve5', source_key: 'CVE-1', ranges: [r('IOS', '1.0'), r('IOS', '2.0')] }])),
  );
  assert.notEqual(
    digest(rows),
    digest([rows[0], { ...rows[1], range: canonicalRange({ ...rows[1].range, fixedIn: '2.1' }) }]),
  );
  // A product key rule that changes (the same names, another key) changes the digest, so the rows are rewritten.
  assert.notEqual(digest(rows), digest(rows.map((x) => ({ ...x, product_key: 'ios classic' }))));
  assert.notEqual(digest(rows), digest(rows.map((x) => ({ ...x, base_key: 'ios' }))));
});
