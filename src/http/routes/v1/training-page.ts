// The training pages (HTML, no JavaScript) for a signed-in member: the list with the member's status and one
// module with its content; its buttons are form posts (start, complete) answered by a redirect back to the page.
// For browsers (a signed-in session; an API key is accepted too, like on every member route). Origin is checked
// on the session posts like every session write (src/http/auth.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { moduleNotFound } from '../../../services/training.ts';
import { NoQuery } from '../../schemas/common.ts';
import type { RouteAuth } from '../../auth.ts';
import { MODULE_ID_RE } from '../../../domain/training.ts';
import { renderTrainingList, renderTrainingModule } from '../../web/training.tsx';
import { csrfTokenFor } from '../../session-cookies.ts';
import { viewerOf } from '../../web/viewer.ts';
import { acceptFormBodies } from '../../forms.ts';
import { NOT_STARTED } from './training.ts';
import { PAGE_CSP } from '../../web/assets.ts';

const Html = (description: string) => ({ description, content: { 'text/html': { schema: Type.String() } } });
const Params = Type.Object({ module_id: Type.String({ minLength: 1, maxLength: 80, pattern: MODULE_ID_RE.source }) });
/** The form posts carry only the session's CSRF token (`_csrf`, checked by the auth hook); JSON `{}` is accepted too. */
const FormBody = Type.Union(
  [
    Type.Object({ _csrf: Type.Optional(Type.String({ maxLength: 128 })) }, { additionalProperties: false }),
    Type.Null(),
  ],
  { examples: [{}] },
);

const tenant = { resource: 'training_progress', ids: [], catalog: ['module_id'] };
const READ: RouteAuth = { mode: 'key_or_session', role: 'viewer', scope: 'read', tenant };
const SELF_WRITE: RouteAuth = { mode: 'key_or_session', role: 'viewer', scope: 'write', self: true, tenant };

const trainingPage: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.training;
  // The forms carry only the CSRF token.
  acceptFormBodies(app, 1024);
  const who = (p: { orgId: number; memberId: number }) => ({ orgId: p.orgId, memberId: p.memberId });

  app.get(
    '/training',
    {
      schema: {
        tags: ['pages'],
        summary: 'Training modules page (for a signed-in member)',
        querystring: NoQuery,
        response: { 200: Html('The list') },
      },
      config: { auth: { ...READ, tenant: { resource: 'training_progress', ids: [] } } },
    },
    async (req, reply) => {
      const m = who(req.caller);
      const [rows, progress] = await Promise.all([svc.list(m), svc.progress(m)]);
      reply
        .header('Content-Security-Policy', PAGE_CSP)
        .header('X-Content-Type-Options', 'nosniff')
        .header('Cache-Control', 'private, no-store');
      return reply.type('text/html; charset=utf-8').send(renderTrainingList(rows, progress.percent, viewerOf(req)));
    },
  );

  app.get(
    '/training/:module_id',
    {
      schema: {
        tags: ['pages'],
        summary: 'One training module (for a signed-in member)',
        params: Params,
        querystring: NoQuery,
        response: { 200: Html('The module') },
      },
      config: { auth: READ },
    },
    async (req, reply) => {
      const r = await svc.detail(who(req.caller), req.params.module_id);
      if (!r) throw moduleNotFound(req.params.module_id);
      reply
        .header('Content-Security-Policy', PAGE_CSP)
        .header('X-Content-Type-Options', 'nosniff')
        .header('Cache-Control', 'private, no-store');
      const csrf = req.sessionToken ? csrfTokenFor(req.sessionToken) : null;
      return reply.type('text/html; charset=utf-8').send(renderTrainingModule(r.module, r.state, csrf, viewerOf(req)));
    },
  );

  for (const action of ['start', 'complete'] as const) {
    app.post(
      `/training/:module_id/${action}`,
      {
        schema: {
          tags: ['pages'],
          summary: `Form post: ${action} the module, then 303 back to its page`,
          params: Params,
          querystring: NoQuery,
          body: FormBody,
          response: { 303: { description: 'Back to the module page', type: 'null' } },
          errors: action === 'complete' ? [NOT_STARTED] : [],
        },
        config: { auth: SELF_WRITE },
      },
      async (req, reply) => {
        const id = req.params.module_id;
        const m = who(req.caller);
        if (action === 'start') {
          if (!(await svc.start(m, id))) throw moduleNotFound(id);
        } else {
          // Refused as on the API: an unknown module (404), one never started (409 module_not_started).
          await svc.complete(m, id);
        }
        return reply.redirect(`/training/${id}`, 303);
      },
    );
  }
};
export default trainingPage;
