// The pure rules of exposure history and plant reports (src/domain/exposure.ts), boundaries included: the kept
// window, the report periods (a Monday, a Sunday, the 1st of a month, January), the mean age of open KEV CVEs, the
// calendar-day check of the query, what to patch first and what changed between two reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  addDays,
  changesSince,
  decisionFigures,
  isCalendarDay,
  lastCompletePeriod,
  meanKevAgeDays,
  oldestKept,
  patchFirstOrder,
  rangeDays,
  utcDay,
  type ExposureFigures,
} from '../../src/domain/exposure.ts';

test('the kept window: 400 days, today included', () => {
  assert.equal(oldestKept('2026-11-22'), '2025-10-19');
  assert.equal(rangeDays(oldestKept('2026-11-22'), '2026-11-22'), 400);
  assert.equal(oldestKept('2028-03-01'), '2027-01-27'); // across 29 February 2028
  assert.equal(addDays('2026-12-31', 1), '2027-01-01');
  assert.equal(utcDay(new Date('2026-11-21T23:59:59.999Z')), '2026-11-21');
});

test('weekly: the ISO week (Monday to Monday) that ended on or before today', () => {
  assert.deepEqual(lastCompletePeriod('weekly', '2026-11-23'), { start: '2026-11-16', end: '2026-11-23' }); // Monday: the week just ended
  assert.deepEqual(lastCompletePeriod('weekly', '2026-11-29'), { start: '2026-11-16', end: '2026-11-23' }); // Sunday: still that one
  assert.deepEqual(lastCompletePeriod('weekly', '2026-11-30'), { start: '2026-11-23', end: '2026-11-30' });
  assert.deepEqual(lastCompletePeriod('weekly', '2027-01-01'), { start: '2026-12-21', end: '2026-12-28' });
});

test('monthly: the calendar month before this one', () => {
  assert.deepEqual(lastCompletePeriod('monthly', '2026-12-01'), { start: '2026-11-01', end: '2026-12-01' });
  assert.deepEqual(lastCompletePeriod('monthly', '2026-11-30'), { start: '2026-10-01', end: '2026-11-01' });
  assert.deepEqual(lastCompletePeriod('monthly', '2027-01-15'), { start: '2026-12-01', end: '2027-01-01' });
});

test('mean age of the open KEV CVEs: days since publication, one decimal; not KEV or no date left out; none is null', () => {
  const at = new Date('2026-11-21T12:00:00Z');
  assert.equal(meanKevAgeDays([], at), null);
  assert.equal(meanKevAgeDays([{ known_exploited: false, published_at: '2026-01-01T00:00:00Z' }], at), null);
  assert.equal(meanKevAgeDays([{ known_exploited: true, published_at: null }], at), null);
  assert.equal(
    meanKevAgeDays(
      [
        { known_exploited: true, published_at: '2026-11-11T12:00:00Z' }, // 10 days
        { known_exploited: true, published_at: '2026-11-20T00:00:00Z' }, // 1.5 days
        { known_exploited: false, published_at: '2020-01-01T00:00:00Z' },
      ],
      at,
    ),
    5.8,
  ); // 5.75 rounds up
  assert.equal(
    meanKevAgeDays([{ known_exploited: true, published_at: '2026-11-22T00:00:00Z' }], at),
    0,
    'a date after the snapshot counts as 0, never negative',
  );
});

test('decisions by status, with the review flag', () => {
  assert.deepEqual(
    decisionFigures([
      { status: 'affected', review: false },
      { status: 'not_affected', review: true },
      { status: 'not_affected', review: false },
      { status: 'fixed', review: false },
    ]),
    { under_investigation: 0, affected: 1, not_affected: 2, fixed: 1, review_again: 1 },
  );
});

test('a query day must be a calendar day', () => {
  for (const ok of ['2026-02-28', '2028-02-29', '2026-12-31']) assert.equal(isCalendarDay(ok), true, ok);
  for (const bad of ['2026-02-29', '2026-02-30', '2026-13-01', '2026-00-10', '2026-1-01', '20261101', ''])
    assert.equal(isCalendarDay(bad), false, bad);
});

test('what to patch first: priority, then KEV, then more open assets, then the CVE id', () => {
  const c = (
    cve_id: string,
    priority: 'PATCH NOW' | 'PATCH NEXT' | 'MONITOR',
    known_exploited: boolean,
    assets: number,
  ) => ({ cve_id, priority, known_exploited, assets: Array.from({ length: assets }) });
  const list = [
    c('CVE-2024-0005', 'PATCH NEXT', true, 9),
    c('CVE-2024-0004', 'PATCH NOW', false, 1),
    c('CVE-2024-0003', 'PATCH NOW', true, 1),
    c('CVE-2024-0002', 'PATCH NOW', true, 3),
    c('CVE-2024-0001', 'PATCH NOW', true, 3),
    c('CVE-2024-0006', 'MONITOR', true, 50),
  ];
  assert.deepEqual(
    list.sort(patchFirstOrder).map((x) => x.cve_id),
    ['CVE-2024-0001', 'CVE-2024-0002', 'CVE-2024-0003', 'CVE-2024-0004', 'CVE-2024-0005', 'CVE-2024-0006'],
  );
});

test("what changed: CVEs newly open and no longer open, sorted, and each figure's difference", () => {
  const f = (open: number, kev: number, assets: number, eol: number) =>
    ({ open_cves: open, known_exploited: kev, assets_exposed: assets, windows_eol_hosts: eol }) as ExposureFigures;
  assert.deepEqual(
    changesSince(
      { open_cve_ids: ['CVE-2024-0002', 'CVE-2024-0001'], figures: f(2, 1, 3, 1) },
      { open_cve_ids: ['CVE-2024-0003', 'CVE-2024-0002', 'CVE-2023-9999'], figures: f(3, 0, 3, 2) },
    ),
    {
      new_open: ['CVE-2023-9999', 'CVE-2024-0003'],
      no_longer_open: ['CVE-2024-0001'],
      open_cves: 1,
      known_exploited: -1,
      assets_exposed: 0,
      windows_eol_hosts: 1,
    },
  );
});
