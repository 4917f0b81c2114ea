// The signed-in web app (docs/web.md): overview and environments with their assets (the CVE explorer, alerts, watchlist and webhooks: web-activity-pages.ts).
// Thin routes over the same services as the API, each with its declared policy and tenant scope; forms post
// application/x-www-form-urlencoded with the session's CSRF token (`_csrf`, checked by the auth hook). A form that
// succeeds redirects back to its page (post/redirect/get) or shows what must be shown once (a webhook secret); bad
// input shows the form again with the field's message (422) and stores nothing.
import { oldestKept, utcDay } from '../../../domain/exposure.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../errors.ts';
import { NoQuery } from '../../schemas/common.ts';
import { acceptFormBodies } from '../../forms.ts';
import { renderOverview } from '../../web/overview.tsx';
import { renderEnvironments } from '../../web/environments.tsx';
import { renderEnvironment, type EnvironmentView, type UploadOutcome } from '../../web/environment.tsx';
import { DEFAULT_OPTIONS } from '../../../services/correlation-answer.ts';
import type { RejectedAsset } from '../../../services/asset-correlation.ts';
import { caught, Refusal } from '../../../services/refusal.ts';
import { NAME_TEXT_MESSAGE } from '../../../domain/text.ts';
import multipart from '@fastify/multipart';
import { readCsv } from '../v2/assets.ts';
import { csvRowToHostRecord } from '../../../domain/windows/validate.ts';
import { ASSET_FIELDS } from '../../../domain/assets.ts';
import { MAX_ASSETS } from '../../../services/asset-correlation.ts';
import { MAX_HOSTS } from '../../../services/windows-correlation.ts';
import { parseViewOptions, type ViewOptions } from '../../../domain/windows/view.ts';
import {
  Html,
  See,
  session,
  EnvParams,
  Csrf,
  EmptyForm,
  read,
  write,
  envId,
  idOf,
  nameRe,
  pageKit,
} from './web-common.ts';
import { errorMessage } from '../../../lib/errors.ts';

/** One CSV line; a leading = + - @ would be a formula in a spreadsheet: quoted with a leading apostrophe. */
const csvLine = (values: (string | number | boolean | null | undefined)[]) =>
  values
    .map((v) => {
      const t = v === null || v === undefined ? '' : String(v);
      const safe = /^[=+\-@\t\r]/.test(t) ? `'${t}` : t;
      return /[",\n\r]/.test(safe) || safe !== t ? `"${safe.replace(/"/g, '""')}"` : safe;
    })
    .join(',');
/** An uploaded CSV: 2 MiB (200 rows of the widest Windows host record fit many times over). */
const UPLOAD_LIMIT = 2 * 1024 * 1024;
/** Nameplates per page of an environment: each comes with its CVE table (docs/web.md "Performance"). */
const ENV_PAGE_ASSETS = 50;
/** The v2 view of a stored host on its environment's page: the defaults of GET /api/v2/assets/results. */
const HOST_VIEW: ViewOptions = (() => {
  const o = parseViewOptions({}, { fromText: true, includeClearedDefault: false });
  if (!o.ok) throw new Error('the default view options are refused');
  return o.options;
})();

const webPages: FastifyPluginAsyncTypebox = async (app) => {
  const { s, viewer, send, actor, environment } = pageKit(app);
  acceptFormBodies(app, 64 * 1024);

  app.get(
    '/overview',
    {
      schema: {
        tags: ['pages'],
        summary:
          'Overview: one card per environment (open CVEs by sage priority, KEV, worst-exposed assets), charts, alerts of the last 7 days, disabled webhooks',
        security: session,
        querystring: NoQuery,
        response: { 200: Html('The overview') },
      },
      config: { auth: read('environments') },
    },
    async (req, reply) => {
      const now = app.deps.clock.now();
      const since = new Date(now.getTime() - 7 * 86_400_000).toISOString();
      const [envs, hooks, recent] = await Promise.all([
        s.overview.overview(req.caller),
        // A plan without webhooks has none to show.
        s.webhooks.list(actor(req)).catch((e: unknown) => (caught(e, ['upgrade_required']), [])),
        s.alerts.list({ tier: req.caller.tier, orgId: req.caller.orgId }, { since, page: 1, per_page: 100 }),
      ]);
      // The exposure chart reads the same snapshots as GET /api/v1/environments/{id}/exposure-history.
      const today = utcDay(now);
      const history = new Map(
        await Promise.all(
          envs.map(async (e) => {
            const rows = await s.exposure.history(req.caller.orgId, e.environment.id, oldestKept(today), today);
            return [
              e.environment.id,
              (rows ?? []).map((r) => ({ day: r.day, open_cves: r.figures.open_cves })),
            ] as const;
          }),
        ),
      );
      return send(
        reply,
        renderOverview(viewer(req), {
          envs,
          disabledWebhooks: hooks.filter((w) => w.status === 'disabled'),
          recentAlerts: { items: recent.items, total: recent.total },
          now,
          history,
        }),
      );
    },
  );

  app.get(
    '/',
    {
      schema: {
        tags: ['pages'],
        summary: "The web app's start: the overview",
        security: session,
        querystring: NoQuery,
        response: See('/overview'),
      },
      config: { auth: { mode: 'session', role: 'viewer', scope: 'read', tenant: false } },
    },
    async (_req, reply) => reply.redirect('/overview', 303),
  );

  // Environments ---------------------------------------------------------------------------------------------------
  app.get(
    '/environments',
    {
      schema: {
        tags: ['pages'],
        summary: 'Environments: list, create, delete',
        security: session,
        querystring: NoQuery,
        response: { 200: Html('The environments') },
      },
      config: { auth: read('environments') },
    },
    async (req, reply) => send(reply, renderEnvironments(viewer(req), await s.environments.list(req.caller.orgId))),
  );

  app.post(
    '/environments',
    {
      schema: {
        tags: ['pages'],
        summary:
          "Create-environment form (the same rules as POST /api/v1/environments); bad input: the form again with the field's message (422)",
        security: session,
        querystring: NoQuery,
        body: Type.Object(
          {
            ...Csrf,
            name: Type.String({ maxLength: 1000 }),
            description: Type.Optional(Type.String({ maxLength: 2000 })),
          },
          { additionalProperties: false, examples: [{ name: 'Page plant', description: 'Line A' }] },
        ),
        response: { ...See('/environments'), 422: Html('The form again, with the reason') },
      },
      config: { auth: write('environments') },
    },
    async (req, reply) => {
      const { name, description = '' } = req.body;
      const errors: Record<string, string> = {};
      if (!name.trim()) errors.name = 'Enter a name.';
      else if (name.trim().length > 100) errors.name = 'A name has at most 100 characters.';
      else if (!nameRe.test(name)) errors.name = NAME_TEXT_MESSAGE;
      if (description.length > 500) errors.description = 'A description has at most 500 characters.';
      if (!errors.name && !errors.description) {
        // The name taken, or one that looks like a taken one: the form again.
        const created = await s.environments.create(req.caller.orgId, { name, description }).then(
          () => true,
          (e: unknown) => !caught(e, ['environment_exists', 'invalid_input']),
        );
        if (created) return reply.redirect('/environments', 303);
        errors.name = `An environment named "${name.trim()}" already exists.`;
      }
      return send(
        reply,
        renderEnvironments(viewer(req), await s.environments.list(req.caller.orgId), { name, description, errors }),
        422,
      );
    },
  );

  app.post(
    '/environments/:environment_id/delete',
    {
      schema: {
        tags: ['pages'],
        summary: 'Delete-environment form (with everything stored in it)',
        security: session,
        params: EnvParams,
        querystring: NoQuery,
        body: EmptyForm,
        response: See('/environments'),
      },
      config: { auth: write('environments', envId) },
    },
    async (req, reply) => {
      const removed = await s.environments.remove(req.caller.orgId, idOf(req.params.environment_id));
      if (!removed)
        throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: req.params.environment_id } });
      return reply.redirect('/environments', 303);
    },
  );

  /** A page of the environment's nameplates (ENV_PAGE_ASSETS, by asset_id) and its Windows hosts; `assetId`: that asset alone. */
  async function environmentPage(req: FastifyRequest, raw: string, at: { page?: number; assetId?: string } = {}) {
    const env = await environment(req, raw);
    const page = at.page ?? 1;
    const assetId = at.assetId ?? null;
    const [r, hosts] = await Promise.all([
      s.assets.results({
        principal: req.caller,
        environmentId: env.id,
        assetId,
        page,
        perPage: ENV_PAGE_ASSETS,
        options: DEFAULT_OPTIONS,
      }),
      s.windows.results({
        orgId: req.caller.orgId,
        environmentId: env.id,
        assetId: assetId ?? undefined,
        page: 1,
        perPage: MAX_HOSTS,
        options: HOST_VIEW,
      }),
    ]);
    const view: EnvironmentView = { page, pages: Math.max(1, Math.ceil(r.total / ENV_PAGE_ASSETS)), assetId };
    return {
      env,
      total: r.total,
      assets: Array.from({ length: r.count }, (_, i) => r.answer(i)),
      hosts: { items: hosts.assets, total: hosts.total },
      view,
    };
  }

  app.get(
    '/environments/:environment_id',
    {
      schema: {
        tags: ['pages'],
        summary:
          'One environment: its assets with their CVEs (the GET /api/v1/assets/results answer), its Windows hosts (the GET /api/v2/assets/results answer), add, upload and remove assets',
        security: session,
        params: EnvParams,
        querystring: Type.Object(
          {
            uploaded: Type.Optional(Type.Union([Type.Literal('nameplates'), Type.Literal('windows')])),
            page: Type.Optional(
              Type.Integer({
                minimum: 1,
                maximum: 10_000,
                description: `The page of nameplates (${ENV_PAGE_ASSETS} a page, by asset_id)`,
              }),
            ),
            asset_id: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 64,
                description: "One asset alone (a nameplate or a Windows host): where an alert's asset links lead",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Html('The environment') },
      },
      config: { auth: read('environments', envId) },
    },
    async (req, reply) => {
      const p = await environmentPage(req, req.params.environment_id, {
        page: req.query.page,
        assetId: req.query.asset_id,
      });
      return send(
        reply,
        renderEnvironment(
          viewer(req),
          p.env,
          p.assets,
          p.total,
          {},
          p.hosts,
          req.query.uploaded ? { kind: req.query.uploaded, done: true } : undefined,
          p.view,
        ),
      );
    },
  );

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
  const CSV_DOC = (what: string) => ({
    200: { description: `CSV: ${what}`, content: { 'text/csv': { schema: Type.String() } } },
  });

  app.get(
    '/environments/:environment_id/export.csv',
    {
      schema: {
        tags: ['pages'],
        summary:
          "The environment's results as CSV: one row per asset and CVE (an asset without any CVE once), nameplates (GET /api/v1/assets/results) then Windows hosts (GET /api/v2/assets/results)",
        security: session,
        params: EnvParams,
        querystring: NoQuery,
        produces: ['text/csv'],
        response: CSV_DOC('the results'),
      },
      config: { auth: read('environments', envId) },
    },
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
    {
      schema: {
        tags: ['pages'],
        summary:
          "The environment's inventory as CSV: its nameplates (asset_id, vendor, product, version, cpe) and its Windows hosts as submitted (the §2.6 fields)",
        security: session,
        params: EnvParams,
        querystring: NoQuery,
        produces: ['text/csv'],
        response: CSV_DOC('the inventory'),
      },
      config: { auth: read('environments', envId) },
    },
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

  app.post(
    '/environments/:environment_id/assets',
    {
      schema: {
        tags: ['pages'],
        summary:
          "Add-asset form: the asset is correlated and stored in the environment (POST /api/v1/assets/correlate-cves with environment_id); bad input: the form again with the field's message (422), nothing stored",
        security: session,
        params: EnvParams,
        querystring: NoQuery,
        body: Type.Object(
          {
            ...Csrf,
            asset_id: Type.String({ maxLength: 1000 }),
            vendor: Type.String({ maxLength: 1000 }),
            product: Type.String({ maxLength: 1000 }),
            version: Type.Optional(Type.String({ maxLength: 1000 })),
          },
          {
            additionalProperties: false,
            examples: [{ asset_id: 'page-plc-1', vendor: 'Siemens', product: 'SIMATIC S7-1500', version: '2.9' }],
          },
        ),
        response: { ...See('the environment'), 422: Html('The form again, with the reason') },
      },
      config: { auth: write('environments', envId) },
    },
    async (req, reply) => {
      const env = await environment(req, req.params.environment_id);
      const { asset_id, vendor, product, version = '' } = req.body;
      const errors: Record<string, string> = {};
      let refused = false;
      try {
        const r = await s.assets.correlate({
          principal: req.caller,
          requestId: req.id,
          assets: [{ asset_id: asset_id.trim(), vendor, product, version }],
          environmentId: env.id,
          options: DEFAULT_OPTIONS,
        });
        for (const x of r.rejected) {
          refused = true;
          for (const f of x.errors) errors[f.field.replace(/^.*\./, '')] = f.message;
        }
      } catch (e) {
        // The service refuses the whole request for an asset it cannot read (the same 422 as the API): its fields.
        const r = caught(e, ['invalid_input']);
        refused = true;
        // Every asset refused: the per-asset reasons ride in data.rejected, as in the API's answer.
        const rejected = (r.detail.data as { rejected?: RejectedAsset[] } | undefined)?.rejected ?? [];
        for (const x of rejected) for (const f of x.errors) errors[f.field.replace(/^.*\./, '')] = f.message;
        if (!Object.keys(errors).length) errors.asset = r.message;
      }
      if (refused) {
        if (!Object.keys(errors).length) errors.asset = 'This asset was refused.';
        const p = await environmentPage(req, req.params.environment_id);
        return send(
          reply,
          renderEnvironment(
            viewer(req),
            p.env,
            p.assets,
            p.total,
            { asset_id, vendor, product, version, errors },
            p.hosts,
          ),
          422,
        );
      }
      return reply.redirect(`/environments/${env.id}`, 303);
    },
  );

  app.post(
    '/assets/:asset_id/delete',
    {
      schema: {
        tags: ['pages'],
        summary: 'Remove-asset form (DELETE /api/v1/assets/{asset_id} with environment_id): back to the environment',
        security: session,
        params: Type.Object({ asset_id: Type.String({ minLength: 1, maxLength: 64 }) }),
        querystring: Type.Object(
          { environment_id: Type.Optional(EnvParams.properties.environment_id) },
          { additionalProperties: false },
        ),
        body: EmptyForm,
        response: See('the environment'),
      },
      config: {
        auth: write('windows_results', [
          { in: 'query', name: 'environment_id', foreign: 'environment_not_found' },
          { in: 'params', name: 'asset_id', foreign: 'asset_not_found' },
        ]),
      },
    },
    async (req, reply) => {
      // Without environment_id: the Windows hosts stored without one (as DELETE /api/v1/assets/{asset_id}).
      const id = req.query.environment_id === undefined ? null : idOf(req.query.environment_id);
      const r = await s.environments.removeAsset(req.caller.orgId, id, req.params.asset_id);
      if (r === 'environment')
        throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: req.query.environment_id } });
      if (r === 'asset')
        throw new ApiError('ASSET_NOT_FOUND', { detail: { asset_id: req.params.asset_id, environment_id: id } });
      return reply.redirect(id === null ? '/environments' : `/environments/${id}`, 303);
    },
  );

  // CSV upload of nameplates (asset_id,vendor,product,version[,cpe]) or of Windows hosts (the §2.6 columns, as POST
  // /api/v2/assets/correlate-csv): the same validation and services as the API, with one difference a person at a
  // page needs: a file with any refused row is refused whole (the rows and their reasons on the page), nothing stored.
  await app.register(async (up) => {
    await up.register(multipart, {
      attachFieldsToBody: 'keyValues',
      limits: { files: 1, fileSize: UPLOAD_LIMIT, fields: 4, parts: 5 },
    });
    up.post(
      '/environments/:environment_id/upload',
      {
        schema: {
          tags: ['pages'],
          summary:
            "Upload form (multipart: kind = nameplates or windows, file = the CSV): every row stored, or the page with each refused row's reasons (422) and nothing stored",
          security: session,
          params: EnvParams,
          querystring: NoQuery,
          consumes: ['multipart/form-data'],
          response: { ...See('the environment'), 422: Html('The environment page with the refused rows') },
        },
        config: { auth: write('environments', envId) },
      },
      async (req, reply) => {
        const envRaw = (req.params as { environment_id: string }).environment_id;
        const env = await environment(req, envRaw);
        const body = (req.body ?? {}) as Record<string, unknown>;
        const kind = body.kind === 'windows' ? 'windows' : body.kind === 'nameplates' ? 'nameplates' : null;
        const refuse = async (u: UploadOutcome) => {
          const p = await environmentPage(req, envRaw);
          return send(reply, renderEnvironment(viewer(req), p.env, p.assets, p.total, {}, p.hosts, u), 422);
        };
        if (kind === null)
          return refuse({ kind: 'nameplates', message: 'Choose what the file holds: nameplates or Windows hosts.' });
        const file = body.file;
        const text = Buffer.isBuffer(file) ? file : typeof file === 'string' ? Buffer.from(file) : null;
        if (!text || text.length === 0) return refuse({ kind, message: 'Choose a CSV file to upload.' });
        let csv: string;
        try {
          csv = new TextDecoder('utf-8', { fatal: true }).decode(text);
        } catch {
          return refuse({ kind, message: 'The file is not valid UTF-8 text: save it as CSV UTF-8.' });
        }
        try {
          const rows = readCsv(csv, kind === 'windows' ? 'hosts' : 'nameplates');
          const max = kind === 'windows' ? MAX_HOSTS : MAX_ASSETS;
          if (rows.length === 0) return await refuse({ kind, message: 'The file has a header row and no data row.' });
          if (rows.length > max)
            return await refuse({
              kind,
              message: `A file holds at most ${max} rows (this one has ${rows.length}); split it.`,
            });
          if (kind === 'nameplates') {
            const extra = Object.keys(rows[0]).filter((h) => !(ASSET_FIELDS as readonly string[]).includes(h));
            if (extra.length)
              return await refuse({
                kind,
                message: `Columns not part of a nameplate: ${extra.join(', ')} (the columns are ${ASSET_FIELDS.join(', ')}).`,
              });
            await s.assets.correlate({
              principal: req.caller,
              requestId: req.id,
              environmentId: env.id,
              options: DEFAULT_OPTIONS,
              wholeFile: true,
              assets: rows.map((r) =>
                Object.fromEntries(
                  Object.entries(r).filter(([k, v]) => !(k === 'version' || k === 'cpe') || v.trim() !== ''),
                ),
              ),
            });
          } else {
            await app.limits.correlation.check(req.caller, rows.length);
            await s.windows.correlate({
              orgId: req.caller.orgId,
              requestId: req.id,
              environmentId: env.id,
              hosts: rows.map(csvRowToHostRecord),
              software: [],
              options: HOST_VIEW,
              wholeFile: true,
            });
          }
        } catch (e) {
          // The services' refusal of the file (invalid_input, the rows in data.rejected), or a 422 of the limits.
          const refusal = e instanceof Refusal ? caught(e, ['invalid_input']) : null;
          if (!refusal && !(e instanceof ApiError && e.entry.status === 422)) throw e;
          const data = refusal ? refusal.detail.data : (e as ApiError).opts.data;
          const rejected = (
            data as
              | {
                  rejected?: { index: number; asset_id: string | null; errors: { field: string; message: string }[] }[];
                }
              | undefined
          )?.rejected;
          return refuse({
            kind,
            message: rejected?.length
              ? `${rejected.length} row${rejected.length > 1 ? 's' : ''} refused: nothing was stored. Correct the file and upload it again.`
              : (refusal?.message ?? errorMessage(e)),
            // Row numbers as a spreadsheet shows them: the header is row 1.
            rows: rejected?.map((x) => ({
              row: x.index + 2,
              asset_id: x.asset_id,
              errors: x.errors.map((f) => `${f.field.replace(/^.*\./, '')}: ${f.message}`),
            })),
          });
        }
        return reply.redirect(`/environments/${env.id}?uploaded=${kind}`, 303);
      },
    );
  });
};
export default webPages;
