// spec §4.5 Account (docs/accounts.md): the profile update, the organization, and the team and its invitations.
// GET /account/me is in account.ts; API keys and the free trial in account-keys.ts; account deletion and a
// managed-service provider's client organizations in account-organizations.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Envelope, ok } from '../../envelope.ts';
import { NoQuery } from '../../schemas/common.ts';
import {
  IdParam,
  InviteBody,
  Invitation,
  Organization,
  Team,
  UpdateMe,
  UpdateOrganization,
  NoBody,
  acceptNoBody,
  ACCOUNT_ERRORS,
  Preferences,
} from '../../schemas/accounts.ts';
import { Profile } from './account.ts';
import { Empty, key, session } from './account-api-common.ts';

const account: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.accounts;
  acceptNoBody(app);

  app.put(
    '/api/v1/account/me',
    {
      schema: {
        tags: ['account'],
        summary:
          'Update your name and preferences; a new email address (browser session only) takes effect once confirmed through the link sent to it',
        security: [key, session],
        querystring: NoQuery,
        body: UpdateMe,
        response: {
          200: Envelope(
            Type.Object({
              ...Profile.properties,
              preferences: Preferences,
              pending_email: Type.Union([Type.String(), Type.Null()]),
            }),
            Empty,
          ),
        },
        errors: ACCOUNT_ERRORS.updateMe,
      },
      config: {
        auth: {
          mode: 'key_or_session',
          role: 'viewer',
          scope: 'write',
          self: true,
          tenant: { resource: 'members', ids: [] },
        },
      },
    },
    async (req) => ok(req, await svc.updateMe(req.caller, req.body), {}),
  );

  app.get(
    '/api/v1/account/org',
    {
      schema: {
        tags: ['account'],
        summary: 'Your organization: name, plan (read-only), its caps and the overrides',
        security: [key, session],
        querystring: NoQuery,
        response: { 200: Envelope(Organization, Empty) },
      },
      config: {
        auth: { mode: 'key_or_session', role: 'viewer', scope: 'read', tenant: { resource: 'organizations', ids: [] } },
      },
    },
    async (req) => ok(req, await svc.organization(req.caller), {}),
  );

  app.put(
    '/api/v1/account/org',
    {
      schema: {
        tags: ['account'],
        summary: 'Rename your organization (owner or admin); the plan is not changed through the API',
        security: [key, session],
        querystring: NoQuery,
        body: UpdateOrganization,
        response: { 200: Envelope(Organization, Empty) },
      },
      config: {
        auth: { mode: 'key_or_session', role: 'admin', scope: 'write', tenant: { resource: 'organizations', ids: [] } },
      },
    },
    async (req) => ok(req, await svc.updateOrganization(req.caller, req.body), {}),
  );

  app.get(
    '/api/v1/account/team',
    {
      schema: {
        tags: ['account'],
        summary: 'Team members (owner first) and pending invitations',
        security: [key, session],
        querystring: NoQuery,
        response: { 200: Envelope(Team, Empty) },
      },
      config: {
        auth: { mode: 'key_or_session', role: 'viewer', scope: 'read', tenant: { resource: 'members', ids: [] } },
      },
    },
    async (req) => ok(req, await svc.team(req.caller), {}),
  );

  app.post(
    '/api/v1/account/team/invite',
    {
      schema: {
        tags: ['account'],
        summary:
          'Invite a member by email (accept link valid 7 days). Past the member cap (pending invitations count): 403 cap_exceeded',
        security: [key, session],
        querystring: NoQuery,
        body: InviteBody,
        response: { 201: Envelope(Invitation, Empty) },
        errors: ACCOUNT_ERRORS.invite,
      },
      config: {
        auth: { mode: 'key_or_session', role: 'admin', scope: 'write', tenant: { resource: 'members', ids: [] } },
      },
    },
    async (req, reply) => {
      const inv = await svc.invite(req.caller, req.body);
      reply.code(201);
      return ok(req, inv, {});
    },
  );

  app.delete(
    '/api/v1/account/team/invitations/:invitation_id',
    {
      schema: {
        tags: ['account'],
        summary: 'Withdraw a pending invitation: its link stops working and its member seat is free',
        security: [key, session],
        querystring: NoQuery,
        params: IdParam('invitation_id'),
        body: NoBody,
        response: { 200: Envelope(Type.Object({ withdrawn: Invitation }), Empty) },
        errors: ACCOUNT_ERRORS.withdrawInvitation,
      },
      config: {
        auth: {
          mode: 'key_or_session',
          role: 'admin',
          scope: 'write',
          tenant: { resource: 'invitations', ids: [{ in: 'params', name: 'invitation_id', foreign: 'not_found' }] },
        },
      },
    },
    async (req) => ok(req, { withdrawn: await svc.withdrawInvitation(req.caller, req.params.invitation_id) }, {}),
  );

  app.delete(
    '/api/v1/account/team/:member_id',
    {
      schema: {
        tags: ['account'],
        summary:
          'Remove a member (never the owner); its sessions end, its keys are revoked and the invitations it sent are withdrawn',
        security: [key, session],
        querystring: NoQuery,
        params: IdParam('member_id'),
        body: NoBody,
        response: { 200: Envelope(Type.Object({ removed: Type.Integer() }), Empty) },
        errors: ACCOUNT_ERRORS.removeMember,
      },
      config: {
        auth: {
          mode: 'key_or_session',
          role: 'admin',
          scope: 'write',
          tenant: { resource: 'members', ids: [{ in: 'params', name: 'member_id', foreign: 'not_found' }] },
        },
      },
    },
    async (req) => {
      await svc.removeMember(req.caller, req.params.member_id);
      return ok(req, { removed: req.params.member_id }, {});
    },
  );
};
export default account;
