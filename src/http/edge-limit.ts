// The edge limit (spec §8 "Per-address, no key"): anonymous, browser-session and demo requests, at most
// `perMinute` (60) per client address per minute → 429 RATE_LIMITED, retry_after_seconds 10, Retry-After: 10.
// The short burst allowance: the minute's requests may come back to back (a page firing several calls at once);
// there is no per-second pacing. Requests with an API key are counted against the key instead (the monthly
// allowance and the per-key profiles); a presented key that is refused (401) costs its address one request, so
// sending made-up keys is no way around the limit. /api/v1/health/ping and the /docs reference's static files are
// exempt. The client address is the socket peer, or X-Forwarded-For walked past trusted proxies only
// (VULNINTEL_TRUSTED_PROXIES; none by default: the header is then never read). Never writes X-RateLimit-* (those
// report the monthly allowance). Counters: rate-limiter-flexible's in-memory limiter per replica
// (docs/limits.md, "Edge limit", says why and what that means with several replicas).
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';
import { clientAddressResolver, parseTrustedProxies } from '../domain/client-address.ts';
import { asError } from '../lib/errors.ts';

export interface EdgeLimitOptions {
  /** Requests per address per minute; 0 = off. */
  perMinute: number;
  /** Trusted proxies (IPs or CIDRs) whose X-Forwarded-For is believed. */
  trustedProxies: readonly string[];
}

export const EDGE_WINDOW_SEC = 60;
/** Paths the edge limit never counts. */
export const edgeExempt = (path: string) =>
  path === '/api/v1/health/ping' || path === '/docs' || path.startsWith('/docs/');

declare module 'fastify' {
  interface FastifyRequest {
    /** The client address the edge limit counted (null when the request was not counted). */
    edgeAddress: string | null;
  }
  interface FastifyInstance {
    /**
     * Counts a request answered before routing (a malformed URL: no hook runs for it) as the onRequest hook would;
     * the refusal when its address is over the limit, else null.
     */
    edgeCount(req: FastifyRequest): Promise<ApiError | null>;
    /** Charges the address one request for a refused API key, as the onResponse hook does for a 401. */
    edgePenalty(req: FastifyRequest): Promise<void>;
  }
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

const hasKey = (req: FastifyRequest) => req.headers.authorization !== undefined;

export function registerEdgeLimit(app: FastifyInstance, opts: EdgeLimitOptions): void {
  app.decorateRequest('edgeAddress', null);
  if (opts.perMinute <= 0) {
    app.decorate('edgeCount', () => Promise.resolve(null));
    app.decorate('edgePenalty', () => Promise.resolve());
    return;
  }
  const limiter = new RateLimiterMemory({ keyPrefix: 'edge', points: opts.perMinute, duration: EDGE_WINDOW_SEC });
  const addressOf = clientAddressResolver(parseTrustedProxies(opts.trustedProxies.join(',')));
  const refused = () =>
    new ApiError('EDGE_RATE_LIMITED', {
      message: `Too many requests from this address: at most ${opts.perMinute} per minute without an API key; retry in 10 seconds, or send an API key`,
      detail: { limit: opts.perMinute, window_seconds: EDGE_WINDOW_SEC, counted_by: 'client_address' },
    });

  const count = (req: FastifyRequest): Promise<ApiError | null> => {
    if (hasKey(req) || edgeExempt(pathOf(req.url))) return Promise.resolve(null);
    const addr = addressOf(req.socket.remoteAddress, req.headers['x-forwarded-for']);
    req.edgeAddress = addr;
    return limiter.consume(addr, 1).then(
      () => null,
      (e: unknown) => {
        if (e instanceof RateLimiterRes) return refused();
        throw e;
      },
    );
  };
  app.decorate('edgeCount', count);
  const penalty = (req: FastifyRequest): Promise<void> =>
    edgeExempt(pathOf(req.url))
      ? Promise.resolve()
      : limiter.penalty(addressOf(req.socket.remoteAddress, req.headers['x-forwarded-for']), 1).then(
          () => undefined,
          () => undefined,
        );
  app.decorate('edgePenalty', penalty);

  app.addHook('onRequest', (req, _reply, done) => {
    count(req).then(
      (e) => done(e ?? undefined),
      (e: unknown) => done(asError(e)),
    );
  });

  // A refused key is charged to its address: otherwise any made-up Bearer token would pass the limit unmetered.
  app.addHook('onResponse', (req, reply, done) => {
    if (reply.statusCode !== 401 || !hasKey(req)) return done();
    void penalty(req).then(() => done());
  });
}
