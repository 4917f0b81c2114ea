// Atom feeds (beyond the spec; docs/feeds.md): GET /feeds/vendor/{slug}.atom (public) and
// GET /feeds/watchlist/{token}.atom (the token is the credential), plus the feed-token endpoints of an
// organization (create: shown once; list; revoke).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { CollectionEnvelope, Envelope, ok, listCollection } from '../../envelope.ts';
import { ApiError } from '../../errors.ts';
import { movedPermanently } from '../../conventions.ts';
import { DisplayName, NoBody, NoQuery } from '../../schemas/common.ts';
import { PageQuery } from '../../schemas/cves.ts';
import { acceptNoBody, IdParam } from '../../schemas/accounts.ts';
import { renderAtom } from '../../views/feed-atom.ts';
import type { FeedDocument } from '../../../services/feeds.ts';

const security: Record<string, string[]>[] = [{ apiKey: [] }, { session: [] }];
const FileParam = (name: string, description: string) =>
  Type.Object({ [name]: Type.String({ minLength: 1, maxLength: 120, description }) }, { additionalProperties: false });
const Atom = { description: 'Atom 1.0', content: { 'application/atom+xml': { schema: Type.String() } } };
const TokenView = Type.Object({
  id: Type.Integer(),
  label: Type.Union([Type.String(), Type.Null()]),
  token_start: Type.String({ description: 'The first characters of the token (display only)' }),
  created_at: Type.String({ format: 'date-time' }),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
});
const NewToken = Type.Object({
  ...TokenView.properties,
  token: Type.String({ description: 'The feed token: shown once, stored hashed' }),
  url: Type.String({ description: 'The watchlist feed URL with the token (shown once)' }),
});

function sendFeed(req: FastifyRequest, reply: FastifyReply, d: FeedDocument) {
  reply.header('etag', d.etag).header('cache-control', 'no-cache');
  reply.header('last-modified', new Date(d.updated).toUTCString());
  if (req.headers['if-none-match'] === d.etag) return reply.code(304).send();
  return reply
    .type('application/atom+xml; charset=utf-8')
    .serializer((s: unknown) => String(s))
    .send(renderAtom(d));
}

/** `<name>.atom` → name; anything else is no feed. */
const atomName = (file: string): string | null =>
  file.endsWith('.atom') && file.length > 5 ? file.slice(0, -5) : null;

const feeds: FastifyPluginAsyncTypebox = async (app) => {
  // A token's label is optional: POST /feeds/tokens without a body is a token without one (it was a 422).
  acceptNoBody(app);
  const svc = app.services.feeds;

  app.get(
    '/feeds/vendor/:file',
    {
      schema: {
        tags: ['feeds'],
        summary:
          'Atom feed of one catalog vendor: its 50 most recently new or changed CVEs, newest first (public; ETag/304)',
        params: FileParam('file', '<vendor slug>.atom, slug from GET /api/v1/catalog/vendors'),
        querystring: NoQuery,
        response: {
          200: Atom,
          304: Type.Null({ description: 'Not modified (If-None-Match)' }),
          301: Type.Null({
            description:
              'A slug the catalog renamed ("sapse" became "sap"): Location gives the feed under the current slug',
          }),
        },
      },
      config: { auth: { mode: 'none', tenant: false } },
    },
    async (req, reply) => {
      const slug = atomName(req.params.file);
      const d = slug ? await svc.vendorFeed(slug.toLowerCase()) : null;
      if (!d)
        throw new ApiError('NOT_FOUND', {
          message: `No vendor feed: ${req.params.file}`,
          detail: { resource: 'vendor', identifier: req.params.file },
        });
      if ('movedTo' in d) return movedPermanently(req, reply, `/feeds/vendor/${d.movedTo}.atom`);
      return sendFeed(req, reply, d);
    },
  );

  app.get(
    '/feeds/watchlist/:file',
    {
      schema: {
        tags: ['feeds'],
        summary:
          "Atom feed of an organization's watchlist and stored assets, through a feed token (POST /api/v1/feeds/tokens); a revoked or unknown token: 404",
        params: FileParam('file', '<feed token>.atom'),
        querystring: NoQuery,
        response: { 200: Atom, 304: Type.Null({ description: 'Not modified (If-None-Match)' }) },
      },
      config: { auth: { mode: 'none', tenant: false } },
    },
    async (req, reply) => {
      const token = atomName(req.params.file);
      const d = token ? await svc.watchlistFeed(token) : null;
      // One answer for malformed, unknown and revoked tokens: the feed URL is no oracle.
      if (!d) throw new ApiError('NOT_FOUND', { message: 'No such feed', detail: { resource: 'feed' } });
      return sendFeed(req, reply, d);
    },
  );

  app.post(
    '/api/v1/feeds/tokens',
    {
      schema: {
        tags: ['feeds'],
        summary:
          'Create a watchlist feed token (owner or admin; keys need the write scope): the token and feed URL are shown once',
        security,
        querystring: NoQuery,
        body: Type.Object(
          { label: Type.Optional(DisplayName(200, { description: 'Descriptive name, stored trimmed' })) },
          { additionalProperties: false, examples: [{ label: 'SOC feed reader' }] },
        ),
        response: { 201: Envelope(NewToken, Type.Object({})) },
      },
      config: {
        auth: { mode: 'key_or_session', role: 'admin', scope: 'write', tenant: { resource: 'feed_tokens', ids: [] } },
      },
    },
    async (req, reply) => {
      const t = await svc.createToken(req.caller.orgId, req.caller.memberId, req.body.label?.trim() || null);
      reply.code(201);
      return ok(req, t, {});
    },
  );

  app.get(
    '/api/v1/feeds/tokens',
    {
      schema: {
        tags: ['feeds'],
        summary: "Your organization's feed tokens (never the tokens themselves), oldest first",
        security,
        querystring: PageQuery,
        response: { 200: CollectionEnvelope(TokenView, Type.Object({})) },
      },
      config: {
        auth: { mode: 'key_or_session', role: 'viewer', scope: 'read', tenant: { resource: 'feed_tokens', ids: [] } },
      },
    },
    async (req) => {
      return listCollection(req, await svc.listTokens(req.caller.orgId));
    },
  );

  app.delete(
    '/api/v1/feeds/tokens/:token_id',
    {
      schema: {
        tags: ['feeds'],
        summary: 'Revoke a feed token at once (owner or admin; idempotent): its feed answers 404 from then on',
        security,
        params: IdParam('token_id'),
        querystring: NoQuery,
        body: NoBody,
        response: { 200: Envelope(TokenView, Type.Object({})) },
      },
      config: {
        auth: {
          mode: 'key_or_session',
          role: 'admin',
          scope: 'write',
          tenant: { resource: 'feed_tokens', ids: [{ in: 'params', name: 'token_id', foreign: 'not_found' }] },
        },
      },
    },
    async (req) => {
      const r = await svc.revokeToken(req.caller.orgId, req.params.token_id);
      if (!r) throw new ApiError('NOT_FOUND', { message: 'No such feed token', detail: { error: 'not_found' } });
      return ok(req, r, {});
    },
  );
};
export default feeds;
