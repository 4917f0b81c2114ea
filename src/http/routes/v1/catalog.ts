// The vendor catalog (spec §4.1, §4.7: /api/v1/catalog/vendors). Its slugs are what GET /api/v1/cves/vendor/{slug}
// takes; cve_count is exact (trigger-maintained facet counts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { collection, pagination } from '../../envelope.ts';
import { readerOf } from './cves.ts';
import { VendorCatalogQuery, VendorListResponse } from '../../schemas/cves.ts';
import {
  ProductCatalogQuery,
  ProductListResponse,
  ProtocolCatalogQuery,
  ProtocolListResponse,
} from '../../schemas/watchlists.ts';

const catalog: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/v1/catalog/vendors',
    {
      schema: {
        tags: ['catalog'],
        summary: 'Vendor catalog: slug, display name and CVE count; alphabetical, searchable with q',
        querystring: VendorCatalogQuery,
        response: { 200: VendorListResponse },
      },
      config: { auth: { mode: 'public', partner: true, tenant: false } },
    },
    async (req) => {
      const r = await app.services.cves.vendors(readerOf(req), req.query);
      return collection(req, r.items, pagination(r.total, r.page, r.perPage, r.items.length), {});
    },
  );

  // Product and protocol catalogs: the ids a watchlist takes (docs/watchlists.md).
  app.get(
    '/api/v1/catalog/products',
    {
      schema: {
        tags: ['catalog'],
        summary:
          'Product catalog: id (<vendor-slug>/<product-key>), name, vendor and CVE count; by vendor, searchable with q',
        querystring: ProductCatalogQuery,
        response: { 200: ProductListResponse },
      },
      config: { auth: { mode: 'public', partner: true, tenant: false } },
    },
    async (req) => {
      const r = await app.services.watchlists.products(readerOf(req), req.query);
      return collection(req, r.items, pagination(r.total, r.page, r.perPage, r.items.length), {});
    },
  );

  app.get(
    '/api/v1/catalog/protocols',
    {
      schema: {
        tags: ['catalog'],
        summary: 'ICS protocol catalog: id, name and CVE count; searchable with q',
        querystring: ProtocolCatalogQuery,
        response: { 200: ProtocolListResponse },
      },
      config: { auth: { mode: 'public', partner: true, tenant: false } },
    },
    async (req) => {
      const r = await app.services.watchlists.protocols(req.query);
      return collection(req, r.items, pagination(r.items.length, 1, Math.max(r.items.length, 1), r.items.length), {});
    },
  );
};
export default catalog;
