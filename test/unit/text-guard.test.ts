// The edge check for hostile text (src/http/text-guard.ts): which JSON texts need their parsed body walked, and the
// field paths a walk names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findHostileText, noHostileEscape } from '../../src/http/text-guard.ts';

test('noHostileEscape: only the escapes of U+0000 and of a surrogate make a JSON text need the walk', () => {
  for (const s of [
    '{"a":"\\u0000"}',
    '{"a":"x\\uD800"}',
    '{"a":"\\udfff"}',
    '{"a":"\\uDc00"}',
    '{"a":"😀 as \\ud83d\\ude00"}',
    '{"a":"\\\\u0000"}',
  ]) {
    assert.equal(noHostileEscape(s), false, s);
  }
  for (const s of [
    '{"a":"plain"}',
    '{"a":"\\u0001 \\u00e9 \\uD7FF \\uE000 \\u000a"}',
    '{"a":"u0000 uD800"}',
    '[1,2,null]',
    '"😀"',
  ]) {
    assert.equal(noHostileEscape(s), true, s);
  }
  // Whatever the text says, a body that cannot hold hostile text has none after parsing.
  for (const s of ['{"a":"\\u0001 \\u00e9 \\uD7FF \\uE000"}', '"😀"'])
    assert.deepEqual(findHostileText(JSON.parse(s), 'body'), []);
});

test('findHostileText: the dotted path of each bad string, and of the parent of a bad field name; any depth', () => {
  const body = { hosts: [{ id: 'ok' }, { id: 'a\u0000b', tags: ['x', '\uD800'] }], ['k\u0000']: 1 };
  assert.deepEqual(
    findHostileText(body, 'body').map((p) => [p.field, p.type]),
    [
      // A bad field name is found when its object is visited, before the values under it.
      ['body', 'value_error.str.nul'],
      ['body.hosts.1.id', 'value_error.str.nul'],
      ['body.hosts.1.tags.1', 'value_error.str.surrogate'],
    ],
  );
  assert.deepEqual(
    findHostileText({ q: 'a\u0000' }, '').map((p) => p.field),
    ['q'],
  );
  const deep = JSON.parse(`${'['.repeat(100_000)}"\\u0000"${']'.repeat(100_000)}`);
  const [p] = findHostileText(deep, 'body');
  assert.equal(p.field, `body${'.0'.repeat(100_000)}`);
});
