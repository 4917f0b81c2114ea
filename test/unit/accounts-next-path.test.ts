// safeNextPath (src/domain/accounts.ts): the page a sign-in lands on is a path of this service, or nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { NEXT_PATH_MAX, safeNextPath } from '../../src/domain/accounts.ts';

test('local paths are kept, with their query', () => {
  assert.equal(safeNextPath('/account'), '/account');
  assert.equal(safeNextPath('/account/notifications?saved=1'), '/account/notifications?saved=1');
  assert.equal(safeNextPath('/training/ics-ot-fundamentals'), '/training/ics-ot-fundamentals');
  assert.equal(safeNextPath('/a/../account'), '/account', 'dot segments resolve inside the site');
  assert.equal(safeNextPath('/./account/'), '/account/', 'a single dot segment too');
  assert.equal(safeNextPath('/cves?q=a%20b%2Fc'), '/cves?q=a%20b%2Fc', "an encoded query is the page's own business");
  assert.equal(safeNextPath('/caf%C3%A9'), '/caf%C3%A9', 'encoded letters are kept');
});

test('anything that could leave the site is refused', () => {
  for (const bad of [
    '//evil.example',
    '//evil.example/account',
    '/\\evil.example',
    '/\\/evil.example',
    'https://evil.example/',
    'http:/evil.example',
    'javascript:alert(1)',
    'account',
    '',
    ' /account',
    '/account\n',
    '/acc\tount',
    '/\u0000',
    '/account\u007f',
    '\\\\evil.example',
    '/ /evil.example',
    // Encoded variants: slash, backslash, control characters, double encoding (either case).
    '/%2F%2Fevil.example',
    '/%2f%2fevil.example',
    '/%5Cevil.example',
    '/%5c%5cevil.example',
    '/%2F/evil.example',
    '/%252F%252Fevil.example',
    '/%0d%0aLocation:%20https://evil.example/',
    '/account%00',
    '/account%7F',
    // Dot segments that resolve to //host (found by the property below: ".//" under a leading slash).
    '/.//',
    '/.//evil.example',
    '/.//evil.example/account',
    '/a/..//evil.example',
    '/././/evil.example',
    '/%2e//evil.example',
  ])
    assert.equal(safeNextPath(bad), null, JSON.stringify(bad));
  assert.equal(safeNextPath(undefined), null);
  assert.equal(safeNextPath(42), null);
});

test('length boundary: NEXT_PATH_MAX characters kept, one more refused', () => {
  const at = `/${'a'.repeat(NEXT_PATH_MAX - 1)}`;
  assert.equal(safeNextPath(at), at);
  assert.equal(safeNextPath(`${at}a`), null);
});

test('property: whatever comes back is a path on the same origin', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 80 }), (s) => {
      for (const raw of [s, `/${s}`, `//${s}`]) {
        const p = safeNextPath(raw);
        if (p === null) continue;
        assert.ok(p.startsWith('/') && !p.startsWith('//'), p);
        assert.equal(new URL(p, 'https://vulnintel.example').origin, 'https://vulnintel.example');
      }
    }),
    { numRuns: 2000 },
  );
});
