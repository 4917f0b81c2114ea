// Alerts (spec §6; docs/alerts.md): the alerts the 15-minute run stored for the caller's organization,
// newest first, with filters. Each carries the spec §6 cve.alert payload as it is (or will be) delivered.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CollectionEnvelope, collection, pagination } from '../../envelope.ts';
import { StringEnum } from '../../schemas/common.ts';
import { PageParams } from '../../schemas/cves.ts';
import { DELIVERY_STATUSES, SAGE_PRIORITIES } from '../../../domain/alerts.ts';
import { CVE_ID_PATTERN_ANY_CASE } from '../../../domain/cve-id.ts';

const PRIORITY_LIST = `^(${SAGE_PRIORITIES.join('|')})(,(${SAGE_PRIORITIES.join('|')}))*$`;

const AlertQuery = Type.Object(
  {
    ...PageParams,
    sage_priority: Type.Optional(
      Type.String({
        pattern: PRIORITY_LIST,
        description: 'PATCH NOW, PATCH NEXT, MONITOR or IGNORE; several comma-separated',
      }),
    ),
    cve_id: Type.Optional(Type.String({ pattern: CVE_ID_PATTERN_ANY_CASE })),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'Alerts stored at or after this time' })),
    delivery_status: Type.Optional(StringEnum(DELIVERY_STATUSES)),
    match_type: Type.Optional(
      StringEnum(['vendor', 'product', 'protocol', 'cve', 'environment'] as const, {
        description: 'watchlist_match.entity_type',
      }),
    ),
  },
  { additionalProperties: false },
);

const Payload = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  additionalProperties: true,
  description: 'The spec §6 cve.alert body (event, version, timestamp, data)',
});

const Alert = Type.Object({
  id: Type.Integer({ description: 'Random 15-digit id (docs/tenant-ids.md)' }),
  cve_id: Type.String(),
  sage_priority: StringEnum(SAGE_PRIORITIES),
  reasons: Type.Array(Type.String(), {
    description: 'One line per change since the previous run: "added to KEV", "EPSS percentile 45 → 92"',
  }),
  change_kinds: Type.Array(Type.String()),
  watchlist_match: Type.Object({ entity_type: Type.String(), entity_name: Type.String() }),
  delivery_status: StringEnum(DELIVERY_STATUSES),
  created_at: Type.String({ format: 'date-time' }),
  payload: Payload,
});

const alerts: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/v1/alerts',
    {
      schema: {
        tags: ['alerts'],
        summary: "Your organization's alerts, newest first (the 15-minute alert run, spec §6)",
        security: [{ apiKey: [] }, { session: [] }],
        querystring: AlertQuery,
        response: { 200: CollectionEnvelope(Alert, Type.Object({})) },
      },
      config: {
        auth: { mode: 'key_or_session', role: 'viewer', scope: 'read', tenant: { resource: 'alerts', ids: [] } },
      },
    },
    async (req) => {
      const r = await app.services.alerts.list({ tier: req.caller.tier, orgId: req.caller.orgId }, req.query);
      return collection(req, r.items, pagination(r.total, r.page, r.perPage, r.items.length), {});
    },
  );
};
export default alerts;
