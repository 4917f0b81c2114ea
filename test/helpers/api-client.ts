// The typed client (clients/typescript, @vulnintel/client) over a test app: its fetch hands each request to Fastify's
// inject, so tests call the API through the generated types and a schema change that breaks clients breaks them.
import type { FastifyInstance } from 'fastify';
import { createClient, type VulnintelClient } from '../../clients/typescript/index.ts';

/** The raw body bytes of each answer the inject fetch produced (the client parses bodies; some tests compare bytes). */
const raw = new WeakMap<Response, string>();

/** The body of an answer as the server sent it, before the client parsed it. */
export function rawBody(res: Response): string {
  const body = raw.get(res);
  if (body === undefined) throw new Error('not an answer of injectFetch');
  return body;
}

/** A fetch that routes to app.inject: method, path, query, headers and body bytes go through unchanged. */
export function injectFetch(app: FastifyInstance): (req: Request) => Promise<Response> {
  return async (req) => {
    const url = new URL(req.url);
    const payload = req.body === null ? undefined : Buffer.from(await req.arrayBuffer());
    const headers: Record<string, string> = {};
    req.headers.forEach((v, k) => { headers[k] = v; });
    const r = await app.inject({ method: req.method as 'GET', url: url.pathname + url.search, headers, payload });
    const out = new Headers();
    for (const [k, v] of Object.entries(r.headers)) {
      if (v === undefined) continue;
      for (const x of Array.isArray(v) ? v : [v]) out.append(k, String(x));
    }
    const noBody = r.statusCode === 204 || r.statusCode === 205 || r.statusCode === 304 || req.method === 'HEAD';
    const res = new Response(noBody ? null : new Uint8Array(r.rawPayload), { status: r.statusCode, headers: out });
    raw.set(res, r.body);
    return res;
  };
}

/**
 * A client of the test app: with `auth` (seedOrg/seedKey's `auth` headers, a session's cookies) sent on every
 * request, or none.
 */
export function apiClient(app: FastifyInstance, auth: Record<string, string> = {}): VulnintelClient {
  return createClient({ baseUrl: 'http://vulnintel.test', headers: auth, fetch: injectFetch(app) });
}
