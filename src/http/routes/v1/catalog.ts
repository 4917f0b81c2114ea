// The vendor catalog (spec §4.1, §4.7: /api/v1/catalog/vendors). Its slugs are what GET /api/v1/cves/vendor/{slug}
// takes; cve_count is exact (trigger-maintained facet counts).
import type { FastifyPluginAsync } from 'fastify';
import type { Static } from 'typebox';
import { collection, pagination } from '../../envelope.ts';
import { perPageCap } from '../../../domain/tiers.ts';
import { listVendors } from '../../../store/cve-queries.ts';
import { VendorCatalogQuery, VendorListResponse } from '../../schemas/cves.ts';

const catalog: FastifyPluginAsync = async (app) => {
  app.get('/api/v1/catalog/vendors', {
    schema: {
      tags: ['catalog'], summary: 'Vendor catalog: slug, display name and CVE count; alphabetical, searchable with q',
      querystring: VendorCatalogQuery, response: { 200: VendorListResponse },
    },
    config: { auth: { mode: 'public', partner: true } },
  }, async (req) => {
    const q = req.query as Static<typeof VendorCatalogQuery>;
    const page = q.page ?? 1;
    const perPage = Math.min(q.per_page ?? 20, perPageCap(req.principal?.tier ?? null));
    const { total, rows } = await listVendors(app.deps.store.db, q.q?.trim() || undefined, perPage, (page - 1) * perPage);
    return collection(req, rows, pagination(total, page, perPage, rows.length), {});
  });
};
export default catalog;
