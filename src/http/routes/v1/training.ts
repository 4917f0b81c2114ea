// Training (spec §4.4; shapes ours, docs/training.md): the module catalogue with the caller's status, a module's
// content (Markdown and rendered HTML per section, and the self-check), start/complete (idempotent) and the
// caller's progress. Progress is per member (memberId of the credential): start and complete are self-service
// writes (`self: true`), open to viewers, with the write scope (sessions hold it; read-only keys do not).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CollectionEnvelope, Envelope, listCollection, ok } from '../../envelope.ts';
import { PageQuery } from '../../schemas/cves.ts';
import { NoQuery, StringEnum } from '../../schemas/common.ts';
import type { RouteAuth } from '../../auth.ts';
import type { RouteError } from '../../openapi-errors.ts';
import { MODULE_ID_RE, TRAINING_CATEGORIES, type TrainingModule } from '../../../domain/training.ts';
import { moduleNotFound, type MemberModuleState } from '../../../services/training.ts';
import type { Principal } from '../../../services/identity.ts';

const STATUSES = ['not_started', 'in_progress', 'completed'] as const;
const Timestamp = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

const StateProps = {
  status: StringEnum(STATUSES, { description: "The caller's status: not_started, in_progress (started), completed" }),
  started_at: Timestamp,
  completed_at: Timestamp,
};

const ModuleSummaryProps = {
  id: Type.String({ examples: ['ics-ot-security-fundamentals'] }),
  title: Type.String(),
  category: StringEnum(TRAINING_CATEGORIES),
  order: Type.Integer({ minimum: 1, description: 'Position in the catalogue' }),
  estimated_minutes: Type.Integer({ minimum: 1 }),
  summary: Type.String(),
  section_count: Type.Integer(),
  question_count: Type.Integer({ description: 'Questions in the self-check' }),
  ...StateProps,
  _links: Type.Object({
    self: Type.String(),
    html: Type.String({ description: 'The module as a web page (signed-in session)' }),
  }),
};
const ModuleSummary = Type.Object(ModuleSummaryProps);

const ModuleDetail = Type.Object({
  ...ModuleSummaryProps,
  sections: Type.Array(
    Type.Object({
      id: Type.String({ description: 'Anchor (slug of the title), unique within the module' }),
      title: Type.String(),
      markdown: Type.String({ description: 'The section as written (Markdown)' }),
      html: Type.String({
        description: 'The section rendered to HTML; every character of the source escaped, links http(s) only',
      }),
    }),
  ),
  self_check: Type.Array(Type.Object({ question: Type.String(), answer: Type.String() })),
});

const ModuleState = Type.Object({ module_id: Type.String(), title: Type.String(), ...StateProps });

const Progress = Type.Object({
  total_modules: Type.Integer(),
  started: Type.Integer({ description: 'Modules started, completed ones included' }),
  in_progress: Type.Integer(),
  completed: Type.Integer(),
  percent: Type.Integer({ minimum: 0, maximum: 100, description: 'completed / total_modules, rounded' }),
  last_activity_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'Latest start or completion',
  }),
  modules: Type.Array(ModuleState),
});

const ModuleParams = Type.Object({
  module_id: Type.String({
    minLength: 1,
    maxLength: 80,
    pattern: MODULE_ID_RE.source,
    examples: ['ics-ot-security-fundamentals'],
  }),
});
/** start/complete take no input beyond the path: an empty JSON object, or no body at all. */
const NoBody = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()], { examples: [{}] });

const tenant = { resource: 'training_progress', ids: [], catalog: ['module_id'] };
const READ: RouteAuth = { mode: 'key_or_session', role: 'viewer', scope: 'read', tenant };
const SELF_WRITE: RouteAuth = { mode: 'key_or_session', role: 'viewer', scope: 'write', self: true, tenant };
const security: Record<string, string[]>[] = [{ apiKey: [] }, { session: [] }];

const who = (p: Principal) => ({ orgId: p.orgId, memberId: p.memberId });

function summary(m: TrainingModule, s: MemberModuleState) {
  return {
    id: m.id,
    title: m.title,
    category: m.category,
    order: m.order,
    estimated_minutes: m.estimated_minutes,
    summary: m.summary,
    section_count: m.sections.length,
    question_count: m.self_check.length,
    ...s,
    _links: { self: `/api/v1/training/modules/${m.id}`, html: `/training/${m.id}` },
  };
}

/** OpenAPI: completing a module never started (here and on the training page's form). */
export const NOT_STARTED: RouteError = {
  key: 'CONFLICT',
  error: 'module_not_started',
  when: 'the module was never started (detail.module_id)',
};

const training: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.training;

  app.get(
    '/api/v1/training/modules',
    {
      schema: {
        tags: ['training'],
        summary: "Training modules with the caller's status, in catalogue order",
        security,
        querystring: PageQuery,
        response: { 200: CollectionEnvelope(ModuleSummary, Type.Object({})) },
      },
      config: { auth: READ },
    },
    async (req) => {
      const rows = (await svc.list(who(req.caller))).map((r) => summary(r.module, r.state));
      return listCollection(req, rows);
    },
  );

  app.get(
    '/api/v1/training/modules/:module_id',
    {
      schema: {
        tags: ['training'],
        summary: "A module's content (sections, self-check) with the caller's status",
        security,
        params: ModuleParams,
        querystring: NoQuery,
        response: { 200: Envelope(ModuleDetail, Type.Object({})) },
      },
      config: { auth: READ },
    },
    async (req) => {
      const r = await svc.detail(who(req.caller), req.params.module_id);
      if (!r) throw moduleNotFound(req.params.module_id);
      return ok(
        req,
        { ...summary(r.module, r.state), sections: r.module.sections, self_check: r.module.self_check },
        {},
      );
    },
  );

  app.post(
    '/api/v1/training/modules/:module_id/start',
    {
      schema: {
        tags: ['training'],
        summary: 'Start a module (idempotent: starting again keeps the first start time). Any member, for themself',
        security,
        params: ModuleParams,
        querystring: NoQuery,
        body: NoBody,
        response: { 200: Envelope(ModuleState, Type.Object({})) },
      },
      config: { auth: SELF_WRITE },
    },
    async (req) => {
      const r = await svc.start(who(req.caller), req.params.module_id);
      if (!r) throw moduleNotFound(req.params.module_id);
      return ok(req, { module_id: r.module.id, title: r.module.title, ...r.state }, {});
    },
  );

  app.post(
    '/api/v1/training/modules/:module_id/complete',
    {
      schema: {
        tags: ['training'],
        summary:
          'Mark a started module complete (idempotent: the first completion time stays); never started → 409 module_not_started',
        security,
        params: ModuleParams,
        querystring: NoQuery,
        body: NoBody,
        response: { 200: Envelope(ModuleState, Type.Object({})) },
        errors: [NOT_STARTED],
      },
      config: { auth: SELF_WRITE },
    },
    async (req) => {
      const r = await svc.complete(who(req.caller), req.params.module_id);
      return ok(req, { module_id: r.module.id, title: r.module.title, ...r.state }, {});
    },
  );

  app.get(
    '/api/v1/training/progress',
    {
      schema: {
        tags: ['training'],
        summary: "The caller's training progress: started, completed, percent, last activity, per module",
        security,
        querystring: NoQuery,
        response: { 200: Envelope(Progress, Type.Object({})) },
      },
      config: { auth: { ...READ, tenant: { resource: 'training_progress', ids: [] } } },
    },
    async (req) => ok(req, await svc.progress(who(req.caller)), {}),
  );
};
export default training;
