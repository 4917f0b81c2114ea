// The web app's watchlist (docs/web.md): what the organization watches, the watch form (also the explorer's
// one-click watch) and the stop-watching form. The conventions of every page: web-common.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { acceptFormBodies } from '../../forms.ts';
import { Type } from 'typebox';
import { ApiError } from '../../errors.ts';
import { NoQuery } from '../../schemas/common.ts';
import { renderWatchlist } from '../../web/watchlist.tsx';
import { caught } from '../../../services/refusal.ts';
import { WATCH_ENTITY_TYPES } from '../../../domain/watchlist.ts';
import { Html, See, session, Csrf, EmptyForm, read, write, pageKit, refusedFields } from './web-common.ts';

const webWatchlistPages: FastifyPluginAsyncTypebox = async (app) => {
  const { s, viewer, send, watchlistPage } = pageKit(app);
  acceptFormBodies(app, 64 * 1024);

  app.get(
    '/watchlist',
    {
      schema: {
        tags: ['pages'],
        summary: 'Watchlist: vendors, products, protocols and CVEs watched; add and remove',
        security: session,
        querystring: NoQuery,
        response: { 200: Html('The watchlist') },
      },
      config: { auth: read('watchlist') },
    },
    async (req, reply) => send(reply, renderWatchlist(viewer(req), await watchlistPage(req))),
  );

  app.post(
    '/watchlist',
    {
      schema: {
        tags: ['pages'],
        summary:
          'Watch form (POST /api/v1/watchlist): back to the watchlist, or to where the form was (`back`); an id the catalog does not hold: the form again with the message (422)',
        security: session,
        querystring: NoQuery,
        body: Type.Object(
          {
            ...Csrf,
            entity_type: Type.Union(WATCH_ENTITY_TYPES.map((t) => Type.Literal(t))),
            entity_id: Type.String({ maxLength: 300 }),
            back: Type.Optional(Type.String({ maxLength: 2000, pattern: '^/[a-z]' })),
          },
          { additionalProperties: false, examples: [{ entity_type: 'protocol', entity_id: 'bacnet' }] },
        ),
        response: { ...See('/watchlist'), 422: Html('The form again, with the reason') },
      },
      config: { auth: write('watchlist') },
    },
    async (req, reply) => {
      const b = req.body;
      // Watched already: done. The list full, or an id the catalog does not hold: the form again with the reason.
      const message = !b.entity_id.trim()
        ? 'Enter what to watch.'
        : await s.watchlists
            .add(req.caller.orgId, req.caller.memberId, { entity_type: b.entity_type, entity_id: b.entity_id.trim() })
            .then(
              () => null,
              (e: unknown) => {
                const r = caught(e, ['already_watching', 'limit_reached', 'invalid_input']);
                return r.code === 'already_watching'
                  ? null
                  : r.code === 'limit_reached'
                    ? `${r.message}.`
                    : refusedFields(e)[0].message;
              },
            );
      if (message === null) return reply.redirect(b.back && !b.back.startsWith('//') ? b.back : '/watchlist', 303);
      return send(
        reply,
        renderWatchlist(viewer(req), await watchlistPage(req), {
          entity_type: b.entity_type,
          entity_id: b.entity_id,
          errors: { entity_id: message },
        }),
        422,
      );
    },
  );

  app.post(
    '/watchlist/:entry_id/delete',
    {
      schema: {
        tags: ['pages'],
        summary: 'Stop-watching form',
        security: session,
        params: Type.Object({ entry_id: Type.String({ pattern: '^[0-9]{1,15}$' }) }),
        querystring: NoQuery,
        body: EmptyForm,
        response: See('/watchlist'),
      },
      config: { auth: write('watchlist', [{ in: 'params', name: 'entry_id', foreign: 'watchlist_entry_not_found' }]) },
    },
    async (req, reply) => {
      const removed = await s.watchlists.remove(req.caller.orgId, Number(req.params.entry_id));
      if (!removed)
        throw new ApiError('NOT_FOUND', {
          message: 'No such watchlist entry in your organization',
          detail: { error: 'watchlist_entry_not_found', entry_id: req.params.entry_id },
        });
      return reply.redirect('/watchlist', 303);
    },
  );
};
export default webWatchlistPages;
