// The account page's team forms (docs/accounts.md "Pages"): invite, remove a member, withdraw an invitation; what
// every account page shares: account-page-kit.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { NoQuery } from '../../schemas/common.ts';
import { ACCOUNT_ERRORS, IdParam } from '../../schemas/accounts.ts';
import { See, session, accountPageKit } from './account-page-kit.ts';

const accountTeamPages: FastifyPluginAsyncTypebox = async (app) => {
  const { svc } = accountPageKit(app);

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
};
export default accountTeamPages;
