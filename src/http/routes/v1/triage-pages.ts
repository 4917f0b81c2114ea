// Triage pages of the web app (docs/web.md, docs/triage.md): an environment's decisions with a bulk form, and one
// (environment, CVE) decision: its form, comments and history. Thin routes over services/triage.ts (the same rules
// as the API's PUT, DELETE and bulk); forms post with the CSRF token; bad input answers 422 with the form again and
// the field's message, nothing stored; a viewer reads and is refused a write (403) by the route's policy.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { acceptFormBodies } from '../../forms.ts';
import { NoQuery } from '../../schemas/common.ts';
import { viewerOf } from '../../web/viewer.ts';
import { renderDecision, renderDecisions, type DecisionForm, type Member } from '../../web/triage.tsx';
import { CVE_ID_PATTERN_ANY_CASE } from '../../../domain/cve-id.ts';
import type { DecisionInput } from '../../../domain/triage.ts';
import type { Writer } from '../../../services/triage-writes.ts';
import { caught, type FieldProblem } from '../../../services/refusal.ts';
import type { RouteAuth } from '../../auth.ts';
import { Csrf, EnvParams, Html, See, pageKit, refusedFields, session } from './web-common.ts';

const DecisionParams = Type.Object({
  environment_id: EnvParams.properties.environment_id,
  cve_id: Type.String({ pattern: CVE_ID_PATTERN_ANY_CASE }),
});
const Text = (max: number) => Type.Optional(Type.String({ maxLength: max }));
const Fields = {
  status: Type.String({ maxLength: 40 }),
  justification: Text(80),
  impact_statement: Text(8000),
  action_statement: Text(8000),
  due_date: Text(20),
  assignee_member_id: Text(20),
  comment: Text(4000),
};
const ENV_ID = { in: 'params' as const, name: 'environment_id', foreign: 'environment_not_found' };
const policy = (write: boolean, catalog: boolean): RouteAuth => ({
  mode: 'session',
  role: write ? 'admin' : 'viewer',
  scope: write ? 'write' : 'read',
  tenant: { resource: 'decisions', ids: [ENV_ID], ...(catalog ? { catalog: ['cve_id'] } : {}) },
});

/** As the API reads it: 1 to 15 digits can name an environment; longer names none. */
/** A field error of the service ("body.decision.due_date") under its form field ("due_date"). */
const byField = (errors: readonly FieldProblem[]) =>
  Object.fromEntries(errors.map((e) => [e.field.replace(/^.*\./, ''), e.message]));

function inputOf(
  f: DecisionForm,
): { ok: true; input: DecisionInput & { comment: string | null } } | { ok: false; errors: Record<string, string> } {
  const assignee = (f.assignee_member_id ?? '').trim();
  if (assignee && !/^[0-9]{1,15}$/.test(assignee))
    return { ok: false, errors: { assignee_member_id: 'not a member of your organization' } };
  return {
    ok: true,
    input: {
      status: f.status ?? '',
      justification: f.justification || null,
      impact_statement: f.impact_statement || null,
      action_statement: f.action_statement || null,
      due_date: f.due_date || null,
      assignee_member_id: assignee ? Number(assignee) : null,
      comment: f.comment?.trim() ? f.comment : null,
    },
  };
}

const triagePages: FastifyPluginAsyncTypebox = async (app) => {
  const { s, send, environment } = pageKit(app);
  acceptFormBodies(app, 64 * 1024);
  const writer = (req: FastifyRequest): Writer => {
    const p = req.caller;
    return { orgId: p.orgId, memberId: p.memberId, email: p.email, keyId: p.keyId, keyStart: p.keyStart };
  };
  const reader = (req: FastifyRequest) => ({ tier: req.caller.tier, orgId: req.caller.orgId });
  const members = async (req: FastifyRequest): Promise<Member[]> => (await s.accounts.team(req.caller)).members;

  /** The fields of a refused input (the service's invalid_input), for the form again; any other refusal is thrown on. */
  const fieldsOf = (e: unknown) => byField(refusedFields(e));

  async function listPage(
    req: FastifyRequest,
    reply: FastifyReply,
    raw: string,
    state: Parameters<typeof renderDecisions>[5] = {},
    status = 200,
  ) {
    const env = await environment(req, raw);
    const [r, team] = await Promise.all([
      s.triage.list(reader(req), env.id, {}, { page: 1, per_page: 100 }),
      members(req),
    ]);
    return send(reply, renderDecisions(viewerOf(req)!, env, r.items, r.total, team, state), status);
  }

  async function decisionPage(
    req: FastifyRequest,
    reply: FastifyReply,
    raw: string,
    cveRaw: string,
    state: Parameters<typeof renderDecision>[6] = {},
    status = 200,
  ) {
    const env = await environment(req, raw);
    const cve = cveRaw.toUpperCase();
    const [d, h, team] = await Promise.all([
      s.triage.get(req.caller.orgId, env.id, cve).then(
        (x) => x.decision,
        (e: unknown) => {
          caught(e, ['decision_not_found']);
          return null;
        },
      ),
      s.triage.history(reader(req), env.id, cve, { page: 1, per_page: 100 }),
      members(req),
    ]);
    return send(reply, renderDecision(viewerOf(req)!, env, cve, d, h.items, team, state), status);
  }

  app.get(
    '/environments/:environment_id/decisions',
    {
      schema: {
        tags: ['pages'],
        summary: "An environment's triage decisions (GET /api/v1/environments/{id}/decisions) and the bulk form",
        security: session,
        params: EnvParams,
        querystring: NoQuery,
        response: { 200: Html('The decisions') },
      },
      config: { auth: policy(false, false) },
    },
    async (req, reply) => listPage(req, reply, req.params.environment_id),
  );

  app.post(
    '/environments/:environment_id/decisions/bulk',
    {
      schema: {
        tags: ['pages'],
        summary:
          "Bulk form: one decision applied to the CVEs of the environment's stored results that the filter selects (POST .../decisions/bulk); the page with the counts; bad input: the form again with the field's message (422), nothing stored",
        security: session,
        params: EnvParams,
        querystring: NoQuery,
        body: Type.Object(
          {
            ...Csrf,
            ...Fields,
            vendor: Text(200),
            product: Text(200),
            attack_vector: Type.Optional(Type.Union((['', 'N', 'A', 'L', 'P'] as const).map((x) => Type.Literal(x)))),
            correlation_status: Type.Optional(Type.Union(['', 'affected', 'needs_review'].map((x) => Type.Literal(x)))),
            undecided: Type.Optional(Type.Literal('true')),
          },
          {
            additionalProperties: false,
            examples: [{ vendor: 'Siemens', undecided: 'true', status: 'under_investigation', comment: 'Line review' }],
          },
        ),
        response: { 200: Html('The decisions with the counts'), 422: Html('The form again, with the reason') },
      },
      config: { auth: policy(true, false) },
    },
    async (req, reply) => {
      const env = await environment(req, req.params.environment_id);
      const b = req.body;
      const parsed = inputOf(b);
      if (!parsed.ok) return listPage(req, reply, req.params.environment_id, { bulk: b, errors: parsed.errors }, 422);
      const { comment, ...decision } = parsed.input;
      let r;
      try {
        r = await s.triage.bulk(writer(req), env.id, {
          filter: {
            ...(b.vendor?.trim() ? { vendor: b.vendor.trim() } : {}),
            ...(b.product?.trim() ? { product: b.product.trim() } : {}),
            ...(b.attack_vector ? { attack_vector: b.attack_vector } : {}),
            ...(b.correlation_status ? { correlation_status: [b.correlation_status] } : {}),
            ...(b.undecided === 'true' ? { decision: ['none' as const] } : {}),
          },
          decision,
          comment,
        });
      } catch (e) {
        return listPage(req, reply, req.params.environment_id, { bulk: b, errors: fieldsOf(e) }, 422);
      }
      return listPage(req, reply, req.params.environment_id, { outcome: r });
    },
  );

  app.get(
    '/environments/:environment_id/decisions/:cve_id',
    {
      schema: {
        tags: ['pages'],
        summary:
          "One CVE's decision in an environment: the form (status, justification, impact and action statements, due date, assignee, comment), the comments and the history",
        security: session,
        params: DecisionParams,
        querystring: NoQuery,
        response: { 200: Html('The decision') },
      },
      config: { auth: policy(false, true) },
    },
    async (req, reply) => decisionPage(req, reply, req.params.environment_id, req.params.cve_id),
  );

  app.post(
    '/environments/:environment_id/decisions/:cve_id',
    {
      schema: {
        tags: ['pages'],
        summary:
          "Decision form (PUT .../decisions/{cve_id}): back to the decision; bad input: the form again with the field's message (422), nothing stored",
        security: session,
        params: DecisionParams,
        querystring: NoQuery,
        body: Type.Object(
          { ...Csrf, ...Fields },
          {
            additionalProperties: false,
            examples: [
              {
                status: 'not_affected',
                justification: 'component_not_present',
                impact_statement: 'The web server is switched off.',
                comment: 'Checked on site.',
              },
            ],
          },
        ),
        response: { ...See('the decision'), 422: Html('The form again, with the reason') },
      },
      config: { auth: policy(true, true) },
    },
    async (req, reply) => {
      const env = await environment(req, req.params.environment_id);
      const cve = req.params.cve_id.toUpperCase();
      const f = req.body;
      const parsed = inputOf(f);
      if (!parsed.ok)
        return decisionPage(req, reply, req.params.environment_id, cve, { form: f, errors: parsed.errors }, 422);
      try {
        await s.triage.set(writer(req), env.id, cve, parsed.input);
      } catch (e) {
        return decisionPage(req, reply, req.params.environment_id, cve, { form: f, errors: fieldsOf(e) }, 422);
      }
      return reply.redirect(`/environments/${env.id}/decisions/${cve}`, 303);
    },
  );

  app.post(
    '/environments/:environment_id/decisions/:cve_id/clear',
    {
      schema: {
        tags: ['pages'],
        summary:
          'Clear-decision form (DELETE .../decisions/{cve_id}): the CVE is undecided again, its history stays; back to the decision',
        security: session,
        params: DecisionParams,
        querystring: NoQuery,
        body: Type.Object(Csrf, { additionalProperties: false, examples: [{}] }),
        response: See('the decision'),
      },
      config: { auth: policy(true, true) },
    },
    async (req, reply) => {
      const env = await environment(req, req.params.environment_id);
      const cve = req.params.cve_id.toUpperCase();
      await s.triage.clear(writer(req), env.id, cve).catch((e: unknown) => caught(e, ['decision_not_found']));
      return reply.redirect(`/environments/${env.id}/decisions/${cve}`, 303);
    },
  );
};
export default triagePages;
