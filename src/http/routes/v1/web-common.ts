// What the signed-in web app's page routes share (docs/web.md): the response and parameter schemas, the session
// policies, and the helpers every page handler uses. The pages are thin routes over the same services as the API, each
// with its declared policy and tenant scope; forms post application/x-www-form-urlencoded with the session's CSRF token
// (`_csrf`, checked by the auth hook). A form that succeeds redirects back to its page (post/redirect/get) or shows what
// must be shown once (a webhook secret); bad input shows the form again with the field's message (422) and stores
// nothing.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { Value } from 'typebox/value';
import { DISPLAY_NAME_PATTERN } from '../../schemas/common.ts';
import type { RouteAuth } from '../../auth.ts';
import { viewerOf } from '../../web/viewer.ts';
import { pageHeaders } from '../../web/layout.tsx';
import type { Viewer } from '../../web/layout.tsx';
import { caught, environmentNotFound, type FieldProblem } from '../../../services/refusal.ts';

export const Html = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } });
export const See = (to: string) => ({ 303: Type.Null({ description: `Back to ${to}` }) });
export const session: { session: string[] }[] = [{ session: [] }];
export const EnvParams = Type.Object({ environment_id: Type.String({ pattern: '^[0-9]{1,19}$' }) });
export const IdParams = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,19}$' }) });
export const Csrf = { _csrf: Type.Optional(Type.String({ maxLength: 128 })) };
export const EmptyForm = Type.Object(Csrf, { additionalProperties: false, examples: [{}] });

export const read = (
  resource: string,
  ids: RouteAuth['tenant'] extends infer T ? (T extends { ids: infer I } ? I : never) : never = [],
): RouteAuth => ({ mode: 'session', role: 'viewer', scope: 'read', tenant: { resource, ids } });
export const write = (
  resource: string,
  ids: RouteAuth['tenant'] extends infer T ? (T extends { ids: infer I } ? I : never) : never = [],
): RouteAuth => ({ mode: 'session', role: 'admin', scope: 'write', tenant: { resource, ids } });
export const envId = [{ in: 'params' as const, name: 'environment_id', foreign: 'environment_not_found' }];
export const hookId = [{ in: 'params' as const, name: 'id', foreign: 'not_found' }];

/** An id of the path that can name no environment (over 15 digits) is an unknown one. */
export const idOf = (text: string): number => {
  const digits = text.replace(/^0+(?=\d)/, '');
  return digits.length <= 15 ? Number(digits) : -1;
};

export const nameRe = new RegExp(DISPLAY_NAME_PATTERN);

const FieldProblems = Type.Array(Type.Object({ field: Type.String(), message: Type.String(), type: Type.String() }));
/** The fields of a refused input (the service's invalid_input); any other refusal, or one whose fields are not field problems, is thrown on. */
export function refusedFields(e: unknown): FieldProblem[] {
  const fields = caught(e, ['invalid_input']).detail.fields;
  if (!Value.Check(FieldProblems, fields)) throw e;
  return fields;
}

/** The services and the per-request helpers of a page plugin. */
export function pageKit(app: Parameters<FastifyPluginAsyncTypebox>[0]) {
  const s = app.services;
  const viewer = (req: FastifyRequest): Viewer => viewerOf(req)!;
  const send = (reply: FastifyReply, body: string, status = 200) => pageHeaders(reply.code(status)).send(body);
  const actor = (req: FastifyRequest) => ({ orgId: req.caller.orgId, tier: req.caller.tier });
  /** The organization's environment the path names; another's, or none, is ENVIRONMENT_NOT_FOUND. */
  async function environment(req: FastifyRequest, raw: string) {
    const id = idOf(raw);
    const env = (await s.environments.list(req.caller.orgId)).find((e) => e.id === id);
    if (!env) throw environmentNotFound(raw);
    return env;
  }
  /** The organization's watchlist, its first 100 entries (the explorer marks what they watch; a watch past them keeps its button, which changes nothing). */
  const watchlistPage = async (req: FastifyRequest) =>
    (await s.watchlists.list({ tier: req.caller.tier, orgId: req.caller.orgId }, { page: 1, per_page: 100 })).items;
  return { s, viewer, send, actor, environment, watchlistPage };
}
