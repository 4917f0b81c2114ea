import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compareVersions, inRange, parseVersion, type Comparison } from '../../src/domain/versions.ts';

const cases: [string, string, Comparison][] = [
  // leading V and case
  ['V2.9.2', '2.9.2', 0],
  ['v2.9.2', 'V2.9.2', 0],
  ['Version 4.1', '4.1', 0],
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
  fc.assert(fc.property(version, version, (a, b) => {
    assert.equal(compareVersions(a, a), 0);
    const ab = compareVersions(a, b);
    const ba = compareVersions(b, a);
    if (ab === 'needs_review') assert.equal(ba, 'needs_review');
    else assert.equal(ba, -ab || 0);
  }), { numRuns: 2000 });
});

test('property: transitive wherever the three pairs are ordered', () => {
  fc.assert(fc.property(version, version, version, (a, b, c) => {
    const ab = compareVersions(a, b);
    const bc = compareVersions(b, c);
    const ac = compareVersions(a, c);
    if (ab === 'needs_review' || bc === 'needs_review' || ac === 'needs_review') return;
    if (ab <= 0 && bc <= 0) assert.ok(ac <= 0, `${a} <= ${b} <= ${c} but ${ac}`);
    if (ab >= 0 && bc >= 0) assert.ok(ac >= 0, `${a} >= ${b} >= ${c} but ${ac}`);
  }), { numRuns: 3000 });
});

test('property: plain numeric versions order as integer tuples (zero-padded), V prefix and case never matter', () => {
  fc.assert(fc.property(core, core, (x, y) => {
    const n = Math.max(x.length, y.length);
    let want = 0;
    for (let i = 0; i < n && want === 0; i++) want = Math.sign((x[i] ?? 0) - (y[i] ?? 0));
    assert.equal(compareVersions(x.join('.'), y.join('.')), want);
    assert.equal(compareVersions(`V${x.join('.')}`, `v${y.join('.')}`), want);
  }), { numRuns: 2000 });
});

test('property: a qualifier never moves a version past the next core', () => {
  fc.assert(fc.property(core, qualifier, (c, q) => {
    const next = [...c.slice(0, -1), c[c.length - 1] + 1].join('.');
    assert.equal(compareVersions(`${c.join('.')}${q}`, next), -1);
  }), { numRuns: 1000 });
});
