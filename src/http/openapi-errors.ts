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
import { Type, type Static } from 'typebox';
import { ERRORS, type ErrorBody, type ErrorKey } from './errors.ts';
import { requirements, type RouteAuth } from './auth.ts';
import { isWrite } from './session-cookies.ts';
import { browserFacing, isPage, type RouteEntry } from './conventions.ts';
import { EDGE_WINDOW_SEC, edgeExempt } from './edge-limit.ts';
import { RATE_PROFILES, type ProfileName } from './limits.ts';
import { REQUEST_ID_RE } from '../lib/ids.ts';

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

const unique = <T>(xs: T[]) => [...new Set(xs)];
const ValidationField = Type.Object(
  { field: Type.String(), message: Type.String(), type: Type.String() },
  { additionalProperties: false },
);

/** The error envelope as sendError (conventions.ts) and the HTTP-parser answers (client-errors.ts) write it. */
export const ErrorEnvelope = Type.Object(
  {
    api: Type.Object(
      {
        version: Type.String({ description: '1.0.0 on /api/v1/… (and outside /api/), 2.0.0 on /api/v2/…' }),
        request_id: Type.String({ pattern: REQUEST_ID_RE.source, description: 'Also the X-Request-ID header' }),
        timestamp: Type.String({ format: 'date-time' }),
      },
      { additionalProperties: false },
    ),
    error: Type.Object(
      {
        code: Type.Unsafe<string>({
          type: 'string',
          enum: unique(Object.values(ERRORS).map((e) => e.code)),
          description: 'The general SCREAMING_SNAKE code',
        }),
        message: Type.String(),
        retryable: Type.Boolean({ description: 'True only when repeating the same request later may succeed' }),
        retry_after_seconds: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
          description: 'Seconds to wait; the same value as the Retry-After header, which is absent when this is null',
        }),
        action: Type.Unsafe<string>({ type: 'string', enum: unique(Object.values(ERRORS).map((e) => e.action)) }),
        reset_at: Type.Optional(
          Type.String({ format: 'date-time', description: 'Only on usage limits that reset (PARTNER_LIMIT)' }),
        ),
        max: Type.Optional(Type.Integer({ description: 'Only on batch and count limits; also detail.max' })),
        detail: Type.Union([
          Type.Object(
            { error: Type.String({ description: 'The specific lower-case code' }) },
            { additionalProperties: true },
          ),
          Type.Array(ValidationField, { description: 'VALIDATION_ERROR: one item per refused field' }),
        ]),
      },
      { additionalProperties: false },
    ),
    data: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: 'Data next to the error: the refused assets or hosts (data.rejected) when every one was refused',
        },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'The error envelope (spec §7). Every error answer of the API has this body.',
  },
);

// The schema names exactly the fields the handler renders (a compile-time check: a field added to ErrorBody
// without the schema, or the other way round, fails the type check).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const fieldsMatch: Same<keyof ErrorBody, keyof Static<typeof ErrorEnvelope>['error']> = true;
void fieldsMatch;

export const ERROR_ENVELOPE_REF = '#/components/schemas/ErrorEnvelope';

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

/** 404 of a tenant id: the catalogue entry whose detail.error is the declared answer, else NOT_FOUND with it. */
function notFoundRow(foreign: string, when: string): ErrorRow {
  const key =
    (Object.keys(ERRORS) as ErrorKey[]).find((k) => ERRORS[k].status === 404 && ERRORS[k].error === foreign) ??
    'NOT_FOUND';
  return row(key, when, foreign);
}

/** Every error an operation can answer, in the order the request meets them. */
export function routeErrors(r: RouteEntry, opts: ErrorDocOptions): ErrorRow[] {
  const schema = (r.schema ?? {}) as {
    querystring?: { properties?: Record<string, unknown> };
    response?: Record<string, unknown>;
    errors?: readonly RouteError[];
    noDatabase?: boolean;
  };
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
  const queryValidated = !api || Object.keys(schema.querystring?.properties ?? {}).length > 0;
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
  if (params && !('404' in (schema.response ?? {}))) {
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

  for (const e of schema.errors ?? []) {
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
  if (!schema.noDatabase) {
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

interface OaResponse {
  description: string;
  content?: Record<string, unknown>;
  headers?: Record<string, unknown>;
}

/** The OpenAPI responses of these rows, by status, each naming its codes; merged into what the route documents. */
export function errorResponses(
  rows: ErrorRow[],
  own: Record<string, OaResponse> = {},
  html = false,
): Record<string, OaResponse> {
  const out: Record<string, OaResponse> = {};
  const statuses = unique(rows.map((x) => ERRORS[x.key].status)).sort((a, b) => a - b);
  for (const status of statuses) {
    const mine = rows.filter((x) => ERRORS[x.key].status === status);
    const lines = mine.map((x) => `- ${ERRORS[x.key].code}${x.error ? ` (${x.error})` : ''}: ${x.when}`).join('\n');
    const prior = own[String(status)];
    const res: OaResponse = {
      description: prior ? `${prior.description}\n\nIn the error envelope:\n${lines}` : lines,
      content: {
        ...(prior?.content ?? {}),
        'application/json': { schema: { $ref: ERROR_ENVELOPE_REF } },
        ...(html
          ? {
              'text/html': {
                schema: {
                  type: 'string',
                  description: 'For a browser (an Accept preferring HTML): the error page, with the same message',
                },
              },
            }
          : {}),
      },
    };
    if (mine.some((x) => ERRORS[x.key].retryAfter !== null)) {
      res.headers = {
        'Retry-After': {
          description: 'Seconds to wait: error.retry_after_seconds',
          schema: { type: 'integer', minimum: 1 },
        },
      };
    }
    out[String(status)] = res;
  }
  return out;
}

type Operation = {
  responses?: Record<string, OaResponse>;
  security?: Record<string, string[]>[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: BodySchema }> };
};
type BodySchema = { properties?: object; type?: string | string[]; anyOf?: BodySchema[] };

/** A schema that admits no member: an empty object, null, or a choice of those. */
function admitsNoMember(s: BodySchema | undefined): boolean {
  if (!s) return false;
  if (s.anyOf) return s.anyOf.every(admitsNoMember);
  const types = Array.isArray(s.type) ? s.type : [s.type];
  return types.every((t) => t === 'object' || t === 'null') && Object.keys(s.properties ?? {}).length === 0;
}

/**
 * @fastify/swagger marks every request body required. A body without any member (the NoBody schemas: an action such
 * as rotate-secret or a test delivery) is taken absent as well (read as {} or null), so the document says optional.
 */
function bodyIsOptional(op: Operation): boolean {
  const content = Object.values(op.requestBody?.content ?? {});
  return content.length > 0 && content.every((c) => admitsNoMember(c.schema));
}

/**
 * The security an operation's auth policy accepts, for an operation whose schema names none: a public route takes a
 * key or a session optionally (`{}` first: no credential), so the interactive reference sends the key when one is
 * set (ranked lists, paid page sizes); pages and the rest say what they need. `none` routes read no credential.
 */
export function securityOf(policy: RouteAuth | null): Record<string, string[]>[] | undefined {
  switch (policy?.mode) {
    case 'public':
      return [{}, { apiKey: [] }, { session: [] }];
    case 'key':
      return [{ apiKey: [] }];
    case 'session':
      return [{ session: [] }];
    case 'key_or_session':
      return [{ apiKey: [] }, { session: [] }];
    case 'internal_or_session':
      return [{ internalKey: [] }, { session: [] }];
    default:
      return undefined;
  }
}
interface Document {
  servers?: { url: string }[];
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown> };
}

/** The path under which @fastify/swagger documents a route URL (`:id` → `{id}`, the servers' base path removed). */
function documentedPath(url: string, servers: { url: string }[]): string {
  let u = url;
  for (const s of servers) {
    const base = s.url.startsWith('/') ? s.url : new URL(s.url).pathname;
    if (base !== '/' && u.startsWith(base)) u = u.slice(base.length);
  }
  return u.replace(/:(\w+)/g, '{$1}');
}

/** transformObject of @fastify/swagger: the ErrorEnvelope component and every operation's error responses. */
export function withErrorResponses<D>(doc: D, routes: RouteEntry[], opts: ErrorDocOptions): D {
  const d = doc as Document;
  d.components = { ...d.components, schemas: { ...d.components?.schemas, ErrorEnvelope } };
  const byOperation = new Map(
    routes.map((r) => [`${r.method.toLowerCase()} ${documentedPath(r.url, d.servers ?? [])}`, r]),
  );
  for (const [path, ops] of Object.entries(d.paths ?? {})) {
    for (const [method, op] of Object.entries(ops)) {
      const route = byOperation.get(`${method} ${path}`);
      if (!route) continue;
      op.responses = {
        ...op.responses,
        ...errorResponses(routeErrors(route, opts), op.responses, browserFacing(route.url)),
      };
      op.security ??= securityOf(route.policy);
      if (op.requestBody && bodyIsOptional(op)) op.requestBody.required = false;
      // A page sends a visitor without a credential (or with a refused one) to sign in, and back after.
      if (
        method === 'get' &&
        isPage(route.url) &&
        route.policy &&
        route.policy.mode !== 'none' &&
        route.policy.mode !== 'public' &&
        !op.responses['303']
      ) {
        op.responses['303'] = {
          description: 'Not signed in (no session, or a refused key): a redirect to /login?next=<this page>',
        };
      }
    }
  }
  return doc;
}
