// collapseUnionErrors (src/http/union-errors.ts): a value that matches no branch of a union is one error on its
// field, not one per branch plus the anyOf. Ajv compiled as the app compiles bodies (allErrors off).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Ajv from 'ajv';
import { Type, type TSchema } from 'typebox';
import { collapseUnionErrors, type AjvErr } from '../../src/http/union-errors.ts';
import { StringEnum } from '../../src/http/schemas/common.ts';

const ajv = new Ajv.default({ allErrors: false, strict: false });

/** [instancePath, keyword, message] of the collapsed errors of `value` against `schema`. */
function errorsOf(schema: TSchema, value: unknown): [string, string, string][] {
  const v = ajv.compile(schema);
  assert.equal(v(value), false, 'the value is refused');
  return collapseUnionErrors(v.errors as AjvErr[]).map((e) => [
    e.instancePath ?? '',
    e.keyword ?? '',
    e.text ?? e.message ?? '',
  ]);
}

const Body = Type.Object(
  {
    description: Type.Optional(Type.Union([Type.String({ maxLength: 5 }), Type.Null()])),
    min_bcs: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 10 }), Type.Null()])),
    min_severity: Type.Optional(Type.Union([StringEnum(['LOW', 'HIGH'] as const), Type.Null()])),
    scope: Type.Optional(Type.Union([Type.Literal('read'), Type.Literal('write')])),
    label: Type.Optional(Type.Union([Type.String({ minLength: 1, pattern: '\\S' }), Type.Null()])),
    pref: Type.Optional(Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()])),
    nested: Type.Optional(
      Type.Union([
        Type.Object({ at: Type.Union([Type.Integer(), Type.Null()]) }, { additionalProperties: false }),
        Type.Null(),
      ]),
    ),
  },
  { additionalProperties: false },
);

test("a value of no branch's type: one error saying what is accepted", () => {
  assert.deepEqual(errorsOf(Body, { description: 5 }), [['/description', 'type', 'must be a string or null']]);
  assert.deepEqual(errorsOf(Body, { min_bcs: 'x' }), [['/min_bcs', 'type', 'must be a number or null']]);
  assert.deepEqual(errorsOf(Body, { pref: [] }), [['/pref', 'type', 'must be a string, a number, a boolean or null']]);
});

test('a value outside the allowed values: the values listed, with null when null is accepted', () => {
  assert.deepEqual(errorsOf(Body, { min_severity: 'high' }), [
    ['/min_severity', 'enum', 'must be one of: LOW, HIGH, or null'],
  ]);
  assert.deepEqual(errorsOf(Body, { min_severity: 3 }), [
    ['/min_severity', 'enum', 'must be one of: LOW, HIGH, or null'],
  ]);
  assert.deepEqual(errorsOf(Body, { scope: 'admin' }), [['/scope', 'enum', 'must be one of: read, write']]);
});

test("a value of a branch's type breaking one of its rules: that rule's error alone", () => {
  assert.deepEqual(errorsOf(Body, { min_bcs: 11 }), [['/min_bcs', 'maximum', 'must be <= 10']]);
  assert.deepEqual(errorsOf(Body, { description: 'too long' }), [
    ['/description', 'maxLength', 'must NOT have more than 5 characters'],
  ]);
  assert.deepEqual(errorsOf(Body, { label: '  ' }), [['/label', 'pattern', 'must match pattern "\\S"']]);
  assert.deepEqual(errorsOf(Body, { nested: { at: 1, extra: 1 } }), [
    ['/nested', 'additionalProperties', 'must NOT have additional properties'],
  ]);
});

test('a union inside a union: one error, on the inner field', () => {
  assert.deepEqual(errorsOf(Body, { nested: { at: 'x' } }), [['/nested/at', 'type', 'must be an integer or null']]);
});

test('errors outside unions are left as they are', () => {
  assert.deepEqual(errorsOf(Body, { other: 1 }), [['', 'additionalProperties', 'must NOT have additional properties']]);
  assert.deepEqual(collapseUnionErrors([]), []);
});
