// Hostile bytes at the edge. PostgreSQL text cannot hold U+0000, and a lone UTF-16 surrogate
// (legal as a `\uD800` escape in JSON, but no Unicode character) fails text and jsonb encoding: both would reach
// the database and come back as a 500. Every route refuses them before its handler runs, in the query, the path
// parameters and the parsed body, object keys included: 422 VALIDATION_ERROR naming the field, never echoing it.
// One exception: the record arrays of the batch routes (route config `recordArrays`: the Windows hosts and the
// installed software of v2 and check-windows, the assets of v1 correlation) are validated record by record by the
// route (domain/windows/validate.ts and domain/assets.ts refuse NUL, control characters and lone surrogates in any
// field, and name a bad field name with U+FFFD), so such text refuses that record only, as every other per-record
// error does (spec §4.2: "a refused host does not stop others"); the rest of those bodies is checked here.
import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.ts';
import { LONE_SURROGATE } from '../domain/text.ts';
import { UNDECODABLE } from './querystring.ts';
import { isRecord } from '../domain/is-record.ts';
import { routeConfig } from './route-config.ts';
import { asError } from '../lib/errors.ts';

export interface TextProblem {
  field: string;
  message: string;
  type: string;
}

// eslint-disable-next-line no-control-regex -- U+0000 is exactly what this check looks for
const SUSPECT = /[\u0000\uD800-\uDFFF]/;
/** Enough to name what is wrong; a body with thousands of bad strings gets the first ones. */
const MAX_PROBLEMS = 20;

function problemOf(s: string): Omit<TextProblem, 'field'> | null {
  if (!SUSPECT.test(s)) return null;
  if (s.includes('\u0000'))
    return { message: 'must not contain the NUL character (U+0000)', type: 'value_error.str.nul' };
  if (LONE_SURROGATE.test(s))
    return {
      message: 'must not contain a lone UTF-16 surrogate (not Unicode text)',
      type: 'value_error.str.surrogate',
    };
  return null;
}

/** Where a value sits: its key under its parent's place (the path string is made only for a problem). */
interface Place {
  parent: Place | null;
  key: string;
}

function pathOf(base: string, p: Place | null): string {
  const keys: string[] = [];
  for (let x = p; x !== null; x = x.parent) keys.push(x.key);
  keys.reverse();
  return base ? [base, ...keys].join('.') : keys.join('.');
}

/**
 * Strings in `value` (walked without recursion, so any nesting depth is safe) that hold U+0000 or a lone
 * surrogate, as `{field, message, type}` with dotted paths under `base` (`body.windows_hosts.0.asset_id`; `base` '' for none). A bad
 * object key is reported on its parent, since the key itself cannot be named. A value's path is kept as a link to
 * its parent's and written out only for a problem: built per element, the paths of a deeply nested 8 MiB body cost
 * seconds (quadratic in the depth).
 */
export function findHostileText(value: unknown, base: string): TextProblem[] {
  const out: TextProblem[] = [];
  const stack: [unknown, Place | null][] = [[value, null]];
  while (stack.length > 0 && out.length < MAX_PROBLEMS) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      const p = problemOf(v);
      if (p) out.push({ field: pathOf(base, at), ...p });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const x: unknown = v[i];
        // Numbers, booleans and null hold no text: not pushed.
        if (typeof x === 'string' || (x !== null && typeof x === 'object'))
          stack.push([x, { parent: at, key: String(i) }]);
      }
    } else if (isRecord(v) && !Buffer.isBuffer(v)) {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i];
        const kp = problemOf(k);
        if (kp) out.push({ field: pathOf(base, at), message: `a field name ${kp.message}`, type: kp.type });
        else {
          const x = v[k];
          if (typeof x === 'string' || (x !== null && typeof x === 'object')) stack.push([x, { parent: at, key: k }]);
        }
      }
    }
  }
  return out;
}

/** Throws 422 VALIDATION_ERROR when `value` holds hostile text; returns it unchanged otherwise. */
export function refuseHostileText<T>(value: T, base: string): T {
  const fields = findHostileText(value, base);
  if (fields.length > 0) {
    throw new ApiError('VALIDATION_ERROR', { message: 'Text must be valid Unicode without NUL characters', fields });
  }
  return value;
}

// In JSON text, U+0000 and a lone surrogate can only come as escapes (a raw control character is not JSON, and
// undecodable UTF-8 becomes U+FFFD): `\u0000` or `\uD800`–`\uDFFF`. Text without such an escape (an escaped
// backslash before it aside, which only makes the check look further) cannot hold either.
const HOSTILE_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;

/** True when JSON text cannot decode to a string holding U+0000 or a surrogate: its parsed body need not be walked. */
export function noHostileEscape(json: string): boolean {
  return !HOSTILE_ESCAPE.test(json);
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the JSON parser: the body's text holds no escape of U+0000 or a surrogate (noHostileEscape). */
    jsonTextClean: boolean;
  }
  interface FastifyContextConfig {
    /**
     * The top-level body fields holding arrays of records that the route validates record by record, hostile text
     * included: their items are left to the route (a bad string refuses that record only).
     */
    recordArrays?: readonly string[];
  }
}

/** The body without the items of its record arrays (`keys`), where they are arrays: the rest is checked at the edge. */
export function withoutRecords(body: unknown, keys: readonly string[] | undefined): unknown {
  if (keys === undefined || !isRecord(body)) return body;
  const b = { ...body };
  for (const k of keys) if (Array.isArray(b[k])) b[k] = [];
  return b;
}

/** For every route: query, path parameters and the parsed body (a multipart route checks its parts itself). */
export function registerTextGuard(app: FastifyInstance): void {
  app.decorateRequest('jsonTextClean', false);
  // Callback-style, with nothing to walk for a request without query, path parameters or body (a ping, most
  // GETs of a collection): no promise, no allocation (docs/benchmarks.md "Per-request overhead").
  app.addHook('preValidation', (req, _reply, done) => {
    if (isEmpty(req.query) && isEmpty(req.params) && (req.body === undefined || req.body === null)) return done();
    try {
      refuseUndecodable(req.query);
      // A JSON body whose text has no escape of U+0000 or a surrogate is not walked (an 8 MiB batch: one regex scan).
      const body = req.jsonTextClean ? undefined : withoutRecords(req.body, routeConfig(req).recordArrays);
      refuseHostileText({ query: req.query, params: req.params, body }, '');
    } catch (e) {
      return done(asError(e));
    }
    done();
  });
}

/** Query parameters whose percent-encoding is not valid UTF-8 (querystring.ts): 422 naming each, never echoed. */
function refuseUndecodable(q: unknown): void {
  const listed = q !== null && typeof q === 'object' && UNDECODABLE in q ? q[UNDECODABLE] : undefined;
  if (!Array.isArray(listed)) return;
  const names = listed.filter((n) => typeof n === 'string');
  throw new ApiError('VALIDATION_ERROR', {
    message: 'Query parameters must be percent-encoded UTF-8 text',
    fields: names
      .slice(0, MAX_PROBLEMS)
      .map((n) => ({
        field: `query.${n}`,
        message: 'must be UTF-8 text, percent-encoded (RFC 3986)',
        type: 'value_error.str.encoding',
      })),
  });
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v !== 'object') return false;
  for (const _ in v) return false;
  return true;
}
