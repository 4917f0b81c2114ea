// The signed-in web app (docs/web.md): overview, environments and their assets, alerts, watchlist and webhooks.
// Thin routes over the same services as the API, each with its declared policy and tenant scope; forms post
// application/x-www-form-urlencoded with the session's CSRF token (`_csrf`, checked by the auth hook). A form that
// succeeds redirects back to its page (post/redirect/get) or shows what must be shown once (a webhook secret); bad
// input shows the form again with the field's message (422) and stores nothing.
import { oldestKept, utcDay } from '../../../domain/exposure.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { CveListQuery } from '../../schemas/cves.ts';
import { readerOf } from './cves.ts';
import { ApiError } from '../../errors.ts';
import { DISPLAY_NAME_PATTERN, NoQuery } from '../../schemas/common.ts';
import { acceptFormBodies } from '../../forms.ts';
import type { RouteAuth } from '../../auth.ts';
import { viewerOf } from '../../web/viewer.ts';
import { pageHeaders } from '../../web/layout.tsx';
import type { Viewer } from '../../web/layout.tsx';
import { renderExplorer, renderAlerts, renderEnvironment, renderEnvironments, renderOverview, renderWatchlist, renderWebhooks, type UploadOutcome, type WebhooksPageState } from '../../web/app.tsx';
import { DEFAULT_OPTIONS } from '../../../services/correlation-answer.ts';
import type { WebhookRefusal } from '../../../services/webhooks.ts';
import type { RejectedAsset } from '../../../services/asset-correlation.ts';
import { caught, type FieldProblem } from '../../../services/refusal.ts';
import { WATCH_ENTITY_TYPES } from '../../../domain/watchlist.ts';
import { CHANGE_KINDS } from '../../../domain/changes.ts';
import { NAME_TEXT_MESSAGE } from '../../../domain/text.ts';
import multipart from '@fastify/multipart';
import { readCsv } from '../v2/assets.ts';
import { csvRowToHostRecord } from '../../../domain/windows/validate.ts';
import { ASSET_FIELDS } from '../../../domain/assets.ts';
import { MAX_ASSETS } from '../../../services/asset-correlation.ts';
import { MAX_HOSTS } from '../../../services/windows-correlation.ts';
import { parseViewOptions, type ViewOptions } from '../../../domain/windows/view.ts';

const Html = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } });
const See = (to: string) => ({ 303: Type.Null({ description: `Back to ${to}` }) });
const session = [{ session: [] as string[] }];
const EnvParams = Type.Object({ environment_id: Type.String({ pattern: '^[0-9]{1,19}$' }) });
const IdParams = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,19}$' }) });
const Csrf = { _csrf: Type.Optional(Type.String({ maxLength: 128 })) };
const EmptyForm = Type.Object(Csrf, { additionalProperties: false, examples: [{}] });

const read = (resource: string, ids: RouteAuth['tenant'] extends infer T ? T extends { ids: infer I } ? I : never : never = []): RouteAuth =>
  ({ mode: 'session', role: 'viewer', scope: 'read', tenant: { resource, ids } });
const write = (resource: string, ids: RouteAuth['tenant'] extends infer T ? T extends { ids: infer I } ? I : never : never = []): RouteAuth =>
  ({ mode: 'session', role: 'admin', scope: 'write', tenant: { resource, ids } });
const envId = [{ in: 'params' as const, name: 'environment_id', foreign: 'environment_not_found' }];
const hookId = [{ in: 'params' as const, name: 'id', foreign: 'not_found' }];

/** An id of the path that can name no environment (over 15 digits) is an unknown one. */
const idOf = (text: string): number => {
  const digits = text.replace(/^0+(?=\d)/, '');
  return digits.length <= 15 ? Number(digits) : -1;
};

const nameRe = new RegExp(DISPLAY_NAME_PATTERN);
/** One CSV line; a leading = + - @ would be a formula in a spreadsheet: quoted with a leading apostrophe. */
const csvLine = (values: (string | number | boolean | null | undefined)[]) => values.map((v) => {
  const t = v === null || v === undefined ? '' : String(v);
  const safe = /^[=+\-@\t\r]/.test(t) ? `'${t}` : t;
  return /[",\n\r]/.test(safe) || safe !== t ? `"${safe.replace(/"/g, '""')}"` : safe;
}).join(',');
/** An uploaded CSV: 2 MiB (200 rows of the widest Windows host record fit many times over). */
const UPLOAD_LIMIT = 2 * 1024 * 1024;
/** The v2 view of a stored host on its environment's page: the defaults of GET /api/v2/assets/results. */
const HOST_VIEW: ViewOptions = (() => {
  const o = parseViewOptions({}, { fromText: true, includeClearedDefault: false });
  if (!o.ok) throw new Error('the default view options are refused');
  return o.options;
})();

const webPages: FastifyPluginAsyncTypebox = async (app) => {
  const s = app.services;
  acceptFormBodies(app, 64 * 1024);
  const viewer = (req: FastifyRequest): Viewer => viewerOf(req)!;
  const send = (reply: FastifyReply, body: string, status = 200) => pageHeaders(reply.code(status)).send(body);
  const actor = (req: FastifyRequest) => ({ orgId: req.principal!.orgId, tier: req.principal!.tier });

  async function environment(req: FastifyRequest, raw: string) {
    const id = idOf(raw);
    const env = (await s.environments.list(req.principal!.orgId)).find((e) => e.id === id);
    if (!env) throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: raw } });
    return env;
  }

  app.get('/overview', {
    schema: { tags: ['pages'], summary: 'Overview: one card per environment (open CVEs by sage priority, KEV, worst-exposed assets), charts, alerts of the last 7 days, disabled webhooks', security: session, querystring: NoQuery, response: { 200: Html('The overview') } },
    config: { auth: read('environments') },
  }, async (req, reply) => {
    const now = app.deps.clock.now();
    const since = new Date(now.getTime() - 7 * 86_400_000).toISOString();
    const [envs, hooks, recent] = await Promise.all([
      s.overview.overview(req.principal!),
      s.webhooks.list(actor(req)),
      s.alerts.list({ tier: req.principal!.tier, orgId: req.principal!.orgId }, { since, page: 1, per_page: 100 }),
    ]);
    // The exposure chart reads the same snapshots as GET /api/v1/environments/{id}/exposure-history.
    const today = utcDay(now);
    const history = new Map<number, { day: string; open_cves: number }[]>();
    for (const e of envs) {
      const rows = await s.exposure.history(req.principal!.orgId, e.environment.id, oldestKept(today), today);
      history.set(e.environment.id, (rows ?? []).map((r) => ({ day: r.day, open_cves: r.figures.open_cves })));
    }
    return send(reply, renderOverview(viewer(req), {
      envs, disabledWebhooks: hooks.ok ? hooks.webhooks.filter((w) => w.status === 'disabled') : [],
      recentAlerts: { items: recent.items, total: recent.total }, now, history,
    }));
  });

  app.get('/', {
    schema: { tags: ['pages'], summary: 'The web app\'s start: the overview', security: session, querystring: NoQuery, response: See('/overview') },
    config: { auth: { mode: 'session', role: 'viewer', scope: 'read', tenant: false } },
  }, async (_req, reply) => reply.redirect('/overview', 303));

  // Environments ---------------------------------------------------------------------------------------------------
  app.get('/environments', {
    schema: { tags: ['pages'], summary: 'Environments: list, create, delete', security: session, querystring: NoQuery, response: { 200: Html('The environments') } },
    config: { auth: read('environments') },
  }, async (req, reply) => send(reply, renderEnvironments(viewer(req), await s.environments.list(req.principal!.orgId))));

  app.post('/environments', {
    schema: {
      tags: ['pages'], summary: 'Create-environment form (the same rules as POST /api/v1/environments); bad input: the form again with the field\'s message (422)', security: session, querystring: NoQuery,
      body: Type.Object({ ...Csrf, name: Type.String({ maxLength: 1000 }), description: Type.Optional(Type.String({ maxLength: 2000 })) }, { additionalProperties: false, examples: [{ name: 'Page plant', description: 'Line A' }] }),
      response: { ...See('/environments'), 422: Html('The form again, with the reason') },
    },
    config: { auth: write('environments') },
  }, async (req, reply) => {
    const { name, description = '' } = req.body;
    const errors: Record<string, string> = {};
    if (!name.trim()) errors.name = 'Enter a name.';
    else if (name.trim().length > 100) errors.name = 'A name has at most 100 characters.';
    else if (!nameRe.test(name)) errors.name = NAME_TEXT_MESSAGE;
    if (description.length > 500) errors.description = 'A description has at most 500 characters.';
    if (!errors.name && !errors.description) {
      // The name taken, or one that looks like a taken one: the form again.
      const created = await s.environments.create(req.principal!.orgId, { name, description }).then(() => true, (e: unknown) => !caught(e, ['environment_exists', 'invalid_input']));
      if (created) return reply.redirect('/environments', 303);
      errors.name = `An environment named "${name.trim()}" already exists.`;
    }
    return send(reply, renderEnvironments(viewer(req), await s.environments.list(req.principal!.orgId), { name, description, errors }), 422);
  });

  app.post('/environments/:environment_id/delete', {
    schema: { tags: ['pages'], summary: 'Delete-environment form (with everything stored in it)', security: session, params: EnvParams, querystring: NoQuery, body: EmptyForm, response: See('/environments') },
    config: { auth: write('environments', envId) },
  }, async (req, reply) => {
    const removed = await s.environments.remove(req.principal!.orgId, idOf(req.params.environment_id));
    if (!removed) throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: req.params.environment_id } });
    return reply.redirect('/environments', 303);
  });

  async function environmentPage(req: FastifyRequest, raw: string) {
    const env = await environment(req, raw);
    const [r, hosts] = await Promise.all([
      s.assets.results({ principal: req.principal!, environmentId: env.id, assetId: null, page: 1, perPage: 200, options: DEFAULT_OPTIONS }),
      s.windows.results({ orgId: req.principal!.orgId, environmentId: env.id, page: 1, perPage: 200, options: HOST_VIEW }),
    ]);
    return { env, total: r.total, assets: Array.from({ length: r.count }, (_, i) => r.answer(i)), hosts: { items: hosts.assets, total: hosts.total } };
  }

  app.get('/environments/:environment_id', {
    schema: {
      tags: ['pages'], summary: 'One environment: its assets with their CVEs (the GET /api/v1/assets/results answer), its Windows hosts (the GET /api/v2/assets/results answer), add, upload and remove assets', security: session, params: EnvParams,
      querystring: Type.Object({ uploaded: Type.Optional(Type.Union([Type.Literal('nameplates'), Type.Literal('windows')])) }, { additionalProperties: false }), response: { 200: Html('The environment') },
    },
    config: { auth: read('environments', envId) },
  }, async (req, reply) => {
    const p = await environmentPage(req, req.params.environment_id);
    return send(reply, renderEnvironment(viewer(req), p.env, p.assets, p.total, {}, p.hosts, req.query.uploaded ? { kind: req.query.uploaded, done: true } : undefined));
  });

  /** A CSV file answer: UTF-8, never cached, never sniffed, downloaded under `name`. */
  const sendCsv = (reply: FastifyReply, name: string, lines: string[]) => reply.type('text/csv; charset=utf-8').header('Cache-Control', 'no-store').header('X-Content-Type-Options', 'nosniff')
    .header('Content-Disposition', `attachment; filename="${name}"`).send(`${lines.join('\r\n')}\r\n`);
  /** Every stored nameplate's answer and every stored Windows host's v2 view, page by page. */
  async function* nameplates(req: FastifyRequest, environmentId: number) {
    for (let page = 1; ; page++) {
      const r = await s.assets.results({ principal: req.principal!, environmentId, assetId: null, page, perPage: 500, options: DEFAULT_OPTIONS });
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
  const CSV_DOC = (what: string) => ({ 200: { description: `CSV: ${what}`, content: { 'text/csv': { schema: Type.String() } } } });

  app.get('/environments/:environment_id/export.csv', {
    schema: {
      tags: ['pages'], summary: 'The environment\'s results as CSV: one row per asset and CVE (an asset without any CVE once), nameplates (GET /api/v1/assets/results) then Windows hosts (GET /api/v2/assets/results)', security: session, params: EnvParams, querystring: NoQuery,
      produces: ['text/csv'], response: CSV_DOC('the results'),
    },
    config: { auth: read('environments', envId) },
  }, async (req, reply) => {
    const env = await environment(req, req.params.environment_id);
    const lines = [csvLine(['asset_id', 'vendor', 'product', 'version', 'cve_id', 'status', 'reason', 'fixed_version', 'known_exploited', 'severity'])];
    for await (const a of nameplates(req, env.id)) {
      const base = [a.asset.asset_id, a.asset.vendor, a.asset.product, a.asset.version];
      if (!a.listed.length) lines.push(csvLine([...base, null, null, null, null, null, null]));
      for (const d of a.listed) lines.push(csvLine([...base, d.cve_id, d.v.status, d.v.reason, d.v.fixed_version, d.card.kev_flagged, d.card.severity]));
    }
    const builds = new Map<string, string | null>();
    for await (const h of hostPages((page) => s.windows.inventory(req.principal!.orgId, env.id, page, MAX_HOSTS).then((r) => ({ total: r.total, items: r.hosts })))) builds.set(h.asset_id, h.os_build);
    for await (const h of hostPages((page) => s.windows.results({ orgId: req.principal!.orgId, environmentId: env.id, page, perPage: MAX_HOSTS, options: HOST_VIEW }).then((r) => ({ total: r.total, items: r.assets })))) {
      const base = [h.asset_id, 'Microsoft', h.microsoft_product ?? '', builds.get(h.asset_id) ?? null];
      if (!h.cves.length) lines.push(csvLine([...base, null, null, null, null, null, null]));
      // The host's fix: the update to install (and the build that carries it), as the v2 result words it.
      for (const c of h.cves) lines.push(csvLine([...base, c.cve_id, c.status, c.fix.action, c.kb ? `${c.kb}${c.fixed_build ? ` (build ${c.fixed_build})` : ''}` : c.fixed_build, c.known_exploited, c.severity]));
    }
    return sendCsv(reply, `environment-${env.id}.csv`, lines);
  });

  app.get('/environments/:environment_id/inventory.csv', {
    schema: {
      tags: ['pages'], summary: 'The environment\'s inventory as CSV: its nameplates (asset_id, vendor, product, version, cpe) and its Windows hosts as submitted (the §2.6 fields)', security: session, params: EnvParams, querystring: NoQuery,
      produces: ['text/csv'], response: CSV_DOC('the inventory'),
    },
    config: { auth: read('environments', envId) },
  }, async (req, reply) => {
    const env = await environment(req, req.params.environment_id);
    const lines = [csvLine(['kind', 'asset_id', 'vendor', 'product', 'version', 'cpe', 'edition_id', 'display_version', 'os_build', 'architecture', 'installation_type', 'installed_kbs', 'kb_source', 'esu_enrolled', 'collected_at'])];
    for await (const a of nameplates(req, env.id)) lines.push(csvLine(['nameplate', a.asset.asset_id, a.asset.vendor, a.asset.product, a.asset.version, a.asset.cpe ?? null, null, null, null, null, null, null, null, null, null]));
    for await (const h of hostPages((page) => s.windows.inventory(req.principal!.orgId, env.id, page, MAX_HOSTS).then((r) => ({ total: r.total, items: r.hosts })))) {
      lines.push(csvLine(['windows', h.asset_id, 'Microsoft', h.os_product, null, null, h.edition_id, h.display_version, h.os_build, h.architecture, h.installation_type,
        h.installed_kbs === null ? null : h.installed_kbs.join(';'), h.kb_source, h.esu_enrolled === null ? null : h.esu_enrolled ? 'yes' : 'no', h.collected_at]));
    }
    return sendCsv(reply, `environment-${env.id}-inventory.csv`, lines);
  });

  app.post('/environments/:environment_id/assets', {
    schema: {
      tags: ['pages'], summary: 'Add-asset form: the asset is correlated and stored in the environment (POST /api/v1/assets/correlate-cves with environment_id); bad input: the form again with the field\'s message (422), nothing stored', security: session, params: EnvParams, querystring: NoQuery,
      body: Type.Object({ ...Csrf, asset_id: Type.String({ maxLength: 1000 }), vendor: Type.String({ maxLength: 1000 }), product: Type.String({ maxLength: 1000 }), version: Type.Optional(Type.String({ maxLength: 1000 })) }, { additionalProperties: false, examples: [{ asset_id: 'page-plc-1', vendor: 'Siemens', product: 'SIMATIC S7-1500', version: '2.9' }] }),
      response: { ...See('the environment'), 422: Html('The form again, with the reason') },
    },
    config: { auth: write('environments', envId) },
  }, async (req, reply) => {
    const env = await environment(req, req.params.environment_id);
    const { asset_id, vendor, product, version = '' } = req.body;
    const errors: Record<string, string> = {};
    let refused = false;
    try {
      const r = await s.assets.correlate({ principal: req.principal!, requestId: req.id, assets: [{ asset_id: asset_id.trim(), vendor, product, version }], environmentId: env.id, options: DEFAULT_OPTIONS });
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
      return send(reply, renderEnvironment(viewer(req), p.env, p.assets, p.total, { asset_id, vendor, product, version, errors }, p.hosts), 422);
    }
    return reply.redirect(`/environments/${env.id}`, 303);
  });

  app.post('/assets/:asset_id/delete', {
    schema: {
      tags: ['pages'], summary: 'Remove-asset form (DELETE /api/v1/assets/{asset_id} with environment_id): back to the environment', security: session,
      params: Type.Object({ asset_id: Type.String({ minLength: 1, maxLength: 64 }) }),
      querystring: Type.Object({ environment_id: Type.Optional(EnvParams.properties.environment_id) }, { additionalProperties: false }), body: EmptyForm, response: See('the environment'),
    },
    config: { auth: write('windows_results', [{ in: 'query', name: 'environment_id', foreign: 'environment_not_found' }, { in: 'params', name: 'asset_id', foreign: 'asset_not_found' }]) },
  }, async (req, reply) => {
    // Without environment_id: the Windows hosts stored without one (as DELETE /api/v1/assets/{asset_id}).
    const id = req.query.environment_id === undefined ? null : idOf(req.query.environment_id);
    const r = await s.environments.removeAsset(req.principal!.orgId, id, req.params.asset_id);
    if (r === 'environment') throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: req.query.environment_id } });
    if (r === 'asset') throw new ApiError('ASSET_NOT_FOUND', { detail: { asset_id: req.params.asset_id, environment_id: id } });
    return reply.redirect(id === null ? '/environments' : `/environments/${id}`, 303);
  });

  // CSV upload of nameplates (asset_id,vendor,product,version[,cpe]) or of Windows hosts (the §2.6 columns, as POST
  // /api/v2/assets/correlate-csv): the same validation and services as the API, with one difference a person at a
  // page needs: a file with any refused row is refused whole (the rows and their reasons on the page), nothing stored.
  await app.register(async (up) => {
    await up.register(multipart, { attachFieldsToBody: 'keyValues', limits: { files: 1, fileSize: UPLOAD_LIMIT, fields: 4, parts: 5 } });
    up.post('/environments/:environment_id/upload', {
      schema: {
        tags: ['pages'], summary: 'Upload form (multipart: kind = nameplates or windows, file = the CSV): every row stored, or the page with each refused row\'s reasons (422) and nothing stored', security: session, params: EnvParams, querystring: NoQuery,
        consumes: ['multipart/form-data'], response: { ...See('the environment'), 422: Html('The environment page with the refused rows') },
      },
      config: { auth: write('environments', envId) },
    }, async (req, reply) => {
      const envRaw = (req.params as { environment_id: string }).environment_id;
      const env = await environment(req, envRaw);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const kind = body.kind === 'windows' ? 'windows' : body.kind === 'nameplates' ? 'nameplates' : null;
      const refuse = async (u: UploadOutcome) => {
        const p = await environmentPage(req, envRaw);
        return send(reply, renderEnvironment(viewer(req), p.env, p.assets, p.total, {}, p.hosts, u), 422);
      };
      if (kind === null) return refuse({ kind: 'nameplates', message: 'Choose what the file holds: nameplates or Windows hosts.' });
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
        if (rows.length > max) return await refuse({ kind, message: `A file holds at most ${max} rows (this one has ${rows.length}); split it.` });
        if (kind === 'nameplates') {
          const extra = Object.keys(rows[0]).filter((h) => !(ASSET_FIELDS as readonly string[]).includes(h));
          if (extra.length) return await refuse({ kind, message: `Columns not part of a nameplate: ${extra.join(', ')} (the columns are ${ASSET_FIELDS.join(', ')}).` });
          await s.assets.correlate({ principal: req.principal!, requestId: req.id, environmentId: env.id, options: DEFAULT_OPTIONS, wholeFile: true,
            assets: rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k, v]) => !(k === 'version' || k === 'cpe') || v.trim() !== ''))) });
        } else {
          await app.limits.correlation.check(req.principal!, rows.length);
          await s.windows.correlate({ orgId: req.principal!.orgId, requestId: req.id, environmentId: env.id, hosts: rows.map(csvRowToHostRecord), software: [], options: HOST_VIEW, wholeFile: true });
        }
      } catch (e) {
        if (!(e instanceof ApiError) || e.entry.status !== 422) throw e;
        const rejected = (e.opts.data as { rejected?: { index: number; asset_id: string | null; errors: { field: string; message: string }[] }[] } | undefined)?.rejected;
        return refuse({
          kind, message: rejected?.length ? `${rejected.length} row${rejected.length > 1 ? 's' : ''} refused: nothing was stored. Correct the file and upload it again.` : e.message,
          // Row numbers as a spreadsheet shows them: the header is row 1.
          rows: rejected?.map((x) => ({ row: x.index + 2, asset_id: x.asset_id, errors: x.errors.map((f) => `${f.field.replace(/^.*\./, '')}: ${f.message}`) })),
        });
      }
      return reply.redirect(`/environments/${env.id}?uploaded=${kind}`, 303);
    });
  });

  // CVE explorer ---------------------------------------------------------------------------------------------------
  // The query of GET /api/v1/cves, each field also allowed blank (a GET form sends every field): blanks are dropped and
  // the rest goes to the same service call as the API, so the filters, the sort and the tier's paging caps are the API's.
  const ExplorerQuery = Type.Object(Object.fromEntries(Object.entries(CveListQuery.properties).filter(([k]) => k !== 'ranked')
    .map(([k, sch]) => [k, Type.Optional(Type.Union([Type.Literal(''), sch as TSchema]))])), { additionalProperties: false });
  app.get('/cves', {
    schema: { tags: ['pages'], summary: 'CVE explorer: the filters of GET /api/v1/cves (spec §4.1) as a form whose URL holds the query; cards link to the CVE page; one click watches the vendor', security: session, querystring: ExplorerQuery, response: { 200: Html('The explorer') } },
    config: { auth: { mode: 'session', role: 'viewer', scope: 'read', tenant: false } },
  }, async (req, reply) => {
    const raw = req.query as Record<string, string | number | boolean>;
    const q = Object.fromEntries(Object.entries(raw).filter(([, x]) => x !== ''));
    const shown = Object.fromEntries(Object.entries(q).map(([k, x]) => [k, String(x)]));
    const result = await s.cves.list(readerOf(req), q);
    const link = (n: number) => `/cves?${new URLSearchParams({ ...shown, page: String(n) }).toString()}`;
    return send(reply, renderExplorer(viewer(req), shown, result, link, req.url.length <= 2000 ? req.url : '/cves'));
  });

  // Alerts ---------------------------------------------------------------------------------------------------------
  const PRIORITY = Type.Union([Type.Literal(''), Type.Literal('PATCH NOW'), Type.Literal('PATCH NEXT'), Type.Literal('MONITOR'), Type.Literal('IGNORE')]);
  const MATCH = Type.Union(['', 'vendor', 'product', 'protocol', 'cve', 'environment'].map((x) => Type.Literal(x)));
  const DAY = Type.Union([Type.Literal(''), Type.String({ format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' })]);
  const AlertsQuery = Type.Object({
    priority: Type.Optional(PRIORITY), match_type: Type.Optional(MATCH),
    environment_id: Type.Optional(Type.Union([Type.Literal(''), EnvParams.properties.environment_id])),
    change_kind: Type.Optional(Type.Union([Type.Literal(''), ...CHANGE_KINDS.map((k) => Type.Literal(k))])),
    since_days: Type.Optional(Type.Union(['', '1', '7', '30', '90'].map((x) => Type.Literal(x)))),
    date_from: Type.Optional(DAY), date_to: Type.Optional(DAY),
    unread: Type.Optional(Type.Union([Type.Literal(''), Type.Literal('true')])),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  }, { additionalProperties: false });
  type AlertsQueryT = { [K in keyof typeof AlertsQuery.properties]?: string | number };
  const alertsQs = (q: AlertsQueryT, page?: number) => {
    const u = new URLSearchParams();
    for (const [k, v] of Object.entries(q)) if (k !== 'page' && v !== undefined && v !== '') u.set(k, String(v));
    if (page !== undefined) u.set('page', String(page));
    const t = u.toString();
    return t ? `/alerts?${t}` : '/alerts';
  };
  app.get('/alerts', {
    schema: {
      tags: ['pages'], summary: 'Alerts inbox: the organization\'s alerts, newest first, read or unread for the member, filtered by priority, environment, reason (change kind), what matched and date (GET /api/v1/alerts)', security: session,
      querystring: AlertsQuery, response: { 200: Html('The alerts') },
    },
    // The id it takes is an environment's (the filter): declared under that resource, so the runner attacks it.
    config: { auth: read('environments', [{ in: 'query', name: 'environment_id', foreign: 'environment_not_found' }]) },
  }, async (req, reply) => {
    const q = req.query;
    const page = q.page ?? 1;
    const now = app.deps.clock.now();
    const envs = await s.environments.list(req.principal!.orgId);
    let environment: string | undefined;
    if (q.environment_id) {
      const e = envs.find((x) => x.id === idOf(q.environment_id!));
      if (!e) throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: q.environment_id } });
      environment = e.name;
    }
    const sinceDays = q.since_days ? new Date(now.getTime() - Number(q.since_days) * 86_400_000) : undefined;
    const from = q.date_from ? new Date(`${q.date_from}T00:00:00Z`) : undefined;
    const since = [sinceDays, from].filter((d): d is Date => d !== undefined).sort((a, b) => b.getTime() - a.getTime())[0];
    const until = q.date_to ? new Date(Date.parse(`${q.date_to}T00:00:00Z`) + 86_400_000) : undefined;
    const r = await s.alerts.list({ tier: req.principal!.tier, orgId: req.principal!.orgId }, {
      page, per_page: 50, ...(q.priority ? { sage_priority: q.priority } : {}), ...(q.match_type ? { match_type: q.match_type } : {}),
      ...(since ? { since: since.toISOString() } : {}), until, environment, change_kind: q.change_kind || undefined,
      member_id: req.principal!.memberId, unread: q.unread === 'true',
    });
    return send(reply, renderAlerts(viewer(req), r.items, r.total, r.page, Math.ceil(r.total / r.perPage), q, (n) => alertsQs(q, n), envs, alertsQs(q, q.page)));
  });

  const Back = { back: Type.Optional(Type.String({ maxLength: 2000, pattern: '^/alerts([?#].*)?$' })) };
  for (const mark of ['read', 'unread'] as const) {
    app.post(`/alerts/:alert_id/${mark}`, {
      schema: {
        tags: ['pages'], summary: `Mark-${mark} form of one alert, for the signed-in member: back to the inbox (\`back\`)`, security: session,
        params: Type.Object({ alert_id: Type.String({ pattern: '^[0-9]{1,19}$' }) }), querystring: NoQuery,
        body: Type.Object({ ...Csrf, ...Back }, { additionalProperties: false, examples: [{ back: '/alerts' }] }), response: See('/alerts'),
      },
      config: { auth: { mode: 'session', role: 'viewer', scope: 'write', self: true, tenant: { resource: 'alerts', ids: [{ in: 'params', name: 'alert_id', foreign: 'alert_not_found' }] } } },
    }, async (req, reply) => {
      const id = idOf(req.params.alert_id);
      const own = (await s.alerts.list({ tier: req.principal!.tier, orgId: req.principal!.orgId }, { page: 1, per_page: 1, ids: [id] })).total;
      if (!own) throw new ApiError('NOT_FOUND', { message: 'No such alert in your organization', detail: { error: 'alert_not_found', alert_id: req.params.alert_id } });
      await s.alerts.markRead(req.principal!.orgId, req.principal!.memberId, [id], mark === 'read');
      return reply.redirect(req.body.back ?? '/alerts', 303);
    });
  }
  app.post('/alerts/read-all', {
    schema: {
      tags: ['pages'], summary: 'Mark-all-read form: every alert of the organization read for the signed-in member; back to the inbox (`back`)', security: session, querystring: NoQuery,
      body: Type.Object({ ...Csrf, ...Back }, { additionalProperties: false, examples: [{ back: '/alerts?unread=true' }] }), response: See('/alerts'),
    },
    config: { auth: { mode: 'session', role: 'viewer', scope: 'write', self: true, tenant: { resource: 'alerts', ids: [] } } },
  }, async (req, reply) => {
    await s.alerts.markRead(req.principal!.orgId, req.principal!.memberId, 'all', true);
    return reply.redirect(req.body.back ?? '/alerts', 303);
  });

  // Watchlist ------------------------------------------------------------------------------------------------------
  const watchlistPage = async (req: FastifyRequest) => (await s.watchlists.list({ tier: req.principal!.tier, orgId: req.principal!.orgId }, { page: 1, per_page: 100 })).items;
  app.get('/watchlist', {
    schema: { tags: ['pages'], summary: 'Watchlist: vendors, products, protocols and CVEs watched; add and remove', security: session, querystring: NoQuery, response: { 200: Html('The watchlist') } },
    config: { auth: read('watchlist') },
  }, async (req, reply) => send(reply, renderWatchlist(viewer(req), await watchlistPage(req))));

  app.post('/watchlist', {
    schema: {
      tags: ['pages'], summary: 'Watch form (POST /api/v1/watchlist): back to the watchlist, or to where the form was (`back`); an id the catalog does not hold: the form again with the message (422)', security: session, querystring: NoQuery,
      body: Type.Object({ ...Csrf, entity_type: Type.Union(WATCH_ENTITY_TYPES.map((t) => Type.Literal(t))), entity_id: Type.String({ maxLength: 300 }), back: Type.Optional(Type.String({ maxLength: 2000, pattern: '^/[a-z]' })) }, { additionalProperties: false, examples: [{ entity_type: 'protocol', entity_id: 'bacnet' }] }),
      response: { ...See('/watchlist'), 422: Html('The form again, with the reason') },
    },
    config: { auth: write('watchlist') },
  }, async (req, reply) => {
    const b = req.body;
    // Watched already: done. The list full, or an id the catalog does not hold: the form again with the reason.
    const message = !b.entity_id.trim() ? 'Enter what to watch.' : await s.watchlists.add(req.principal!.orgId, req.principal!.memberId, { entity_type: b.entity_type, entity_id: b.entity_id.trim() }).then(() => null, (e: unknown) => {
      const r = caught(e, ['already_watching', 'limit_reached', 'invalid_input']);
      return r.code === 'already_watching' ? null : r.code === 'limit_reached' ? `${r.message}.` : (r.detail.fields as FieldProblem[])[0].message;
    });
    if (message === null) return reply.redirect(b.back && !b.back.startsWith('//') ? b.back : '/watchlist', 303);
    return send(reply, renderWatchlist(viewer(req), await watchlistPage(req), { entity_type: b.entity_type, entity_id: b.entity_id, errors: { entity_id: message } }), 422);
  });

  app.post('/watchlist/:entry_id/delete', {
    schema: { tags: ['pages'], summary: 'Stop-watching form', security: session, params: Type.Object({ entry_id: Type.String({ pattern: '^[0-9]{1,15}$' }) }), querystring: NoQuery, body: EmptyForm, response: See('/watchlist') },
    config: { auth: write('watchlist', [{ in: 'params', name: 'entry_id', foreign: 'watchlist_entry_not_found' }]) },
  }, async (req, reply) => {
    const removed = await s.watchlists.remove(req.principal!.orgId, Number(req.params.entry_id));
    if (!removed) throw new ApiError('NOT_FOUND', { message: 'No such watchlist entry in your organization', detail: { error: 'watchlist_entry_not_found', entry_id: req.params.entry_id } });
    return reply.redirect('/watchlist', 303);
  });

  // Webhooks -------------------------------------------------------------------------------------------------------
  const notFound = (message: string) => new ApiError('NOT_FOUND', { message, detail: { error: 'not_found' } });
  const upgrade = (message: string) => new ApiError('UPGRADE_REQUIRED', { message });
  async function webhooksPage(req: FastifyRequest, reply: FastifyReply, state: WebhooksPageState = {}, status = 200) {
    const r = await s.webhooks.list(actor(req));
    if (!r.ok) throw upgrade(r.message);
    return send(reply, renderWebhooks(viewer(req), r.webhooks, state), status);
  }

  app.get('/webhooks', {
    schema: {
      tags: ['pages'], summary: 'Webhooks: list, create (the secret shown once), edit, delete, test delivery, rotate, re-enable, recent deliveries (?id=)', security: session,
      querystring: Type.Object({ id: Type.Optional(IdParams.properties.id) }, { additionalProperties: false }), response: { 200: Html('The webhooks') },
    },
    config: { auth: read('webhooks', [{ in: 'query', name: 'id', foreign: 'not_found' }]) },
  }, async (req, reply) => {
    let deliveries: WebhooksPageState['deliveries'];
    if (req.query.id !== undefined) {
      const d = await s.webhooks.deliveries(actor(req), idOf(req.query.id), 1, 20);
      if (!d.ok) throw d.error === 'not_found' ? notFound(d.message) : upgrade(d.message);
      deliveries = { webhookId: idOf(req.query.id), items: d.deliveries };
    }
    return webhooksPage(req, reply, { deliveries });
  });

  app.post('/webhooks', {
    schema: {
      tags: ['pages'], summary: 'Create-webhook form: the page with the signing secret shown once (201); bad input: the form again with the field\'s message (422)', security: session, querystring: NoQuery,
      body: Type.Object({ ...Csrf, label: Type.String({ maxLength: 1000 }), url: Type.String({ maxLength: 4000 }) }, { additionalProperties: false, examples: [{ label: 'Page hook', url: 'https://hooks.example.com/page' }] }),
      response: { 201: Html('The webhooks with the new secret'), 422: Html('The form again, with the reason') },
    },
    config: { auth: write('webhooks') },
  }, async (req, reply) => {
    const { label, url } = req.body;
    const errors: Record<string, string> = {};
    if (!label.trim()) errors.label = 'Enter a label.';
    else if (label.trim().length > 100) errors.label = 'A label has at most 100 characters.';
    else if (!nameRe.test(label)) errors.label = NAME_TEXT_MESSAGE;
    if (!url.trim()) errors.url = 'Enter the URL to deliver to.';
    if (!Object.keys(errors).length) {
      const r = await s.webhooks.create(actor(req), { label, url: url.trim() });
      if (r.ok) return webhooksPage(req, reply, { secret: { webhookId: r.webhook.id, secret: r.secret }, notice: `Webhook ${r.webhook.label} created.` }, 201);
      if (r.error !== 'invalid_url') throw r.error === 'upgrade_required' ? upgrade(r.message) : notFound(r.message);
      errors.url = r.message;
    }
    return webhooksPage(req, reply, { label, url, errors }, 422);
  });

  app.post('/webhooks/:id/edit', {
    schema: {
      tags: ['pages'], summary: 'Edit-webhook form (label and URL); a URL refused: the page with the reason (422)', security: session, params: IdParams, querystring: NoQuery,
      body: Type.Object({ ...Csrf, label: Type.String({ maxLength: 1000 }), url: Type.String({ maxLength: 4000 }) }, { additionalProperties: false, examples: [{ label: 'Page hook renamed', url: 'https://hooks.example.com/page-2' }] }),
      response: { ...See('/webhooks'), 422: Html('The page with the reason') },
    },
    config: { auth: write('webhooks', hookId) },
  }, async (req, reply) => {
    const { label, url } = req.body;
    if (!label.trim() || label.trim().length > 100 || !nameRe.test(label)) {
      if (!(await s.webhooks.get(actor(req), idOf(req.params.id))).ok) throw notFound('No such webhook in your organization');
      return webhooksPage(req, reply, { errors: { label: 'A label is 1 to 100 characters.' }, notice: 'Not saved: the label is not valid (1 to 100 characters).' }, 422);
    }
    const r = await s.webhooks.update(actor(req), idOf(req.params.id), { label, url: url.trim() });
    if (r.ok) return reply.redirect('/webhooks', 303);
    if (r.error === 'invalid_url') return webhooksPage(req, reply, { notice: `Not saved: ${r.message}` }, 422);
    throw r.error === 'not_found' ? notFound(r.message) : upgrade(r.message);
  });

  for (const action of ['enable', 'rotate', 'test', 'delete'] as const) {
    app.post(`/webhooks/:id/${action}`, {
      schema: {
        tags: ['pages'], security: session, params: IdParams, querystring: NoQuery, body: EmptyForm,
        summary: { enable: 'Re-enable form of a disabled webhook (POST /api/v1/webhooks/{id}/enable)', rotate: 'Rotate-secret form: the page with the new secret shown once', test: 'Test-delivery form: the page with the outcome', delete: 'Delete-webhook form' }[action],
        response: action === 'enable' || action === 'delete' ? See('/webhooks') : { 200: Html('The webhooks page with the outcome') },
      },
      config: { auth: write('webhooks', hookId) },
    }, async (req, reply) => {
      const id = idOf(req.params.id);
      const a = actor(req);
      const refused = (r: WebhookRefusal) => (r.error === 'upgrade_required' ? upgrade(r.message) : notFound(r.message));
      if (action === 'rotate') {
        const r = await s.webhooks.rotateSecret(a, id);
        if (!r.ok) throw refused(r);
        return webhooksPage(req, reply, { secret: { webhookId: id, secret: r.secret }, notice: 'The secret was rotated: the old one no longer signs.' });
      }
      if (action === 'test') {
        const r = await s.webhooks.test(a, id);
        if (!r.ok) throw refused(r);
        return webhooksPage(req, reply, { test: { webhookId: id, result: r.delivery } });
      }
      const r = action === 'enable' ? await s.webhooks.enable(a, id) : await s.webhooks.remove(a, id);
      if (!r.ok) throw refused(r);
      return reply.redirect('/webhooks', 303);
    });
  }
};
export default webPages;
