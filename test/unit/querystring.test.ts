// The query-string parser of every route (src/http/querystring.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseQueryString, UNDECODABLE } from '../../src/http/querystring.ts';

test('pairs, + as a space, percent-decoding, a repeated name as an array in order, no prototype', () => {
  const q = parseQueryString('a=1&b=x+y&c=%C3%A9&a=2&d&a=3&&e=');
  assert.deepEqual({ ...q }, { a: ['1', '2', '3'], b: 'x y', c: 'é', d: '', e: '' });
  assert.equal(Object.getPrototypeOf(q), null);
  assert.deepEqual(parseQueryString(''), Object.create(null));
});

test('a repeated name grows one array: 20,000 repeats are read in order (the copy per repeat was quadratic)', () => {
  const q = parseQueryString(Array.from({ length: 20_000 }, (_, i) => `a=${i}`).join('&'));
  const a = q.a as string[];
  assert.equal(a.length, 20_000);
  assert.deepEqual([a[0], a[9_999], a[19_999]], ['0', '9999', '19999']);
});

test('undecodable names and values are kept raw and listed once each', () => {
  const q = parseQueryString('q=%FF&q=%zz&%E0=1&ok=%41');
  assert.deepEqual({ ...q }, { q: ['%FF', '%zz'], '%E0': '1', ok: 'A' });
  assert.deepEqual(q[UNDECODABLE], ['q', '%E0']);
});
