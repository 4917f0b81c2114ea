// Type-ahead from the catalogs for the web app's forms (docs/web.md "Type-ahead"): GET /catalog/suggestions answers
// a <datalist> fragment (http/web/suggest.tsx) over the same catalog services as GET /api/v1/catalog/vendors,
// /products and /protocols. Signed-in members only (a viewer too: it changes nothing); the catalogs are public
// corpus data, so the route reads no organization's data (tenant: false).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { readerOf } from './cves.ts';
import { renderSuggestions, SUGGESTION_LISTS, type Suggestion } from '../../web/suggest.tsx';
import { WATCH_ENTITY_TYPES } from '../../../domain/watchlist.ts';
import { Html, session, pageKit } from './web-common.ts';

/** Suggestions per list: a screenful. */
const LIMIT = 10;
const Text = Type.Optional(Type.String({ maxLength: 200 }));

const webCatalogPages: FastifyPluginAsyncTypebox = async (app) => {
  const { s, send } = pageKit(app);

  app.get(
    '/catalog/suggestions',
    {
      schema: {
        tags: ['pages'],
        security: session,
        summary:
          'Type-ahead from the catalogs (an HTML datalist fragment): asset-vendor (vendors whose name holds `vendor`), asset-product (products of `vendor` whose name holds `product`), watch (ids of `entity_type` holding `entity_id`)',
        querystring: Type.Object(
          {
            list: Type.Union(SUGGESTION_LISTS.map((l) => Type.Literal(l))),
            vendor: Text,
            product: Text,
            entity_type: Type.Optional(Type.Union(WATCH_ENTITY_TYPES.map((t) => Type.Literal(t)))),
            entity_id: Text,
          },
          { additionalProperties: false },
        ),
        response: { 200: Html('The suggestions as a <datalist>') },
      },
      config: { auth: { mode: 'session', role: 'viewer', scope: 'read', tenant: false } },
    },
    async (req, reply) => {
      const q = req.query;
      let items: Suggestion[] = [];
      const vendors = async (text: string) => (await s.cves.vendors(readerOf(req), { q: text, per_page: LIMIT })).items;
      if (q.list === 'asset-vendor' && q.vendor?.trim()) {
        items = (await vendors(q.vendor.trim())).map((v) => ({ value: v.name }));
      } else if (q.list === 'asset-product' && q.product?.trim()) {
        items = (await s.watchlists.productSuggestions({ vendor: q.vendor, q: q.product }, LIMIT)).map((p) => ({
          value: p.name,
          label: p.vendor,
        }));
      } else if (q.list === 'watch' && q.entity_id?.trim()) {
        const text = q.entity_id.trim();
        const type = q.entity_type ?? 'vendor';
        if (type === 'vendor') items = (await vendors(text)).map((v) => ({ value: v.slug, label: v.name }));
        else if (type === 'product')
          items = (await s.watchlists.productSuggestions({ q: text }, LIMIT)).map((p) => ({
            value: p.id,
            label: `${p.vendor} ${p.name}`,
          }));
        else if (type === 'protocol')
          items = (await s.watchlists.protocols({ q: text })).items.map((p) => ({ value: p.id, label: p.name }));
      }
      return send(reply, renderSuggestions(q.list, items));
    },
  );
};
export default webCatalogPages;
