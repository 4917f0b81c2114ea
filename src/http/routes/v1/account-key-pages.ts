// The account page's API key forms (docs/accounts.md "Pages"): create a key (shown once), start the free trial (its
// key shown once), revoke a key; what every account page shares: account-page-kit.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { NAME_TEXT_PATTERN, NoQuery } from '../../schemas/common.ts';
import { ACCOUNT_ERRORS, IdParam } from '../../schemas/accounts.ts';
import { KEY_LABEL_MAX } from '../../../domain/keys.ts';
import { Html, See, session, accountPageKit } from './account-page-kit.ts';

const accountKeyPages: FastifyPluginAsyncTypebox = async (app) => {
  const { svc, accountPage } = accountPageKit(app);

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
};
export default accountKeyPages;
