// Sign-in by email link and sessions (docs/accounts.md "Sign-in"). Spec §5.10 leaves the login flow
// to us: POST /auth/login mails a single-use link (15 minutes); following it starts a session (cookie vi_session,
// HttpOnly, SameSite=Lax, Secure on https; a new id at every sign-in) and redirects to the account page.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CollectionEnvelope, Envelope, listCollection, ok } from '../../envelope.ts';
import { PageQuery } from '../../schemas/cves.ts';
import { NoQuery, StringEnum } from '../../schemas/common.ts';
import { clearSessionCookies, setSessionCookies } from '../../session-cookies.ts';
import { ACCOUNT_ERRORS, NoBody, acceptNoBody } from '../../schemas/accounts.ts';
import { SESSION_ABSOLUTE_MS } from '../../../domain/accounts.ts';
import { ROLES, TIERS } from '../../../domain/tiers.ts';

/** Where a followed link lands. */
export const ACCOUNT_PAGE = '/account';

const TokenQuery = Type.Object(
  { token: Type.String({ minLength: 16, maxLength: 200, pattern: '^[A-Za-z0-9_-]+$' }) },
  { additionalProperties: false },
);
const LoginBody = Type.Object(
  { email: Type.String({ minLength: 1, maxLength: 320 }) },
  { additionalProperties: false, examples: [{ email: 'someone@example.test' }] },
);
const LoginSent = Type.Object({ message: Type.String(), expires_in_seconds: Type.Integer() });
const Membership = Type.Object({
  org_id: Type.Integer(),
  org_name: Type.String(),
  role: StringEnum(ROLES),
  tier: StringEnum(TIERS),
  status: StringEnum(['active', 'deactivated'] as const),
  current: Type.Boolean(),
});
const SwitchBody = Type.Object(
  { org_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) },
  { additionalProperties: false, examples: [{ org_id: 1 }] },
);
const Redirect = { 303: Type.Null({ description: `Redirect to ${ACCOUNT_PAGE}` }) };

const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.accounts;
  const secure = new URL(app.deps.config.publicUrl).protocol === 'https:';
  const maxAge = Math.floor(SESSION_ABSOLUTE_MS / 1000);
  acceptNoBody(app);

  app.post(
    '/api/v1/auth/login',
    {
      schema: {
        tags: ['auth'],
        summary:
          'Email a sign-in link (valid 15 minutes, once). The answer is the same whether or not the address has an account',
        querystring: NoQuery,
        body: LoginBody,
        response: { 202: Envelope(LoginSent, Type.Object({})) },
        errors: ACCOUNT_ERRORS.requestLogin,
      },
      config: { auth: { mode: 'none', tenant: false } },
    },
    async (req, reply) => {
      await svc.requestLogin(req.body.email, req.ip);
      reply.code(202);
      return ok(
        req,
        {
          message: 'If an account uses this address, a sign-in link is on its way. It is valid for 15 minutes.',
          expires_in_seconds: 900,
        },
        {},
      );
    },
  );

  app.get(
    '/api/v1/auth/callback',
    {
      schema: {
        tags: ['auth'],
        summary:
          'Follow a sign-in link: starts a session (cookies vi_session and vi_csrf) and redirects to the page the sign-in started from (/login?next=…), else the account page',
        querystring: TokenQuery,
        response: Redirect,
        errors: ACCOUNT_ERRORS.completeLogin,
      },
      config: { auth: { mode: 'none', tenant: false } },
    },
    async (req, reply) => {
      const s = await svc.completeLogin(req.query.token);
      setSessionCookies(reply, s.token, secure, maxAge);
      // The page the sign-in started from (/login?next=…), stored with the token and checked again: a local path only.
      return reply.header('cache-control', 'no-store').redirect(s.next ?? ACCOUNT_PAGE, 303);
    },
  );

  app.get(
    '/api/v1/auth/accept-invite',
    {
      schema: {
        tags: ['auth'],
        summary:
          'Follow an invitation link: joins the organization, starts a session there and redirects to the account page',
        querystring: TokenQuery,
        response: Redirect,
        errors: ACCOUNT_ERRORS.acceptInvitation,
      },
      config: { auth: { mode: 'none', tenant: false } },
    },
    async (req, reply) => {
      const s = await svc.acceptInvitation(req.query.token);
      setSessionCookies(reply, s.token, secure, maxAge);
      return reply.header('cache-control', 'no-store').redirect(ACCOUNT_PAGE, 303);
    },
  );

  app.get(
    '/api/v1/auth/confirm-email',
    {
      schema: {
        tags: ['auth'],
        summary:
          'Follow an email-change link: the new address becomes the sign-in address; redirects to the account page',
        querystring: TokenQuery,
        response: Redirect,
        errors: ACCOUNT_ERRORS.confirmEmail,
      },
      config: { auth: { mode: 'none', tenant: false } },
    },
    async (req, reply) => {
      await svc.confirmEmail(req.query.token);
      return reply.header('cache-control', 'no-store').redirect(ACCOUNT_PAGE, 303);
    },
  );

  app.post(
    '/api/v1/auth/logout',
    {
      schema: {
        tags: ['auth'],
        summary: 'End the current session',
        security: [{ session: [] }],
        querystring: NoQuery,
        body: NoBody,
        response: { 200: Envelope(Type.Object({ ended: Type.Integer() }), Type.Object({})) },
      },
      config: { auth: { mode: 'session', role: 'viewer', scope: 'write', self: true, tenant: false } },
    },
    async (req, reply) => {
      const ended = await svc.logout(req.sessionToken!);
      clearSessionCookies(reply, secure);
      return ok(req, { ended: ended ? 1 : 0 }, {});
    },
  );

  app.post(
    '/api/v1/auth/logout-all',
    {
      schema: {
        tags: ['auth'],
        summary: 'End every session of the signed-in person, in every organization (this one included)',
        security: [{ session: [] }],
        querystring: NoQuery,
        body: NoBody,
        response: { 200: Envelope(Type.Object({ ended: Type.Integer() }), Type.Object({})) },
      },
      config: { auth: { mode: 'session', role: 'viewer', scope: 'write', self: true, tenant: false } },
    },
    async (req, reply) => {
      const ended = await svc.logoutEverywhere(req.caller);
      clearSessionCookies(reply, secure);
      return ok(req, { ended }, {});
    },
  );

  app.get(
    '/api/v1/auth/memberships',
    {
      schema: {
        tags: ['auth'],
        summary: 'The organizations of the signed-in person, with its role in each',
        security: [{ session: [] }],
        querystring: PageQuery,
        response: { 200: CollectionEnvelope(Membership, Type.Object({})) },
      },
      config: { auth: { mode: 'session', role: 'viewer', scope: 'read', tenant: false } },
    },
    async (req) => listCollection(req, await svc.memberships(req.caller)),
  );

  app.post(
    '/api/v1/auth/switch-org',
    {
      schema: {
        tags: ['auth'],
        summary:
          'Move the session to another organization of the signed-in person: the current session ends, a new one starts there',
        security: [{ session: [] }],
        querystring: NoQuery,
        body: SwitchBody,
        response: {
          200: Envelope(Type.Object({ org_id: Type.Integer(), member_id: Type.Integer() }), Type.Object({})),
        },
        errors: ACCOUNT_ERRORS.switchOrganization,
      },
      // tenant false: it acts on the caller's own memberships only (another organization's id is not found;
      // test/integration/accounts.test.ts).
      config: { auth: { mode: 'session', role: 'viewer', scope: 'write', self: true, tenant: false } },
    },
    async (req, reply) => {
      const s = await svc.switchOrganization(req.caller, req.sessionToken!, req.body.org_id);
      setSessionCookies(reply, s.token, secure, maxAge);
      return ok(req, { org_id: s.orgId, member_id: s.memberId }, {});
    },
  );
};
export default authRoutes;
