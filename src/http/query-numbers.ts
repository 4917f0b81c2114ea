// Numbers written in a query string or a path parameter. Ajv's type coercion turns every string that JavaScript's
// loose `==` equates with a number into that number: " " and "\t" became 0, "0x5" 5, "0b11" 3, so
// `GET /api/v1/cves?cvss_max=%20` answered 200 with only the CVSS-0 CVEs instead of 422. Only decimal text (sign,
// fraction and exponent allowed) is read as a number here; anything else gets the field's type error.
import { isRecord } from '../domain/is-record.ts';

/** A number as a query string may write it: `7`, `-1`, `+2`, `7.5`, `.5`, `1e3`. */
export const NUMERIC_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** The property schemas of an object schema ({} when it has none). */
const properties = (schema: unknown) => (isRecord(schema) && isRecord(schema.properties) ? schema.properties : {});
/** The `type` of a schema, or of its items when `items` (an array's). */
const typeOf = (schema: unknown, items = false): unknown => {
  const s = items && isRecord(schema) ? schema.items : schema;
  return isRecord(s) ? s.type : undefined;
};

/** The properties a schema types as numbers (or arrays of numbers): the only ones coercion can read loosely. */
export function numericKeys(schema: unknown): string[] {
  const props = properties(schema);
  const numeric = (t: unknown) => t === 'number' || t === 'integer';
  return Object.keys(props).filter((k) => numeric(typeOf(props[k])) || numeric(typeOf(props[k], true)));
}

/**
 * The string values (and arrays of strings) of `keys` in a flat input object, copied before Ajv coerces it in place;
 * null when there is none (a schema without numeric properties copies nothing).
 */
export function rawStrings(data: unknown, keys: readonly string[]): Map<string, string | string[]> | null {
  if (keys.length === 0 || !isRecord(data)) return null;
  let out: Map<string, string | string[]> | null = null;
  for (const k of keys) {
    const v = data[k];
    if (typeof v === 'string') (out ??= new Map()).set(k, v);
    else if (Array.isArray(v)) {
      const strings = v.filter((x) => typeof x === 'string');
      if (strings.length === v.length) (out ??= new Map()).set(k, strings);
    }
  }
  return out;
}

/**
 * Fields that coercion turned into a number (or an array of numbers) from text that is not decimal, with the type
 * the schema asks for (`integer` or `number`, for the error).
 */
export function looseNumbers(
  raw: Map<string, string | string[]> | null,
  coerced: unknown,
  schema: unknown,
): { key: string; type: string }[] {
  if (!raw || !isRecord(coerced)) return [];
  const props = properties(schema);
  const out: { key: string; type: string }[] = [];
  for (const [key, text] of raw) {
    const value = coerced[key];
    const texts = Array.isArray(text) ? text : [text];
    const values = Array.isArray(value) ? value : [value];
    if (!values.some((v, i) => typeof v === 'number' && !NUMERIC_TEXT.test(texts[i] ?? ''))) continue;
    const declared = typeOf(props[key], Array.isArray(value));
    out.push({ key, type: declared === 'integer' ? 'integer' : 'number' });
  }
  return out;
}
