// The web app's alerts inbox (docs/web.md): the organization's alerts filtered as GET /api/v1/alerts filters them,
// read or unread for the signed-in member. The conventions of every page: web-common.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { acceptFormBodies } from '../../forms.ts';
import { Type } from 'typebox';
import { ApiError } from '../../errors.ts';
import { NoQuery } from '../../schemas/common.ts';
import { renderAlerts } from '../../web/alerts.tsx';
import { CHANGE_KINDS } from '../../../domain/changes.ts';
import { Html, See, session, EnvParams, Csrf, read, idOf, pageKit } from './web-common.ts';

const webAlertPages: FastifyPluginAsyncTypebox = async (app) => {
  const { s, viewer, send } = pageKit(app);
  acceptFormBodies(app, 64 * 1024);

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
};
export default webAlertPages;
