// Watchlists (spec §5.6 "watchlist" writes need owner or admin; shape from the published notes §4,
// docs/watchlists.md): list, add, remove the caller's organization's watched vendors, products, protocols and CVEs.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok, collection, pagination } from '../../envelope.ts';
import { ApiError } from '../../errors.ts';
import { NoBody, NoQuery } from '../../schemas/common.ts';
import {
  CreateWatch,
  WatchEntryParams,
  WatchEntryResponse,
  WatchListQuery,
  WatchListResponse,
} from '../../schemas/watchlists.ts';

const watchlist: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.watchlists;

  app.get(
    '/api/v1/watchlist',
    {
      schema: {
        tags: ['watchlist'],
        summary: "Your organization's watchlist, oldest entry first",
        security: [{ apiKey: [] }, { session: [] }],
        querystring: WatchListQuery,
        response: { 200: WatchListResponse },
      },
      config: {
        auth: { mode: 'key_or_session', role: 'viewer', scope: 'read', tenant: { resource: 'watchlist', ids: [] } },
      },
    },
    async (req) => {
      const r = await svc.list({ tier: req.caller.tier, orgId: req.caller.orgId }, req.query);
      return collection(req, r.items, pagination(r.total, r.page, r.perPage, r.items.length), {});
    },
  );

  app.post(
    '/api/v1/watchlist',
    {
      schema: {
        tags: ['watchlist'],
        summary:
          'Watch a vendor, product, protocol or CVE (owner or admin; keys need the write scope). Watching twice: 409 already_watching. A vendor slug the catalog renamed (docs/watchlists.md "Renamed vendors") is stored under its current id, which the entity_id of the answer gives',
        security: [{ apiKey: [] }, { session: [] }],
        querystring: NoQuery,
        body: CreateWatch,
        response: { 201: WatchEntryResponse },
        errors: [
          { key: 'CONFLICT', error: 'already_watching', when: 'the entity is already watched (detail.entry_id)' },
          { key: 'LIMIT_REACHED', when: 'the watchlist is full (max)' },
        ],
      },
      config: {
        auth: { mode: 'key_or_session', role: 'admin', scope: 'write', tenant: { resource: 'watchlist', ids: [] } },
      },
    },
    async (req, reply) => {
      const r = await svc.add(req.caller.orgId, req.caller.memberId, req.body);
      reply.code(201);
      return ok(req, r.entry, {});
    },
  );

  app.delete(
    '/api/v1/watchlist/:entry_id',
    {
      schema: {
        tags: ['watchlist'],
        summary:
          'Stop watching: removes one entry (owner or admin; keys need the write scope); answers the removed entry',
        security: [{ apiKey: [] }, { session: [] }],
        params: WatchEntryParams,
        querystring: NoQuery,
        body: NoBody,
        response: { 200: WatchEntryResponse },
      },
      config: {
        auth: {
          mode: 'key_or_session',
          role: 'admin',
          scope: 'write',
          tenant: {
            resource: 'watchlist',
            ids: [{ in: 'params', name: 'entry_id', foreign: 'watchlist_entry_not_found' }],
          },
        },
      },
    },
    async (req) => {
      // The path gives the id as text (at most 15 digits, so a safe integer); errors give it as the entry's `id` is
      // given, an integer (as the 409 already_watching does).
      const entryId = Number(req.params.entry_id);
      const removed = await svc.remove(req.caller.orgId, entryId);
      if (!removed) {
        throw new ApiError('NOT_FOUND', {
          message: 'No such watchlist entry in your organization',
          detail: { error: 'watchlist_entry_not_found', entry_id: entryId },
        });
      }
      return ok(req, removed, {});
    },
  );
};
export default watchlist;
