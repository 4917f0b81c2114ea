// Walks the spec §7 classification table (copied verbatim to test/fixtures/spec/error-classification.md) row by
// row against the one error catalogue, and checks that every catalogue entry belongs to exactly one row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ERRORS, type ErrorKey } from '../../src/http/errors.ts';

interface Row {
  line: string;
  statuses: number[];
  codeCell: string;
  retryable: boolean;
  retryAfter: string;
  action: string;
}

function readTable(): Row[] {
  const text = readFileSync(new URL('../fixtures/spec/error-classification.md', import.meta.url), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| HTTP') && !l.startsWith('|---'))
    .map((line) => {
      const cells = line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
      assert.equal(cells.length, 5, `five cells in: ${line}`);
      return {
        line,
        statuses: cells[0].split(',').map((s) => Number(s.trim())),
        codeCell: cells[1],
        retryable: cells[2] === 'true',
        retryAfter: cells[3],
        action: cells[4],
      };
    });
}

/**
 * Row number (1-based, table order) → the catalogue entries that implement it, with the detail.error the row
 * names for that entry where it names one. BAD_REQUEST is our code for the row's "other bad input".
 */
const ROWS: [ErrorKey, string?][][] = [
  [['RATE_LIMITED', 'rate_limited']],
  [['EDGE_RATE_LIMITED']],
  [['PARTNER_LIMIT']],
  [['TRIAL_LIMIT']],
  [['QUERY_LIMIT', 'query_limit']],
  [['FREE_QUERY_LIMIT', 'free_query_limit']],
  [['TRIAL_ENDED']],
  [['TRIAL_CONFLICT'], ['TRIAL_UNAVAILABLE']],
  [['BATCH_TOO_LARGE', 'batch_too_large'], ['BODY_TOO_LARGE'], ['TRIAL_BATCH_LIMIT']],
  [['UNKNOWN_PARAMETER'], ['BAD_REQUEST']],
  [['VALIDATION_ERROR']],
  [['NOT_FOUND'], ['ENVIRONMENT_NOT_FOUND'], ['ASSET_NOT_FOUND'], ['METHOD_NOT_ALLOWED'], ['GONE', 'gone']],
  [['CONFLICT']],
  [['CONFIRMATION_REQUIRED', 'confirmation_required']],
  [['AUTH_REQUIRED']],
  [['PARTNER_SCOPE'], ['TRIAL_SCOPE']],
  [['TRIAL_REQUIRED'], ['API_ONLY_ACCOUNT'], ['API_KEY_REQUIRED'], ['DEMO_EXAMPLES_ONLY']],
  [
    ['INSUFFICIENT_SCOPE', 'insufficient_scope'],
    ['VIEWER_ROLE', 'viewer_role'],
    ['DEMO_READ_ONLY', 'demo_read_only'],
    ['SESSION_REQUIRED', 'session_required'],
    ['ORIGIN_REFUSED'],
    ['CSRF_REFUSED'],
    ['FORBIDDEN'],
  ],
  [
    ['TIER_GATE'],
    ['UPGRADE_REQUIRED', 'upgrade_required'],
    ['TIER_REQUIRED', 'tier_required'],
    ['CAP_EXCEEDED', 'cap_exceeded'],
    ['LIMIT_REACHED', 'limit_reached'],
  ],
  [['INTERNAL_ERROR'], ['DB_TIMEOUT']],
  [['UPSTREAM_ERROR'], ['EDGE_UNAVAILABLE']],
  [['DB_UNAVAILABLE'], ['EDGE_OVERLOADED']],
  [['DEMO_UNAVAILABLE', 'demo_unavailable']],
  [['GATEWAY_TIMEOUT']],
];

/** Codes the table does not spell as a word in their row, with the row text they implement. */
const OUR_CODES: Partial<Record<ErrorKey, string>> = { BAD_REQUEST: 'other bad input' };

const rows = readTable();

test('the fixture holds the whole classification table', () => {
  assert.equal(rows.length, 24);
  assert.equal(ROWS.length, rows.length);
});

rows.forEach((row, i) => {
  test(`row ${i + 1}: ${row.line.slice(0, 90)}`, () => {
    for (const [key, detailError] of ROWS[i]) {
      const e = ERRORS[key];
      assert.ok(row.statuses.includes(e.status), `${key}: HTTP ${e.status} not in ${row.statuses}`);
      if (OUR_CODES[key])
        assert.ok(row.codeCell.includes(OUR_CODES[key]!), `${key}: row must mention ${OUR_CODES[key]}`);
      else assert.match(row.codeCell, new RegExp(`\\b${e.code}`, 'i'), `${key}: code ${e.code} not in the row`);
      if (detailError) {
        assert.equal(e.error, detailError, `${key}: detail.error`);
        assert.match(row.codeCell, new RegExp(`\\b${detailError}\\b`), `${key}: the row names ${detailError}`);
      }
      assert.equal(e.retryable, row.retryable, `${key}: retryable`);
      const expected =
        row.retryAfter === 'null' ? null : /^\d+$/.test(row.retryAfter) ? Number(row.retryAfter) : 'dynamic';
      if (expected === 'dynamic') assert.equal(row.retryAfter, 'seconds until window ends');
      assert.equal(e.retryAfter, expected, `${key}: retry_after_seconds`);
      assert.equal(e.action, row.action, `${key}: action`);
    }
  });
});

test('every catalogue entry implements exactly one row', () => {
  const mapped = ROWS.flat().map(([k]) => k);
  assert.deepEqual([...mapped].sort(), Object.keys(ERRORS).sort());
  assert.equal(new Set(mapped).size, mapped.length);
});

test('retryable entries carry a retry delay and non-retryable ones none', () => {
  for (const [key, e] of Object.entries(ERRORS)) {
    assert.equal(e.retryable, e.retryAfter !== null, key);
    assert.match(e.code, /^[A-Z][A-Z_]*$/, key);
    assert.match(e.error, /^[a-z][a-z_]*$/, key);
  }
});
