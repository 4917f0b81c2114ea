import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  branchPrefix,
  compareBranch,
  compareVersions,
  inRange,
  normaliseVersion,
  parseVersion,
  sameVersion,
  type Comparison,
} from '../../src/domain/versions.ts';

const cases: [string, string, Comparison][] = [
  // leading V and case
  ['V2.9.2', '2.9.2', 0],
  ['v2.9.2', 'V2.9.2', 0],
  ['Version 4.1', '4.1', 0],
  // CISA advisories' spellings: Rockwell "v.32.011", Mitsubishi "Ver.2.60", Advantech "V.2.0.15"
  ['v.32.011', '32.11', 0],
  ['v.32.011', 'v.33.011', -1],
  ['V32.013', 'v.32.011', 1],
  ['Ver.2.60', '2.60', 0],
  ['ver 1.23', 'V1.22', 1],
  ['V.2.0.15', '2.0.15', 0],
  // numeric, not lexical
  ['2.10', '2.9', 1],
  ['2.9', '2.10', -1],
  ['10.0', '9.9.9', 1],
  // trailing zeros
  ['2.0', '2.0.0', 0],
  ['2', '2.0.0.0', 0],
  // four-part
  ['4.2.0.1', '4.2.0.0', 1],
  ['10.0.19045.4291', '10.0.19045.4170', 1],
  ['1.2.3.4', '1.2.3', 1],
  // service packs and updates
  ['3.0 SP1', '3.0', 1],
  ['V3.0SP1', '3.0 sp2', -1],
  ['3.0 Service Pack 2', '3.0 SP2', 0],
  ['3.0 SP1', '3.1', -1],
  ['8 Update 3', '8u3', 0],
  ['8u301', '8u31', 1],
  ['8u3', '8', 1],
  ['2.1 Upd 3', '2.1 Update 2', 1],
  // firmware letters
  ['V1.2a', '1.2', 1],
  ['V1.2a', '1.2b', -1],
  ['2.0.1b', '2.0.1a', 1],
  ['2.0.1b', '2.0.2', -1],
  // semver pre-releases
  ['1.0.0-rc.1', '1.0.0', -1],
  ['1.0.0-alpha', '1.0.0-alpha.1', -1],
  ['1.0.0-alpha.1', '1.0.0-beta', -1],
  ['1.0.0-beta.2', '1.0.0-beta.11', -1],
  ['1.0.0-rc.1', '1.0.0-beta.11', 1],
  ['1.0.0-rc1', '1.0.0-rc.1', 0],
  ['1.0.0-rc.1', '0.9.9', 1],
  ['2.0.0+build.5', '2.0.0', 0],
  // uncertain: different qualifier kinds on one core, or spellings that are not versions
  ['3.0 SP1', '3.0 Update 1', 'needs_review'],
  ['1.2a', '1.2 SP1', 'needs_review'],
  ['1.0.0-rc.1', '1.0.0 SP1', 'needs_review'],
  ['1.2.3-1', '1.2.3', 'needs_review'],
  ['2023-04-01', '2023-05-01', 'needs_review'],
  ['a1b2c3d', '1.0', 'needs_review'],
  ['*', '1.0', 'needs_review'],
  ['', '', 'needs_review'],
  ['all versions', '1.0', 'needs_review'],
  ['1.2.3.4.5.6.7.8.9', '1.0', 'needs_review'],
  // two unparseable but identical spellings are the same version
  ['R2023b build X', 'r2023b BUILD x', 0],
];

test('real spellings are ordered as documented (docs/correlation.md §1)', () => {
  for (const [a, b, want] of cases) {
    assert.equal(compareVersions(a, b), want, `${a} vs ${b}`);
  }
});

test('parseVersion: qualifiers as documented', () => {
  assert.deepEqual(parseVersion('V2.9.2'), { core: [2, 9, 2], qualifier: { kind: 'none' } });
  assert.deepEqual(parseVersion('V1.2a'), { core: [1, 2], qualifier: { kind: 'letter', n: 1 } });
  assert.deepEqual(parseVersion('3.0 SP1'), { core: [3], qualifier: { kind: 'sp', n: 1 } });
  assert.deepEqual(parseVersion('8u3'), { core: [8], qualifier: { kind: 'update', n: 3 } });
  assert.deepEqual(parseVersion('1.0.0-rc.1'), { core: [1], qualifier: { kind: 'pre', ids: ['rc', 1] } });
  assert.equal(parseVersion('1.2.3-1'), null);
});

test('inRange: boundaries of inclusive and exclusive bounds', () => {
  const end = (v: string, inclusive: boolean) => ({ version: v, inclusive });
  assert.equal(inRange('2.9.1', null, end('2.9.2', false)), 'in');
  assert.equal(inRange('V2.9.2', null, end('2.9.2', false)), 'out');
  assert.equal(inRange('2.9.2', null, end('V2.9.2', true)), 'in');
  assert.equal(inRange('2.9.3', null, end('2.9.2', true)), 'out');
  assert.equal(inRange('2.0', end('2.0.0', true), end('3.0', false)), 'in');
  assert.equal(inRange('2.0', end('2.0.0', false), end('3.0', false)), 'out');
  assert.equal(inRange('1.9', end('2.0', true), null), 'out');
  assert.equal(inRange('3.0 SP1', end('3.0', true), end('3.0 Update 2', false)), 'needs_review');
  assert.equal(inRange('anything', null, null), 'in');
});

// ---- properties ----

const core = fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 5 });
const qualifier = fc.oneof(
  fc.constant(''),
  fc.integer({ min: 0, max: 25 }).map((i) => String.fromCharCode(97 + i)),
  fc.integer({ min: 0, max: 20 }).map((n) => ` SP${n}`),
  fc.integer({ min: 0, max: 400 }).map((n) => `u${n}`),
  fc.tuple(fc.constantFrom('alpha', 'beta', 'rc'), fc.integer({ min: 0, max: 30 })).map(([w, n]) => `-${w}.${n}`),
);
const version = fc.tuple(core, qualifier, fc.boolean()).map(([c, q, v]) => `${v ? 'V' : ''}${c.join('.')}${q}`);

test('property: reflexive, and antisymmetric (needs_review is symmetric)', () => {
  fc.assert(
    fc.property(version, version, (a, b) => {
      assert.equal(compareVersions(a, a), 0);
      const ab = compareVersions(a, b);
      const ba = compareVersions(b, a);
      if (ab === 'needs_review') assert.equal(ba, 'needs_review');
      else assert.equal(ba, -ab || 0);
    }),
    { numRuns: 2000 },
  );
});

test('property: transitive wherever the three pairs are ordered', () => {
  fc.assert(
    fc.property(version, version, version, (a, b, c) => {
      const ab = compareVersions(a, b);
      const bc = compareVersions(b, c);
      const ac = compareVersions(a, c);
      if (ab === 'needs_review' || bc === 'needs_review' || ac === 'needs_review') return;
      if (ab <= 0 && bc <= 0) assert.ok(ac <= 0, `${a} <= ${b} <= ${c} but ${ac}`);
      if (ab >= 0 && bc >= 0) assert.ok(ac >= 0, `${a} >= ${b} >= ${c} but ${ac}`);
    }),
    { numRuns: 3000 },
  );
});

test('property: plain numeric versions order as integer tuples (zero-padded), V prefix and case never matter', () => {
  fc.assert(
    fc.property(core, core, (x, y) => {
      const n = Math.max(x.length, y.length);
      let want = 0;
      for (let i = 0; i < n && want === 0; i++) want = Math.sign((x[i] ?? 0) - (y[i] ?? 0));
      assert.equal(compareVersions(x.join('.'), y.join('.')), want);
      assert.equal(compareVersions(`V${x.join('.')}`, `v${y.join('.')}`), want);
    }),
    { numRuns: 2000 },
  );
});

test('property: a qualifier never moves a version past the next core', () => {
  fc.assert(
    fc.property(core, qualifier, (c, q) => {
      const next = [...c.slice(0, -1), c[c.length - 1] + 1].join('.');
      assert.equal(compareVersions(`${c.join('.')}${q}`, next), -1);
    }),
    { numRuns: 1000 },
  );
});

// ---- boundaries of each rule ----

test('normaliseVersion: trimmed, lower case, one space, no "v"/"version" before a digit, no build metadata', () => {
  assert.equal(normaliseVersion('  V2.9.2 '), '2.9.2');
  assert.equal(normaliseVersion('v 2.0'), '2.0');
  assert.equal(normaliseVersion('Version4.1'), '4.1');
  assert.equal(normaliseVersion('v.32.011'), '32.011');
  assert.equal(normaliseVersion('Ver.2.60'), '2.60');
  assert.equal(normaliseVersion('V. 2.0'), '2.0');
  // "ver" or "v." before a word is kept.
  assert.equal(normaliseVersion('ver.x'), 'ver.x');
  assert.equal(normaliseVersion('v.next'), 'v.next');
  assert.equal(normaliseVersion('VERSION   4.1  SP1'), '4.1 sp1');
  assert.equal(normaliseVersion('3.0\t\tService   Pack 1'), '3.0 service pack 1');
  // A "v" that starts a word is kept.
  assert.equal(normaliseVersion('vendor 1'), 'vendor 1');
  // Only at the start.
  assert.equal(normaliseVersion('rev2'), 'rev2');
  assert.equal(normaliseVersion('build version 2'), 'build version 2');
  assert.equal(normaliseVersion('v'), 'v');
  assert.equal(normaliseVersion('v  2'), '2');
  // Build metadata from the first '+' on; a leading '+' is not metadata.
  assert.equal(normaliseVersion('2.0.0+build.5+x'), '2.0.0');
  assert.equal(normaliseVersion('+1'), '+1');
  assert.equal(normaliseVersion('a+1'), 'a');
});

test('parseVersion: the core has 1 to 8 parts of at most 9 digits; trailing zeros do not count', () => {
  assert.deepEqual(parseVersion('1.2.3.4.5.6.7.8'), { core: [1, 2, 3, 4, 5, 6, 7, 8], qualifier: { kind: 'none' } });
  assert.equal(parseVersion('1.2.3.4.5.6.7.8.9'), null);
  assert.deepEqual(parseVersion('123456789'), { core: [123456789], qualifier: { kind: 'none' } });
  assert.equal(parseVersion('1234567890'), null);
  assert.deepEqual(parseVersion('0'), { core: [], qualifier: { kind: 'none' } });
  assert.deepEqual(parseVersion('0.0.1.0'), { core: [0, 0, 1], qualifier: { kind: 'none' } });
  assert.deepEqual(parseVersion('10.0'), { core: [10], qualifier: { kind: 'none' } });
  assert.equal(parseVersion('x1.0'), null);
  assert.equal(parseVersion('1.0.'), null);
});

test('parseVersion: letters, service packs and updates, each spelling and its limits', () => {
  assert.deepEqual(parseVersion('1.2z'), { core: [1, 2], qualifier: { kind: 'letter', n: 26 } });
  assert.deepEqual(parseVersion('1.2b'), { core: [1, 2], qualifier: { kind: 'letter', n: 2 } });
  for (const s of ['3.0 SP1', '3.0SP1', '3.0_sp1', '3.0-sp1', '3.0 sp 1', '3.0 Service Pack 1', '3.0service pack1']) {
    assert.deepEqual(parseVersion(s), { core: [3], qualifier: { kind: 'sp', n: 1 } }, s);
  }
  assert.deepEqual(parseVersion('3.0 SP9999'), { core: [3], qualifier: { kind: 'sp', n: 9999 } });
  assert.equal(parseVersion('3.0 SP10000'), null);
  assert.equal(parseVersion('3.0 SP'), null);
  assert.equal(parseVersion('3.0  SP1x'), null);
  for (const s of ['8u3', '8 u3', '8_upd3', '8-update 3', '8 Update 3', '8 upd 3']) {
    assert.deepEqual(parseVersion(s), { core: [8], qualifier: { kind: 'update', n: 3 } }, s);
  }
  assert.deepEqual(parseVersion('8u99999'), { core: [8], qualifier: { kind: 'update', n: 99999 } });
  assert.equal(parseVersion('8u100000'), null);
  assert.equal(parseVersion('8 update'), null);
  assert.equal(parseVersion('8.0 patch 3'), null);
});

test('parseVersion: semver pre-releases, after "-" or glued, with their identifiers', () => {
  assert.deepEqual(parseVersion('2.0b3'), { core: [2], qualifier: { kind: 'pre', ids: ['b', 3] } });
  assert.deepEqual(parseVersion('2.0beta'), { core: [2], qualifier: { kind: 'pre', ids: ['beta'] } });
  assert.deepEqual(parseVersion('1.0.0-alpha.beta.01'), {
    core: [1],
    qualifier: { kind: 'pre', ids: ['alpha', 'beta', 1] },
  });
  // A word glued to its number splits; other mixes stay one identifier.
  assert.deepEqual(parseVersion('1.0-rc.rc1a'), { core: [1], qualifier: { kind: 'pre', ids: ['rc', 'rc1a'] } });
  assert.deepEqual(parseVersion('1.0-rc.1a2'), { core: [1], qualifier: { kind: 'pre', ids: ['rc', '1a2'] } });
  assert.deepEqual(parseVersion('1.0-rc.1a'), { core: [1], qualifier: { kind: 'pre', ids: ['rc', '1a'] } });
  assert.deepEqual(parseVersion('1.0-preview2'), { core: [1], qualifier: { kind: 'pre', ids: ['preview', 2] } });
  assert.deepEqual(parseVersion('1.0-dev'), { core: [1], qualifier: { kind: 'pre', ids: ['dev'] } });
  assert.deepEqual(parseVersion('1.0-rc12'), { core: [1], qualifier: { kind: 'pre', ids: ['rc', 12] } });
  // Not a pre-release: no word first, a word that is not one, empty or odd identifiers.
  for (const s of [
    '1.0-1',
    '1.0-foo',
    '1.0-foo.rc',
    '1.0-rc..1',
    '1.0-rc_1',
    '1.0-',
    '1.0-.rc',
    '1.0-rc.',
    '1.0-RC 1',
    '2.0ab',
    // every identifier must be letters and digits only, from its first character to its last
    '1.0-rc.x_1',
    '1.0-rc.1_x',
    // a qualifier starts right after the core (or after one space, '_' or '-' for SP and updates)
    '3.0xsp1',
    '8xu3',
    '1.0a-rc1',
    '1.0_rc1',
    '1.0 beta',
  ]) {
    assert.equal(parseVersion(s), null, s);
  }
});

test('compareVersions: pre-release identifiers by semver precedence', () => {
  // Numbers sort before words, whichever side holds them.
  assert.equal(compareVersions('1.0.0-alpha.1', '1.0.0-alpha.beta'), -1);
  assert.equal(compareVersions('1.0.0-alpha.beta', '1.0.0-alpha.1'), 1);
  // Words by ASCII order, both ways.
  assert.equal(compareVersions('1.0.0-alpha', '1.0.0-beta'), -1);
  assert.equal(compareVersions('1.0.0-beta', '1.0.0-alpha'), 1);
  assert.equal(compareVersions('1.0.0-beta.x', '1.0.0-beta.y'), -1);
  // Numbers numerically, both ways; a longer list after its prefix.
  assert.equal(compareVersions('1.0.0-rc.10', '1.0.0-rc.9'), 1);
  assert.equal(compareVersions('1.0.0-rc.9', '1.0.0-rc.10'), -1);
  assert.equal(compareVersions('1.0.0-rc.1.1', '1.0.0-rc.1'), 1);
  assert.equal(compareVersions('1.0.0-rc.1', '1.0.0-rc.1'), 0);
  // A pre-release before its release; the release after it.
  assert.equal(compareVersions('2.0', '2.0-beta'), 1);
  assert.equal(compareVersions('2.0-beta', '2.0'), -1);
});

test('compareVersions: same core, qualifier against none and against its own kind', () => {
  assert.equal(compareVersions('1.2', '1.2a'), -1);
  assert.equal(compareVersions('1.2a', '1.2'), 1);
  assert.equal(compareVersions('3.0', '3.0 SP1'), -1);
  assert.equal(compareVersions('3.0 SP2', '3.0 SP1'), 1);
  assert.equal(compareVersions('3.0 SP1', '3.0 SP1'), 0);
  assert.equal(compareVersions('8u3', '8u4'), -1);
  assert.equal(compareVersions('1.2 SP1', '1.2a'), 'needs_review');
  assert.equal(compareVersions('1.2a', '1.0'), 1);
  assert.equal(compareVersions('1', '1.0.1'), -1);
  assert.equal(compareVersions('1.0.1', '1'), 1);
});

test('compareVersions: spellings that do not parse are equal only when they read the same, and never when empty', () => {
  assert.equal(compareVersions('+1', '+1'), 0);
  assert.equal(compareVersions('Build ABC', 'build  abc'), 0);
  assert.equal(compareVersions('build abc', 'build abd'), 'needs_review');
  assert.equal(compareVersions('build abc', '1.0'), 'needs_review');
  assert.equal(compareVersions('1.0', 'build abc'), 'needs_review');
  assert.equal(compareVersions(' ', ''), 'needs_review');
  assert.equal(compareVersions('', '1.0'), 'needs_review');
});

test('inRange: each bound on each side of its version, and bounds that cannot be ordered', () => {
  const b = (v: string, inclusive: boolean) => ({ version: v, inclusive });
  assert.equal(inRange('2.0', b('2.0', true), null), 'in');
  assert.equal(inRange('2.0', b('2.0', false), null), 'out');
  assert.equal(inRange('2.0.1', b('2.0', false), null), 'in');
  assert.equal(inRange('1.9', b('2.0', false), null), 'out');
  assert.equal(inRange('3.0', null, b('3.0', true)), 'in');
  assert.equal(inRange('3.0', null, b('3.0', false)), 'out');
  assert.equal(inRange('2.9', null, b('3.0', false)), 'in');
  assert.equal(inRange('3.1', null, b('3.0', true)), 'out');
  assert.equal(inRange('2.5', b('2.0', true), b('3.0', false)), 'in');
  assert.equal(inRange('3.5', b('2.0', true), b('3.0', false)), 'out');
  assert.equal(inRange('1.5', b('2.0', true), b('3.0', false)), 'out');
  assert.equal(inRange('build 7', b('2.0', true), null), 'needs_review');
  assert.equal(inRange('build 7', null, b('3.0', true)), 'needs_review');
  assert.equal(inRange('2.5', b('2.0', true), b('build 7', true)), 'needs_review');
  assert.equal(inRange('1.5', b('2.0', true), b('build 7', true)), 'out');
});

test("milestones (Apache's M1…M20) and pre-releases after a dot are pre-releases; cores still decide first", () => {
  assert.deepEqual(parseVersion('11.0.0-M10'), { core: [11], qualifier: { kind: 'pre', ids: ['m', 10] } });
  assert.deepEqual(parseVersion('9.0.0.M1'), { core: [9], qualifier: { kind: 'pre', ids: ['m', 1] } });
  assert.deepEqual(parseVersion('8.0.0.RC1'), { core: [8], qualifier: { kind: 'pre', ids: ['rc', 1] } });
  assert.deepEqual(parseVersion('2.0.0-milestone.3'), { core: [2], qualifier: { kind: 'pre', ids: ['milestone', 3] } });
  // Real spellings of CVE-2024-34750 and CVE-2018-8034 (test/fixtures/cve5), and the ADP's lower-case copy.
  assert.equal(compareVersions('9.0.50', '11.0.0-M1'), -1);
  assert.equal(compareVersions('9.0.50', '9.0.0-m1'), 1);
  assert.equal(compareVersions('9.0.0.M1', '9.0.0-M1'), 0);
  assert.equal(compareVersions('11.0.0-M9', '11.0.0-M10'), -1);
  assert.equal(compareVersions('11.0.0-M20', '11.0.0'), -1);
  assert.equal(compareVersions('11.0.0-M20', '11.0.0-rc1'), -1); // words by ASCII: m < rc, as semver orders them
  // A letter alone stays a firmware letter; words that are no pre-release after a dot do not parse.
  assert.deepEqual(parseVersion('1.2m'), { core: [1, 2], qualifier: { kind: 'letter', n: 13 } });
  for (const s of ['1.0.0.Final', '2.0.RELEASE', '1.0.x', '1.0.']) assert.equal(parseVersion(s), null, s);
});

test('branch patterns: "6.1.*" is the whole 6.1 branch (CVE 5 schema); other star spellings stay unordered', () => {
  assert.deepEqual(['6.1.*', 'V6.1.*', '11.*', '2.426.*', '1.2.3.4.5.6.7.*'].map(branchPrefix), [
    [6, 1],
    [6, 1],
    [11],
    [2, 426],
    [1, 2, 3, 4, 5, 6, 7],
  ]);
  // Not branch patterns: the bare "*" (unbounded, read at import), Juniper's "21.1*", dashes, words, 8 parts before it.
  assert.deepEqual(
    ['*', '21.1*', '10-00-*', 'TSXETY5103 *', '6.1', '6.1.x', '1.2.3.4.5.6.7.8.*', '.*'].map(branchPrefix),
    [null, null, null, null, null, null, null, null],
  );
  const c = (v: string, p: number[]) => compareBranch(v, p);
  assert.deepEqual(
    [
      c('6.0.99', [6, 1]),
      c('6.1', [6, 1]),
      c('6.1.0', [6, 1]),
      c('6.1.120', [6, 1]),
      c('6.1.1-rc1', [6, 1]),
      c('6.2', [6, 1]),
      c('6', [6, 1]),
      c('7', [6, 1]),
      c('main', [6, 1]),
    ],
    [-1, 0, 0, 0, 0, 1, -1, 1, 'needs_review'],
  );
  assert.deepEqual([c('10.9', [11]), c('11.0.3', [11]), c('12', [11])], [-1, 0, 1]);
});

test('inRange and sameVersion with branch patterns: inclusive or exclusive, the branch is inside; one past it is out', () => {
  const b = (version: string, inclusive: boolean) => ({ version, inclusive });
  // Linux kernel: "6.1.64" to "6.1.*" (lessThanOrEqual); Jenkins: "2.426.3" to "2.426.*" (lessThan): the same.
  for (const inclusive of [true, false]) {
    const r = (v: string) => inRange(v, b('6.1.64', true), b('6.1.*', inclusive));
    assert.deepEqual(
      ['6.1.63', '6.1.64', '6.1.65', '6.1.999', '6.2', '6.2.0', '6.10.1', '5.15.160'].map(r),
      ['out', 'in', 'in', 'in', 'out', 'out', 'out', 'out'],
      String(inclusive),
    );
  }
  // A start pattern begins with its branch ("8.2.*" to "8.2.20"), an exclusive start too.
  for (const inclusive of [true, false]) {
    assert.deepEqual(
      ['8.1.99', '8.2', '8.2.0', '8.2.20', '8.2.21', '8.3'].map((v) =>
        inRange(v, b('8.2.*', inclusive), b('8.2.20', true)),
      ),
      ['out', 'in', 'in', 'in', 'out', 'out'],
    );
  }
  assert.equal(inRange('release-6', b('6.1.64', true), b('6.1.*', true)), 'needs_review');
  // An exact version stated as a branch: every version of it.
  assert.deepEqual(
    ['12.1.9', '12.2', '12.2.7', '12.3', 'x'].map((v) => sameVersion(v, '12.2.*')),
    ['out', 'in', 'in', 'out', 'needs_review'],
  );
  assert.deepEqual(
    [sameVersion('2.0', '2.0.0'), sameVersion('2.0.1', '2.0'), sameVersion('2.1', 'r2.1'), sameVersion('abc', 'ABC')],
    ['in', 'out', 'needs_review', 'in'],
  );
});

test('property: a version is within a branch exactly when its first components are the prefix (zero-padded)', () => {
  const part = fc.integer({ min: 0, max: 30 });
  fc.assert(
    fc.property(
      fc.array(part, { minLength: 1, maxLength: 5 }),
      fc.array(part, { minLength: 1, maxLength: 5 }),
      (prefix, v) => {
        const got = compareBranch(v.join('.'), prefix);
        const head = prefix.map((_, i) => v[i] ?? 0);
        const want = compareVersions(head.join('.'), prefix.join('.'));
        assert.equal(got, want);
        // And inRange with the branch as an end agrees: inside or before the branch is in.
        assert.equal(
          inRange(v.join('.'), null, { version: `${prefix.join('.')}.*`, inclusive: false }),
          want === 1 ? 'out' : 'in',
        );
      },
    ),
  );
});

test("a release train's letters in front (R510.2, SV2.70, QCA6390): ordered against the same letters only; hashes never", () => {
  // Honeywell Experion / Yokogawa style releases; "SV" firmware; Qualcomm chip names stated as versions.
  assert.deepEqual(
    [
      compareVersions('R510.2', 'R511.1'),
      compareVersions('R511.5', 'r511.5'),
      compareVersions('R520', 'R511.5'),
      compareVersions('R510.2', 'R510.2 SP1'),
    ],
    [-1, 0, 1, -1],
  );
  assert.deepEqual(
    [compareVersions('SV2.70', 'SV2.80'), compareVersions('SV-2.70', 'sv2.70'), compareVersions('SV-3', 'SV2.80')],
    [-1, 0, 1],
  );
  assert.deepEqual(
    [compareVersions('QCA6390', 'QCA6391'), compareVersions('QCA6390', 'WCN3990')],
    [-1, 'needs_review'],
  );
  // Different letters, letters on one side only, more than four letters, or a rest that does not parse: unordered.
  for (const [a, b] of [
    ['R510.2', '510.3'],
    ['R510.2', 'S510.3'],
    ['ABCDE1.0', 'ABCDE2.0'],
    ['R510.x', 'R511'],
    ['R', 'R1'],
    ['to 2.0', 'to 3.0'],
  ]) {
    assert.equal(compareVersions(a, b), 'needs_review', `${a} ${b}`);
  }
  // Commit hashes (7 to 40 hex digits) are never read so, whatever letters they start with.
  assert.equal(compareVersions('ec298b958cb0', 'ec3000000001'), 'needs_review');
  assert.equal(compareVersions('abc1234', 'abc1235'), 'needs_review');
  assert.equal(
    inRange('R510.4', { version: 'R510.2', inclusive: true }, { version: 'R511.1', inclusive: false }),
    'in',
  );
  assert.equal(
    inRange('R511.1', { version: 'R510.2', inclusive: true }, { version: 'R511.1', inclusive: false }),
    'out',
  );
});

test('OpenSSL letters go on after z: 1.1.1w < 1.1.1z < 1.1.1za < 1.1.1zb < 1.1.2', () => {
  const order = ['1.1.1', '1.1.1a', '1.1.1w', '1.1.1z', '1.1.1za', '1.1.1zb', '1.1.1zz', '1.1.2'];
  for (let i = 0; i + 1 < order.length; i++)
    assert.equal(compareVersions(order[i], order[i + 1]), -1, `${order[i]} < ${order[i + 1]}`);
  assert.deepEqual(parseVersion('1.1.1za'), { core: [1, 1, 1], qualifier: { kind: 'letter', n: 27 } });
  assert.equal(parseVersion('1.1.1az'), null);
  assert.equal(
    inRange('1.1.1za', { version: '1.1.1', inclusive: true }, { version: '1.1.1zb', inclusive: false }),
    'in',
  );
});

test('Cisco releases: ordered within one train (15.2(7)E < 15.2(7)E3 < 15.2(8)E; NX-OS 9.3(7) < 9.3(7a)), never across trains', () => {
  const order = ['15.2(6)E', '15.2(7)E', '15.2(7)E1', '15.2(7)E3', '15.2(7)E10', '15.2(8)E', '15.3(1)E', '16.1(1)E'];
  for (let i = 0; i + 1 < order.length; i++)
    assert.equal(compareVersions(order[i], order[i + 1]), -1, `${order[i]} < ${order[i + 1]}`);
  const nxos = ['9.3(7)', '9.3(7a)', '9.3(8)', '9.3(10)', '10.2(1)', '10.2(1q)', '10.2(2)'];
  for (let i = 0; i + 1 < nxos.length; i++)
    assert.equal(compareVersions(nxos[i], nxos[i + 1]), -1, `${nxos[i]} < ${nxos[i + 1]}`);
  assert.deepEqual(
    [
      compareVersions('15.2(7)e3', '15.2(7)E3'),
      compareVersions('12.2(58)SE', '12.2(58)SE0'),
      compareVersions('15.0(2)SE11a', '15.0(2)SE11'),
    ],
    [0, 0, 1],
  );
  // Two trains (E against M, SE against SY), or a Cisco spelling against a plain version: unordered.
  for (const [a, b] of [
    ['15.2(7)E', '15.2(7)M'],
    ['12.2(58)SE', '12.2(58)SY'],
    ['15.2(7)E', '15.2.7'],
    ['9.3(7)', '9.3.7'],
    ['15.2(7)E', '15.2(7)'],
  ]) {
    assert.equal(compareVersions(a, b), 'needs_review', `${a} ${b}`);
  }
  assert.equal(
    inRange('15.2(7)E3', { version: '15.2(7)E', inclusive: true }, { version: '15.2(8)E', inclusive: false }),
    'in',
  );
  assert.equal(
    inRange('15.2(8)E', { version: '15.2(7)E', inclusive: true }, { version: '15.2(8)E', inclusive: false }),
    'out',
  );
});

test('CPE escapes in a version are undone before it is read ("15.2\\(8\\)e2" is 15.2(8)E2)', () => {
  assert.equal(normaliseVersion('15.2\\(8\\)e2'), '15.2(8)e2');
  assert.equal(compareVersions('15.2\\(8\\)e2', '15.2(8)E2'), 0);
  assert.equal(compareVersions('9.2\\(3\\)', '9.3(1)'), -1);
  assert.equal(compareVersions('1\\.2', '1.2'), 0);
});

test('hotfixes: "V12.01 HF4", "R510.2_HF14", "15.1 HF001" are a qualifier like a service pack; SP with HF stays unordered', () => {
  assert.deepEqual(parseVersion('V12.01 HF4'), { core: [12, 1], qualifier: { kind: 'hotfix', n: 4 } });
  assert.deepEqual(parseVersion('15.1 HF001'), { core: [15, 1], qualifier: { kind: 'hotfix', n: 1 } });
  assert.deepEqual(parseVersion('2.0 Hotfix 1'), { core: [2], qualifier: { kind: 'hotfix', n: 1 } });
  const order = ['12.01', '12.01 HF1', 'V12.01 HF4', '12.01_HF10', '12.02'];
  for (let i = 0; i + 1 < order.length; i++)
    assert.equal(compareVersions(order[i], order[i + 1]), -1, `${order[i]} < ${order[i + 1]}`);
  // Honeywell's releases: the train letters, then the hotfix.
  assert.deepEqual(
    [
      compareVersions('R510.2', 'R510.2_HF14'),
      compareVersions('R510.2_HF13', 'R510.2_HF14'),
      compareVersions('R510.2_HF14', 'R511.1'),
    ],
    [-1, -1, -1],
  );
  // A hotfix against a service pack or update of the same core, and two qualifiers at once: unordered.
  assert.deepEqual(
    [
      compareVersions('4.7 HF1', '4.7 SP1'),
      compareVersions('4.7 HF1', '4.7 Update 1'),
      compareVersions('V4.7 SP6 HF1', 'V4.7 SP6'),
    ],
    ['needs_review', 'needs_review', 'needs_review'],
  );
  assert.equal(parseVersion('V4.7 SP6 HF1'), null);
});
