// CSAF product_version_range texts (src/domain/csaf-ranges.ts): each grammar of vers: and of the free text CISA
// writes, on each side of its boundary. Spellings from the CSAF fixtures (ICSA-23-068-03 ABB S+ Operations,
// ICSA-24-284-01 Siemens, ICSA-23-103-07 Siemens CP-8031) and the shapes docs/correlation.md §3 lists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCsafRange } from '../../src/domain/csaf-ranges.ts';

const b = (version: string, inclusive: boolean) => ({ version, inclusive });
const text = { kind: 'text' };

test('vers: every operator, = and none for one version, != and empty bounds are not bounds', () => {
  assert.deepEqual(parseCsafRange('vers:generic/>2.0'), { kind: 'bounds', start: b('2.0', false), end: null });
  assert.deepEqual(parseCsafRange('vers:generic/>= 2.0'), { kind: 'bounds', start: b('2.0', true), end: null });
  assert.deepEqual(parseCsafRange('vers:generic/<=V3.1'), { kind: 'bounds', start: null, end: b('V3.1', true) });
  assert.deepEqual(parseCsafRange('vers:generic/=2.0'), { kind: 'exact', version: '2.0' });
  assert.deepEqual(parseCsafRange('vers:generic/2.0'), { kind: 'exact', version: '2.0' });
  assert.deepEqual(parseCsafRange('vers:generic/!=2.0'), text);
  assert.deepEqual(parseCsafRange('vers:generic/>=2.0|!=2.5'), text);
  assert.deepEqual(parseCsafRange('vers:generic/!=2.5|<3.0'), text);
  // Empty constraints and spaces around them are ignored.
  assert.deepEqual(parseCsafRange('vers:generic/>=2.0||<3.0|'), {
    kind: 'bounds',
    start: b('2.0', true),
    end: b('3.0', false),
  });
  assert.deepEqual(parseCsafRange('vers:generic/>=2.0 | <3.0'), {
    kind: 'bounds',
    start: b('2.0', true),
    end: b('3.0', false),
  });
  assert.deepEqual(parseCsafRange('vers:all/ * '), { kind: 'all' });
  assert.deepEqual(parseCsafRange('VERS:all/*'), { kind: 'all' });
  // '*' with another constraint is no "every version".
  assert.deepEqual(parseCsafRange('vers:all/*|<2.0'), text);
  // Only at the start.
  assert.deepEqual(parseCsafRange('see vers:all/*'), text);
});

test('vers: two constraints make an interval only as a lower bound then an upper bound', () => {
  assert.deepEqual(parseCsafRange('vers:generic/>2.0|<=3.0'), {
    kind: 'bounds',
    start: b('2.0', false),
    end: b('3.0', true),
  });
  for (const t of [
    'vers:generic/<3.0|>=2.0',
    'vers:generic/<3.0|<4.0',
    'vers:generic/>=2.0|>=3.0',
    'vers:generic/2.5|<3.0',
    'vers:generic/>=2.0|2.5',
    'vers:generic/2.5|2.6',
  ]) {
    assert.deepEqual(parseCsafRange(t), text, t);
  }
});

test('free text: operators, "prior to"/"before", "and earlier", each only where its version parses', () => {
  assert.deepEqual(parseCsafRange('>= 2.0'), { kind: 'bounds', start: b('2.0', true), end: null });
  assert.deepEqual(parseCsafRange('> 2.0'), { kind: 'bounds', start: b('2.0', false), end: null });
  assert.deepEqual(parseCsafRange('<3.0'), { kind: 'bounds', start: null, end: b('3.0', false) });
  assert.deepEqual(parseCsafRange('= V2.2'), { kind: 'exact', version: 'V2.2' });
  assert.deepEqual(parseCsafRange('V2 < 3.0'), text);
  assert.deepEqual(parseCsafRange('<'), text);
  assert.deepEqual(parseCsafRange('Before V2.9.2'), { kind: 'bounds', start: null, end: b('V2.9.2', false) });
  assert.deepEqual(parseCsafRange('earlier than 2.0'), { kind: 'bounds', start: null, end: b('2.0', false) });
  assert.deepEqual(parseCsafRange('older than 2.0'), { kind: 'bounds', start: null, end: b('2.0', false) });
  assert.deepEqual(parseCsafRange('prior  to\tV2.9.2 '), { kind: 'bounds', start: null, end: b('V2.9.2', false) });
  assert.deepEqual(parseCsafRange('prior to the V2.9.2 release'), text);
  assert.deepEqual(parseCsafRange('2.0 or prior'), { kind: 'bounds', start: null, end: b('2.0', true) });
  assert.deepEqual(parseCsafRange('2.0 and older versions'), { kind: 'bounds', start: null, end: b('2.0', true) });
  assert.deepEqual(parseCsafRange('2.0 and below version'), { kind: 'bounds', start: null, end: b('2.0', true) });
  assert.deepEqual(parseCsafRange('2.0 and lower'), { kind: 'bounds', start: null, end: b('2.0', true) });
  assert.deepEqual(parseCsafRange('V4.3 and earlier versions of the HMI'), text);
  assert.deepEqual(parseCsafRange('the 4.3 and earlier'), text);
  assert.deepEqual(parseCsafRange('  V2.2  '), { kind: 'exact', version: 'V2.2' });
});

test('free text: "all" and "all versions", alone or before a bound', () => {
  assert.deepEqual(parseCsafRange('all'), { kind: 'all' });
  assert.deepEqual(parseCsafRange('ALL VERSIONS'), { kind: 'all' });
  assert.deepEqual(parseCsafRange(' All  versions '), { kind: 'all' });
  assert.deepEqual(parseCsafRange('nearly all'), text);
  assert.deepEqual(parseCsafRange('all versions of the HMI'), text);
  assert.deepEqual(parseCsafRange('All versions < V3.0'), { kind: 'bounds', start: null, end: b('V3.0', false) });
  assert.deepEqual(parseCsafRange('All versions<V3.0'), { kind: 'bounds', start: null, end: b('V3.0', false) });
  assert.deepEqual(parseCsafRange('all versions prior to V3.0'), {
    kind: 'bounds',
    start: null,
    end: b('V3.0', false),
  });
  assert.deepEqual(parseCsafRange('all versions 2.0 and earlier'), {
    kind: 'bounds',
    start: null,
    end: b('2.0', true),
  });
  // "all versions" before a bare version says nothing certain.
  assert.deepEqual(parseCsafRange('All versions 2.0'), text);
  assert.deepEqual(parseCsafRange('< all versions 3.0'), text);
});

test('a "<" bound contradicted by the product name ("... and earlier") stays text; an inclusive bound, other words or versions do not', () => {
  const name = 'S+ Operations: 2.1 SP2 and earlier 2.x versions';
  assert.deepEqual(parseCsafRange('< 2.1 SP2', name), text);
  assert.deepEqual(parseCsafRange('< 2.1 sp2', 'S+ OPERATIONS 2.1 SP2 OR PRIOR'), text);
  assert.deepEqual(parseCsafRange('prior to 2.1 SP2', 'x 2.1 SP2 or older'), text);
  assert.deepEqual(parseCsafRange('< 2.1 SP2', 'S+ Operations: 2.1 SP2 and later'), {
    kind: 'bounds',
    start: null,
    end: b('2.1 SP2', false),
  });
  assert.deepEqual(parseCsafRange('< 2.1', 'S+ Operations: 2.1.5 and earlier'), {
    kind: 'bounds',
    start: null,
    end: b('2.1', false),
  });
  // Regex characters in the version are literal: "2.1" does not match "201".
  assert.deepEqual(parseCsafRange('< 2.1', 'S+ Operations: 201 and earlier'), {
    kind: 'bounds',
    start: null,
    end: b('2.1', false),
  });
  assert.deepEqual(parseCsafRange('<= 2.1 SP2', name), { kind: 'bounds', start: null, end: b('2.1 SP2', true) });
  assert.deepEqual(parseCsafRange('>= 2.1 SP2', name), { kind: 'bounds', start: b('2.1 SP2', true), end: null });
  assert.deepEqual(parseCsafRange('2.1 SP2', name), { kind: 'exact', version: '2.1 SP2' });
  assert.deepEqual(parseCsafRange('< 2.1 SP2'), { kind: 'bounds', start: null, end: b('2.1 SP2', false) });
});

test('free text "A to B" / "through" / "versions A to B" / "from A to B": both ends included, only when both are versions', () => {
  // Spellings of CVE records' `version` fields (CVE-2018-8034; the CVE 5 reader reads its free text here).
  assert.deepEqual(parseCsafRange('9.0.0.M1 to 9.0.9'), {
    kind: 'bounds',
    start: b('9.0.0.M1', true),
    end: b('9.0.9', true),
  });
  assert.deepEqual(parseCsafRange('versions 2.7 to 2.8.21'), {
    kind: 'bounds',
    start: b('2.7', true),
    end: b('2.8.21', true),
  });
  assert.deepEqual(parseCsafRange('from V1.0 through V1.4'), {
    kind: 'bounds',
    start: b('V1.0', true),
    end: b('V1.4', true),
  });
  assert.deepEqual(parseCsafRange(' 1.20.0  to 1.26.10 '), {
    kind: 'bounds',
    start: b('1.20.0', true),
    end: b('1.26.10', true),
  });
  for (const s of ['1.0 to latest', 'up to 2.0', '1.0 to 2.0 and 3.0', 'to 2.0', 'see advisory to 2.0', '1.x to 2.x'])
    assert.deepEqual(parseCsafRange(s), text, s);
});

test('intervals: ">= A and < B", ">= A < B", ">= A | <= B", "> A, < B"; glued vers constraints; only lower then upper, both versions', () => {
  // The CISA advisories' spellings: ICSA-22-034-01 (PowerManage ">= 4.0 | <= 4.8", test/fixtures/csaf), ICSA-19-099-03
  // (Siemens S7-1500 ">= V2.5 < V2.6.1"), and the Siemens vers of ICSA-22-041-01 ("vers:intdot/>=V2.9.2<V2.9.4").
  assert.deepEqual(parseCsafRange('>= 4.0 | <= 4.8'), { kind: 'bounds', start: b('4.0', true), end: b('4.8', true) });
  assert.deepEqual(parseCsafRange('>= V2.5 < V2.6.1'), {
    kind: 'bounds',
    start: b('V2.5', true),
    end: b('V2.6.1', false),
  });
  assert.deepEqual(parseCsafRange('>= V2.3 and < V6.30.016'), {
    kind: 'bounds',
    start: b('V2.3', true),
    end: b('V6.30.016', false),
  });
  assert.deepEqual(parseCsafRange('> 1.0, <= 2.0'), { kind: 'bounds', start: b('1.0', false), end: b('2.0', true) });
  assert.deepEqual(parseCsafRange('>=V2.9.2<V2.9.4'), {
    kind: 'bounds',
    start: b('V2.9.2', true),
    end: b('V2.9.4', false),
  });
  assert.deepEqual(parseCsafRange('vers:intdot/>=V2.9.2<V2.9.4'), {
    kind: 'bounds',
    start: b('V2.9.2', true),
    end: b('V2.9.4', false),
  });
  for (const t of [
    '< 2.0 > 1.0',
    '>= 1.0 < foo',
    '>= 1.0 and before 2.0',
    '>= 1.0 or < 2.0',
    '>= 1.0 < 2.0 < 3.0',
    'vers:generic/>=V1.0<V2.0<V3.0',
    'vers:generic/<V2.0>=V1.0',
  ]) {
    assert.deepEqual(parseCsafRange(t), text, t);
  }
});

test("free text with Cisco releases and release-train letters: read as bounds (CISA's Stratix advisories), words still text", () => {
  assert.deepEqual(parseCsafRange('<= 15.2(7)E3'), {
    kind: 'bounds',
    start: null,
    end: { version: '15.2(7)E3', inclusive: true },
  });
  assert.deepEqual(parseCsafRange('< 15.2(6)E2a'), {
    kind: 'bounds',
    start: null,
    end: { version: '15.2(6)E2a', inclusive: false },
  });
  assert.deepEqual(parseCsafRange('R510.2 and earlier'), {
    kind: 'bounds',
    start: null,
    end: { version: 'R510.2', inclusive: true },
  });
  assert.deepEqual(parseCsafRange('<R510.2_HF14'), {
    kind: 'bounds',
    start: null,
    end: { version: 'R510.2_HF14', inclusive: false },
  });
  assert.deepEqual(parseCsafRange('All versions < V12.01 HF4'), {
    kind: 'bounds',
    start: null,
    end: { version: 'V12.01 HF4', inclusive: false },
  });
  // Two qualifiers at once stay text.
  assert.deepEqual(parseCsafRange('<R511.5_TCU4_HF4'), { kind: 'text' });
  assert.deepEqual(parseCsafRange('to 2.0'), { kind: 'text' });
  assert.deepEqual(parseCsafRange('<= the 4.3'), { kind: 'text' });
});
