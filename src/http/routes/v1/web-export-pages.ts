// An environment's CSV exports (docs/web.md): its results (one row per asset and CVE) and its inventory, read page by
// page through the same services as the API's results. The conventions of every page: web-common.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { NoQuery } from '../../schemas/common.ts';
import { acceptFormBodies } from '../../forms.ts';
import { DEFAULT_OPTIONS } from '../../../services/correlation-answer.ts';
import { MAX_HOSTS } from '../../../services/windows-correlation.ts';
import { session, EnvParams, read, envId, pageKit } from './web-common.ts';
import { HOST_VIEW } from './web-environment-view.ts';

/** One CSV line; a leading = + - @ would be a formula in a spreadsheet: quoted with a leading apostrophe. */
const csvLine = (values: (string | number | boolean | null | undefined)[]) =>
  values
    .map((v) => {
      const t = v === null || v === undefined ? '' : String(v);
      const safe = /^[=+\-@\t\r]/.test(t) ? `'${t}` : t;
      return /[",\n\r]/.test(safe) || safe !== t ? `"${safe.replace(/"/g, '""')}"` : safe;
    })
    .join(',');
/** The route options of an environment's CSV export: read of the environment the path names, a CSV answer. */
const csvExport = (summary: string, what: string) => ({
  schema: {
    tags: ['pages'],
    summary,
    security: session,
    params: EnvParams,
    querystring: NoQuery,
    produces: ['text/csv'],
    response: { 200: { description: `CSV: ${what}`, content: { 'text/csv': { schema: Type.String() } } } },
  },
  config: { auth: read('environments', envId) },
});

const webExportPages: FastifyPluginAsyncTypebox = async (app) => {
  const { s, environment } = pageKit(app);
  acceptFormBodies(app, 64 * 1024);

  /** A CSV file answer: UTF-8, never cached, never sniffed, downloaded under `name`. */
  const sendCsv = (reply: FastifyReply, name: string, lines: string[]) =>
    reply
      .type('text/csv; charset=utf-8')
      .header('Cache-Control', 'no-store')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Content-Disposition', `attachment; filename="${name}"`)
      .send(`${lines.join('\r\n')}\r\n`);
  /** Every stored nameplate's answer and every stored Windows host's v2 view, page by page. */
  async function* nameplates(req: FastifyRequest, environmentId: number) {
    for (let page = 1; ; page++) {
      const r = await s.assets.results({
        principal: req.caller,
        environmentId,
        assetId: null,
        page,
        perPage: 500,
        options: DEFAULT_OPTIONS,
      });
      for (let i = 0; i < r.count; i++) yield r.answer(i);
      if (page * 500 >= r.total) break;
    }
  }
  async function* hostPages<T>(fetch: (page: number) => Promise<{ total: number; items: T[] }>) {
    for (let page = 1; ; page++) {
      const r = await fetch(page);
      yield* r.items;
      if (page * MAX_HOSTS >= r.total) break;
    }
  }

  app.get(
    '/environments/:environment_id/export.csv',
    csvExport(
      "The environment's results as CSV: one row per asset and CVE (an asset without any CVE once), nameplates (GET /api/v1/assets/results) then Windows hosts (GET /api/v2/assets/results)",
      'the results',
    ),
    async (req, reply) => {
      const env = await environment(req, req.params.environment_id);
      const lines = [
        csvLine([
          'asset_id',
          'vendor',
          'product',
          'version',
          'cve_id',
          'status',
          'reason',
          'fixed_version',
          'known_exploited',
          'severity',
        ]),
      ];
      for await (const a of nameplates(req, env.id)) {
        const base = [a.asset.asset_id, a.asset.vendor, a.asset.product, a.asset.version];
        if (!a.listed.length) lines.push(csvLine([...base, null, null, null, null, null, null]));
        for (const d of a.listed)
          lines.push(
            csvLine([
              ...base,
              d.cve_id,
              d.v.status,
              d.v.reason,
              d.v.fixed_version,
              d.card.kev_flagged,
              d.card.severity,
            ]),
          );
      }
      const builds = new Map<string, string | null>();
      for await (const h of hostPages((page) =>
        s.windows
          .inventory(req.caller.orgId, env.id, page, MAX_HOSTS)
          .then((r) => ({ total: r.total, items: r.hosts })),
      ))
        builds.set(h.asset_id, h.os_build);
      for await (const h of hostPages((page) =>
        s.windows
          .results({ orgId: req.caller.orgId, environmentId: env.id, page, perPage: MAX_HOSTS, options: HOST_VIEW })
          .then((r) => ({ total: r.total, items: r.assets })),
      )) {
        const base = [h.asset_id, 'Microsoft', h.microsoft_product ?? '', builds.get(h.asset_id) ?? null];
        if (!h.cves.length) lines.push(csvLine([...base, null, null, null, null, null, null]));
        // The host's fix: the update to install (and the build that carries it), as the v2 result words it.
        for (const c of h.cves)
          lines.push(
            csvLine([
              ...base,
              c.cve_id,
              c.status,
              c.fix.action,
              c.kb ? `${c.kb}${c.fixed_build ? ` (build ${c.fixed_build})` : ''}` : c.fixed_build,
              c.known_exploited,
              c.severity,
            ]),
          );
      }
      return sendCsv(reply, `environment-${env.id}.csv`, lines);
    },
  );

  app.get(
    '/environments/:environment_id/inventory.csv',
    csvExport(
      "The environment's inventory as CSV: its nameplates (asset_id, vendor, product, version, cpe) and its Windows hosts as submitted (the §2.6 fields)",
      'the inventory',
    ),
    async (req, reply) => {
      const env = await environment(req, req.params.environment_id);
      const lines = [
        csvLine([
          'kind',
          'asset_id',
          'vendor',
          'product',
          'version',
          'cpe',
          'edition_id',
          'display_version',
          'os_build',
          'architecture',
          'installation_type',
          'installed_kbs',
          'kb_source',
          'esu_enrolled',
          'collected_at',
        ]),
      ];
      for await (const a of nameplates(req, env.id))
        lines.push(
          csvLine([
            'nameplate',
            a.asset.asset_id,
            a.asset.vendor,
            a.asset.product,
            a.asset.version,
            a.asset.cpe ?? null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
          ]),
        );
      for await (const h of hostPages((page) =>
        s.windows
          .inventory(req.caller.orgId, env.id, page, MAX_HOSTS)
          .then((r) => ({ total: r.total, items: r.hosts })),
      )) {
        lines.push(
          csvLine([
            'windows',
            h.asset_id,
            'Microsoft',
            h.os_product,
            null,
            null,
            h.edition_id,
            h.display_version,
            h.os_build,
            h.architecture,
            h.installation_type,
            h.installed_kbs === null ? null : h.installed_kbs.join(';'),
            h.kb_source,
            h.esu_enrolled === null ? null : h.esu_enrolled ? 'yes' : 'no',
            h.collected_at,
          ]),
        );
      }
      return sendCsv(reply, `environment-${env.id}-inventory.csv`, lines);
    },
  );
};
export default webExportPages;
