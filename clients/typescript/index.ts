// @vulnintel/client: a typed client of the Vulnintel API. The types (schema.ts) are generated from the served
// OpenAPI document (/api/openapi.json) by `npm run client:generate`; openapi-fetch turns them into typed calls.
import createFetchClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './schema.ts';

export type { components, operations, paths };
/** A Vulnintel client: GET/POST/PATCH/PUT/DELETE(path, { params, body }) → { data } or { error }, typed by path. */
export type VulnintelClient = Client<paths>;
/** The body of every error answer (spec §7). */
export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];
export type { Middleware };

export interface VulnintelClientOptions {
  /** The service's address, e.g. `https://vulnintel.example.com` (its VULNINTEL_PUBLIC_URL); paths start at `/api/…`. */
  baseUrl: string;
  /** An API key (`vi_live_…`), sent as `Authorization: Bearer <key>`. Omit it for the public CVE routes. */
  apiKey?: string;
  /** Headers sent with every request (e.g. `X-Internal-Key` for the health details). */
  headers?: Record<string, string>;
  /** The fetch to use (default: the global fetch). */
  fetch?: ClientOptions['fetch'];
}

/** A client for one service and one credential. */
export function createClient(opts: VulnintelClientOptions): VulnintelClient {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.apiKey !== undefined) headers.authorization = `Bearer ${opts.apiKey}`;
  return createFetchClient<paths>({ baseUrl: opts.baseUrl.replace(/\/+$/, ''), headers, fetch: opts.fetch });
}
