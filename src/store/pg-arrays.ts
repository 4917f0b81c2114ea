// Array parameters in PostgreSQL's binary format (the layout array_recv reads), for the import's bulk statements.
// node-postgres sends a Buffer parameter in binary format, so each element reaches its type's receive function as
// it is: no array-literal quoting or JSON payload built in Node, and no payload parsed and taken apart again in the
// database (a jsonb element is parsed once, straight into the column). Used as `unnest(${textArray(xs)}::text[])`;
// the cast names the type, whose element OID must match the one written here (array_recv refuses any other).
// Layout: ndim, has-null flag, element OID, then per dimension its length and lower bound, then per element its
// byte length (-1 for NULL) and bytes; all integers 32-bit big-endian.

const TEXT_OID = 25;
const JSON_OID = 114;
const JSONB_OID = 3802;
/** The jsonb binary format: a version byte (1) before the JSON text. */
const JSONB_VERSION = 1;

/** Strings up to this length are measured and, when ASCII, copied in JS: a native call per short element costs more. */
const SHORT = 64;

/** UTF-8 byte length of a short string, as Buffer.byteLength counts it (a lone surrogate is 3 bytes, U+FFFD). */
function shortUtf8Length(v: string): number {
  let n = v.length;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < v.length && (v.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair: 4 bytes for its 2 code units.
      n += 2;
      i++;
    } else n += 2;
  }
  return n;
}

function encode(values: readonly (string | null)[], oid: number, prefix: number | null): Buffer {
  const extra = prefix === null ? 0 : 1;
  let size = values.length ? 20 : 12;
  let hasNull = 0;
  const lengths = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null) {
      hasNull = 1;
      lengths[i] = -1;
      size += 4;
    } else {
      const n = (v.length <= SHORT ? shortUtf8Length(v) : Buffer.byteLength(v, 'utf8')) + extra;
      lengths[i] = n;
      size += 4 + n;
    }
  }
  const buf = Buffer.allocUnsafe(size);
  // An empty array has no dimensions.
  buf.writeInt32BE(values.length ? 1 : 0, 0);
  buf.writeInt32BE(hasNull, 4);
  buf.writeInt32BE(oid, 8);
  let at = 12;
  if (values.length) {
    buf.writeInt32BE(values.length, 12);
    buf.writeInt32BE(1, 16);
    at = 20;
  }
  for (let i = 0; i < values.length; i++) {
    const n = lengths[i];
    buf.writeInt32BE(n, at);
    at += 4;
    const v = values[i];
    if (v === null) continue;
    if (prefix !== null) buf[at] = prefix;
    if (v.length === n - extra && v.length <= SHORT) {
      // ASCII (one byte per code unit): copied here.
      for (let k = 0, o = at + extra; k < v.length; k++) buf[o + k] = v.charCodeAt(k);
    } else {
      // The byte count was measured above, so the write fills exactly n - extra bytes.
      buf.write(v, at + extra, n - extra, 'utf8');
    }
    at += n;
  }
  return buf;
}

/** A `text[]` parameter (elements may be null). */
export function textArray(values: readonly (string | null)[]): Buffer {
  return encode(values, TEXT_OID, null);
}

/** A `jsonb[]` parameter from JSON texts (each is parsed once, by the database; a null is a NULL element). */
export function jsonbArray(texts: readonly (string | null)[]): Buffer {
  return encode(texts, JSONB_OID, JSONB_VERSION);
}

/** A `json[]` parameter from JSON texts (each is checked by the database and stored as it is). */
export function jsonArray(texts: readonly string[]): Buffer {
  return encode(texts, JSON_OID, null);
}

const NEEDS_ESCAPE = /["\\]/;

/**
 * A PostgreSQL array literal of strings (`{"a","b\"c"}`), for a `text[]` column sent as one element of a
 * text array and cast per row: every element quoted, backslashes and quotes escaped.
 */
export function textArrayLiteral(values: readonly string[]): string {
  if (!values.length) return '{}';
  // One join: a CVE's product ids can number hundreds of thousands (store/cves.ts), and most need no escaping.
  const quoted = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    quoted[i] = NEEDS_ESCAPE.test(v) ? v.replace(/["\\]/g, '\\$&') : v;
  }
  return `{"${quoted.join('","')}"}`;
}
