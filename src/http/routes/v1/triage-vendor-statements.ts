// The vendor statements of CSAF advisories about a CVE, beside the team's decision (docs/triage.md): GET
// /api/v1/environments/{environment_id}/decisions/{cve_id}/vendor-statements, and their adoption (POST .../adopt).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Envelope, ok } from '../../envelope.ts';
import { NoQuery, StringEnum } from '../../schemas/common.ts';
import { JUSTIFICATIONS } from '../../../domain/triage.ts';
import { Comment, Decision, DecisionParams, VendorStatement } from './triage-schemas.ts';
import { SECURITY, envOf, read, write, writerOf } from './triage-policy.ts';

const AdoptBody = Type.Object(
  {
    statement_id: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'A vendor statement id (GET .../vendor-statements)',
    }),
    justification: Type.Optional(
      Type.Union([StringEnum(JUSTIFICATIONS), Type.Null()], {
        description: "not_affected statements whose vendor states no justification: the team's (required then)",
      }),
    ),
    comment: Comment,
  },
  {
    additionalProperties: false,
    examples: [{ statement_id: 'ICSA-23-243-04#1', justification: 'component_not_present' }],
  },
);

const vendorStatements: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.triage;

  app.get(
    '/api/v1/environments/:environment_id/decisions/:cve_id/vendor-statements',
    {
      schema: {
        tags: ['triage'],
        summary:
          "What CSAF advisories' vendors state about one CVE (fixed, not affected), with the environment's assets each names, decided or not (any member)",
        security: SECURITY,
        params: DecisionParams,
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Envelope(Type.Array(VendorStatement), Type.Object({})) },
      },
      config: read(),
    },
    async (req) => {
      const env = envOf(req.params.environment_id);
      const r = await svc.vendorStatements(req.caller.orgId, env, req.params.cve_id.toUpperCase());
      return ok(req, r.items, {});
    },
  );

  app.post(
    '/api/v1/environments/:environment_id/decisions/:cve_id/adopt',
    {
      schema: {
        tags: ['triage'],
        summary:
          "Adopt a vendor statement as the team's decision in one call (owner or admin; keys need the write scope)",
        description:
          "The decision takes the statement's status, the vendor's justification (else the one given; a not_affected statement without either is refused like any not_affected without one), its impact statement (else one naming the advisory), its vendor_fix as the action statement, narrowed to the assets the statement names (none: the whole environment). Written like PUT, its history row commented with the statement. 201 when new, 200 when replaced. docs/triage.md.",
        security: SECURITY,
        params: DecisionParams,
        querystring: NoQuery,
        body: AdoptBody,
        response: { 200: Envelope(Decision, Type.Object({})), 201: Envelope(Decision, Type.Object({})) },
        errors: [
          { key: 'NOT_FOUND', error: 'statement_not_found', when: 'no vendor statement of this id about the CVE' },
        ],
      },
      config: write(),
    },
    async (req, reply) => {
      const env = envOf(req.params.environment_id);
      const r = await svc.adopt(writerOf(req.caller), env, req.params.cve_id.toUpperCase(), req.body);
      reply.code(r.created ? 201 : 200);
      return ok(req, r.decision, {});
    },
  );
};

export default vendorStatements;
