// spec §4.5 Account: GET /api/v1/account/me returns the profile of §2.8 for the calling member (key or session).
// The account's other endpoints (keys, team, organization, preferences) are in account-manage.ts and
// account-preferences.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Envelope, ok } from '../../envelope.ts';
import { NoQuery, StringEnum } from '../../schemas/common.ts';
import { TIERS } from '../../../domain/tiers.ts';

export const Profile = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  name: Type.String(),
  tier: StringEnum(TIERS),
  org_id: Type.Integer(),
  org_name: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  permissions: Type.Object({
    search_max_results: Type.Integer({ description: '-1 = unlimited' }),
    sage_visible: Type.Boolean(),
    virtual_patch: Type.Boolean(),
    api_keys: Type.Boolean(),
    webhook_delivery: Type.Boolean(),
  }),
});

const account: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/v1/account/me',
    {
      schema: {
        tags: ['account'],
        summary: 'Current user profile with the permissions of its tier (spec §2.8)',
        security: [{ apiKey: [] }, { session: [] }],
        querystring: NoQuery,
        response: { 200: Envelope(Profile, Type.Object({})) },
      },
      config: {
        auth: { mode: 'key_or_session', role: 'viewer', scope: 'read', tenant: { resource: 'members', ids: [] } },
      },
    },
    async (req) => {
      return ok(req, app.services.identity.profile(req.caller), {});
    },
  );
};
export default account;
