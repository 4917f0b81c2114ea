// The matched route's `config` (auth policy, accepted query parameters, access-log mode…) as the per-request hooks
// read it. Fastify's public accessor, `request.routeOptions`, builds a new object of a dozen fields on every read
// (and asks the server for its constraint strategies): read three times a request by the hooks, that was several
// percent of a ping's CPU (docs/benchmarks.md "Per-request overhead"). The route context Fastify keeps on each
// request under its `kRouteContext` symbol holds the same `config` object: read from there, with the public
// accessor as the fallback should a Fastify release keep the context elsewhere (test/unit/route-config.test.ts
// fails then, so the fallback is never silently the path taken).
import type { FastifyContextConfig, FastifyRequest } from 'fastify';
import symbols from 'fastify/lib/symbols.js';

const kRouteContext: symbol | undefined = symbols.kRouteContext;

/** True while the route context is read directly (the fast path). */
export const directRouteConfig = typeof kRouteContext === 'symbol';

/** The matched route's config (the not-found handler's for an unmatched request), as `req.routeOptions.config`. */
export function routeConfig(req: FastifyRequest): FastifyContextConfig {
  const context =
    kRouteContext === undefined
      ? undefined
      : (req as unknown as Record<symbol, { config?: FastifyContextConfig } | undefined>)[kRouteContext];
  return context?.config ?? req.routeOptions.config;
}
