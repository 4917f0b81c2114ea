// The error responses of the OpenAPI document (spec §7). Documentation only: they are added to the document by
// @fastify/swagger's `transformObject` (app.ts), never to a route's `response` schema, which Fastify would use to
// serialize the error bodies (sendError sends them through JSON.stringify, as they are).
//
// Each operation's error statuses are derived from what the route already declares:
//   - its URL and schema: malformed URL (400), unknown query parameter (400, /api/ routes), unreadable body (400),
//     validation (422), body over the limit (413), path parameters looked up (404);
//   - its policy (`config.auth`, src/http/auth.ts): 401 and the 403 guards the auth hook applies to it, tenant ids
//     taken from the body or query (404);
//   - the edge limit (429, when it is on) and the error handler (500, 503 when the route uses the database);
//   - `schema.errors`: what the handler itself raises (a conflict, a plan cap, a per-key rate or batch limit),
//     declared next to the route as keys of the catalogue in errors.ts.
//
// Here: those rows (routeErrors) and the helpers routes declare theirs with; the document's responses:
// openapi-error-document.ts; their envelope schema: openapi-error-envelope.ts.
import { ERRORS, type ErrorKey } from './errors.ts';
import { requirements, type RouteAuth } from './auth.ts';
import { isWrite } from './session-cookies.ts';
import { isPage, type RouteEntry } from './conventions.ts';
import { EDGE_WINDOW_SEC, edgeExempt } from './edge-limit.ts';
import { RATE_PROFILES, type ProfileName } from './limits.ts';
import { isRecord } from '../domain/is-record.ts';

/** An error the handler raises: a catalogue key, optionally with its specific detail.error and when it happens. */
export type RouteError = ErrorKey | { key: ErrorKey; error?: string; when?: string };

declare module 'fastify' {
  interface FastifySchema {
    /**
     * OpenAPI only: errors the handler raises itself, beyond those its policy, URL and schema imply
     * (src/http/openapi-errors.ts). Never read when serving.
     */
    errors?: readonly RouteError[];
    /** OpenAPI only: the route never queries the database (no 503 database_unavailable, no database timeout). */
    noDatabase?: boolean;
  }
}

/** A per-key rate limit of a profile (limits.ts), for a route's `schema.errors`. */
export function perKeyRateLimit(profile: ProfileName): RouteError {
  const p = RATE_PROFILES[profile];
  const units = p.units ? ` and ${p.units.points} assets or hosts per ${p.units.durationSec} seconds` : '';
  return {
    key: 'RATE_LIMITED',
    when: `more than ${p.requests.points} requests per ${p.requests.durationSec} seconds${units} for this API key (one budget shared by the ${profile} routes); wait retry_after_seconds (detail.retry_after, Retry-After)`,
  };
}

/** A batch limit, for a route's `schema.errors`. */
export function batchLimit(
  max: number,
  items: string,
  key: 'BATCH_TOO_LARGE' | 'TRIAL_BATCH_LIMIT' = 'BATCH_TOO_LARGE',
): RouteError {
  return {
    key,
    when: `more than ${max} ${items} in one call (max and detail.max ${max}, detail.received); nothing processed`,
  };
}

export interface ErrorRow {
  key: ErrorKey;
  error: string | null;
  when: string;
}

export interface ErrorDocOptions {
  /** The edge limit's requests per address and minute; 0 = off (no edge 429). */
  edgeLimitPerMinute: number;
}

function row(key: ErrorKey, when?: string, error?: string): ErrorRow {
  const e = ERRORS[key];
  return { key, error: key === 'VALIDATION_ERROR' ? null : (error ?? e.error), when: when ?? e.message };
}

/** 401 and 403 of the auth hook (auth.ts: identify, internalOrSession, enforce, checkOrigin, checkCsrf). */
function credentialRows(method: string, p: RouteAuth): ErrorRow[] {
  if (p.mode === 'none') return [];
  const out: ErrorRow[] = [];
  const keys = p.mode === 'public' || p.mode === 'key' || p.mode === 'key_or_session';
  if (p.mode === 'internal_or_session') {
    out.push(
      row(
        'AUTH_REQUIRED',
        `neither X-Internal-Key nor a signed-in session was sent${p.publicHtml ? ' (Accept: text/html gets the public page instead)' : ''}`,
        'auth_required',
      ),
    );
    out.push(row('AUTH_REQUIRED', 'the X-Internal-Key header is wrong', 'invalid_internal_key'));
  } else if (p.mode !== 'public') {
    out.push(
      row(
        'AUTH_REQUIRED',
        p.mode === 'session' ? 'no signed-in session' : 'no API key or session was sent',
        'auth_required',
      ),
    );
  }
  // A presented API key is checked whatever the mode, on public routes too.
  out.push(
    row(
      'AUTH_REQUIRED',
      'the API key is malformed or unknown, or Authorization is not "Bearer <API key>"',
      'invalid_api_key',
    ),
  );
  out.push(row('AUTH_REQUIRED', 'the API key is revoked', 'api_key_revoked'));
  out.push(row('AUTH_REQUIRED', 'the API key has expired', 'api_key_expired'));
  if (p.mode !== 'public' && p.mode !== 'internal_or_session')
    out.push(row('AUTH_REQUIRED', 'the session has expired or was ended', 'session_expired'));
  out.push(
    row('TRIAL_ENDED', 'a trial key whose trial expired (14 days) or ended (detail.reason, detail.contact_url)'),
  );
  if (p.mode === 'session')
    out.push(row('SESSION_REQUIRED', 'an API key was sent; this operation takes a signed-in browser session'));
  if (p.mode === 'internal_or_session')
    out.push(
      row('SESSION_REQUIRED', 'an API key was sent; this operation takes X-Internal-Key or a signed-in session'),
    );
  if (p.mode === 'key') out.push(row('API_KEY_REQUIRED'));
  if (keys && !p.partner) out.push(row('PARTNER_SCOPE'));
  if (keys && !p.trial) out.push(row('TRIAL_SCOPE', `${ERRORS.TRIAL_SCOPE.message} (detail.contact_url)`));
  const need = requirements(method, p);
  if (keys && need.scope)
    out.push(row('INSUFFICIENT_SCOPE', `the API key lacks the ${need.scope} scope (detail.required_scope)`));
  if (need.role !== 'viewer') out.push(row('VIEWER_ROLE'));
  if (need.role === 'owner') out.push(row('FORBIDDEN', 'this operation needs the owner role (detail.required_role)'));
  if (isWrite(method) && p.mode !== 'key') {
    out.push(
      row('ORIGIN_REFUSED', "a write by browser session without this service's Origin (detail.expected_origin)"),
    );
    out.push(
      row(
        'CSRF_REFUSED',
        "a write by browser session without the session's CSRF token (X-CSRF-Token or the _csrf form field)",
        'csrf_token_missing',
      ),
    );
    out.push(
      row('CSRF_REFUSED', 'a write by browser session with a CSRF token of another session', 'csrf_token_invalid'),
    );
  }
  return out;
}

/** Whether a text names a catalogue entry (Object.keys types the catalogue's keys as mere strings). */
const isErrorKey = (k: string): k is ErrorKey => Object.hasOwn(ERRORS, k);
const catalogueKeys = Object.keys(ERRORS).filter(isErrorKey);
const optionalText = (x: unknown) => x === undefined || typeof x === 'string';
/** A route's declared `schema.errors` item, as the route table hands the schema over (members unchecked). */
const isRouteError = (e: unknown): e is RouteError =>
  typeof e === 'string'
    ? isErrorKey(e)
    : isRecord(e) && typeof e.key === 'string' && isErrorKey(e.key) && optionalText(e.error) && optionalText(e.when);

/** 404 of a tenant id: the catalogue entry whose detail.error is the declared answer, else NOT_FOUND with it. */
function notFoundRow(foreign: string, when: string): ErrorRow {
  const key = catalogueKeys.find((k) => ERRORS[k].status === 404 && ERRORS[k].error === foreign) ?? 'NOT_FOUND';
  return row(key, when, foreign);
}

/** Every error an operation can answer, in the order the request meets them. */
export function routeErrors(r: RouteEntry, opts: ErrorDocOptions): ErrorRow[] {
  const schema = r.schema ?? {};
  const query =
    isRecord(schema.querystring) && isRecord(schema.querystring.properties) ? schema.querystring.properties : {};
  const ownResponses = isRecord(schema.response) ? schema.response : {};
  const policy: RouteAuth = r.policy ?? { mode: 'none', tenant: false };
  const api = r.url.startsWith('/api/');
  const v2 = r.url.startsWith('/api/v2/');
  const body = isWrite(r.method); // Fastify reads no body on GET/HEAD
  const params = /:\w/.test(r.url);
  const out: ErrorRow[] = [];

  out.push(row('BAD_REQUEST', 'the URL is not valid (malformed percent-encoding)', 'invalid_url'));
  if (api)
    out.push(
      row('UNKNOWN_PARAMETER', 'a query parameter this operation does not accept (detail.unknown, detail.accepted)'),
    );
  if (body) {
    if (!v2) out.push(row('BAD_REQUEST', 'the body is not valid JSON', 'invalid_json'));
    out.push(row('BAD_REQUEST', 'a Content-Type this operation does not read', 'unsupported_media_type'));
    out.push(row('BAD_REQUEST', 'Content-Length does not match the body', 'invalid_content_length'));
  }
  // Outside /api/ any query parameter is validated (there is no UNKNOWN_PARAMETER there); text holding U+0000
  // or a lone surrogate is refused in the query, path and body of every route (text-guard.ts).
  const queryValidated = !api || Object.keys(query).length > 0;
  if (body || params || queryValidated) {
    const where = [queryValidated ? 'query' : '', params ? 'path' : '', body ? 'body' : ''].filter(Boolean).join(', ');
    out.push(
      row(
        'VALIDATION_ERROR',
        `invalid input (${where}${body && v2 ? '; on v2 also a body that is not valid JSON' : ''}): detail is [{field, message, type}]`,
      ),
    );
  }
  if (body) out.push(row('BODY_TOO_LARGE', 'the body is larger than this operation accepts (detail.max_bytes)'));

  // Pages answer a missing or refused credential on GET with a redirect to the sign-in page, not a 401.
  const redirectsToLogin = r.method === 'GET' && isPage(r.url);
  out.push(...credentialRows(r.method, policy).filter((x) => !(redirectsToLogin && x.key === 'AUTH_REQUIRED')));

  const tenantIds = policy.tenant ? policy.tenant.ids : [];
  // A route with path parameters looks them up; unless it answers its own 404 (a page), the envelope's.
  if (params && !('404' in ownResponses)) {
    const declared = tenantIds.find((i) => i.in === 'params' && i.foreign !== 'empty');
    out.push(
      notFoundRow(
        declared?.foreign ?? 'not_found',
        declared ? `no such ${declared.name} in your organization` : 'nothing exists under this path parameter',
      ),
    );
  }
  for (const i of tenantIds) {
    if (i.in !== 'params' && i.foreign !== 'empty')
      out.push(notFoundRow(i.foreign, `${i.in}.${i.name} names nothing in your organization`));
  }

  for (const e of Array.isArray(schema.errors) ? schema.errors.filter(isRouteError) : []) {
    const d = typeof e === 'string' ? { key: e } : e;
    if (!(redirectsToLogin && d.key === 'AUTH_REQUIRED')) out.push(row(d.key, d.when, d.error));
  }

  if (opts.edgeLimitPerMinute > 0 && !edgeExempt(r.url)) {
    out.push(
      row(
        'EDGE_RATE_LIMITED',
        `more than ${opts.edgeLimitPerMinute} requests per ${EDGE_WINDOW_SEC} seconds from this address without an API key`,
      ),
    );
  }
  out.push(row('INTERNAL_ERROR', 'an unexpected server error (the message names the request id)'));
  if (schema.noDatabase !== true) {
    out.push(row('DB_TIMEOUT', 'the database did not answer in time'));
    out.push(row('DB_UNAVAILABLE', 'the database is unavailable'));
  }
  // Each line once.
  const seen = new Set<string>();
  return out.filter((x) => {
    const k = `${ERRORS[x.key].code}/${x.error}/${x.when}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
