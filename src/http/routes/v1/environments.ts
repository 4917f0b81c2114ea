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
  id: Type.Integer({
    description: 'Random 15-digit id; reveals nothing about other organizations (docs/tenant-ids.md)',
    examples: [418239577103245],
  }),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  host_count: Type.Integer({ description: 'Hosts with stored Windows results in this environment' }),
});

const RemovedEnvironment = Type.Object({
  ...Environment.properties,
  removed: Type.Object({
    assets: Type.Integer({
      description: 'v1 correlated assets (POST /api/v1/assets/correlate-cves with environment_id) removed with it',
    }),
    windows_hosts: Type.Integer({
      description: 'v2 Windows hosts removed with it (their results and installed software)',
    }),
  }),
});

const EnvironmentParams = Type.Object({
  environment_id: Type.String({
    pattern: '^[0-9]{1,19}$',
    description: 'Environment id (from POST or GET /api/v1/environments)',
  }),
});

/**
 * The environment a path or query id names (its schema: 1 to 19 digits), or null when it can name none: ids are 1 to
 * 15 digits (docs/tenant-ids.md), leading zeros aside. Such an id is answered as an unknown one (404), not a 422.
 */
function environmentIdOf(text: string): number | null {
  const digits = text.replace(/^0+(?=\d)/, '');
  return digits.length <= 15 && digits !== '0' ? Number(digits) : null;
}

const CreateEnvironment = Type.Object(
  { name: DisplayName(100), description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])) },
  { additionalProperties: false, examples: [{ name: 'Plant 1 – line A', description: 'Packaging line HMIs' }] },
);

const environments: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.environments;

  app.post(
    '/api/v1/environments',
    {
      schema: {
        tags: ['environments'],
        summary:
          'Create an environment of your organization (owner or admin; keys need the write scope). Past the environment cap: 403 cap_exceeded',
        description: capRefusalDescription('environments'),
        security: [{ apiKey: [] }, { session: [] }],
        querystring: NoQuery,
        body: CreateEnvironment,
        response: { 201: Envelope(Environment, Type.Object({})) },
        errors: [
          { key: 'CONFLICT', error: 'environment_exists', when: 'an environment with this name exists (detail.name)' },
          {
            key: 'VALIDATION_ERROR',
            when: 'the name looks like another environment of the organization (Unicode confusables skeleton: detail[].type value_error.confusable), or holds invisible characters',
          },
          capExceeded('environments'),
        ],
      },
      config: {
        auth: { mode: 'key_or_session', role: 'admin', scope: 'write', tenant: { resource: 'environments', ids: [] } },
      },
    },
    async (req, reply) => {
      const environment = await svc.create(req.caller.orgId, req.body);
      reply.code(201);
      return ok(req, environment, {});
    },
  );

  app.get(
    '/api/v1/environments',
    {
      schema: {
        tags: ['environments'],
        summary: "List your organization's environments (oldest first)",
        security: [{ apiKey: [] }, { session: [] }],
        querystring: PageQuery,
        response: { 200: CollectionEnvelope(Environment, Type.Object({})) },
      },
      config: {
        auth: { mode: 'key_or_session', role: 'viewer', scope: 'read', tenant: { resource: 'environments', ids: [] } },
      },
    },
    async (req) => {
      return listCollection(req, await svc.list(req.caller.orgId));
    },
  );

  app.delete(
    '/api/v1/environments/:environment_id',
    {
      schema: {
        tags: ['environments'],
        summary:
          'Delete an environment with everything stored in it (its correlated assets and Windows hosts), freeing their room under the plan caps (owner or admin; keys need the write scope)',
        description:
          "Answers the removed environment and how many assets and Windows hosts went with it. Alerts already raised stay as they were. An id that names no environment of your organization (another organization's, or one already deleted): 404 environment_not_found.",
        security: [{ apiKey: [] }, { session: [] }],
        params: EnvironmentParams,
        querystring: NoQuery,
        body: NoBody,
        response: { 200: Envelope(RemovedEnvironment, Type.Object({})) },
      },
      config: {
        auth: {
          mode: 'key_or_session',
          role: 'admin',
          scope: 'write',
          tenant: {
            resource: 'environments',
            ids: [{ in: 'params', name: 'environment_id', foreign: 'environment_not_found' }],
          },
        },
      },
    },
    async (req) => {
      const id = environmentIdOf(req.params.environment_id);
      const removed = id === null ? null : await svc.remove(req.caller.orgId, id);
      if (!removed)
        throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: id ?? req.params.environment_id } });
      return ok(req, removed, {});
    },
  );

  app.delete(
    '/api/v1/assets/:asset_id',
    {
      schema: {
        tags: ['environments'],
        summary:
          'Remove a stored asset: its correlation (v1) and Windows host result with installed software (v2) in one environment, or among the hosts stored without one (owner or admin; keys need the write scope)',
        description:
          "environment_id: the environment it is stored in; omitted, the Windows hosts stored without an environment (v2 calls without environment_id). Frees its room under the assets cap unless the same asset_id is stored elsewhere. Nothing stored under the id there: 404 asset_not_found; an environment that is not your organization's: 404 environment_not_found.",
        security: [{ apiKey: [] }, { session: [] }],
        params: Type.Object({
          asset_id: Type.String({ minLength: 1, maxLength: 64, description: 'The asset_id it was stored under' }),
        }),
        querystring: Type.Object(
          { environment_id: Type.Optional(EnvironmentParams.properties.environment_id) },
          { additionalProperties: false },
        ),
        body: NoBody,
        response: {
          200: Envelope(
            Type.Object({
              asset_id: Type.String(),
              environment_id: Type.Union([Type.Integer(), Type.Null()]),
              removed: Type.Object({
                correlations: Type.Integer({ description: 'v1 correlation results removed (0 or 1)' }),
                windows_hosts: Type.Integer({
                  description: 'v2 Windows host results removed (0 or 1), with their installed software',
                }),
              }),
            }),
            Type.Object({}),
          ),
        },
      },
      config: {
        auth: {
          mode: 'key_or_session',
          role: 'admin',
          scope: 'write',
          tenant: {
            resource: 'windows_results',
            ids: [
              { in: 'query', name: 'environment_id', foreign: 'environment_not_found' },
              { in: 'params', name: 'asset_id', foreign: 'asset_not_found' },
            ],
          },
        },
      },
    },
    async (req) => {
      const raw = req.query.environment_id;
      const envId = raw === undefined ? null : environmentIdOf(raw);
      const r =
        raw !== undefined && envId === null
          ? ('environment' as const)
          : await svc.removeAsset(req.caller.orgId, envId, req.params.asset_id);
      if (r === 'environment') throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: raw } });
      if (r === 'asset')
        throw new ApiError('ASSET_NOT_FOUND', { detail: { asset_id: req.params.asset_id, environment_id: envId } });
      return ok(req, r, {});
    },
  );
};
export default environments;
