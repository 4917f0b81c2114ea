// The web app's webhooks (docs/web.md): list, create (the secret shown once), edit, test, rotate, re-enable, delete
// and recent deliveries. The conventions of every page: web-common.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { acceptFormBodies } from '../../forms.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { NoQuery } from '../../schemas/common.ts';
import { renderWebhooks, type WebhooksPageState } from '../../web/webhooks.tsx';
import { NAME_TEXT_MESSAGE } from '../../../domain/text.ts';
import {
  Html,
  session,
  IdParams,
  Csrf,
  EmptyForm,
  read,
  write,
  hookId,
  idOf,
  nameRe,
  pageKit,
  See,
  refusedFields,
} from './web-common.ts';

const webWebhookPages: FastifyPluginAsyncTypebox = async (app) => {
  const { s, viewer, send, actor } = pageKit(app);
  acceptFormBodies(app, 64 * 1024);

  // The service's refusals (a plan without webhooks, a webhook not of the organization) answer as on the API; a
  // receiver URL refused is the form again with its reason.
  async function webhooksPage(req: FastifyRequest, reply: FastifyReply, state: WebhooksPageState = {}, status = 200) {
    return send(reply, renderWebhooks(viewer(req), await s.webhooks.list(actor(req)), state), status);
  }
  /** The reason a receiver URL was refused (the service's invalid_input on body.url). */
  const urlRefused = (e: unknown) => refusedFields(e)[0].message;

  app.get(
    '/webhooks',
    {
      schema: {
        tags: ['pages'],
        summary:
          'Webhooks: list, create (the secret shown once), edit, delete, test delivery, rotate, re-enable, recent deliveries (?id=)',
        security: session,
        querystring: Type.Object({ id: Type.Optional(IdParams.properties.id) }, { additionalProperties: false }),
        response: { 200: Html('The webhooks') },
      },
      config: { auth: read('webhooks', [{ in: 'query', name: 'id', foreign: 'not_found' }]) },
    },
    async (req, reply) => {
      let deliveries: WebhooksPageState['deliveries'];
      if (req.query.id !== undefined) {
        const d = await s.webhooks.deliveries(actor(req), idOf(req.query.id), 1, 20);
        deliveries = { webhookId: idOf(req.query.id), items: d.deliveries };
      }
      return webhooksPage(req, reply, { deliveries });
    },
  );

  app.post(
    '/webhooks',
    {
      schema: {
        tags: ['pages'],
        summary:
          "Create-webhook form: the page with the signing secret shown once (201); bad input: the form again with the field's message (422)",
        security: session,
        querystring: NoQuery,
        body: Type.Object(
          { ...Csrf, label: Type.String({ maxLength: 1000 }), url: Type.String({ maxLength: 4000 }) },
          { additionalProperties: false, examples: [{ label: 'Page hook', url: 'https://hooks.example.com/page' }] },
        ),
        response: { 201: Html('The webhooks with the new secret'), 422: Html('The form again, with the reason') },
      },
      config: { auth: write('webhooks') },
    },
    async (req, reply) => {
      const { label, url } = req.body;
      const errors: Record<string, string> = {};
      if (!label.trim()) errors.label = 'Enter a label.';
      else if (label.trim().length > 100) errors.label = 'A label has at most 100 characters.';
      else if (!nameRe.test(label)) errors.label = NAME_TEXT_MESSAGE;
      if (!url.trim()) errors.url = 'Enter the URL to deliver to.';
      if (!Object.keys(errors).length) {
        try {
          const r = await s.webhooks.create(actor(req), { label, url: url.trim() });
          return await webhooksPage(
            req,
            reply,
            { secret: { webhookId: r.webhook.id, secret: r.secret }, notice: `Webhook ${r.webhook.label} created.` },
            201,
          );
        } catch (e) {
          errors.url = urlRefused(e);
        }
      }
      return webhooksPage(req, reply, { label, url, errors }, 422);
    },
  );

  app.post(
    '/webhooks/:id/edit',
    {
      schema: {
        tags: ['pages'],
        summary: 'Edit-webhook form (label and URL); a URL refused: the page with the reason (422)',
        security: session,
        params: IdParams,
        querystring: NoQuery,
        body: Type.Object(
          { ...Csrf, label: Type.String({ maxLength: 1000 }), url: Type.String({ maxLength: 4000 }) },
          {
            additionalProperties: false,
            examples: [{ label: 'Page hook renamed', url: 'https://hooks.example.com/page-2' }],
          },
        ),
        response: { ...See('/webhooks'), 422: Html('The page with the reason') },
      },
      config: { auth: write('webhooks', hookId) },
    },
    async (req, reply) => {
      const { label, url } = req.body;
      if (!label.trim() || label.trim().length > 100 || !nameRe.test(label)) {
        await s.webhooks.get(actor(req), idOf(req.params.id));
        return webhooksPage(
          req,
          reply,
          {
            errors: { label: 'A label is 1 to 100 characters.' },
            notice: 'Not saved: the label is not valid (1 to 100 characters).',
          },
          422,
        );
      }
      try {
        await s.webhooks.update(actor(req), idOf(req.params.id), { label, url: url.trim() });
      } catch (e) {
        return webhooksPage(req, reply, { notice: `Not saved: ${urlRefused(e)}` }, 422);
      }
      return reply.redirect('/webhooks', 303);
    },
  );

  for (const action of ['enable', 'rotate', 'test', 'delete'] as const) {
    app.post(
      `/webhooks/:id/${action}`,
      {
        schema: {
          tags: ['pages'],
          security: session,
          params: IdParams,
          querystring: NoQuery,
          body: EmptyForm,
          summary: {
            enable: 'Re-enable form of a disabled webhook (POST /api/v1/webhooks/{id}/enable)',
            rotate: 'Rotate-secret form: the page with the new secret shown once',
            test: 'Test-delivery form: the page with the outcome',
            delete: 'Delete-webhook form',
          }[action],
          response:
            action === 'enable' || action === 'delete'
              ? See('/webhooks')
              : { 200: Html('The webhooks page with the outcome') },
        },
        config: { auth: write('webhooks', hookId) },
      },
      async (req, reply) => {
        const id = idOf(req.params.id);
        const a = actor(req);
        if (action === 'rotate') {
          const r = await s.webhooks.rotateSecret(a, id);
          return webhooksPage(req, reply, {
            secret: { webhookId: id, secret: r.secret },
            notice: 'The secret was rotated: the old one no longer signs.',
          });
        }
        if (action === 'test') {
          return webhooksPage(req, reply, { test: { webhookId: id, result: await s.webhooks.test(a, id) } });
        }
        if (action === 'enable') await s.webhooks.enable(a, id);
        else await s.webhooks.remove(a, id);
        return reply.redirect('/webhooks', 303);
      },
    );
  }
};
export default webWebhookPages;
