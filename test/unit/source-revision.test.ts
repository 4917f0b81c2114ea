// Which record of a (CVE, source, key) is kept when files hold several (src/store/ingest.ts replacesSource).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { replacesSource } from '../../src/store/ingest.ts';

test('NVD, MSRC, CVE Record 5 and CSAF: an older revision never replaces a newer one; the same revision does; other sources: later wins', () => {
  const nvd = (modified: string | null) => ({ source: 'nvd' as const, modified });
  assert.equal(replacesSource(nvd('2024-05-01T00:00:00.000Z'), nvd('2024-06-01T00:00:00.000Z')), true);
  assert.equal(replacesSource(nvd('2024-06-01T00:00:00.000Z'), nvd('2024-05-01T00:00:00.000Z')), false);
  assert.equal(
    replacesSource(nvd('2024-06-01T00:00:00.000Z'), nvd('2024-06-01T00:00:00.000Z')),
    true,
    'same revision: a re-read (newer reader) updates',
  );
  assert.equal(replacesSource(nvd(null), nvd('2024-06-01T00:00:00.000Z')), true);
  assert.equal(replacesSource(nvd('2024-06-01T00:00:00.000Z'), nvd(null)), false);

  const msrc = (modified: string, document_date: string) => ({ source: 'msrc' as const, modified, document_date });
  // CVE-2016-6664: the same revision in 2016-Dec and in 2020-Sep; the later document wins both ways round.
  assert.equal(
    replacesSource(
      msrc('2020-09-25T00:00:00.000Z', '2016-12-13T08:00:00.000Z'),
      msrc('2020-09-25T00:00:00.000Z', '2020-09-08T07:00:00.000Z'),
    ),
    true,
  );
  assert.equal(
    replacesSource(
      msrc('2020-09-25T00:00:00.000Z', '2020-09-08T07:00:00.000Z'),
      msrc('2020-09-25T00:00:00.000Z', '2016-12-13T08:00:00.000Z'),
    ),
    false,
  );
  // A newer revision wins even from an older document.
  assert.equal(
    replacesSource(
      msrc('2024-09-11T00:00:00.000Z', '2024-09-10T07:00:00.000Z'),
      msrc('2026-02-18T15:11:39.000Z', '2021-07-13T07:00:00.000Z'),
    ),
    true,
  );

  const cve5 = (modified: string | null) => ({ source: 'cve5' as const, modified });
  // A cvelistV5 baseline's record read after the delta that updated it (dateUpdated).
  assert.equal(replacesSource(cve5('2025-03-01T10:00:00.000Z'), cve5('2024-08-19T16:20:22.425Z')), false);
  assert.equal(replacesSource(cve5('2024-08-19T16:20:22.425Z'), cve5('2025-03-01T10:00:00.000Z')), true);
  assert.equal(replacesSource(cve5('2024-08-19T16:20:22.425Z'), cve5('2024-08-19T16:20:22.425Z')), true);

  // A CSAF advisory's revision (tracking.current_release_date): a stale mirror's older revision is refused.
  const csaf = (modified: string | null) => ({ source: 'csaf' as const, modified });
  assert.equal(replacesSource(csaf('2024-10-17T06:00:00.000Z'), csaf('2024-10-15T06:00:00.000Z')), false);
  assert.equal(replacesSource(csaf('2024-10-15T06:00:00.000Z'), csaf('2024-10-17T06:00:00.000Z')), true);

  for (const source of ['kev'] as const) {
    assert.equal(
      replacesSource(
        { source, modified: '2025-01-01T00:00:00.000Z' },
        { source, modified: '2020-01-01T00:00:00.000Z' },
      ),
      true,
    );
  }
});
