// spec §4.5 Account: GET /api/v1/account/me returns the profile of §2.8 for the calling member (key or session).
// The other account endpoints come with the accounts work.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { Envelope, ok } from '../../envelope.ts';
import { ApiError } from '../../errors.ts';
import { getMember } from '../../../store/identity.ts';
import { TIER_PERMISSIONS, TIERS, type Tier } from '../../../domain/tiers.ts';

export const Profile = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  name: Type.String(),
  tier: Type.Union(TIERS.map((t) => Type.Literal(t))),
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

const account: FastifyPluginAsync = async (app) => {
  app.get('/api/v1/account/me', {
    schema: {
      tags: ['account'],
      summary: 'Current user profile with the permissions of its tier (spec §2.8)',
      security: [{ apiKey: [] }, { session: [] }],
      querystring: Type.Object({}),
      response: { 200: Envelope(Profile, Type.Object({})) },
    },
    config: { auth: { mode: 'key_or_session' } },
  }, async (req) => {
    const p = req.principal!;
    // Tenant scope: the member is looked up inside the caller's own organization only.
    const m = await getMember(app.deps.store.db, p.orgId, p.memberId);
    if (!m) throw new ApiError('AUTH_REQUIRED', { message: 'The member of this credential no longer exists', detail: { error: 'member_removed' } });
    const tier = m.tier as Tier;
    return ok(req, {
      id: m.id,
      email: m.email,
      name: m.name,
      tier,
      org_id: m.org_id,
      org_name: m.org_name,
      created_at: new Date(m.created_at).toISOString(),
      permissions: { ...TIER_PERMISSIONS[tier] },
    });
  });
};
export default account;
