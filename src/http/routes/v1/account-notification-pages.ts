// The alert-email preferences page and form (docs/accounts.md "Pages"); what every account page shares:
// account-page-kit.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { NoQuery } from '../../schemas/common.ts';
import { csrfTokenFor } from '../../session-cookies.ts';
import { renderNotificationsPage } from '../../web/notifications.tsx';
import { DELIVERIES, SEVERITIES } from '../../../services/account-preferences.ts';
import { Html, session, accountPageKit } from './account-page-kit.ts';

const accountNotificationPages: FastifyPluginAsyncTypebox = async (app) => {
  const { svc } = accountPageKit(app);

  const prefs = app.services.accountPreferences;
  const member = (req: FastifyRequest) => ({ orgId: req.caller.orgId, memberId: req.caller.memberId });
  async function notificationsPage(req: FastifyRequest, o: { error?: string; saved?: boolean } = {}) {
    const [me, p] = await Promise.all([svc.me(req.caller), prefs.notificationPrefs(member(req))]);
    return renderNotificationsPage({
      email: me.email,
      role: req.caller.role,
      prefs: p,
      severities: SEVERITIES,
      csrf: csrfTokenFor(req.sessionToken!),
      ...o,
    });
  }

  app.get(
    '/account/notifications',
    {
      schema: {
        tags: ['pages'],
        summary: "Alert-email preferences page (the caller's own; GET/PUT /api/v1/account/notifications)",
        security: session,
        querystring: Type.Object({ saved: Type.Optional(Type.Literal('1')) }, { additionalProperties: false }),
        response: { 200: Html('The preferences form') },
      },
      config: {
        auth: {
          mode: 'session',
          role: 'viewer',
          scope: 'read',
          tenant: { resource: 'notification_preferences', ids: [] },
        },
      },
    },
    async (req, reply) =>
      reply.type('text/html; charset=utf-8').send(await notificationsPage(req, { saved: req.query.saved === '1' })),
  );

  app.post(
    '/account/notifications',
    {
      schema: {
        tags: ['pages'],
        summary:
          'Preferences form: saves and redirects back; an invalid value shows the form again with the reason (422)',
        security: session,
        querystring: NoQuery,
        body: Type.Object(
          {
            email_enabled: Type.Optional(Type.Literal('on')),
            min_severity: Type.Optional(Type.Union([Type.Literal(''), ...SEVERITIES.map((s) => Type.Literal(s))])),
            min_bcs: Type.Optional(Type.String({ maxLength: 10 })),
            kev_only: Type.Optional(Type.Literal('on')),
            delivery: Type.Union(DELIVERIES.map((d) => Type.Literal(d))),
          },
          {
            additionalProperties: false,
            examples: [{ email_enabled: 'on', min_severity: 'HIGH', min_bcs: '7.5', delivery: 'instant' }],
          },
        ),
        response: {
          303: Type.Null({ description: 'Back to /account/notifications?saved=1' }),
          422: Html('The form again, with the reason'),
        },
      },
      config: {
        auth: {
          mode: 'session',
          role: 'viewer',
          scope: 'write',
          self: true,
          tenant: { resource: 'notification_preferences', ids: [] },
        },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const bcsText = (b.min_bcs ?? '').trim();
      // A decimal as people write it (a comma for the point allowed); Number() alone also read '0x5' and '1e1'.
      const decimal = bcsText.replace(',', '.');
      const bcs = bcsText === '' ? null : /^\d+(\.\d+)?$|^\.\d+$/.test(decimal) ? Number(decimal) : NaN;
      if (bcs !== null && !(Number.isFinite(bcs) && bcs >= 0 && bcs <= 10)) {
        return reply
          .code(422)
          .type('text/html; charset=utf-8')
          .send(
            await notificationsPage(req, { error: 'Minimum BCS must be a number from 0 to 10, or blank for any.' }),
          );
      }
      await prefs.putNotificationPrefs(member(req), {
        email_enabled: b.email_enabled === 'on',
        min_severity: b.min_severity ? b.min_severity : null,
        min_bcs: bcs,
        kev_only: b.kev_only === 'on',
        delivery: b.delivery,
      });
      return reply.redirect('/account/notifications?saved=1', 303);
    },
  );
};
export default accountNotificationPages;
