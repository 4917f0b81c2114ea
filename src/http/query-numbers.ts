// Numbers written in a query string or a path parameter. Ajv's type coercion turns every string that JavaScript's
// loose `==` equates with a number into that number: " " and "\t" became 0, "0x5" 5, "0b11" 3, so
// `GET /api/v1/cves?cvss_max=%20` answered 200 with only the CVSS-0 CVEs instead of 422. Only decimal text (sign,
// fraction and exponent allowed) is read as a number here; anything else gets the field's type error.

/** A number as a query string may write it: `7`, `-1`, `+2`, `7.5`, `.5`, `1e3`. */
export const NUMERIC_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

interface PropertySchema {
  type?: unknown;
  items?: { type?: unknown };
}

/** The properties a schema types as numbers (or arrays of numbers): the only ones coercion can read loosely. */
export function numericKeys(schema: unknown): string[] {
  const props = (schema as { properties?: Record<string, PropertySchema> } | null)?.properties ?? {};
  const numeric = (t: unknown) => t === 'number' || t === 'integer';
  return Object.keys(props).filter((k) => numeric(props[k]?.type) || numeric(props[k]?.items?.type));
}

/**
 * The string values (and arrays of strings) of `keys` in a flat input object, copied before Ajv coerces it in place;
 * null when there is none (a schema without numeric properties copies nothing).
 */
export function rawStrings(data: unknown, keys: readonly string[]): Map<string, string | string[]> | null {
  if (keys.length === 0 || data === null || typeof data !== 'object' || Array.isArray(data)) return null;
  let out: Map<string, string | string[]> | null = null;
  for (const k of keys) {
    const v = (data as Record<string, unknown>)[k];
    if (typeof v === 'string') (out ??= new Map()).set(k, v);
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) (out ??= new Map()).set(k, [...v] as string[]);
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
  if (!raw || coerced === null || typeof coerced !== 'object') return [];
  const props = (schema as { properties?: Record<string, PropertySchema> } | null)?.properties ?? {};
  const out: { key: string; type: string }[] = [];
  for (const [key, text] of raw) {
    const value = (coerced as Record<string, unknown>)[key];
    const texts = Array.isArray(text) ? text : [text];
    const values = Array.isArray(value) ? value : [value];
    if (!values.some((v, i) => typeof v === 'number' && !NUMERIC_TEXT.test(texts[i] ?? ''))) continue;
    const p = props[key];
    const declared = Array.isArray(value) ? p?.items?.type : p?.type;
    out.push({ key, type: declared === 'integer' ? 'integer' : 'number' });
  }
  return out;
}
