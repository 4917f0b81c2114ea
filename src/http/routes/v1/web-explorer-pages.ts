// The web app's CVE explorer (docs/web.md): the filters of GET /api/v1/cves as a form, cards marked by what the
// organization watches. The conventions of every page: web-common.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { acceptFormBodies } from '../../forms.ts';
import { Type } from 'typebox';
import { CveListQuery } from '../../schemas/cves.ts';
import { readerOf } from './cves.ts';
import { renderExplorer } from '../../web/explorer.tsx';
import { Html, session, read, pageKit } from './web-common.ts';

const webExplorerPages: FastifyPluginAsyncTypebox = async (app) => {
  const { s, viewer, send, watchlistPage } = pageKit(app);
  acceptFormBodies(app, 64 * 1024);

  // The query of GET /api/v1/cves, each field also allowed blank (a GET form sends every field): blanks are dropped and
  // the rest goes to the same service call as the API, so the filters, the sort and the tier's paging caps are the API's.
  const ExplorerQuery = Type.Object(
    Object.fromEntries(
      Object.entries(CveListQuery.properties)
        .filter(([k]) => k !== 'ranked')
        .map(([k, sch]) => [k, Type.Optional(Type.Union([Type.Literal(''), sch]))]),
    ),
    { additionalProperties: false },
  );
  app.get(
    '/cves',
    {
      schema: {
        tags: ['pages'],
        summary:
          "CVE explorer: the filters of GET /api/v1/cves (spec §4.1) as a form whose URL holds the query; cards link to the CVE page; one click watches a card's vendor or product, or the protocol filtered by",
        security: session,
        querystring: ExplorerQuery,
        response: { 200: Html('The explorer') },
      },
      // The cards are corpus data; what the organization watches already (the watchlist) marks them.
      config: { auth: read('watchlist') },
    },
    async (req, reply) => {
      const raw = req.query as Record<string, string | number | boolean>;
      const q = Object.fromEntries(Object.entries(raw).filter(([, x]) => x !== ''));
      const shown = Object.fromEntries(Object.entries(q).map(([k, x]) => [k, String(x)]));
      const [result, watched] = await Promise.all([s.cves.list(readerOf(req), q), watchlistPage(req)]);
      const link = (n: number) => `/cves?${new URLSearchParams({ ...shown, page: String(n) }).toString()}`;
      return send(
        reply,
        renderExplorer(
          viewer(req),
          shown,
          result,
          link,
          req.url.length <= 2000 ? req.url : '/cves',
          new Set(watched.map((w) => `${w.entity_type}:${w.entity_id}`)),
        ),
      );
    },
  );
};
export default webExplorerPages;
