// spec §4.5 Account (docs/accounts.md): the profile update, the organization, the team and its
// invitations, API keys over HTTP, the free trial, account deletion, and the client organizations of a
// managed-service provider (§3.2). GET /account/me is in account.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CollectionEnvelope, Envelope, listCollection, ok } from '../../envelope.ts';
import { PageQuery } from '../../schemas/cves.ts';
import { NoQuery } from '../../schemas/common.ts';
import { clearSessionCookies } from '../../session-cookies.ts';
import {
  ApiKey,
  Client,
  CreateKey,
  IdParam,
  InviteBody,
  Invitation,
  IssuedKey,
  Organization,
  RevokedKey,
  Team,
  TrialStatusView,
  UpdateMe,
  UpdateOrganization,
  NoBody,
  acceptNoBody,
  ACCOUNT_ERRORS,
} from '../../schemas/accounts.ts';
import { Profile } from './account.ts';
import { DELETE_CONFIRMATION } from '../../../domain/accounts.ts';
import { Preferences } from '../../schemas/accounts.ts';

const Empty = Type.Object({});

const key = { apiKey: [] as string[] };
const session = { session: [] as string[] };

const account: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.accounts;
  const secure = new URL(app.deps.config.publicUrl).protocol === 'https:';
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

  app.get(
    '/api/v1/account/keys',
    {
      schema: {
        tags: ['account'],
        summary: "Your organization's API keys (owner or admin; Professional and above)",
        security: [key, session],
        querystring: PageQuery,
        response: { 200: CollectionEnvelope(ApiKey, Empty) },
        errors: ACCOUNT_ERRORS.keys,
      },
      config: {
        auth: { mode: 'key_or_session', role: 'admin', scope: 'read', tenant: { resource: 'api_keys', ids: [] } },
      },
    },
    async (req) => listCollection(req, await svc.listKeys(req.caller)),
  );

  app.post(
    '/api/v1/account/keys',
    {
      schema: {
        tags: ['account'],
        summary:
          'Create an API key for yourself; the key is in this answer only (owner or admin; Professional and above)',
        security: [key, session],
        querystring: NoQuery,
        body: CreateKey,
        response: { 201: Envelope(IssuedKey, Empty) },
        errors: ACCOUNT_ERRORS.createKey,
      },
      config: {
        auth: { mode: 'key_or_session', role: 'admin', scope: 'write', tenant: { resource: 'api_keys', ids: [] } },
      },
    },
    async (req, reply) => {
      const k = await svc.createKey(req.caller, {
        kind: req.body.kind ?? 'standard',
        scopes: req.body.scopes,
        label: req.body.label,
      });
      reply.code(201).header('cache-control', 'no-store');
      return ok(req, k, {});
    },
  );

  app.delete(
    '/api/v1/account/keys/:key_id',
    {
      schema: {
        tags: ['account'],
        summary: 'Revoke an API key (idempotent; it stops working at once)',
        security: [key, session],
        querystring: NoQuery,
        params: IdParam('key_id'),
        body: NoBody,
        response: { 200: Envelope(RevokedKey, Empty) },
        errors: ACCOUNT_ERRORS.keys,
      },
      config: {
        auth: {
          mode: 'key_or_session',
          role: 'admin',
          scope: 'write',
          tenant: { resource: 'api_keys', ids: [{ in: 'params', name: 'key_id', foreign: 'not_found' }] },
        },
      },
    },
    async (req) => ok(req, await svc.revokeKey(req.caller, req.params.key_id), {}),
  );

  app.post(
    '/api/v1/account/keys/:key_id/rotate',
    {
      schema: {
        tags: ['account'],
        summary:
          'Rotate one of your own API keys: a new key (same kind, scopes, label) is created, then the old one revoked',
        security: [key, session],
        querystring: NoQuery,
        params: IdParam('key_id'),
        body: NoBody,
        response: { 201: Envelope(Type.Object({ key: IssuedKey, revoked: RevokedKey }), Empty) },
        errors: ACCOUNT_ERRORS.rotateKey,
      },
      config: {
        auth: {
          mode: 'key_or_session',
          role: 'admin',
          scope: 'write',
          tenant: { resource: 'api_keys', ids: [{ in: 'params', name: 'key_id', foreign: 'not_found' }] },
        },
      },
    },
    async (req, reply) => {
      const r = await svc.rotateKey(req.caller, req.params.key_id);
      reply.code(201).header('cache-control', 'no-store');
      return ok(req, r, {});
    },
  );

  app.get(
    '/api/v1/account/trial',
    {
      schema: {
        tags: ['account'],
        summary:
          'Where the free API trial stands: not started, active (asset checks used and remaining, end date) or ended (why: expired, ended, limit)',
        security: [key, session],
        querystring: NoQuery,
        response: { 200: Envelope(TrialStatusView, Empty) },
      },
      config: {
        auth: { mode: 'key_or_session', role: 'viewer', scope: 'read', tenant: { resource: 'organizations', ids: [] } },
      },
    },
    async (req) => ok(req, await svc.trial(req.caller), {}),
  );

  app.post(
    '/api/v1/account/trial',
    {
      schema: {
        tags: ['account'],
        summary:
          'Start the free API trial (Free plan, browser session; once): a trial key, 25 assets per request, 750 in total, 14 days',
        security: [session],
        querystring: NoQuery,
        body: NoBody,
        response: {
          201: Envelope(
            Type.Object({
              ...IssuedKey.properties,
              trial: Type.Object({
                started_at: Type.String({ format: 'date-time' }),
                ends_at: Type.String({ format: 'date-time' }),
                per_request: Type.Integer(),
                total_checks: Type.Integer(),
              }),
            }),
            Empty,
          ),
        },
        errors: ACCOUNT_ERRORS.startTrial,
      },
      config: {
        auth: { mode: 'session', role: 'admin', scope: 'write', tenant: { resource: 'organizations', ids: [] } },
      },
    },
    async (req, reply) => {
      const r = await svc.startTrial(req.caller);
      reply.code(201).header('cache-control', 'no-store');
      return ok(req, r, {});
    },
  );

  app.delete(
    '/api/v1/account',
    {
      schema: {
        tags: ['account'],
        summary: `Delete your organization (owner, browser session only). Body: {"confirmation": "${DELETE_CONFIRMATION}"}. Deactivated at once; data purged about 20 hours later`,
        security: [session],
        querystring: NoQuery,
        body: Type.Object(
          { confirmation: Type.Optional(Type.String({ maxLength: 200 })) },
          { additionalProperties: false, examples: [{ confirmation: 'not the confirmation text' }] },
        ),
        response: {
          200: Envelope(
            Type.Object({
              org_id: Type.Integer(),
              status: Type.Literal('deactivated'),
              deleted_at: Type.String({ format: 'date-time' }),
              purge_by: Type.String({ format: 'date-time' }),
            }),
            Empty,
          ),
        },
        errors: ACCOUNT_ERRORS.deleteAccount,
      },
      config: {
        auth: { mode: 'session', role: 'owner', scope: 'write', tenant: { resource: 'organizations', ids: [] } },
      },
    },
    async (req, reply) => {
      const r = await svc.deleteAccount(req.caller, req.body.confirmation);
      clearSessionCookies(reply, secure);
      return ok(req, r, {});
    },
  );

  app.get(
    '/api/v1/account/clients',
    {
      schema: {
        tags: ['account'],
        summary: 'Managed-service providers: your client organizations',
        security: [key, session],
        querystring: PageQuery,
        response: { 200: CollectionEnvelope(Client, Empty) },
      },
      config: {
        auth: { mode: 'key_or_session', role: 'admin', scope: 'read', tenant: { resource: 'clients', ids: [] } },
      },
    },
    async (req) => listCollection(req, await svc.clients(req.caller)),
  );

  app.post(
    '/api/v1/account/clients/:client_id/deactivate',
    {
      schema: {
        tags: ['account'],
        summary: 'Deactivate a client organization (not purged): its keys and sessions stop until restored',
        security: [key, session],
        querystring: NoQuery,
        params: IdParam('client_id'),
        body: NoBody,
        response: { 200: Envelope(Client, Empty) },
      },
      config: {
        auth: {
          mode: 'key_or_session',
          role: 'admin',
          scope: 'write',
          tenant: { resource: 'clients', ids: [{ in: 'params', name: 'client_id', foreign: 'not_found' }] },
        },
      },
    },
    async (req) => ok(req, await svc.deactivateClient(req.caller, req.params.client_id), {}),
  );

  app.post(
    '/api/v1/account/clients/:client_id/restore',
    {
      schema: {
        tags: ['account'],
        summary: 'Restore a client organization you deactivated',
        security: [key, session],
        querystring: NoQuery,
        params: IdParam('client_id'),
        body: NoBody,
        response: { 200: Envelope(Client, Empty) },
      },
      config: {
        auth: {
          mode: 'key_or_session',
          role: 'admin',
          scope: 'write',
          tenant: { resource: 'clients', ids: [{ in: 'params', name: 'client_id', foreign: 'not_found' }] },
        },
      },
    },
    async (req) => ok(req, await svc.restoreClient(req.caller, req.params.client_id), {}),
  );
};
export default account;
