// The delete-organization form (docs/accounts.md "Pages"); what every account page shares: account-page-kit.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { NoQuery } from '../../schemas/common.ts';
import { ACCOUNT_ERRORS } from '../../schemas/accounts.ts';
import { clearSessionCookies } from '../../session-cookies.ts';
import { renderMessagePage } from '../../web/message-pages.tsx';
import { Html, session, accountPageKit } from './account-page-kit.ts';

const accountDeletePage: FastifyPluginAsyncTypebox = async (app) => {
  const { svc, secure } = accountPageKit(app);

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
export default accountDeletePage;
