// The vendor catalog (spec §4.1, §4.7: /api/v1/catalog/vendors). Its slugs are what GET /api/v1/cves/vendor/{slug}
// takes; cve_count is exact (trigger-maintained facet counts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { collection, pagination } from '../../envelope.ts';
import { readerOf } from './cves.ts';
import { VendorCatalogQuery, VendorListResponse } from '../../schemas/cves.ts';

const catalog: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/api/v1/catalog/vendors', {
    schema: {
      tags: ['catalog'], summary: 'Vendor catalog: slug, display name and CVE count; alphabetical, searchable with q',
      querystring: VendorCatalogQuery, response: { 200: VendorListResponse },
    },
    config: { auth: { mode: 'public', partner: true, tenant: false } },
  }, async (req) => {
    const r = await app.services.cves.vendors(readerOf(req), req.query);
    return collection(req, r.items, pagination(r.total, r.page, r.perPage, r.items.length), {});
  });
};
export default catalog;
