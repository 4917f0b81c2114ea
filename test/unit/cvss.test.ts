import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  CVSS_METRICS,
  CvssParseError,
  cvssBlock,
  computeBaseScore,
  formatCvssVector,
  parseCvssVector,
  severityFromScore,
  type CvssVersion,
} from '../../src/domain/cvss.ts';
import { cveRecords, fixture } from '../helpers/feeds.ts';
import { readdirSync } from 'node:fs';

/** Arbitrary canonical vector of one version: every base metric, optional metrics in specification order. */
function vectorArb(version: CvssVersion): fc.Arbitrary<string> {
  const defs = CVSS_METRICS[version];
  return fc
    .tuple(
      ...defs.map((d) =>
        d.required
          ? fc.constantFrom(...d.values).map((v) => v as string | null)
          : fc.option(fc.constantFrom(...d.values), { nil: null }),
      ),
    )
    .map((vals) => {
      const body = defs
        .map((d, i) => (vals[i] === null ? null : `${d.key}:${vals[i]}`))
        .filter(Boolean)
        .join('/');
      return version === '2.0' ? body : `CVSS:${version}/${body}`;
    });
}

const anyVector = fc.oneof(vectorArb('2.0'), vectorArb('3.0'), vectorArb('3.1'), vectorArb('4.0'));

test('round trip: format(parse(v)) === v for every canonical vector of v2, v3.0, v3.1, v4.0', () => {
  fc.assert(
    fc.property(anyVector, (v) => {
      const p = parseCvssVector(v);
      assert.equal(formatCvssVector(p), v);
      assert.deepEqual(parseCvssVector(formatCvssVector(p)), p);
    }),
    { numRuns: 400 },
  );
});

test('metric order does not matter on input; the output is canonical', () => {
  fc.assert(
    fc.property(vectorArb('3.1'), fc.integer({ min: 0, max: 1000 }), (v, seed) => {
      const parts = v.slice('CVSS:3.1/'.length).split('/');
      const shuffled = [...parts].sort(
        (a, b) => ((a.charCodeAt(0) * 31 + seed) % 7) - ((b.charCodeAt(0) * 31 + seed) % 7),
      );
      assert.equal(formatCvssVector(parseCvssVector(`CVSS:3.1/${shuffled.join('/')}`)), v);
    }),
    { numRuns: 200 },
  );
});

test('invalid vectors are rejected with a clear error naming the problem', () => {
  const cases: [string, RegExp][] = [
    ['', /empty vector/],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H', /missing base metric\(s\) A/],
    ['CVSS:3.1/AV:X/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', /metric AV has invalid value "X"/],
    ['CVSS:3.1/AV:N/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', /metric "AV" given twice/],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/ZZ:1', /unknown metric "ZZ"/],
    ['CVSS:2.0/AV:N/AC:L/Au:N/C:P/I:P/A:P', /unsupported version prefix CVSS:2\.0/],
    ['CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N', /missing base metric\(s\) SA/],
    ['AV:N/AC:L', /missing base metric/],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/', /malformed metric ""/],
    ['hello', /not a CVSS v2 base vector/],
  ];
  for (const [v, re] of cases) {
    assert.throws(
      () => parseCvssVector(v),
      (e: unknown) =>
        e instanceof CvssParseError &&
        re.test((e as Error).message) &&
        (e as Error).message.startsWith('invalid CVSS vector'),
      v,
    );
  }
  // Random corruption of a valid vector (drop one base metric) is always rejected.
  fc.assert(
    fc.property(vectorArb('3.1'), fc.constantFrom('AV', 'AC', 'PR', 'UI', 'S', 'C', 'I', 'A'), (v, key) => {
      const cut = v
        .split('/')
        .filter((p) => !p.startsWith(`${key}:`))
        .join('/');
      assert.throws(() => parseCvssVector(cut), CvssParseError);
    }),
  );
});

test('computed v2/v3.x base scores equal the scores NVD published for every real vector in the fixtures', async () => {
  const files = readdirSync(fixture('nvd'))
    .filter((f) => f.startsWith('CVE-'))
    .map((f) => fixture('nvd', f));
  files.push(fixture('nvd', 'nvd-api-2.0-page.assembled.json'));
  let checked = 0;
  for (const r of await cveRecords(...files)) {
    for (const m of r.cvss) {
      const computed = computeBaseScore(parseCvssVector(m.vector));
      if (m.version === '4.0') {
        assert.equal(computed, null);
        continue;
      }
      assert.equal(computed, m.score, `${r.cve_id} ${m.vector}`);
      checked++;
    }
  }
  assert.ok(checked >= 30, `checked ${checked}`);
});

test('decomposition: v3.1, v4.0 and v2 fields, severity from the score, version from the vector', () => {
  assert.deepEqual(cvssBlock('CVSS:3.1/AV:A/AC:H/PR:N/UI:R/S:U/C:H/I:H/A:L', 6.7), {
    score: 6.7,
    vector: 'CVSS:3.1/AV:A/AC:H/PR:N/UI:R/S:U/C:H/I:H/A:L',
    version: '3.1',
    severity: 'MEDIUM',
    attack_vector: 'ADJACENT',
    attack_complexity: 'HIGH',
    privileges_required: 'NONE',
    user_interaction: 'REQUIRED',
    scope: 'UNCHANGED',
    confidentiality_impact: 'HIGH',
    integrity_impact: 'HIGH',
    availability_impact: 'LOW',
  });
  const v4 = cvssBlock('CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:H/SC:N/SI:N/SA:N', 8.7);
  assert.equal(v4.version, '4.0');
  assert.equal(v4.severity, 'HIGH');
  assert.equal(v4.scope, null);
  assert.equal(v4.availability_impact, 'HIGH');
  const v2 = cvssBlock('AV:N/AC:L/Au:N/C:C/I:C/A:C', null);
  assert.equal(v2.score, 10);
  assert.equal(v2.version, '2.0');
  assert.equal(v2.severity, 'CRITICAL');
  assert.equal(v2.confidentiality_impact, 'COMPLETE');
  assert.deepEqual(
    [
      severityFromScore(9),
      severityFromScore(8.9),
      severityFromScore(7),
      severityFromScore(4),
      severityFromScore(3.9),
      severityFromScore(0),
    ],
    ['CRITICAL', 'HIGH', 'HIGH', 'MEDIUM', 'LOW', 'LOW'],
  );
});
