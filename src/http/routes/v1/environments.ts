// Environments (spec §2.6 `environment_id`: "an organization's environment"; shapes are ours, documented in
// docs/windows-engine.md): POST /api/v1/environments creates one, GET lists the caller's organization's.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { CollectionEnvelope, Envelope, ok, collection, pagination } from '../../envelope.ts';
import { ApiError } from '../../errors.ts';
import { createEnvironment, listEnvironments, type EnvironmentRow } from '../../../store/windows.ts';

const Environment = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  host_count: Type.Integer({ description: 'Hosts with stored Windows results in this environment' }),
});

const out = (r: EnvironmentRow) => ({ id: r.id, name: r.name, description: r.description, created_at: new Date(r.created_at).toISOString(), host_count: r.host_count });

const environments: FastifyPluginAsync = async (app) => {
  app.post('/api/v1/environments', {
    schema: {
      tags: ['environments'],
      summary: 'Create an environment of your organization (owner or admin)',
      security: [{ apiKey: [] }, { session: [] }],
      querystring: Type.Object({}),
      body: Type.Object({
        name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
        description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
      }, { additionalProperties: false }),
      response: { 201: Envelope(Environment, Type.Object({})) },
    },
    config: { auth: { mode: 'key_or_session', write: true } },
  }, async (req, reply) => {
    const b = req.body as { name: string; description?: string | null };
    const row = await createEnvironment(app.deps.store.db, req.principal!.orgId, b.name.trim(), b.description?.trim() || null);
    if (!row) throw new ApiError('CONFLICT', { message: 'An environment with this name already exists', detail: { error: 'environment_exists', name: b.name.trim() } });
    reply.code(201);
    return ok(req, out(row));
  });

  app.get('/api/v1/environments', {
    schema: {
      tags: ['environments'],
      summary: "List your organization's environments",
      security: [{ apiKey: [] }, { session: [] }],
      querystring: Type.Object({}),
      response: { 200: CollectionEnvelope(Environment, Type.Object({})) },
    },
    config: { auth: { mode: 'key_or_session' } },
  }, async (req) => {
    const rows = await listEnvironments(app.deps.store.db, req.principal!.orgId);
    return collection(req, rows.map(out), pagination(rows.length, 1, Math.max(rows.length, 1), rows.length));
  });
};
export default environments;
