// HTTP conventions applied to every route (spec §2.1, §7, §9): request id + timing, the error envelope,
// explicit mapping of framework errors, unknown query parameters, 404 vs 405.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isRecord } from '../domain/is-record.ts';
import FindMyWay, { type HTTPVersion } from 'find-my-way';
import { ApiError, renderError } from './errors.ts';
import { refusalError } from './refusals.ts';
import { Refusal } from '../services/refusal.ts';
import { apiVersionFor } from './envelope.ts';
import { isConnectionError, isRemovedMember, isStatementTimeout } from '../lib/db-errors.ts';
import { logSafeError } from '../lib/logger.ts';
import type { RouteAuth } from './auth.ts';
import type { AjvErr } from './union-errors.ts';
import { validationError } from './validation-errors.ts';
import { prefersHtml } from './status-page.ts';
import { renderErrorPage } from './web/message-pages.tsx';
import { PAGE_CSP } from './web/assets.ts';
import { routeConfig } from './route-config.ts';
import { errorField } from '../lib/errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    startedAt: number;
  }
  interface FastifyContextConfig {
    /** Query parameter names this route accepts (filled from its querystring schema). */
    acceptedQuery?: string[];
  }
  interface FastifyInstance {
    /**
     * Every registered route (method, URL pattern, the auth mode it declared or null, its whole policy and
     * schema), HEAD excluded: for the meta-tests, the two-tenant runner and docs/routes.md.
     */
    routeTable(): RouteEntry[];
  }
}

export interface RouteEntry {
  method: string;
  url: string;
  declaredAuth: string | null;
  policy: RouteAuth | null;
  schema: Record<string, unknown> | null;
}

export function sendError(req: FastifyRequest, reply: FastifyReply, err: ApiError) {
  const { status, body, retryAfter } = renderError(err);
  if (retryAfter !== null) reply.header('Retry-After', String(retryAfter));
  // Also here: errors raised before routing (malformed URL) never ran the onRequest hook.
  reply.header('X-Request-ID', req.id);
  const payload: Record<string, unknown> = {
    api: { version: apiVersionFor(req.url), request_id: req.id, timestamp: new Date().toISOString() },
    error: body,
  };
  if (err.opts.data !== undefined) payload.data = err.opts.data;
  // Error bodies bypass route response schemas: they are serialized as-is.
  return reply.code(status).type('application/json; charset=utf-8').serializer(JSON.stringify).send(payload);
}

/** Maps any thrown error to an ApiError (a service's Refusal through http/refusals.ts); unexpected ones become INTERNAL_ERROR without internals. */
export function toApiError(
  err: FastifyError & { validation?: AjvErr[]; validationContext?: string },
  req: FastifyRequest,
): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof Refusal) return refusalError(err);
  if (err.validation) {
    const ctx = err.validationContext ?? 'body';
    return validationError(err.validation, ctx, ctx === 'body' ? req.routeOptions.config.fieldWords : undefined);
  }
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      // spec §7: malformed JSON is 422 on v2, 400 on v1.
      if (req.url.startsWith('/api/v2/')) {
        return new ApiError('VALIDATION_ERROR', {
          message: 'Request body is not valid JSON',
          fields: [{ field: 'body', message: 'malformed JSON', type: 'value_error.jsondecode' }],
        });
      }
      return new ApiError('BAD_REQUEST', {
        message: 'Request body is not valid JSON',
        detail: { error: 'invalid_json' },
      });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('BODY_TOO_LARGE', { detail: { max_bytes: req.routeOptions.bodyLimit } });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('BAD_REQUEST', {
        message: `Content-Type ${req.headers['content-type'] ?? '(none)'} is not accepted by this endpoint`,
        detail: { error: 'unsupported_media_type' },
      });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('BAD_REQUEST', {
        message: 'Content-Length does not match the body',
        detail: { error: 'invalid_content_length' },
      });
  }
  if (isStatementTimeout(err)) return new ApiError('DB_TIMEOUT');
  // The caller's member was removed between the auth hook and its write: the write failed whole (its transaction
  // rolled back), and the credential no longer works, as the next request would hear (ADR 0055).
  if (isRemovedMember(err)) {
    return new ApiError('AUTH_REQUIRED', {
      message: 'Your membership of this organization was removed while the request ran; nothing was stored',
      detail: { error: 'member_removed' },
    });
  }
  if (isConnectionError(err)) return new ApiError('DB_UNAVAILABLE');
  const status = errorField(err, 'statusCode');
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Other client errors raised by the framework or plugins (e.g. multipart limits): plain bad input.
    if (status === 413) return new ApiError('BODY_TOO_LARGE');
    return new ApiError('BAD_REQUEST', { message: err.message || 'Bad request' });
  }
  return new ApiError('INTERNAL_ERROR', { message: `Internal server error (request ${req.id})` });
}

/** A server-rendered page that needs a session (the account and training pages), not an API route. */
export function isPage(url: string): boolean {
  return !url.startsWith('/api/') && url !== '/docs' && !url.startsWith('/docs/') && !url.startsWith('/docs?');
}

const pathOf = (url: string) => url.split('?')[0];

/** The links that emails send people to (sign-in, invitation, address change): opened in a browser, under /api/. */
const EMAILED_LINKS: ReadonlySet<string> = new Set([
  '/api/v1/auth/callback',
  '/api/v1/auth/accept-invite',
  '/api/v1/auth/confirm-email',
]);
const SIGN_OUT_FORMS: ReadonlySet<string> = new Set(['/logout', '/logout-all']);

/** A path a browser opens (a page, or a link from an email): its refusals have an HTML form (sendErrorFor). */
export function browserFacing(path: string): boolean {
  return isPage(path) || EMAILED_LINKS.has(path);
}

/**
 * A refusal in the form its reader can use: a browser (Accept preferring HTML) on a page or on a link from an email
 * gets the error page (renderErrorPage: the same status, message and field problems), anyone else the §7 envelope.
 * So a used sign-in link or a form refused for its input never shows raw JSON.
 */
export function sendErrorFor(req: FastifyRequest, reply: FastifyReply, err: ApiError) {
  if (!prefersHtml(req.headers.accept) || !browserFacing(pathOf(req.url))) return sendError(req, reply, err);
  const { status, body, retryAfter } = renderError(err);
  if (retryAfter !== null) reply.header('Retry-After', String(retryAfter));
  const fields = Array.isArray(body.detail)
    ? body.detail.map((f) => ({ field: String(f.field), message: String(f.message ?? f.type ?? '') }))
    : [];
  return reply
    .code(status)
    .header('X-Request-ID', req.id)
    .header('Cache-Control', 'no-store')
    .header('Content-Security-Policy', PAGE_CSP)
    .header('X-Content-Type-Options', 'nosniff')
    .type('text/html; charset=utf-8')
    .serializer((x: unknown) => String(x))
    .send(renderErrorPage({ status, message: body.message, fields, requestId: req.id, retryAfter }));
}

export function registerConventions(app: FastifyInstance) {
  // A second router holding every route pattern, so an unmatched request can tell 405 from 404.
  const shadow = FindMyWay<HTTPVersion.V1>({ ignoreTrailingSlash: true });
  const methodsByPath = new Map<string, Set<string>>();
  // The route options themselves: hooks registered later (auth's default for pages) may still set config.
  const declared = new Map<string, { config?: { auth?: RouteAuth }; schema?: unknown }>();
  app.decorate('routeTable', () =>
    [...methodsByPath].flatMap(([url, methods]) =>
      [...methods].map((method) => {
        const d = declared.get(`${method} ${url}`);
        const policy = d?.config?.auth ?? null;
        const schema = d?.schema;
        return { method, url, declaredAuth: policy?.mode ?? null, policy, schema: isRecord(schema) ? schema : null };
      }),
    ),
  );

  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      if (m === 'HEAD') continue;
      const key = route.url;
      if (!methodsByPath.has(key)) {
        methodsByPath.set(key, new Set());
        shadow.on(['GET', 'POST', 'PUT', 'DELETE', 'PATCH'], key, () => {}, { path: key });
      }
      methodsByPath.get(key)!.add(m);
      declared.set(`${m} ${key}`, route);
    }
    // Query parameters an API route accepts, for UNKNOWN_PARAMETER (spec rule for /api/ endpoints only; the
    // documentation pages keep their own query handling).
    if (route.url.startsWith('/api/')) {
      const qs = route.schema?.querystring;
      const props = isRecord(qs) && isRecord(qs.properties) ? qs.properties : {};
      route.config = { ...(route.config ?? {}), acceptedQuery: Object.keys(props) };
    }
  });

  // The per-request hooks are callback-style, not async: an async hook costs a promise and a microtask turn
  // on every request (docs/benchmarks.md "Per-request overhead").
  app.addHook('onRequest', (req, reply, done) => {
    req.startedAt = performance.now();
    reply.header('X-Request-ID', req.id);
    reply.header('X-API-Version', apiVersionFor(req.url));
    done();
  });

  // Unknown query parameters → 400 UNKNOWN_PARAMETER listing the accepted ones (spec §4.1 rule 2).
  // Runs before validation: Ajv would otherwise strip or 422 them.
  app.addHook('preValidation', (req, _reply, done) => {
    const accepted = routeConfig(req).acceptedQuery;
    const q = isRecord(req.query) ? req.query : undefined;
    const unknown = accepted && q ? Object.keys(q).filter((k) => !accepted.includes(k)) : [];
    if (unknown.length === 0) return done();
    done(
      new ApiError('UNKNOWN_PARAMETER', {
        message: `Unknown query parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`,
        detail: { unknown, accepted },
      }),
    );
  });

  app.setErrorHandler(async (err: FastifyError, req, reply) => {
    const apiErr = toApiError(err, req);
    // A page (outside /api/ and /docs) opened without a valid session: the browser goes to the sign-in page, which
    // brings it back here afterwards. API routes keep answering 401 in the envelope.
    if (apiErr.key === 'AUTH_REQUIRED' && req.method === 'GET' && isPage(req.url)) {
      return reply.header('cache-control', 'no-store').redirect(`/login?next=${encodeURIComponent(req.url)}`, 303);
    }
    // Signing out with a session that has already ended: the person is signed out, so on to the sign-in page.
    if (apiErr.key === 'AUTH_REQUIRED' && req.method === 'POST' && SIGN_OUT_FORMS.has(pathOf(req.url))) {
      return reply.header('cache-control', 'no-store').redirect('/login', 303);
    }
    if (apiErr.entry.status >= 500) {
      // Scrubbed here too, whatever logger the app was given: a database error can quote the submitted data.
      req.log.error({ err: logSafeError(err), code: apiErr.entry.code }, 'request failed');
    }
    return sendErrorFor(req, reply, apiErr);
  });

  /** 405 with Allow when the path exists under other methods, else 404 (spec §7). */
  function unmatched(req: FastifyRequest, reply: FastifyReply): ApiError {
    const path = req.url.split('?')[0];
    const found = shadow.find('GET', path);
    if (found) {
      const key = isRecord(found.store) ? found.store.path : undefined;
      const methods = [...((typeof key === 'string' && methodsByPath.get(key)) || [])];
      // Every GET route answers HEAD too (Fastify's exposeHeadRoutes), so Allow says so (RFC 9110 §9.3.2).
      const allowed = methods.includes('GET') ? [...methods, 'HEAD'] : methods;
      if (allowed.length > 0 && !allowed.includes(req.method)) {
        reply.header('Allow', allowed.join(', '));
        return new ApiError('METHOD_NOT_ALLOWED', {
          message: `Method ${req.method} is not supported on ${path}; use ${allowed.join(', ')}`,
          detail: { allowed },
        });
      }
    }
    return new ApiError('NOT_FOUND', { message: `No route ${req.method} ${path}` });
  }

  // An unmatched request is answered before its body is read: a wrong method with a JSON content type and an
  // empty or broken body is 405, not 400 invalid_json (the method is the first thing wrong). preParsing runs
  // after the auth hook, so API-key callers still get their allowance headers.
  app.addHook('preParsing', (req, reply, _payload, done) => {
    if (req.is404) return done(unmatched(req, reply));
    done();
  });

  app.setNotFoundHandler(async (req, reply) => sendErrorFor(req, reply, unmatched(req, reply)));
}

/** 301 to `path` with the request's query string: a resource under an id the catalog renamed (a vendor slug). */
export function movedPermanently(req: FastifyRequest, reply: FastifyReply, path: string) {
  const q = req.url.indexOf('?');
  return reply
    .code(301)
    .header('location', q >= 0 ? path + req.url.slice(q) : path)
    .send();
}
