// An environment's triage decisions as a set (docs/triage.md): GET /api/v1/environments/{environment_id}/decisions
// lists them with filters; POST .../decisions/bulk applies one decision to every CVE a filter selects.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CollectionEnvelope, Envelope, collection, ok, pagination } from '../../envelope.ts';
import { NoQuery, StringEnum } from '../../schemas/common.ts';
import { PageParams } from '../../schemas/cves.ts';
import { DECISION_STATUSES } from '../../../domain/triage.ts';
import { BULK_MAX } from '../../../services/triage-bulk.ts';
import { Comment, CveId, Decision, DecisionFieldsSchema, EnvParams } from './triage-schemas.ts';
import { ENV_ID, SECURITY, envOf, read, write, writerOf } from './triage-policy.ts';

const STATUS_LIST = `^(${DECISION_STATUSES.join('|')})(,(${DECISION_STATUSES.join('|')}))*$`;
const ListQuery = Type.Object(
  {
    ...PageParams,
    status: Type.Optional(
      Type.String({
        pattern: STATUS_LIST,
        description: 'under_investigation, affected, not_affected, fixed; several comma-separated',
      }),
    ),
    review: Type.Optional(
      StringEnum(['true', 'false'] as const, {
        description: 'true: only decisions flagged "review again"; false: only the others',
      }),
    ),
    assignee_member_id: Type.Optional(Type.Integer({ minimum: 1 })),
    cve_id: Type.Optional(CveId),
    asset_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Decisions covering this asset (environment-wide ones included)',
      }),
    ),
    due_before: Type.Optional(
      Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'affected decisions due before this date' }),
    ),
  },
  { additionalProperties: false },
);

const BulkBody = Type.Object(
  {
    filter: Type.Object(
      {
        cve_ids: Type.Optional(
          Type.Array(CveId, {
            maxItems: BULK_MAX,
            description: 'These CVEs; alone, any CVE of the corpus, else narrowing the other criteria',
          }),
        ),
        asset_ids: Type.Optional(
          Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
            maxItems: 1000,
            description: 'CVEs stored for these assets',
          }),
        ),
        vendor: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 200,
            description: "Substring (any case) of the asset's vendor or the matching range's",
          }),
        ),
        product: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 200,
            description: "Substring (any case) of the asset's product or the matching range's",
          }),
        ),
        attack_vector: Type.Optional(
          StringEnum(['N', 'A', 'L', 'P'] as const, {
            description: 'CVSS attack vector: N network, A adjacent network, L local, P physical',
          }),
        ),
        severity: Type.Optional(
          Type.Array(StringEnum(['critical', 'high', 'medium', 'low', 'none'] as const), { maxItems: 5 }),
        ),
        correlation_status: Type.Optional(
          Type.Array(StringEnum(['affected', 'needs_review', 'not_affected'] as const), {
            maxItems: 3,
            description: 'The stored correlation verdict',
          }),
        ),
        known_exploited: Type.Optional(Type.Boolean()),
        decision: Type.Optional(
          Type.Array(StringEnum([...DECISION_STATUSES, 'none'] as const), {
            maxItems: 5,
            description: "The CVE's current decision; none: undecided",
          }),
        ),
      },
      {
        additionalProperties: false,
        description:
          "Selects among the CVEs of the environment's stored correlation results (all criteria must hold); at least one criterion",
      },
    ),
    decision: Type.Object(DecisionFieldsSchema, { additionalProperties: false }),
    comment: Comment,
    dry_run: Type.Optional(Type.Boolean({ description: 'Answer the selection without writing anything' })),
  },
  {
    additionalProperties: false,
    examples: [
      {
        filter: { product: 'SIMATIC S7-1500', attack_vector: 'A', decision: ['none'] },
        decision: {
          status: 'not_affected',
          justification: 'inline_mitigations_already_exist',
          impact_statement: 'The cell network is reached only through the cell firewall.',
        },
        comment: 'Cell firewall review 2026-11',
      },
    ],
  },
);

const BulkResult = Type.Object({
  matched: Type.Integer({ description: 'CVEs the filter selected' }),
  created: Type.Integer(),
  updated: Type.Integer(),
  unchanged: Type.Integer({ description: 'Selected CVEs whose decision already had these fields' }),
  dry_run: Type.Boolean(),
  cve_ids: Type.Array(Type.String(), { description: 'The selected CVEs, in id order' }),
});

const environmentDecisions: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.triage;

  app.get(
    '/api/v1/environments/:environment_id/decisions',
    {
      schema: {
        tags: ['triage'],
        summary:
          "An environment's triage decisions, most recently changed first, with filters (any member; viewers too)",
        security: SECURITY,
        params: EnvParams,
        querystring: ListQuery,
        response: { 200: CollectionEnvelope(Decision, Type.Object({})) },
      },
      config: { auth: { ...read().auth, tenant: { resource: 'decisions', ids: [ENV_ID] } } },
    },
    async (req) => {
      const env = envOf(req.params.environment_id);
      const q = req.query;
      const r = await svc.list(
        { tier: req.caller.tier, orgId: req.caller.orgId },
        env,
        {
          status: q.status?.split(',').flatMap((s) => DECISION_STATUSES.filter((d) => d === s)),
          review: q.review === undefined ? undefined : q.review === 'true',
          assignee_member_id: q.assignee_member_id,
          cve_id: q.cve_id?.toUpperCase(),
          asset_id: q.asset_id,
          due_before: q.due_before,
        },
        q,
      );
      return collection(req, r.items, pagination(r.total, r.page, r.perPage, r.items.length), {});
    },
  );

  app.post(
    '/api/v1/environments/:environment_id/decisions/bulk',
    {
      schema: {
        tags: ['triage'],
        summary: `Apply one decision to every CVE of the environment a filter selects, at most ${BULK_MAX} (owner or admin; keys need the write scope)`,
        description:
          'Example: every CVE of product X whose CVSS vector needs adjacent-network access. All or nothing; each changed decision gets its history row (action bulk). dry_run answers the selection only.',
        security: SECURITY,
        params: EnvParams,
        querystring: NoQuery,
        body: BulkBody,
        response: { 200: Envelope(BulkResult, Type.Object({})) },
      },
      config: { auth: { ...write().auth, tenant: { resource: 'decisions', ids: [ENV_ID] } } },
    },
    async (req) => {
      const env = envOf(req.params.environment_id);
      const r = await svc.bulk(writerOf(req.caller), env, req.body);
      return ok(req, r, {});
    },
  );
};

export default environmentDecisions;
