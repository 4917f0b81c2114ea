// Boundaries of src/domain/scoring.ts not pinned by enrichment.test.ts (EPSS, BCS, card severity, bsid).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bsid, cardSeverity, computeBcs, epssInterpretation } from '../../src/domain/scoring.ts';

test('EPSS interpretation: no label for a missing or non-finite percentile', () => {
  assert.equal(epssInterpretation(Number.NaN), null);
  assert.equal(epssInterpretation(Number.POSITIVE_INFINITY), null);
  assert.equal(epssInterpretation(0), 'Below median exploitation probability');
  assert.equal(epssInterpretation(0.7499), 'Above median exploitation probability');
});

test('BCS: the EPSS bump needs a percentile of at least 0.90', () => {
  const base = {
    cvss_score: 5,
    kev_flagged: false,
    has_public_exploit: false,
    poc_available: false,
    patch_available: false,
    ics_relevance: 0,
    epss_percentile: null,
  };
  assert.equal(computeBcs({ ...base, epss_percentile: 0.8999 }).score, 5);
  assert.equal(computeBcs({ ...base, epss_percentile: 0 }).score, 5);
  assert.equal(computeBcs({ ...base, epss_percentile: 0.9 }).score, 5.8);
});

test('card severity: the MSRC rating is read trimmed and in any case; bsid refuses what is not a CVE id', () => {
  assert.equal(cardSeverity(null, ' Important '), 'HIGH');
  assert.equal(cardSeverity(null, 'CRITICAL'), 'CRITICAL');
  assert.equal(cardSeverity(null, ''), null);
  assert.throws(() => bsid('cve-2024-21338', 'HIGH'), { message: 'not a CVE id: cve-2024-21338' });
  assert.equal(bsid('CVE-2024-0001', 'MEDIUM'), 'BS-2024-000001-M');
});
