// The web app's overview (docs/web.md): one card per environment, charts, the alerts of the last 7 days and the
// disabled webhooks; the start page leads to it. The conventions of every page: web-common.ts.
import { oldestKept, utcDay } from '../../../domain/exposure.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NoQuery } from '../../schemas/common.ts';
import { acceptFormBodies } from '../../forms.ts';
import { renderOverview } from '../../web/overview.tsx';
import { caught } from '../../../services/refusal.ts';
import { Html, See, session, read, pageKit } from './web-common.ts';

const webOverviewPages: FastifyPluginAsyncTypebox = async (app) => {
  const { s, viewer, send, actor } = pageKit(app);
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
};
export default webOverviewPages;
