// HTTP conventions applied to every route (spec §2.1, §7, §9): request id + timing, the error envelope,
// explicit mapping of framework errors, unknown query parameters, 404 vs 405.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPVersion } from 'find-my-way';
import { ApiError, renderError } from './errors.ts';
import { apiVersionFor } from './envelope.ts';
import { isConnectionError, isStatementTimeout } from '../store/db.ts';

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
     * Every registered route (method, URL pattern, the auth mode it declared or null), HEAD excluded: for tests
     * that must cover all routes.
     */
    routeTable(): { method: string; url: string; declaredAuth: string | null }[];
  }
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

interface AjvErr { instancePath?: string; keyword?: string; message?: string; params?: Record<string, unknown> }

function fieldName(context: string, e: AjvErr): string {
  const base = context === 'querystring' ? 'query' : context;
  let p = (e.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  if (e.keyword === 'required' && e.params?.missingProperty) p = p ? `${p}.${e.params.missingProperty}` : String(e.params.missingProperty);
  if (e.keyword === 'additionalProperties' && e.params?.additionalProperty) {
    p = p ? `${p}.${e.params.additionalProperty}` : String(e.params.additionalProperty);
  }
  return p ? `${base}.${p}` : base;
}

function typeName(e: AjvErr): string {
  switch (e.keyword) {
    case 'required': return 'value_error.missing';
    case 'additionalProperties': return 'value_error.extra';
    case 'enum': case 'const': return 'type_error.enum';
    case 'pattern': case 'format': return 'value_error.str.regex';
    case 'minimum': case 'exclusiveMinimum': return 'value_error.number.not_ge';
    case 'maximum': case 'exclusiveMaximum': return 'value_error.number.not_le';
    case 'minLength': return 'value_error.any_str.min_length';
    case 'maxLength': return 'value_error.any_str.max_length';
    case 'maxItems': return 'value_error.list.max_items';
    case 'minItems': return 'value_error.list.min_items';
    case 'type': return `type_error.${String(e.params?.type ?? 'invalid')}`;
    default: return `value_error.${e.keyword ?? 'invalid'}`;
  }
}

function humanMessage(e: AjvErr): string {
  if (e.keyword === 'enum' && Array.isArray(e.params?.allowedValues)) {
    return `must be one of: ${(e.params!.allowedValues as unknown[]).join(', ')}`;
  }
  if (e.keyword === 'additionalProperties') return 'field is not accepted';
  if (e.keyword === 'required') return 'field is required';
  return e.message ?? 'invalid value';
}

/** Maps any thrown error to an ApiError; unexpected ones become INTERNAL_ERROR without internals. */
export function toApiError(err: FastifyError & { validation?: AjvErr[]; validationContext?: string }, req: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  if (err.validation) {
    const ctx = err.validationContext ?? 'body';
    return new ApiError('VALIDATION_ERROR', {
      fields: err.validation.map((e) => ({ field: fieldName(ctx, e), message: humanMessage(e), type: typeName(e) })),
    });
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
      return new ApiError('BAD_REQUEST', { message: 'Request body is not valid JSON', detail: { error: 'invalid_json' } });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('BODY_TOO_LARGE', { detail: { max_bytes: req.routeOptions.bodyLimit } });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('BAD_REQUEST', {
        message: `Content-Type ${req.headers['content-type'] ?? '(none)'} is not accepted by this endpoint`,
        detail: { error: 'unsupported_media_type' },
      });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('BAD_REQUEST', { message: 'Content-Length does not match the body', detail: { error: 'invalid_content_length' } });
  }
  if (isStatementTimeout(err)) return new ApiError('DB_TIMEOUT');
  if (isConnectionError(err)) return new ApiError('DB_UNAVAILABLE');
  const status = (err as { statusCode?: number }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Other client errors raised by the framework or plugins (e.g. multipart limits): plain bad input.
    if (status === 413) return new ApiError('BODY_TOO_LARGE');
    return new ApiError('BAD_REQUEST', { message: err.message || 'Bad request' });
  }
  return new ApiError('INTERNAL_ERROR', { message: `Internal server error (request ${req.id})` });
}

export function registerConventions(app: FastifyInstance) {
  // A second router holding every route pattern, so an unmatched request can tell 405 from 404.
  const shadow = FindMyWay<HTTPVersion.V1>({ ignoreTrailingSlash: true });
  const methodsByPath = new Map<string, Set<string>>();
  const declaredAuth = new Map<string, string | null>();
  app.decorate('routeTable', () =>
    [...methodsByPath].flatMap(([url, methods]) => [...methods].map((method) => ({ method, url, declaredAuth: declaredAuth.get(`${method} ${url}`) ?? null }))));

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
      declaredAuth.set(`${m} ${key}`, (route.config as { auth?: { mode?: string } } | undefined)?.auth?.mode ?? null);
    }
    // Query parameters an API route accepts, for UNKNOWN_PARAMETER (spec rule for /api/ endpoints only; the
    // documentation pages keep their own query handling).
    if (route.url.startsWith('/api/')) {
      const qs = route.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
      route.config = { ...(route.config ?? {}), acceptedQuery: Object.keys(qs?.properties ?? {}) };
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
    const accepted = req.routeOptions.config.acceptedQuery;
    const q = req.query as Record<string, unknown> | undefined;
    const unknown = accepted && q ? Object.keys(q).filter((k) => !accepted.includes(k)) : [];
    if (unknown.length === 0) return done();
    done(new ApiError('UNKNOWN_PARAMETER', {
      message: `Unknown query parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`,
      detail: { unknown, accepted },
    }));
  });

  app.setErrorHandler(async (err: FastifyError, req, reply) => {
    const apiErr = toApiError(err, req);
    if (apiErr.entry.status >= 500) {
      req.log.error({ err, code: apiErr.entry.code }, 'request failed');
    }
    return sendError(req, reply, apiErr);
  });

  app.setNotFoundHandler(async (req, reply) => {
    const path = req.url.split('?')[0];
    const found = shadow.find('GET', path);
    if (found) {
      const allowed = [...(methodsByPath.get((found.store as { path: string }).path) ?? [])];
      if (allowed.length > 0 && !allowed.includes(req.method)) {
        reply.header('Allow', allowed.join(', '));
        return sendError(req, reply, new ApiError('METHOD_NOT_ALLOWED', {
          message: `Method ${req.method} is not supported on ${path}; use ${allowed.join(', ')}`,
          detail: { allowed },
        }));
      }
    }
    return sendError(req, reply, new ApiError('NOT_FOUND', { message: `No route ${req.method} ${path}` }));
  });
}
