// The error responses of the OpenAPI document (spec §7), put in by @fastify/swagger's `transformObject` (app.ts): per
// operation, the rows routeErrors derives (openapi-errors.ts) grouped by status, each referencing the ErrorEnvelope
// component; with them the security its auth policy accepts and a body without members marked optional.
import { ERRORS } from './errors.ts';
import type { RouteAuth } from './auth.ts';
import { browserFacing, isPage, type RouteEntry } from './conventions.ts';
import { ERROR_ENVELOPE_REF, ErrorEnvelope } from './openapi-error-envelope.ts';
import { routeErrors, type ErrorDocOptions, type ErrorRow } from './openapi-errors.ts';

const unique = <T>(xs: T[]) => [...new Set(xs)];

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
