// CVE change history (docs/watchlists.md "Change history"): one CVE's recorded changes, and the corpus
// change feed for mirrors and SIEMs (cursor-based). Corpus data, public like the other CVE reads (spec §4.1).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { collection, ok, pagination } from '../../envelope.ts';
import { ApiError } from '../../errors.ts';
import type { RouteAuth } from '../../auth.ts';
import { CveIdParams } from '../../schemas/cves.ts';
import { FeedQuery, FeedResponse, HistoryQuery, HistoryResponse } from '../../schemas/watchlists.ts';

const PUBLIC: RouteAuth = { mode: 'public', partner: true, tenant: false };

const changes: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.changes;

  app.get(
    '/api/v1/cves/:cve_id/history',
    {
      schema: {
        tags: ['cves'],
        summary:
          'Recorded changes of one CVE (new, KEV, EPSS threshold, CVSS, exploit maturity, patch, advisories), newest first',
        params: CveIdParams,
        querystring: HistoryQuery,
        response: { 200: HistoryResponse },
      },
      config: { auth: PUBLIC },
    },
    async (req) => {
      const id = req.params.cve_id.toUpperCase();
      const r = await svc.history(id, req.query, req.principal?.tier ?? null);
      if (!r)
        throw new ApiError('NOT_FOUND', {
          message: `CVE not found: ${id}`,
          detail: { resource: 'cve', identifier: id },
        });
      return collection(req, r.items, pagination(r.total, r.page, r.perPage, r.items.length), { cve_id: id });
    },
  );

  app.get(
    '/api/v1/changes',
    {
      schema: {
        tags: ['cves'],
        summary: 'The corpus change feed, oldest first: follow meta.next_cursor (for mirrors and SIEMs)',
        querystring: FeedQuery,
        response: { 200: FeedResponse },
      },
      config: { auth: PUBLIC },
    },
    async (req) => {
      const r = await svc.feed(req.query);
      return ok(req, r.items, { next_cursor: r.next, has_more: r.more });
    },
  );
};
export default changes;
