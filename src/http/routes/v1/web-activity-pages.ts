// The signed-in web app's CVE explorer, alerts inbox, watchlist and webhooks pages (docs/web.md); the same conventions as
// web-pages.ts: thin routes over the API's services, each with its declared policy and tenant scope, forms with the
// session's CSRF token, post/redirect/get, bad input answered with the form again (422) and nothing stored.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { CveListQuery } from '../../schemas/cves.ts';
import { readerOf } from './cves.ts';
import { ApiError } from '../../errors.ts';
import { NoQuery } from '../../schemas/common.ts';
import { acceptFormBodies } from '../../forms.ts';
import { renderExplorer } from '../../web/explorer.tsx';
import { renderAlerts } from '../../web/alerts.tsx';
import { renderWatchlist } from '../../web/watchlist.tsx';
import { renderWebhooks, type WebhooksPageState } from '../../web/webhooks.tsx';
import { caught, type FieldProblem } from '../../../services/refusal.ts';
import { WATCH_ENTITY_TYPES } from '../../../domain/watchlist.ts';
import { CHANGE_KINDS } from '../../../domain/changes.ts';
import { NAME_TEXT_MESSAGE } from '../../../domain/text.ts';
import {
  Html,
  See,
  session,
  EnvParams,
  IdParams,
  Csrf,
  EmptyForm,
  read,
  write,
  hookId,
  idOf,
  nameRe,
  pageKit,
} from './web-common.ts';

const webActivityPages: FastifyPluginAsyncTypebox = async (app) => {
  const { s, viewer, send, actor } = pageKit(app);
  acceptFormBodies(app, 64 * 1024);

  /** The organization's watchlist, its first 100 entries (the explorer marks what they watch; a watch past them keeps its button, which changes nothing). */
  const watchlistPage = async (req: FastifyRequest) =>
    (await s.watchlists.list({ tier: req.caller.tier, orgId: req.caller.orgId }, { page: 1, per_page: 100 })).items;

  // CVE explorer ---------------------------------------------------------------------------------------------------
  // The query of GET /api/v1/cves, each field also allowed blank (a GET form sends every field): blanks are dropped and
  // the rest goes to the same service call as the API, so the filters, the sort and the tier's paging caps are the API's.
  const ExplorerQuery = Type.Object(
    Object.fromEntries(
      Object.entries(CveListQuery.properties)
        .filter(([k]) => k !== 'ranked')
        .map(([k, sch]) => [k, Type.Optional(Type.Union([Type.Literal(''), sch as TSchema]))]),
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

  // Alerts ---------------------------------------------------------------------------------------------------------
  const PRIORITY = Type.Union([
    Type.Literal(''),
    Type.Literal('PATCH NOW'),
    Type.Literal('PATCH NEXT'),
    Type.Literal('MONITOR'),
    Type.Literal('IGNORE'),
  ]);
  const MATCH = Type.Union(['', 'vendor', 'product', 'protocol', 'cve', 'environment'].map((x) => Type.Literal(x)));
  const DAY = Type.Union([Type.Literal(''), Type.String({ format: 'date', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' })]);
  const AlertsQuery = Type.Object(
    {
      priority: Type.Optional(PRIORITY),
      match_type: Type.Optional(MATCH),
      environment_id: Type.Optional(Type.Union([Type.Literal(''), EnvParams.properties.environment_id])),
      change_kind: Type.Optional(Type.Union([Type.Literal(''), ...CHANGE_KINDS.map((k) => Type.Literal(k))])),
      since_days: Type.Optional(Type.Union(['', '1', '7', '30', '90'].map((x) => Type.Literal(x)))),
      date_from: Type.Optional(DAY),
      date_to: Type.Optional(DAY),
      unread: Type.Optional(Type.Union([Type.Literal(''), Type.Literal('true')])),
      page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
    },
    { additionalProperties: false },
  );
  type AlertsQueryT = { [K in keyof typeof AlertsQuery.properties]?: string | number };
  const alertsQs = (q: AlertsQueryT, page?: number) => {
    const u = new URLSearchParams();
    for (const [k, v] of Object.entries(q)) if (k !== 'page' && v !== undefined && v !== '') u.set(k, String(v));
    if (page !== undefined) u.set('page', String(page));
    const t = u.toString();
    return t ? `/alerts?${t}` : '/alerts';
  };
  app.get(
    '/alerts',
    {
      schema: {
        tags: ['pages'],
        summary:
          "Alerts inbox: the organization's alerts, newest first, read or unread for the member, filtered by priority, environment, reason (change kind), what matched and date (GET /api/v1/alerts)",
        security: session,
        querystring: AlertsQuery,
        response: { 200: Html('The alerts') },
      },
      // The id it takes is an environment's (the filter): declared under that resource, so the runner attacks it.
      config: {
        auth: read('environments', [{ in: 'query', name: 'environment_id', foreign: 'environment_not_found' }]),
      },
    },
    async (req, reply) => {
      const q = req.query;
      const page = q.page ?? 1;
      const now = app.deps.clock.now();
      const envs = await s.environments.list(req.caller.orgId);
      let environment: string | undefined;
      if (q.environment_id) {
        const e = envs.find((x) => x.id === idOf(q.environment_id!));
        if (!e) throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: q.environment_id } });
        environment = e.name;
      }
      const sinceDays = q.since_days ? new Date(now.getTime() - Number(q.since_days) * 86_400_000) : undefined;
      const from = q.date_from ? new Date(`${q.date_from}T00:00:00Z`) : undefined;
      const since = [sinceDays, from]
        .filter((d): d is Date => d !== undefined)
        .sort((a, b) => b.getTime() - a.getTime())[0];
      const until = q.date_to ? new Date(Date.parse(`${q.date_to}T00:00:00Z`) + 86_400_000) : undefined;
      const r = await s.alerts.list(
        { tier: req.caller.tier, orgId: req.caller.orgId },
        {
          page,
          per_page: 50,
          ...(q.priority ? { sage_priority: q.priority } : {}),
          ...(q.match_type ? { match_type: q.match_type } : {}),
          ...(since ? { since: since.toISOString() } : {}),
          until,
          environment,
          change_kind: q.change_kind || undefined,
          member_id: req.caller.memberId,
          unread: q.unread === 'true',
        },
      );
      return send(
        reply,
        renderAlerts(
          viewer(req),
          r.items,
          r.total,
          r.page,
          Math.ceil(r.total / r.perPage),
          q,
          (n) => alertsQs(q, n),
          envs,
          alertsQs(q, q.page),
        ),
      );
    },
  );

  const Back = { back: Type.Optional(Type.String({ maxLength: 2000, pattern: '^/alerts([?#].*)?$' })) };
  for (const mark of ['read', 'unread'] as const) {
    app.post(
      `/alerts/:alert_id/${mark}`,
      {
        schema: {
          tags: ['pages'],
          summary: `Mark-${mark} form of one alert, for the signed-in member: back to the inbox (\`back\`)`,
          security: session,
          params: Type.Object({ alert_id: Type.String({ pattern: '^[0-9]{1,19}$' }) }),
          querystring: NoQuery,
          body: Type.Object({ ...Csrf, ...Back }, { additionalProperties: false, examples: [{ back: '/alerts' }] }),
          response: See('/alerts'),
        },
        config: {
          auth: {
            mode: 'session',
            role: 'viewer',
            scope: 'write',
            self: true,
            tenant: { resource: 'alerts', ids: [{ in: 'params', name: 'alert_id', foreign: 'alert_not_found' }] },
          },
        },
      },
      async (req, reply) => {
        const id = idOf(req.params.alert_id);
        const own = (
          await s.alerts.list({ tier: req.caller.tier, orgId: req.caller.orgId }, { page: 1, per_page: 1, ids: [id] })
        ).total;
        if (!own)
          throw new ApiError('NOT_FOUND', {
            message: 'No such alert in your organization',
            detail: { error: 'alert_not_found', alert_id: req.params.alert_id },
          });
        await s.alerts.markRead(req.caller.orgId, req.caller.memberId, [id], mark === 'read');
        return reply.redirect(req.body.back ?? '/alerts', 303);
      },
    );
  }
  app.post(
    '/alerts/read-all',
    {
      schema: {
        tags: ['pages'],
        summary:
          'Mark-all-read form: every alert of the organization read for the signed-in member; back to the inbox (`back`)',
        security: session,
        querystring: NoQuery,
        body: Type.Object(
          { ...Csrf, ...Back },
          { additionalProperties: false, examples: [{ back: '/alerts?unread=true' }] },
        ),
        response: See('/alerts'),
      },
      config: {
        auth: { mode: 'session', role: 'viewer', scope: 'write', self: true, tenant: { resource: 'alerts', ids: [] } },
      },
    },
    async (req, reply) => {
      await s.alerts.markRead(req.caller.orgId, req.caller.memberId, 'all', true);
      return reply.redirect(req.body.back ?? '/alerts', 303);
    },
  );

  // Watchlist ------------------------------------------------------------------------------------------------------
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
                    : (r.detail.fields as FieldProblem[])[0].message;
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

  // Webhooks -------------------------------------------------------------------------------------------------------
  // The service's refusals (a plan without webhooks, a webhook not of the organization) answer as on the API; a
  // receiver URL refused is the form again with its reason.
  async function webhooksPage(req: FastifyRequest, reply: FastifyReply, state: WebhooksPageState = {}, status = 200) {
    return send(reply, renderWebhooks(viewer(req), await s.webhooks.list(actor(req)), state), status);
  }
  /** The reason a receiver URL was refused (the service's invalid_input on body.url). */
  const urlRefused = (e: unknown) => (caught(e, ['invalid_input']).detail.fields as FieldProblem[])[0].message;

  app.get(
    '/webhooks',
    {
      schema: {
        tags: ['pages'],
        summary:
          'Webhooks: list, create (the secret shown once), edit, delete, test delivery, rotate, re-enable, recent deliveries (?id=)',
        security: session,
        querystring: Type.Object({ id: Type.Optional(IdParams.properties.id) }, { additionalProperties: false }),
        response: { 200: Html('The webhooks') },
      },
      config: { auth: read('webhooks', [{ in: 'query', name: 'id', foreign: 'not_found' }]) },
    },
    async (req, reply) => {
      let deliveries: WebhooksPageState['deliveries'];
      if (req.query.id !== undefined) {
        const d = await s.webhooks.deliveries(actor(req), idOf(req.query.id), 1, 20);
        deliveries = { webhookId: idOf(req.query.id), items: d.deliveries };
      }
      return webhooksPage(req, reply, { deliveries });
    },
  );

  app.post(
    '/webhooks',
    {
      schema: {
        tags: ['pages'],
        summary:
          "Create-webhook form: the page with the signing secret shown once (201); bad input: the form again with the field's message (422)",
        security: session,
        querystring: NoQuery,
        body: Type.Object(
          { ...Csrf, label: Type.String({ maxLength: 1000 }), url: Type.String({ maxLength: 4000 }) },
          { additionalProperties: false, examples: [{ label: 'Page hook', url: 'https://hooks.example.com/page' }] },
        ),
        response: { 201: Html('The webhooks with the new secret'), 422: Html('The form again, with the reason') },
      },
      config: { auth: write('webhooks') },
    },
    async (req, reply) => {
      const { label, url } = req.body;
      const errors: Record<string, string> = {};
      if (!label.trim()) errors.label = 'Enter a label.';
      else if (label.trim().length > 100) errors.label = 'A label has at most 100 characters.';
      else if (!nameRe.test(label)) errors.label = NAME_TEXT_MESSAGE;
      if (!url.trim()) errors.url = 'Enter the URL to deliver to.';
      if (!Object.keys(errors).length) {
        try {
          const r = await s.webhooks.create(actor(req), { label, url: url.trim() });
          return await webhooksPage(
            req,
            reply,
            { secret: { webhookId: r.webhook.id, secret: r.secret }, notice: `Webhook ${r.webhook.label} created.` },
            201,
          );
        } catch (e) {
          errors.url = urlRefused(e);
        }
      }
      return webhooksPage(req, reply, { label, url, errors }, 422);
    },
  );

  app.post(
    '/webhooks/:id/edit',
    {
      schema: {
        tags: ['pages'],
        summary: 'Edit-webhook form (label and URL); a URL refused: the page with the reason (422)',
        security: session,
        params: IdParams,
        querystring: NoQuery,
        body: Type.Object(
          { ...Csrf, label: Type.String({ maxLength: 1000 }), url: Type.String({ maxLength: 4000 }) },
          {
            additionalProperties: false,
            examples: [{ label: 'Page hook renamed', url: 'https://hooks.example.com/page-2' }],
          },
        ),
        response: { ...See('/webhooks'), 422: Html('The page with the reason') },
      },
      config: { auth: write('webhooks', hookId) },
    },
    async (req, reply) => {
      const { label, url } = req.body;
      if (!label.trim() || label.trim().length > 100 || !nameRe.test(label)) {
        await s.webhooks.get(actor(req), idOf(req.params.id));
        return webhooksPage(
          req,
          reply,
          {
            errors: { label: 'A label is 1 to 100 characters.' },
            notice: 'Not saved: the label is not valid (1 to 100 characters).',
          },
          422,
        );
      }
      try {
        await s.webhooks.update(actor(req), idOf(req.params.id), { label, url: url.trim() });
      } catch (e) {
        return webhooksPage(req, reply, { notice: `Not saved: ${urlRefused(e)}` }, 422);
      }
      return reply.redirect('/webhooks', 303);
    },
  );

  for (const action of ['enable', 'rotate', 'test', 'delete'] as const) {
    app.post(
      `/webhooks/:id/${action}`,
      {
        schema: {
          tags: ['pages'],
          security: session,
          params: IdParams,
          querystring: NoQuery,
          body: EmptyForm,
          summary: {
            enable: 'Re-enable form of a disabled webhook (POST /api/v1/webhooks/{id}/enable)',
            rotate: 'Rotate-secret form: the page with the new secret shown once',
            test: 'Test-delivery form: the page with the outcome',
            delete: 'Delete-webhook form',
          }[action],
          response:
            action === 'enable' || action === 'delete'
              ? See('/webhooks')
              : { 200: Html('The webhooks page with the outcome') },
        },
        config: { auth: write('webhooks', hookId) },
      },
      async (req, reply) => {
        const id = idOf(req.params.id);
        const a = actor(req);
        if (action === 'rotate') {
          const r = await s.webhooks.rotateSecret(a, id);
          return webhooksPage(req, reply, {
            secret: { webhookId: id, secret: r.secret },
            notice: 'The secret was rotated: the old one no longer signs.',
          });
        }
        if (action === 'test') {
          return webhooksPage(req, reply, { test: { webhookId: id, result: await s.webhooks.test(a, id) } });
        }
        if (action === 'enable') await s.webhooks.enable(a, id);
        else await s.webhooks.remove(a, id);
        return reply.redirect('/webhooks', 303);
      },
    );
  }
};
export default webActivityPages;
