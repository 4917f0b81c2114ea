// The account pages (docs/accounts.md "Pages"): server-rendered HTML, no JavaScript, forms posted as
// application/x-www-form-urlencoded with the session's CSRF token in `_csrf` (checked by the auth hook). A form
// that succeeds redirects back to /account (post/redirect/get); a refusal answers in the §7 envelope.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { NAME_TEXT_PATTERN, NoQuery } from '../../schemas/common.ts';
import { ACCOUNT_ERRORS, IdParam } from '../../schemas/accounts.ts';
import { clearSessionCookies, csrfTokenFor } from '../../session-cookies.ts';
import { acceptFormBodies } from '../../forms.ts';
import { PAGE_CSP } from '../../web/assets.ts';
import { renderAccountPage } from '../../web/account.tsx';
import { renderCheckEmailPage, renderLoginPage } from '../../web/sign-in.tsx';
import { renderMessagePage } from '../../web/message-pages.tsx';
import { renderNotificationsPage } from '../../web/notifications.tsx';
import { DELIVERIES, SEVERITIES } from '../../../services/account-preferences.ts';
import { DELETE_CONFIRMATION, NEXT_PATH_MAX, safeNextPath } from '../../../domain/accounts.ts';
import { TIER_PERMISSIONS } from '../../../domain/tiers.ts';
import { KEY_LABEL_MAX } from '../../../domain/keys.ts';

const Html = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } });
const See = { 303: Type.Null({ description: 'Back to /account' }) };
const session = [{ session: [] as string[] }];

const pages: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.accounts;
  const secure = new URL(app.deps.config.publicUrl).protocol === 'https:';
  acceptFormBodies(app, 16 * 1024);
  app.addHook('onSend', async (_req, reply) => {
    reply
      .header('Content-Security-Policy', PAGE_CSP)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Cache-Control', 'no-store');
  });

  const Next = Type.String({
    maxLength: NEXT_PATH_MAX,
    description:
      'The page to land on after signing in: a path of this service (anything else is ignored: the account page)',
  });
  app.get(
    '/login',
    {
      schema: {
        tags: ['pages'],
        summary: 'Sign-in page (a signed-in page opened without a session redirects here with ?next=<that page>)',
        querystring: Type.Object({ next: Type.Optional(Next) }, { additionalProperties: false }),
        response: { 200: Html('The sign-in form') },
        noDatabase: true,
      },
      config: { auth: { mode: 'none', tenant: false } },
    },
    async (req, reply) =>
      reply.type('text/html; charset=utf-8').send(renderLoginPage(undefined, safeNextPath(req.query.next))),
  );

  app.post(
    '/login',
    {
      schema: {
        tags: ['pages'],
        summary:
          'Sign-in form: emails a link, then shows "check your email" (same page whether or not the address exists)',
        querystring: NoQuery,
        body: Type.Object(
          { email: Type.String({ maxLength: 320 }), next: Type.Optional(Next) },
          { additionalProperties: false, examples: [{ email: 'someone@example.test' }] },
        ),
        response: { 200: Html('Check your email') },
        errors: ACCOUNT_ERRORS.requestLogin,
      },
      config: { auth: { mode: 'none', tenant: false } },
    },
    async (req, reply) => {
      await svc.requestLogin(req.body.email, req.ip, req.body.next);
      return reply.type('text/html; charset=utf-8').send(renderCheckEmailPage());
    },
  );

  async function accountPage(
    req: FastifyRequest,
    newKey?: string,
    notice?: string,
    trialKey?: { key: string; ends_at: string },
  ) {
    const p = req.caller;
    const admin = p.role !== 'viewer';
    const [me, org, team, keys, trial] = await Promise.all([
      svc.me(p),
      svc.organization(p),
      svc.team(p),
      admin && TIER_PERMISSIONS[p.tier].api_keys ? svc.listKeys(p) : Promise.resolve(null),
      p.tier === 'free' ? svc.trial(p) : Promise.resolve(null),
    ]);
    return renderAccountPage({
      me,
      org,
      team,
      keys,
      trial,
      csrf: csrfTokenFor(req.sessionToken!),
      newKey,
      trialKey,
      notice,
      deleteConfirmation: DELETE_CONFIRMATION,
    });
  }

  app.get(
    '/account',
    {
      schema: {
        tags: ['pages'],
        summary: 'Account page: organization, plan, usage, team, API keys, deletion',
        security: session,
        querystring: NoQuery,
        response: { 200: Html('The account page') },
      },
      config: { auth: { mode: 'session', role: 'viewer', scope: 'read', tenant: { resource: 'members', ids: [] } } },
    },
    async (req, reply) => reply.type('text/html; charset=utf-8').send(await accountPage(req)),
  );

  app.post(
    '/logout',
    {
      schema: {
        tags: ['pages'],
        summary: 'Sign-out form',
        security: session,
        querystring: NoQuery,
        body: Type.Object({}, { additionalProperties: false, examples: [{}] }),
        response: See,
      },
      config: { auth: { mode: 'session', role: 'viewer', scope: 'write', self: true, tenant: false } },
    },
    async (req, reply) => {
      await svc.logout(req.sessionToken!);
      clearSessionCookies(reply, secure);
      return reply.redirect('/login', 303);
    },
  );

  app.post(
    '/logout-all',
    {
      schema: {
        tags: ['pages'],
        summary: 'Sign-out-everywhere form: ends every session of the signed-in person, in every organization',
        security: session,
        querystring: NoQuery,
        body: Type.Object({}, { additionalProperties: false, examples: [{}] }),
        response: See,
      },
      config: { auth: { mode: 'session', role: 'viewer', scope: 'write', self: true, tenant: false } },
    },
    async (req, reply) => {
      await svc.logoutEverywhere(req.caller);
      clearSessionCookies(reply, secure);
      return reply.redirect('/login', 303);
    },
  );

  // Your name, and your sign-in address (a new one applies once the link sent to it is followed; the current one sent
  // back cancels a pending change): the page side of PUT /api/v1/account/me, which the address-change emails point to.
  app.post(
    '/account/profile',
    {
      schema: {
        tags: ['pages'],
        summary:
          'Profile forms: your name (then back to /account), or your sign-in address (the account page saying where the confirmation link went)',
        security: session,
        querystring: NoQuery,
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ maxLength: 200, pattern: NAME_TEXT_PATTERN })),
            email: Type.Optional(Type.String({ maxLength: 320 })),
          },
          { additionalProperties: false, minProperties: 1, examples: [{ name: 'Page Name' }] },
        ),
        response: { ...See, 200: Html('The account page saying where the confirmation link went') },
        errors: ACCOUNT_ERRORS.updateMe,
      },
      config: {
        auth: { mode: 'session', role: 'viewer', scope: 'write', self: true, tenant: { resource: 'members', ids: [] } },
      },
    },
    async (req, reply) => {
      const r = await svc.updateMe(req.caller, req.body);
      if (req.body.email === undefined) return reply.redirect('/account', 303);
      const notice = r.pending_email
        ? `A confirmation link went to ${r.pending_email} (valid for 60 minutes, once). Your sign-in address changes when it is followed; until then it stays ${r.email}.`
        : `Your sign-in address stays ${r.email}; any pending change of it is cancelled.`;
      return reply.type('text/html; charset=utf-8').send(await accountPage(req, undefined, notice));
    },
  );

  app.post(
    '/account/team/invite',
    {
      schema: {
        tags: ['pages'],
        summary: 'Invite form',
        security: session,
        querystring: NoQuery,
        body: Type.Object(
          { email: Type.String({ maxLength: 320 }), role: Type.Union([Type.Literal('admin'), Type.Literal('viewer')]) },
          { additionalProperties: false, examples: [{ email: 'page.invitee@example.test', role: 'viewer' }] },
        ),
        response: See,
        errors: ACCOUNT_ERRORS.invite,
      },
      config: { auth: { mode: 'session', role: 'admin', scope: 'write', tenant: { resource: 'members', ids: [] } } },
    },
    async (req, reply) => {
      await svc.invite(req.caller, req.body);
      return reply.redirect('/account', 303);
    },
  );

  app.post(
    '/account/team/:member_id/remove',
    {
      schema: {
        tags: ['pages'],
        summary: 'Remove-member form',
        security: session,
        querystring: NoQuery,
        params: IdParam('member_id'),
        body: Type.Object({}, { additionalProperties: false, examples: [{}] }),
        response: See,
        errors: ACCOUNT_ERRORS.removeMember,
      },
      config: {
        auth: {
          mode: 'session',
          role: 'admin',
          scope: 'write',
          tenant: { resource: 'members', ids: [{ in: 'params', name: 'member_id', foreign: 'not_found' }] },
        },
      },
    },
    async (req, reply) => {
      await svc.removeMember(req.caller, req.params.member_id);
      return reply.redirect('/account', 303);
    },
  );

  app.post(
    '/account/team/invitations/:invitation_id/withdraw',
    {
      schema: {
        tags: ['pages'],
        summary: 'Withdraw-invitation form',
        security: session,
        querystring: NoQuery,
        params: IdParam('invitation_id'),
        body: Type.Object({}, { additionalProperties: false, examples: [{}] }),
        response: See,
        errors: ACCOUNT_ERRORS.withdrawInvitation,
      },
      config: {
        auth: {
          mode: 'session',
          role: 'admin',
          scope: 'write',
          tenant: { resource: 'invitations', ids: [{ in: 'params', name: 'invitation_id', foreign: 'not_found' }] },
        },
      },
    },
    async (req, reply) => {
      await svc.withdrawInvitation(req.caller, req.params.invitation_id);
      return reply.redirect('/account', 303);
    },
  );

  app.post(
    '/account/keys',
    {
      schema: {
        tags: ['pages'],
        summary: 'Create-key form: the account page with the new key shown once',
        security: session,
        querystring: NoQuery,
        body: Type.Object(
          {
            label: Type.Optional(Type.String({ maxLength: KEY_LABEL_MAX, pattern: NAME_TEXT_PATTERN })),
            scope: Type.Union([Type.Literal('read'), Type.Literal('write')]),
          },
          { additionalProperties: false, examples: [{ label: 'Page key', scope: 'read' }] },
        ),
        response: { 201: Html('The account page with the new key') },
        errors: ACCOUNT_ERRORS.keys,
      },
      config: { auth: { mode: 'session', role: 'admin', scope: 'write', tenant: { resource: 'api_keys', ids: [] } } },
    },
    async (req, reply) => {
      const k = await svc.createKey(req.caller, {
        kind: 'standard',
        scopes: req.body.scope === 'write' ? ['read', 'write'] : ['read'],
        label: req.body.label,
      });
      return reply
        .code(201)
        .type('text/html; charset=utf-8')
        .send(await accountPage(req, k.key));
    },
  );

  app.post(
    '/account/trial',
    {
      schema: {
        tags: ['pages'],
        summary:
          'Start-trial form (Free plan; POST /api/v1/account/trial): the account page with the trial key shown once',
        security: session,
        querystring: NoQuery,
        body: Type.Object({}, { additionalProperties: false, examples: [{}] }),
        response: { 201: Html('The account page with the trial key') },
        errors: ACCOUNT_ERRORS.startTrial,
      },
      config: {
        auth: { mode: 'session', role: 'admin', scope: 'write', tenant: { resource: 'organizations', ids: [] } },
      },
    },
    async (req, reply) => {
      const r = await svc.startTrial(req.caller);
      return reply
        .code(201)
        .type('text/html; charset=utf-8')
        .send(await accountPage(req, undefined, undefined, { key: r.key, ends_at: r.trial.ends_at }));
    },
  );

  app.post(
    '/account/keys/:key_id/revoke',
    {
      schema: {
        tags: ['pages'],
        summary: 'Revoke-key form',
        security: session,
        querystring: NoQuery,
        params: IdParam('key_id'),
        body: Type.Object({}, { additionalProperties: false, examples: [{}] }),
        response: See,
        errors: ACCOUNT_ERRORS.keys,
      },
      config: {
        auth: {
          mode: 'session',
          role: 'admin',
          scope: 'write',
          tenant: { resource: 'api_keys', ids: [{ in: 'params', name: 'key_id', foreign: 'not_found' }] },
        },
      },
    },
    async (req, reply) => {
      await svc.revokeKey(req.caller, req.params.key_id);
      return reply.redirect('/account', 303);
    },
  );

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

  app.post(
    '/account/delete',
    {
      schema: {
        tags: ['pages'],
        summary: 'Delete-organization form (owner; the confirmation text of DELETE /api/v1/account)',
        security: session,
        querystring: NoQuery,
        body: Type.Object(
          { confirmation: Type.String({ maxLength: 200 }) },
          { additionalProperties: false, examples: [{ confirmation: 'not the confirmation text' }] },
        ),
        response: { 200: Html('Deleted') },
        errors: ACCOUNT_ERRORS.deleteAccount,
      },
      config: {
        auth: { mode: 'session', role: 'owner', scope: 'write', tenant: { resource: 'organizations', ids: [] } },
      },
    },
    async (req, reply) => {
      const r = await svc.deleteAccount(req.caller, req.body.confirmation);
      clearSessionCookies(reply, secure);
      return reply
        .type('text/html; charset=utf-8')
        .send(
          renderMessagePage(
            'Organization deleted',
            `It no longer works, and all its data will be purged by ${r.purge_by}.`,
            '/login',
          ),
        );
    },
  );
};
export default pages;
