// Environments (spec §2.6 `environment_id`: "an organization's environment"; shapes are ours, documented in
// docs/windows-engine.md): POST /api/v1/environments creates one, GET lists the caller's organization's, DELETE
// /api/v1/environments/{environment_id} removes one with everything stored in it.
// Ids are random 15-digit integers (docs/tenant-ids.md).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CollectionEnvelope, Envelope, ok, listCollection } from '../../envelope.ts';
import { ApiError } from '../../errors.ts';
import { capExceeded, capRefusalDescription } from '../../schemas/accounts.ts';
import { DisplayName, NoBody, NoQuery } from '../../schemas/common.ts';
import { PageQuery } from '../../schemas/cves.ts';

const Environment = Type.Object({
  id: Type.Integer({ description: 'Random 15-digit id; reveals nothing about other organizations (docs/tenant-ids.md)', examples: [418239577103245] }),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  host_count: Type.Integer({ description: 'Hosts with stored Windows results in this environment' }),
});

const RemovedEnvironment = Type.Object({
  ...Environment.properties,
  removed: Type.Object({
    assets: Type.Integer({ description: 'v1 correlated assets (POST /api/v1/assets/correlate-cves with environment_id) removed with it' }),
    windows_hosts: Type.Integer({ description: 'v2 Windows hosts removed with it (their results and installed software)' }),
  }),
});

const EnvironmentParams = Type.Object({
  environment_id: Type.String({ pattern: '^[0-9]{1,19}$', description: 'Environment id (from POST or GET /api/v1/environments)' }),
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

  app.delete('/api/v1/environments/:environment_id', {
    schema: {
      tags: ['environments'],
      summary: 'Delete an environment with everything stored in it (its correlated assets and Windows hosts), freeing their room under the plan caps (owner or admin; keys need the write scope)',
      description: 'Answers the removed environment and how many assets and Windows hosts went with it. Alerts already raised stay as they were. An id that names no environment of your organization (another organization\'s, or one already deleted): 404 environment_not_found.',
      security: [{ apiKey: [] }, { session: [] }],
      params: EnvironmentParams, querystring: NoQuery, body: NoBody,
      response: { 200: Envelope(RemovedEnvironment, Type.Object({})) },
    },
    config: {
      auth: {
        mode: 'key_or_session', role: 'admin', scope: 'write',
        tenant: { resource: 'environments', ids: [{ in: 'params', name: 'environment_id', foreign: 'environment_not_found' }] },
      },
    },
  }, async (req) => {
    // Ids are at most 15 digits (docs/tenant-ids.md); a longer one names nothing, and is answered as such.
    const text = req.params.environment_id.replace(/^0+(?=\d)/, '');
    const id = text.length <= 15 ? Number(text) : null;
    const removed = id === null || id === 0 ? null : await svc.remove(req.principal!.orgId, id);
    if (!removed) throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: id ?? req.params.environment_id } });
    return ok(req, removed, {});
  });
};
export default environments;
