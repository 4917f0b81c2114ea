// CVSS rules of src/domain/cvss.ts on each side of their boundaries: the error message (its 120-character cut), the
// accepted spellings of a vector (padding, v2 in parentheses), scores at 0 and at a whole number, CVSS 3.0's own
// vectors (the CSAF fixtures' published scores) and v2 access vectors, and the decomposition's names per version.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CvssParseError, cvssBlock, computeBaseScore, parseCvssVector } from '../../src/domain/cvss.ts';

const score = (v: string) => computeBaseScore(parseCvssVector(v));
function message(v: unknown): string {
  try {
    parseCvssVector(v as string);
  } catch (e) {
    assert.ok(e instanceof CvssParseError);
    assert.equal(e.name, 'CvssParseError');
    return e.message;
  }
  assert.fail(`no error for ${String(v)}`);
}

test('errors: the vector quoted whole up to 120 characters, cut with an ellipsis after that', () => {
  const v120 = `CVSS:3.1/AV:N/${'X'.repeat(104)}:1`;
  assert.equal(v120.length, 120);
  assert.equal(message(v120), `invalid CVSS vector "${v120}": unknown metric "${'X'.repeat(104)}" for CVSS 3.1`);
  const v121 = `${v120}2`;
  assert.equal(message(v121), `invalid CVSS vector "${v120}…": unknown metric "${'X'.repeat(104)}" for CVSS 3.1`);
});

test('errors: empty or not a string, wrong prefix, malformed metric, the allowed values and the missing metrics listed', () => {
  assert.equal(message('   '), 'invalid CVSS vector "   ": empty vector');
  assert.equal(message(undefined), 'invalid CVSS vector "undefined": empty vector');
  assert.match(
    message('XCVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'),
    /missing "CVSS:3\.x\/" or "CVSS:4\.0\/" prefix and not a CVSS v2 base vector$/,
  );
  assert.match(message('x(AV:N/AC:L/Au:N/C:P/I:P/A:P)'), /not a CVSS v2 base vector$/);
  assert.match(
    message('CVSS:3.1/:N/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'),
    /malformed metric ":N" \(expected KEY:VALUE\)$/,
  );
  assert.match(
    message('CVSS:3.1/AV:X/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'),
    /metric AV has invalid value "X" \(allowed: N, A, L, P\)$/,
  );
  assert.match(message('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U'), /missing base metric\(s\) C, I, A$/);
  assert.match(message('(AV:N/AC:L/Au:N/C:P/I:P/A:P'), /unbalanced parenthesis$/);
});

test('spellings: surrounding spaces, and a v2 vector in parentheses', () => {
  assert.deepEqual(parseCvssVector('  CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H '), {
    version: '3.1',
    metrics: { AV: 'N', AC: 'L', PR: 'N', UI: 'N', S: 'U', C: 'H', I: 'H', A: 'H' },
  });
  assert.deepEqual(parseCvssVector('(AV:N/AC:L/Au:N/C:P/I:P/A:P)'), {
    version: '2.0',
    metrics: { AV: 'N', AC: 'L', Au: 'N', C: 'P', I: 'P', A: 'P' },
  });
  assert.equal(cvssBlock('(AV:N/AC:L/Au:N/C:P/I:P/A:P)', null).vector, 'AV:N/AC:L/Au:N/C:P/I:P/A:P');
});

test('v3 scores: no impact is 0, a whole score stays whole, and CVSS 3.0 vectors score as their advisories publish', () => {
  assert.equal(score('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N'), 0);
  assert.equal(score('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:N/I:N/A:N'), 0);
  assert.equal(score('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H'), 10);
  assert.equal(score('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'), 9.8);
  // ICSA-20-343-01, ICSA-22-034-01, ICSA-23-068-03, ICSA-23-262-04, CVE-2024-4493.
  const published: [string, number][] = [
    ['CVSS:3.0/AV:N/AC:H/PR:N/UI:N/S:C/C:H/I:L/A:L', 8.1],
    ['CVSS:3.0/AV:N/AC:H/PR:N/UI:N/S:C/C:N/I:L/A:N', 4.0],
    ['CVSS:3.0/AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:L/A:H', 7.0],
    ['CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:L', 6.5],
    ['CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H', 10.0],
    ['CVSS:3.0/AV:A/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', 8.8],
    ['CVSS:3.0/AV:L/AC:L/PR:L/UI:N/S:U/C:N/I:H/A:N', 5.5],
    ['CVSS:3.0/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H', 8.8],
  ];
  for (const [v, s] of published) assert.equal(score(v), s, v);
});

test('v2 scores: local and adjacent access vectors, and no impact scoring 0', () => {
  assert.equal(score('AV:L/AC:L/Au:N/C:C/I:C/A:C'), 7.2);
  assert.equal(score('AV:A/AC:L/Au:N/C:P/I:P/A:P'), 5.8);
  assert.equal(score('AV:N/AC:L/Au:N/C:N/I:N/A:N'), 0);
});

test('decomposition: names of v3 scope and interaction, v4 interaction; no score, no severity', () => {
  const v3 = cvssBlock('CVSS:3.1/AV:P/AC:L/PR:H/UI:N/S:C/C:L/I:N/A:H', null);
  assert.deepEqual(v3, {
    score: 5.7,
    vector: 'CVSS:3.1/AV:P/AC:L/PR:H/UI:N/S:C/C:L/I:N/A:H',
    version: '3.1',
    severity: 'MEDIUM',
    attack_vector: 'PHYSICAL',
    attack_complexity: 'LOW',
    privileges_required: 'HIGH',
    user_interaction: 'NONE',
    scope: 'CHANGED',
    confidentiality_impact: 'LOW',
    integrity_impact: 'NONE',
    availability_impact: 'HIGH',
  });
  const v4 = (ui: string) => cvssBlock(`CVSS:4.0/AV:L/AC:H/AT:P/PR:L/UI:${ui}/VC:L/VI:N/VA:H/SC:N/SI:N/SA:N`, null);
  assert.deepEqual(v4('N'), {
    score: null,
    vector: 'CVSS:4.0/AV:L/AC:H/AT:P/PR:L/UI:N/VC:L/VI:N/VA:H/SC:N/SI:N/SA:N',
    version: '4.0',
    severity: null,
    attack_vector: 'LOCAL',
    attack_complexity: 'HIGH',
    privileges_required: 'LOW',
    user_interaction: 'NONE',
    scope: null,
    confidentiality_impact: 'LOW',
    integrity_impact: 'NONE',
    availability_impact: 'HIGH',
  });
  assert.equal(v4('P').user_interaction, 'PASSIVE');
  assert.equal(v4('A').user_interaction, 'ACTIVE');
});
