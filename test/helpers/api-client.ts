// The typed client (clients/typescript, @vulnintel/client) over a test app: its fetch hands each request to Fastify's
// inject, so tests call the API through the generated types and a schema change that breaks clients breaks them.
// Each JSON answer is also validated against the schema the app's own OpenAPI document gives for its path, method
// and status (a route that writes its answer as bytes, bypassing the serializer, is held to its documentation too),
// and a status the document does not list for the operation fails the call.
import type { FastifyInstance } from 'fastify';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
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
    req.headers.forEach((v, k) => {
      headers[k] = v;
    });
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

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: object }> }>;
}
type Doc = { paths: Record<string, Record<string, Operation>>; components?: object };

/** Per app: its document, and the compiled answer schemas by "METHOD path status". */
const documents = new WeakMap<
  FastifyInstance,
  { doc: Doc; ajv: Ajv.default; compiled: Map<string, ValidateFunction | null> }
>();

function documentOf(app: FastifyInstance) {
  let d = documents.get(app);
  if (!d) {
    const ajv = new Ajv.default({ allErrors: true, strict: false });
    addFormats.default(ajv);
    d = { doc: app.swagger() as unknown as Doc, ajv, compiled: new Map() };
    documents.set(app, d);
  }
  return d;
}

/** Checks one answer against the document: its status is listed, and a JSON body matches the listed schema. */
function checkAnswer(app: FastifyInstance, method: string, schemaPath: string, res: Response): void {
  const d = documentOf(app);
  const label = `${method} ${schemaPath} → ${res.status}`;
  if (!d.compiled.has(label)) {
    const op = d.doc.paths[schemaPath]?.[method.toLowerCase()];
    if (!op) throw new Error(`${method} ${schemaPath} is not in the OpenAPI document`);
    const answer = op.responses?.[String(res.status)];
    if (!answer)
      throw new Error(
        `${label}: status not documented (listed: ${Object.keys(op.responses ?? {}).join(', ')}): ${rawBody(res).slice(0, 300)}`,
      );
    const schema = answer.content?.['application/json']?.schema;
    // $refs (#/components/schemas/…) resolve against the document's components, carried at the schema's root.
    d.compiled.set(label, schema ? d.ajv.compile({ ...schema, components: d.doc.components }) : null);
  }
  const validate = d.compiled.get(label);
  if (!validate || !String(res.headers.get('content-type') ?? '').startsWith('application/json')) return;
  const body = rawBody(res);
  if (!validate(JSON.parse(body))) {
    throw new Error(
      `${label}: the answer does not match its documented schema: ${JSON.stringify(validate.errors?.slice(0, 5))} ${body.slice(0, 300)}`,
    );
  }
}

/**
 * A client of the test app: with `auth` (seedOrg/seedKey's `auth` headers, a session's cookies) sent on every
 * request, or none. Every answer is checked against the app's document (above).
 */
export function apiClient(app: FastifyInstance, auth: Record<string, string> = {}): VulnintelClient {
  const client = createClient({ baseUrl: 'http://vulnintel.test', headers: auth, fetch: injectFetch(app) });
  client.use({
    onResponse({ request, schemaPath, response }) {
      checkAnswer(app, request.method, schemaPath, response);
    },
  });
  return client;
}
