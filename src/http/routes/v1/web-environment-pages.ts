// The web app's environments (docs/web.md): the list with its create and delete forms, and one environment's page of
// assets with their CVEs and Windows hosts. The conventions of every page: web-common.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ApiError } from '../../errors.ts';
import { NoQuery } from '../../schemas/common.ts';
import { acceptFormBodies } from '../../forms.ts';
import { renderEnvironment } from '../../web/environment.tsx';
import { renderEnvironments } from '../../web/environments.tsx';
import { caught } from '../../../services/refusal.ts';
import { NAME_TEXT_MESSAGE } from '../../../domain/text.ts';
import {
  Html,
  See,
  session,
  EnvParams,
  Csrf,
  EmptyForm,
  read,
  write,
  envId,
  idOf,
  nameRe,
  pageKit,
} from './web-common.ts';
import { ENV_PAGE_ASSETS, environmentPager } from './web-environment-view.ts';

const webEnvironmentPages: FastifyPluginAsyncTypebox = async (app) => {
  const kit = pageKit(app);
  const { s, viewer, send } = kit;
  const environmentPage = environmentPager(kit);
  acceptFormBodies(app, 64 * 1024);

  // Environments ---------------------------------------------------------------------------------------------------
  app.get(
    '/environments',
    {
      schema: {
        tags: ['pages'],
        summary: 'Environments: list, create, delete',
        security: session,
        querystring: NoQuery,
        response: { 200: Html('The environments') },
      },
      config: { auth: read('environments') },
    },
    async (req, reply) => send(reply, renderEnvironments(viewer(req), await s.environments.list(req.caller.orgId))),
  );

  app.post(
    '/environments',
    {
      schema: {
        tags: ['pages'],
        summary:
          "Create-environment form (the same rules as POST /api/v1/environments); bad input: the form again with the field's message (422)",
        security: session,
        querystring: NoQuery,
        body: Type.Object(
          {
            ...Csrf,
            name: Type.String({ maxLength: 1000 }),
            description: Type.Optional(Type.String({ maxLength: 2000 })),
          },
          { additionalProperties: false, examples: [{ name: 'Page plant', description: 'Line A' }] },
        ),
        response: { ...See('/environments'), 422: Html('The form again, with the reason') },
      },
      config: { auth: write('environments') },
    },
    async (req, reply) => {
      const { name, description = '' } = req.body;
      const errors: Record<string, string> = {};
      if (!name.trim()) errors.name = 'Enter a name.';
      else if (name.trim().length > 100) errors.name = 'A name has at most 100 characters.';
      else if (!nameRe.test(name)) errors.name = NAME_TEXT_MESSAGE;
      if (description.length > 500) errors.description = 'A description has at most 500 characters.';
      if (!errors.name && !errors.description) {
        // The name taken, or one that looks like a taken one: the form again.
        const created = await s.environments.create(req.caller.orgId, { name, description }).then(
          () => true,
          (e: unknown) => !caught(e, ['environment_exists', 'invalid_input']),
        );
        if (created) return reply.redirect('/environments', 303);
        errors.name = `An environment named "${name.trim()}" already exists.`;
      }
      return send(
        reply,
        renderEnvironments(viewer(req), await s.environments.list(req.caller.orgId), { name, description, errors }),
        422,
      );
    },
  );

  app.post(
    '/environments/:environment_id/delete',
    {
      schema: {
        tags: ['pages'],
        summary: 'Delete-environment form (with everything stored in it)',
        security: session,
        params: EnvParams,
        querystring: NoQuery,
        body: EmptyForm,
        response: See('/environments'),
      },
      config: { auth: write('environments', envId) },
    },
    async (req, reply) => {
      const removed = await s.environments.remove(req.caller.orgId, idOf(req.params.environment_id));
      if (!removed)
        throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: req.params.environment_id } });
      return reply.redirect('/environments', 303);
    },
  );

  app.get(
    '/environments/:environment_id',
    {
      schema: {
        tags: ['pages'],
        summary:
          'One environment: its assets with their CVEs (the GET /api/v1/assets/results answer), its Windows hosts (the GET /api/v2/assets/results answer), add, edit, upload and remove assets',
        security: session,
        params: EnvParams,
        querystring: Type.Object(
          {
            uploaded: Type.Optional(Type.Union([Type.Literal('nameplates'), Type.Literal('windows')])),
            page: Type.Optional(
              Type.Integer({
                minimum: 1,
                maximum: 10_000,
                description: `The page of nameplates (${ENV_PAGE_ASSETS} a page, by asset_id)`,
              }),
            ),
            asset_id: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 64,
                description: "One asset alone (a nameplate or a Windows host): where an alert's asset links lead",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: { 200: Html('The environment') },
      },
      config: { auth: read('environments', envId) },
    },
    async (req, reply) => {
      const p = await environmentPage(req, req.params.environment_id, {
        page: req.query.page,
        assetId: req.query.asset_id,
      });
      return send(
        reply,
        renderEnvironment(
          viewer(req),
          p.env,
          p.assets,
          p.total,
          {},
          p.hosts,
          req.query.uploaded ? { kind: req.query.uploaded, done: true } : undefined,
          p.view,
        ),
      );
    },
  );
};
export default webEnvironmentPages;
