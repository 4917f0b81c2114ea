// Source precedence by statement date (docs/correlation.md §5, domain/correlate.ts): on the real CVE record of
// CVE-2020-28400 (Siemens CNA, dateUpdated 2024-08-04) and the real CISA advisory ICSA-21-194-03 (current_release_date
// 2022-04-14), which states SIMATIC CFU PA affected in every version while the record states "< V2.0.0": the newer
// record's range wins for V2.0.0; an advisory stated at the same time or later leaves the pair needs_review; a version
// inside both is affected; the dates survive the stored groups (range-groups.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { cve5RecordFrom } from '../../src/ingest/cve5.ts';
import { csafRecords } from '../../src/ingest/csaf.ts';
import { matchRow, rangeRows, verdict, verdictStatus, type RangeRow } from '../../src/domain/correlate.ts';
import { expandGroup, groupRows, type StoredGroup } from '../../src/domain/range-groups.ts';
import type { CveSourceRecord } from '../../src/domain/records.ts';

const fixture = (p: string) => JSON.parse(readFileSync(new URL(`../fixtures/${p}`, import.meta.url), 'utf8'));
const record = cve5RecordFrom(fixture('cve5/CVE-2020-28400.json'));
const advisory = csafRecords(fixture('csaf/icsa-21-194-03.json')).find((r) => r.cve_id === 'CVE-2020-28400')!;

function decide(version: string, records: CveSourceRecord[], rows = rangeRows(records)) {
  const asset = { vendor: 'Siemens', product: 'SIMATIC CFU PA', version, cpe: null };
  const matched = rows
    .map((row) => ({ row, match: matchRow(asset, row) }))
    .filter((m): m is { row: RangeRow; match: NonNullable<typeof m.match> } => m.match !== null);
  const v = verdict(asset, matched);
  assert.equal(verdictStatus(asset, matched), v.status, 'verdictStatus agrees with verdict');
  return v;
}

test('the records carry their statement dates onto their rows', () => {
  assert.equal(record.modified, '2024-08-04T16:33:59.218Z');
  assert.equal(advisory.modified, '2022-04-14T00:00:00.000Z');
  const rows = rangeRows([record, advisory]).filter((r) => /CFU PA/.test(r.range.product));
  assert.deepEqual([...new Set(rows.map((r) => `${r.source} ${r.stated_at}`))].sort(), [
    'csaf 2022-04-14T00:00:00.000Z',
    'cve5 2024-08-04T16:33:59.218Z',
  ]);
});

test('the newer CVE record\'s range wins over the older advisory\'s "every version"; inside both stays affected', () => {
  const v = decide('V2.0.0', [record, advisory]);
  assert.equal(v.status, 'not_affected');
  assert.equal(
    v.reason,
    "version V2.0.0 is outside < V2.0.0 (CVE record, stated 2024-08-04), which is newer than CISA advisory ICSA-21-194-03 (2022-04-14) stating every version affected: the CVE record's range wins",
  );
  assert.equal(v.deciding.row.source, 'cve5');
  assert.equal(decide('V1.0.0', [record, advisory]).status, 'affected');
});

test('an advisory stated at the same time as the record, or later, leaves the pair undecided', () => {
  for (const modified of [record.modified, '2024-08-04T16:34:00.000Z']) {
    const v = decide('V2.0.0', [record, { ...advisory, modified }]);
    assert.equal(v.status, 'needs_review', modified!);
    assert.match(
      v.reason,
      /^sources disagree: CISA advisory ICSA-21-194-03 states every version affected, CVE record states < V2\.0\.0 affected/,
    );
  }
  // Undated, either side: no precedence.
  assert.equal(decide('V2.0.0', [{ ...record, modified: null }, advisory]).status, 'needs_review');
  assert.equal(decide('V2.0.0', [record, { ...advisory, modified: null }]).status, 'needs_review');
  // The CVE record's own rows without the advisory: the record alone decides.
  assert.equal(decide('V2.0.0', [record]).status, 'not_affected');
});

test('the statement dates survive the stored groups, and a group stored without one reads back undated', () => {
  const rows = rangeRows([record, advisory]);
  const groups = groupRows(rows);
  const back = groups.flatMap((g) =>
    expandGroup({ ...g, cve_id: 'CVE-2020-28400', ranges: JSON.parse(g.text) } as StoredGroup & { cve_id: string }),
  );
  assert.deepEqual(
    back.map((r) => r.stated_at),
    rows.map((r) => r.stated_at),
  );
  assert.equal(decide('V2.0.0', [], back).status, 'not_affected');
  const old = groups.map(
    (g) =>
      ({ ...g, cve_id: 'x', ranges: { ...JSON.parse(g.text), stated: undefined } }) as StoredGroup & { cve_id: string },
  );
  const undated = old.flatMap(expandGroup);
  assert.ok(undated.every((r) => r.stated_at === null));
  assert.equal(decide('V2.0.0', [], undated).status, 'needs_review');
});
