// buildApp never listens: main.ts and the tests both get a ready Fastify instance from here.
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifySchemaValidationError,
  type FastifyTypeProviderDefault,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import type { FastifyValidationResult } from 'fastify/types/schema.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Store } from './store/db.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { createEgress, type Egress } from './lib/egress.ts';
import { newRequestId } from './lib/ids.ts';
import { lazyChildLogger } from './lib/logger.ts';
import { errorMessage } from './lib/errors.ts';
import { isRecord } from './domain/is-record.ts';
import { deploymentWarnings } from './domain/deployment.ts';
import { registerConventions, sendError } from './http/conventions.ts';
import { noHostileEscape, registerTextGuard } from './http/text-guard.ts';
import { parseQueryString } from './http/querystring.ts';
import { looseNumbers, numericKeys, rawStrings } from './http/query-numbers.ts';
import { AccessLogController } from './http/access-log.ts';
import { ApiError } from './http/errors.ts';
import { registerAuth } from './http/auth.ts';
import { registerEdgeLimit } from './http/edge-limit.ts';
import { registerPageCompression } from './http/page-compression.ts';
import { clientErrorHandler } from './http/client-errors.ts';
import { withErrorResponses } from './http/openapi-error-document.ts';
import { buildServices, type Services } from './services/index.ts';
import { registerLimits, type ProfileName, type ProfileSpec } from './http/limits.ts';
import { postgresLimiters } from './store/rate-limits.ts';
import { UsageMeter } from './store/usage-meter.ts';
import { registerRoutes } from './http/routes/index.ts';
import { PACKAGE_VERSION } from './lib/version.ts';

export interface AppDeps {
  config: Readonly<Config>;
  store: Store;
  clock?: Clock;
  /** Outbound HTTP under the egress policy (docs/egress.md); tests inject one with a loopback allow list. */
  egress?: Egress;
  logger?: Logger | false;
  /**
   * Test-only: adds routes (e.g. a pg_sleep route for the statement-timeout mapping) after the real routes and
   * before the app is ready. main.ts never passes it.
   */
  testRoutes?: (app: FastifyInstance) => void | Promise<void>;
  /** Test-only: smaller rate-limit windows, so a window's end is reached without waiting a minute. */
  rateProfiles?: Partial<Record<ProfileName, ProfileSpec>>;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: Required<Omit<AppDeps, 'logger' | 'testRoutes' | 'rateProfiles'>>;
    /** The business operations (src/services/), built once here. */
    services: Services;
  }
}

/** The app with its TypeBox type provider: route handlers get typed params, query, body and replies. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export { PACKAGE_VERSION };

/** JSON bodies up to 8 MiB (ADR 0088): the batch routes (200 hosts with their software). */
export const JSON_BODY_LIMIT = 8 * 1024 * 1024;
/**
 * Every other route's JSON body (a sign-in, a webhook, a profile: a few KiB at most): with 8 MiB on every
 * route, one anonymous sign-in body of 8 MiB would hold the event loop for seconds (ADR 0088).
 */
export const SMALL_JSON_BODY_LIMIT = 64 * 1024;

function makeAjv(opts: { coerce: boolean; allErrors: boolean }) {
  const ajv = new Ajv.default({
    // Unknown input is an error for our spec, never silently dropped.
    removeAdditional: false,
    useDefaults: true,
    coerceTypes: opts.coerce ? 'array' : false,
    // allErrors only for small bounded schemas (query/params): it is a DoS vector on large bodies.
    allErrors: opts.allErrors,
    strict: false,
  });
  addFormats.default(ajv);
  // RFC 3339 allows a leap second (":60"), which no JavaScript date or PostgreSQL timestamp holds: such a value was
  // accepted and then failed in the database (a 500). A date-time must also be a date JavaScript can read.
  const rfc3339 = ajv.formats['date-time'] as { validate: (s: string) => boolean } | ((s: string) => boolean);
  const isRfc3339 = typeof rfc3339 === 'function' ? rfc3339 : rfc3339.validate;
  ajv.addFormat('date-time', { type: 'string', validate: (s: string) => isRfc3339(s) && !Number.isNaN(Date.parse(s)) });
  return ajv;
}

interface AjvLikeError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message: string;
}

/** Paths of numbers in validated input that are not finite, or integral beyond ±(2^53 − 1). */
function unsafeNumbers(v: unknown, at: string, out: AjvLikeError[], depth = 0): void {
  if (out.length >= 20 || depth > 64) return;
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || (Number.isInteger(v) && !Number.isSafeInteger(v))) {
      out.push({
        instancePath: at,
        schemaPath: '#/type',
        keyword: 'type',
        params: { type: 'number' },
        message: `must be a finite number between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`,
      });
    }
  } else if (Array.isArray(v)) {
    v.forEach((x, i) => unsafeNumbers(x, `${at}/${i}`, out, depth + 1));
  } else if (isRecord(v)) {
    // for…in over own keys, not Object.entries: no array of pairs for each object (every request's query walks here).
    for (const k in v) {
      if (Object.hasOwn(v, k))
        unsafeNumbers(v[k], `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out, depth + 1);
    }
  }
}

function isEmptyObject(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  for (const k in v) if (Object.hasOwn(v, k)) return false;
  return true;
}

/**
 * Ajv accepts `1e309` (Infinity, from a query string or JSON) as an integer, and integers beyond 2^53 lose
 * precision and overflow SQL bigint offsets: both became 500s deep in a query. After Ajv, such numbers are
 * refused as a 422 on their field. In a query string or path (`textInput`), a number must also be written in
 * decimal: Ajv's coercion read " " as 0 and "0x5" as 5 (src/http/query-numbers.ts).
 */
function withSafeNumbers(
  validate: ValidateFunction,
  schema: unknown,
  textInput: boolean,
  records: readonly string[] = [],
): FastifyValidationResult {
  // Only the properties the schema types as numbers can be read loosely: found once, when the schema is compiled.
  const numeric = textInput ? numericKeys(schema) : [];
  const state: { errors: FastifySchemaValidationError[] | null; schemaEnv: ValidateFunction['schemaEnv'] } = {
    errors: null,
    schemaEnv: validate.schemaEnv,
  };
  const wrapped = Object.assign((data: unknown, ctx?: Parameters<ValidateFunction>[1]) => {
    const raw = rawStrings(data, numeric);
    const valid = validate(data, ctx);
    // Nothing read loosely and nothing to walk (a ping's empty query): valid as Ajv said, with no allocation.
    if (valid && raw === null && isEmptyObject(data)) {
      wrapped.errors = null;
      return true;
    }
    const loose = looseNumbers(raw, data, schema);
    const looseErrors: AjvLikeError[] = loose.map(({ key, type }) => ({
      instancePath: `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      schemaPath: '#/type',
      keyword: 'type',
      params: { type },
      message: `must be ${type}`,
    }));
    if (!valid) {
      // A field written loosely gets its type error only (not also the range error of the number it was read as).
      const paths = new Set(looseErrors.map((e) => e.instancePath));
      const others = (validate.errors ?? []).filter((e) => !paths.has(e.instancePath));
      wrapped.errors = [...others, ...looseErrors];
      return false;
    }
    const bad: AjvLikeError[] = [...looseErrors];
    // Records (route config recordArrays) are judged record by record, their numbers too.
    unsafeNumbers(
      records.length && data !== null && typeof data === 'object'
        ? Object.fromEntries(Object.entries(data).filter(([k]) => !records.includes(k)))
        : data,
      '',
      bad,
    );
    wrapped.errors = bad.length > 0 ? bad : null;
    return bad.length === 0;
  }, state);
  return wrapped;
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const loggerInstance: FastifyBaseLogger | null = deps.logger || null;
  const app: App = Fastify({
    ...(loggerInstance ? { loggerInstance } : { logger: false }),
    genReqId: () => newRequestId(),
    // Per-request child loggers made on first use only (src/lib/logger.ts). The parent is Fastify's logger: pino's
    // child of the one given (the no-op logger without one), typed as FastifyBaseLogger, which names fewer members.
    childLoggerFactory: (logger, bindings, opts): FastifyBaseLogger =>
      lazyChildLogger(logger as Logger, bindings, opts),
    logController: new AccessLogController({ requestIdLogLabel: 'request_id' }),
    bodyLimit: JSON_BODY_LIMIT,
    // A whole request, body included, within requestTimeoutMs, else 408 (client-errors.ts). Fastify turns Node's
    // limit off by default: a sign-in body trickled a byte every few seconds held its connection open for good.
    // Node checks open requests every connectionsCheckingInterval (30 s by default): a quarter of the limit here.
    requestTimeout: deps.config.requestTimeoutMs,
    // Given to the server's constructor too: set afterwards (as Fastify does), Node did not enforce it (measured).
    http: {
      requestTimeout: deps.config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(deps.config.requestTimeoutMs / 4))),
    },
    trustProxy: false,
    // The query string is read strictly: undecodable percent-encoding is refused on its field (src/http/querystring.ts).
    // No router limit on a path parameter's length (Node's 16 KB header limit bounds the URL): each route's own schema
    // decides, so an over-long CVE id is the 404 of an unknown one and an over-long slug its field's 422, never a
    // 400 invalid_url for a well-formed URL.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 16_384, querystringParser: parseQueryString },
    // A malformed URL (bad percent-encoding) is answered before routing: in our envelope, not Fastify's. No hook runs
    // for it, so what the hooks would do is done here: a valid API key's call is counted and reported (X-RateLimit-*);
    // a refused key costs its address one request (as its 401 would); anything else is counted against the
    // address's edge limit (an anonymous flood of bad URLs is limited too, and a made-up key is no way around it).
    frameworkErrors: (_err, req, reply) => {
      const bad = new ApiError('BAD_REQUEST', {
        message: 'The request URL is not valid',
        detail: { error: 'invalid_url' },
      });
      app
        .meterUnrouted(req, reply)
        .then((key) =>
          key === 'key' ? null : key === 'refused' ? app.edgePenalty(req).then(() => null) : app.edgeCount(req),
        )
        .then(
          (refused) => sendError(req, reply, refused ?? bad),
          () => sendError(req, reply, bad),
        );
    },
    // Errors Node's HTTP parser raises before Fastify sees a request (URL or headers over 16 KB → 431, a
    // malformed request line → 400): answered in the §7 envelope too.
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // An empty body sent with a JSON content type is no body: clients that always send the header (DELETE, and the
  // action POSTs that take none) are answered as if they had sent none; any other text goes to Fastify's own parser.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body: string, done) => {
    if (body === '') done(null, undefined);
    else {
      req.jsonTextClean = noHostileEscape(body);
      void parseJson(req, body, done);
    }
  });

  const queryAjv = makeAjv({ coerce: true, allErrors: true });
  const bodyAjv = makeAjv({ coerce: false, allErrors: false });
  // The batch routes' bodies without their records: small and bounded, so every error is reported.
  const batchAjv = makeAjv({ coerce: false, allErrors: true });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body'
      ? withSafeNumbers(bodyAjv.compile(schema), schema, false)
      : withSafeNumbers(queryAjv.compile(schema), schema, true),
  );
  // A batch route's records (config recordArrays) are judged record by record by its service (a bad record is
  // refused alone, in data.rejected) and its batch size by its limits (413): the validator checks the rest of the
  // body, and of a record array only that it is an array. The schema itself, records included, documents the route.
  app.addHook('onRoute', (route) => {
    // Fields the route checks after its limits (config laterFields) are left open here, and their schema
    // (req.compileValidationSchema, the same compiler) checks them there.
    const records = route.config?.recordArrays;
    if (!records || !route.schema?.body) return;
    const later = route.config?.laterFields ?? [];
    route.validatorCompiler = ({ schema, httpPart }) => {
      if (httpPart !== 'body') return withSafeNumbers(queryAjv.compile(schema), schema, true);
      const s = isRecord(schema) ? schema : {};
      const props = isRecord(s.properties) ? s.properties : undefined;
      const open = records.every((k) => props?.[k] !== undefined) ? later : [];
      const loose: [string, object][] = [
        ...records.map((k): [string, object] => [k, { type: 'array' }]),
        ...open.map((k): [string, object] => [k, {}]),
      ];
      const shape = { ...s, properties: { ...props, ...Object.fromEntries(loose) } };
      return withSafeNumbers(batchAjv.compile(shape), shape, false, [...records, ...open]);
    };
  });

  // An egress made here (none injected) is closed with the app; an injected one belongs to the caller.
  const egress = deps.egress ?? createEgress({ allowList: deps.config.egressAllowList });
  if (!deps.egress) app.addHook('onClose', async () => egress.close());
  const clock = deps.clock ?? systemClock;
  app.decorate('deps', { config: deps.config, store: deps.store, clock, egress });
  const services = buildServices({
    config: deps.config,
    store: deps.store,
    clock,
    warn: (msg, err) => app.log.warn({ err: err.message }, msg),
    info: (obj, msg) => app.log.info(obj, msg),
  });
  app.decorate('services', services);
  app.addHook('onClose', async () => services.close());
  // Deployment mistakes (production over plain http): warned at start; the status page shows them too.
  for (const w of deploymentWarnings(deps.config)) app.log.warn(w);
  // Cookies are parsed on demand (a session credential is read only where a route reads credentials).
  await app.register(cookie, { hook: false });
  // The body cap per route: 8 MiB for the batch routes (those validating record arrays), 64 KiB for the rest.
  app.addHook('onRoute', (route) => {
    if (route.bodyLimit === undefined)
      route.bodyLimit = route.config?.recordArrays ? JSON_BODY_LIMIT : SMALL_JSON_BODY_LIMIT;
  });
  // Conventions and auth first: their onRoute hooks must see every route, the documentation's included.
  registerConventions(app);
  registerTextGuard(app); // NUL and lone surrogates → 422 on every route (src/http/text-guard.ts)
  registerEdgeLimit(app, deps.config.edgeLimit); // before auth: an over-limit address costs no credential lookup
  registerPageCompression(app); // HTML answers compressed for a client that accepts br or gzip
  registerAuth(app, {
    meter: new UsageMeter(deps.store.db, 1000, (e) =>
      app.log.warn({ err: errorMessage(e) }, 'allowance counter not written; kept for the next flush'),
    ),
    clock,
    identity: services.identity,
    publicUrl: deps.config.publicUrl,
    internalKey: deps.config.internalKey,
  });
  registerLimits(app, postgresLimiters(deps.store), deps.rateProfiles);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Vulnintel API',
        version: PACKAGE_VERSION,
        description:
          'Vulnerability intelligence for ICS/OT: CVE corpus (v1), Windows patch level (v2). Errors use the envelope of spec §7.',
      },
      servers: [{ url: deps.config.publicUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'API key: vi_live_…' },
          session: { type: 'apiKey', in: 'cookie', name: 'vi_session' },
          internalKey: { type: 'apiKey', in: 'header', name: 'X-Internal-Key' },
        },
      },
    },
    // The error responses of every operation and their ErrorEnvelope schema, derived from the route table
    // (src/http/openapi-errors.ts). Added to the document only: the routes' response schemas stay 2xx/3xx, so the
    // error bodies are serialized as sendError builds them.
    transformObject: (d) =>
      'openapiObject' in d
        ? withErrorResponses(d.openapiObject, app.routeTable(), { edgeLimitPerMinute: deps.config.edgeLimit.perMinute })
        : d.swaggerObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  try {
    await registerRoutes(app);
    if (deps.testRoutes) await deps.testRoutes(app.withTypeProvider<FastifyTypeProviderDefault>());
    app.get(
      '/api/openapi.json',
      { schema: { hide: true }, config: { auth: { mode: 'none', tenant: false } } },
      async () => app.swagger(),
    );
  } catch (e) {
    // A route refused at registration (e.g. no policy): release what was opened (the cache's LISTEN
    // connection, the allowance flush timer), so a failed start does not hang the process.
    await app.close().catch(() => services.close());
    throw e;
  }
  return app;
}
