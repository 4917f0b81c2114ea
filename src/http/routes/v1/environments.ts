// Environments (spec §2.6 `environment_id`: "an organization's environment"; shapes are ours, documented in
// docs/windows-engine.md): POST /api/v1/environments creates one, GET lists the caller's organization's.
// Ids are random 15-digit integers (docs/tenant-ids.md).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CollectionEnvelope, Envelope, ok, listCollection } from '../../envelope.ts';
import { ApiError } from '../../errors.ts';
import { capExceeded, capRefusalDescription } from '../../schemas/accounts.ts';
import { DisplayName, NoQuery } from '../../schemas/common.ts';
import { PageQuery } from '../../schemas/cves.ts';

const Environment = Type.Object({
  id: Type.Integer({ description: 'Random 15-digit id; reveals nothing about other organizations (docs/tenant-ids.md)', examples: [418239577103245] }),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  host_count: Type.Integer({ description: 'Hosts with stored Windows results in this environment' }),
});

const CreateEnvironment = Type.Object({
  name: DisplayName(100),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
}, { additionalProperties: false, examples: [{ name: 'Plant 1 – line A', description: 'Packaging line HMIs' }] });

const environments: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.environments;

  app.post('/api/v1/environments', {
    schema: {
      tags: ['environments'],
      summary: 'Create an environment of your organization (owner or admin; keys need the write scope). Past the environment cap: 403 cap_exceeded',
      description: capRefusalDescription('environments'),
      security: [{ apiKey: [] }, { session: [] }],
      querystring: NoQuery,
      body: CreateEnvironment,
      response: { 201: Envelope(Environment, Type.Object({})) },
      errors: [{ key: 'CONFLICT', error: 'environment_exists', when: 'an environment with this name exists (detail.name)' }, capExceeded('environments')],
    },
    config: { auth: { mode: 'key_or_session', role: 'admin', scope: 'write', tenant: { resource: 'environments', ids: [] } } },
  }, async (req, reply) => {
    const r = await svc.create(req.principal!.orgId, req.body);
    if (!r.ok) throw new ApiError('CONFLICT', { message: 'An environment with this name already exists', detail: { error: 'environment_exists', name: r.name } });
    reply.code(201);
    return ok(req, r.environment, {});
  });

  app.get('/api/v1/environments', {
    schema: {
      tags: ['environments'],
      summary: "List your organization's environments (oldest first)",
      security: [{ apiKey: [] }, { session: [] }],
      querystring: PageQuery,
      response: { 200: CollectionEnvelope(Environment, Type.Object({})) },
    },
    config: { auth: { mode: 'key_or_session', role: 'viewer', scope: 'read', tenant: { resource: 'environments', ids: [] } } },
  }, async (req) => {
    return listCollection(req, await svc.list(req.principal!.orgId));
  });
};
export default environments;
