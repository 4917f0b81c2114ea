// spec §4.5 Account (docs/accounts.md): API keys over HTTP (list, create, revoke, rotate) and the free API trial.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CollectionEnvelope, Envelope, listCollection, ok } from '../../envelope.ts';
import { PageQuery } from '../../schemas/cves.ts';
import { NoQuery } from '../../schemas/common.ts';
import {
  ApiKey,
  CreateKey,
  IdParam,
  IssuedKey,
  RevokedKey,
  TrialStatusView,
  NoBody,
  acceptNoBody,
  ACCOUNT_ERRORS,
} from '../../schemas/accounts.ts';
import { Empty, key, session } from './account-api-common.ts';

const accountKeys: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.accounts;
  acceptNoBody(app);

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
};
export default accountKeys;
