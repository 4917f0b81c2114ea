// One CVE's triage decision in an environment (docs/triage.md): GET, PUT and DELETE
// /api/v1/environments/{environment_id}/decisions/{cve_id}, and its append-only history (GET .../history).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CollectionEnvelope, Envelope, collection, ok, pagination } from '../../envelope.ts';
import { NoBody, NoQuery, StringEnum } from '../../schemas/common.ts';
import { PageParams } from '../../schemas/cves.ts';
import { COMMENT_MAX } from '../../../domain/triage.ts';
import { Comment, Decision, DecisionFieldsSchema, DecisionParams } from './triage-schemas.ts';
import { SECURITY, envOf, read, write, writerOf } from './triage-policy.ts';

const SetDecision = Type.Object(
  { ...DecisionFieldsSchema, comment: Comment },
  {
    additionalProperties: false,
    examples: [
      {
        status: 'not_affected',
        justification: 'vulnerable_code_not_in_execute_path',
        impact_statement: 'The web server of the HMI is switched off on every panel of the line.',
        comment: 'Checked on site.',
      },
    ],
  },
);

const Snapshot = Type.Unsafe<object>({
  type: 'object',
  additionalProperties: true,
  description: 'The decision fields (status … assignee_member_id) and review_reasons',
});

const HistoryEntry = Type.Object({
  id: Type.Integer(),
  action: StringEnum(['set', 'clear', 'bulk', 'import', 'review_flagged'] as const),
  at: Type.String({ format: 'date-time' }),
  actor: Type.Object({
    member_id: Type.Union([Type.Integer(), Type.Null()]),
    key_id: Type.Union([Type.Integer(), Type.Null()]),
    label: Type.String(),
  }),
  before: Type.Union([Snapshot, Type.Null()]),
  after: Type.Union([Snapshot, Type.Null()]),
  comment: Type.Union([Type.String(), Type.Null()]),
});

const HistoryQuery = Type.Object({ ...PageParams }, { additionalProperties: false });
const ClearQuery = Type.Object(
  {
    comment: Type.Optional(
      Type.String({ minLength: 1, maxLength: COMMENT_MAX, description: 'Why it is cleared (kept in the history)' }),
    ),
  },
  { additionalProperties: false },
);

const oneDecision: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.triage;

  app.get(
    '/api/v1/environments/:environment_id/decisions/:cve_id',
    {
      schema: {
        tags: ['triage'],
        summary: "One CVE's decision in an environment, with its comments (any member). None: 404 decision_not_found",
        security: SECURITY,
        params: DecisionParams,
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Envelope(Decision, Type.Object({})) },
        errors: [
          { key: 'NOT_FOUND', error: 'decision_not_found', when: 'the CVE has no decision in this environment' },
        ],
      },
      config: read(),
    },
    async (req) => {
      const env = envOf(req.params.environment_id);
      const r = await svc.get(req.caller.orgId, env, req.params.cve_id.toUpperCase());
      return ok(req, r.decision, {});
    },
  );

  app.put(
    '/api/v1/environments/:environment_id/decisions/:cve_id',
    {
      schema: {
        tags: ['triage'],
        summary:
          "Set one CVE's decision in an environment, replacing the current one (owner or admin; keys need the write scope)",
        description:
          'not_affected needs a justification from CISA\'s list; affected needs an action_statement and may have a due_date. The CVE must be in the corpus (404 cve_not_found). Setting it again clears "review again". 201 when new, 200 when replaced.',
        security: SECURITY,
        params: DecisionParams,
        querystring: NoQuery,
        body: SetDecision,
        response: { 200: Envelope(Decision, Type.Object({})), 201: Envelope(Decision, Type.Object({})) },
        errors: [{ key: 'NOT_FOUND', error: 'cve_not_found', when: 'the CVE is not in the corpus' }],
      },
      config: write(),
    },
    async (req, reply) => {
      const env = envOf(req.params.environment_id);
      const r = await svc.set(writerOf(req.caller), env, req.params.cve_id.toUpperCase(), req.body);
      reply.code(r.created ? 201 : 200);
      return ok(req, r.decision, {});
    },
  );

  app.delete(
    '/api/v1/environments/:environment_id/decisions/:cve_id',
    {
      schema: {
        tags: ['triage'],
        summary:
          "Clear one CVE's decision in an environment: the CVE is undecided again; its history stays (owner or admin; keys need the write scope)",
        security: SECURITY,
        params: DecisionParams,
        querystring: ClearQuery,
        body: NoBody,
        response: { 200: Envelope(Decision, Type.Object({})) },
        errors: [
          { key: 'NOT_FOUND', error: 'decision_not_found', when: 'the CVE has no decision in this environment' },
        ],
      },
      config: write(),
    },
    async (req) => {
      const env = envOf(req.params.environment_id);
      const r = await svc.clear(writerOf(req.caller), env, req.params.cve_id.toUpperCase(), req.query.comment ?? null);
      return ok(req, r.removed, {});
    },
  );

  app.get(
    '/api/v1/environments/:environment_id/decisions/:cve_id/history',
    {
      schema: {
        tags: ['triage'],
        summary:
          "The append-only history of one CVE's decision in an environment, oldest first: who, when, the fields before and after (any member)",
        security: SECURITY,
        params: DecisionParams,
        querystring: HistoryQuery,
        response: { 200: CollectionEnvelope(HistoryEntry, Type.Object({})) },
      },
      config: read(),
    },
    async (req) => {
      const env = envOf(req.params.environment_id);
      const r = await svc.history(
        { tier: req.caller.tier, orgId: req.caller.orgId },
        env,
        req.params.cve_id.toUpperCase(),
        req.query,
      );
      return collection(req, r.items, pagination(r.total, r.page, r.perPage, r.items.length), {});
    },
  );
};

export default oneDecision;
