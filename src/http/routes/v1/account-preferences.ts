// spec §4.5: GET/PUT /api/v1/account/notifications (per member; shapes ours) and GET /api/v1/account/usage
// (environments, assets and members against the effective plan caps). docs/account-preferences.md.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Envelope, ok } from '../../envelope.ts';
import { ApiError } from '../../errors.ts';
import { NoQuery, StringEnum } from '../../schemas/common.ts';
import { DELIVERIES, SEVERITIES } from '../../../services/account-preferences.ts';
import { TIERS } from '../../../domain/tiers.ts';

const PrefsFields = {
  email_enabled: Type.Boolean({ description: 'Send alert email at all' }),
  min_severity: Type.Union([StringEnum(SEVERITIES), Type.Null()], {
    description: 'Alert only on CVEs of this CVSS severity or above; null = any severity',
  }),
  min_bcs: Type.Union([Type.Number({ minimum: 0, maximum: 10 }), Type.Null()], {
    description: 'Alert only on CVEs with a BCS at or above this (0–10, stored rounded to one decimal); null = any',
  }),
  kev_only: Type.Boolean({ description: 'Alert only on CVEs in CISA KEV' }),
  delivery: StringEnum(DELIVERIES, { description: 'instant: one email per alert; daily_digest: one email a day' }),
};

const PutPrefs = Type.Object(PrefsFields, {
  additionalProperties: false,
  description: 'The whole preference set (PUT replaces it). An alert must meet every threshold set.',
  examples: [{ email_enabled: true, min_severity: 'HIGH', min_bcs: 7.5, kev_only: false, delivery: 'daily_digest' }],
});

const PrefsView = Type.Object({
  ...PrefsFields,
  customized: Type.Boolean({ description: 'false: never saved, the defaults apply' }),
  updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

const Line = Type.Object({
  used: Type.Integer(),
  limit: Type.Integer({ description: 'Effective cap (plan or override); -1 = unlimited' }),
  remaining: Type.Integer({ description: '-1 = unlimited; never negative' }),
  plan_limit: Type.Integer({ description: 'The plan cap before any override; -1 = unlimited' }),
  overridden: Type.Boolean({ description: 'The organization has an override for this resource' }),
});
const Usage = Type.Object({ tier: StringEnum(TIERS), environments: Line, assets: Line, members: Line, webhooks: Line });

const security: Record<string, string[]>[] = [{ apiKey: [] }, { session: [] }];

const accountPreferences: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.accountPreferences;

  app.get(
    '/api/v1/account/notifications',
    {
      schema: {
        tags: ['account'],
        summary: "The caller's notification preferences (defaults until saved)",
        security,
        querystring: NoQuery,
        response: { 200: Envelope(PrefsView, Type.Object({})) },
      },
      config: {
        auth: {
          mode: 'key_or_session',
          role: 'viewer',
          scope: 'read',
          tenant: { resource: 'notification_preferences', ids: [] },
        },
      },
    },
    async (req) => ok(req, await svc.notificationPrefs({ orgId: req.caller.orgId, memberId: req.caller.memberId }), {}),
  );

  app.put(
    '/api/v1/account/notifications',
    {
      schema: {
        tags: ['account'],
        summary: "Replace the caller's notification preferences (any member, for themself)",
        security,
        querystring: NoQuery,
        body: PutPrefs,
        response: { 200: Envelope(PrefsView, Type.Object({})) },
      },
      config: {
        auth: {
          mode: 'key_or_session',
          role: 'viewer',
          scope: 'write',
          self: true,
          tenant: { resource: 'notification_preferences', ids: [] },
        },
      },
    },
    async (req) =>
      ok(req, await svc.putNotificationPrefs({ orgId: req.caller.orgId, memberId: req.caller.memberId }, req.body), {}),
  );

  app.get(
    '/api/v1/account/usage',
    {
      schema: {
        tags: ['account'],
        summary: 'Environments, assets, members and webhooks against the effective plan caps',
        security,
        querystring: NoQuery,
        response: { 200: Envelope(Usage, Type.Object({})) },
      },
      config: {
        auth: { mode: 'key_or_session', role: 'viewer', scope: 'read', tenant: { resource: 'environments', ids: [] } },
      },
    },
    async (req) => {
      const u = await svc.usage(req.caller.orgId);
      if (!u)
        throw new ApiError('AUTH_REQUIRED', {
          message: 'The organization of this credential no longer exists',
          detail: { error: 'org_removed' },
        });
      return ok(req, u, {});
    },
  );
};
export default accountPreferences;
