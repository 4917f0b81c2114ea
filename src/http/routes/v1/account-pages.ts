// The sign-in page and form, the account page, signing out, and the profile forms (docs/accounts.md "Pages"); what
// every account page shares: account-page-kit.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { NAME_TEXT_PATTERN, NoQuery } from '../../schemas/common.ts';
import { ACCOUNT_ERRORS } from '../../schemas/accounts.ts';
import { clearSessionCookies } from '../../session-cookies.ts';
import { renderCheckEmailPage, renderLoginPage } from '../../web/sign-in.tsx';
import { NEXT_PATH_MAX, safeNextPath } from '../../../domain/accounts.ts';
import { Html, See, session, accountPageKit } from './account-page-kit.ts';

const accountPages: FastifyPluginAsyncTypebox = async (app) => {
  const { svc, secure, accountPage } = accountPageKit(app);

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
};
export default accountPages;
