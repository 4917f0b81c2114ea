// spec §4.5 Account (docs/accounts.md): deleting your organization, and the client organizations of a
// managed-service provider (§3.2).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CollectionEnvelope, Envelope, listCollection, ok } from '../../envelope.ts';
import { PageQuery } from '../../schemas/cves.ts';
import { NoQuery } from '../../schemas/common.ts';
import { clearSessionCookies } from '../../session-cookies.ts';
import { Client, IdParam, NoBody, acceptNoBody, ACCOUNT_ERRORS } from '../../schemas/accounts.ts';
import { DELETE_CONFIRMATION } from '../../../domain/accounts.ts';
import { Empty, key, session } from './account-api-common.ts';

const accountOrganizations: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.accounts;
  const secure = new URL(app.deps.config.publicUrl).protocol === 'https:';
  acceptNoBody(app);

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
export default accountOrganizations;
