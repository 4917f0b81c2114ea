// Webhooks (spec §3.1, §4.6; shapes not shown by the spec are ours, documented in docs/webhooks.md): create (the
// secret is returned once), list, get, update, delete, enable, rotate-secret (the new secret returned once), test,
// and the recent deliveries. Standard plan and above (webhook_delivery, §2.8): lower plans get 403 upgrade_required.
// Writes need owner or admin (and a key's write scope). The secret appears in no other response.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CollectionEnvelope, Envelope, ok, collection, listCollection, pagination } from '../../envelope.ts';
import { DisplayName, NoQuery, StringEnum } from '../../schemas/common.ts';
import { PageQuery } from '../../schemas/cves.ts';
import type { RouteError } from '../../openapi-errors.ts';
import { capExceeded, capRefusalDescription } from '../../schemas/accounts.ts';

const Id = Type.Integer({
  minimum: 1,
  maximum: Number.MAX_SAFE_INTEGER,
  description: 'Random 15-digit webhook id (docs/tenant-ids.md)',
});
const Params = Type.Object({ id: Id }, { additionalProperties: false });
const NStr = Type.Union([Type.String(), Type.Null()]);
const NTime = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

const Webhook = Type.Object({
  id: Type.Integer({ examples: [418239577103245] }),
  label: Type.String(),
  url: Type.String(),
  kind: StringEnum(['signed', 'discord'] as const, {
    description: 'discord: a Discord webhook URL, sent a Discord embed without signature headers (spec §6 rule 5)',
  }),
  status: StringEnum(['active', 'disabled'] as const, { description: 'Spec §3.1' }),
  consecutive_failures: Type.Integer({
    description: 'Failed deliveries in a row; a 2xx resets it; the 5th disables the webhook',
  }),
  disabled_reason: Type.Union([StringEnum(['consecutive_failures'] as const), Type.Null()]),
  disabled_at: NTime,
  last_delivery_at: NTime,
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

const WithSecret = Type.Intersect([
  Webhook,
  Type.Object({
    secret: Type.String({ description: 'The signing secret (whsec_…). Shown only in this response: store it now.' }),
  }),
]);

const Label = DisplayName(100, { description: 'Descriptive name' });
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'Receiver URL: https, a public address (checked at creation and at every delivery; docs/egress.md)',
});

const CreateWebhook = Type.Object(
  { label: Label, url: Url },
  { additionalProperties: false, examples: [{ label: 'SOC intake', url: 'https://hooks.example.com/vulnintel' }] },
);
const UpdateWebhook = Type.Object(
  { label: Type.Optional(Label), url: Type.Optional(Url) },
  { additionalProperties: false, minProperties: 1, examples: [{ label: 'SOC intake (renamed)' }] },
);
const NoBody = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()], { examples: [{}] });

const DeliveryResult = Type.Object({
  webhook_id: Type.Integer(),
  delivery_id: Type.Union([Type.Integer(), Type.Null()]),
  outcome: StringEnum(['delivered', 'failed', 'skipped'] as const),
  http_status: Type.Union([Type.Integer(), Type.Null()]),
  duration_ms: Type.Union([Type.Integer(), Type.Null()]),
  error: NStr,
  disabled: Type.Boolean(),
});

const Delivery = Type.Object({
  id: Type.Integer(),
  event: StringEnum(['cve.alert', 'webhook.test'] as const),
  cve_id: NStr,
  status: StringEnum(['claimed', 'delivered', 'failed'] as const, {
    description: 'claimed: being sent, or the sender died before recording (never resent)',
  }),
  http_status: Type.Union([Type.Integer(), Type.Null()]),
  duration_ms: Type.Union([Type.Integer(), Type.Null()]),
  error: NStr,
  claimed_at: Type.String({ format: 'date-time' }),
  sent_at: NTime,
  finished_at: NTime,
});

const DeliveriesQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1 })),
    per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  },
  { additionalProperties: false },
);

const security: { [k: string]: string[] }[] = [{ apiKey: [] }, { session: [] }];
/** OpenAPI: every webhook call refuses a plan without webhooks (the service's upgrade_required). */
const PLAN: RouteError[] = [{ key: 'UPGRADE_REQUIRED', when: 'webhooks need the Standard plan or above' }];
const tenantOwn = { resource: 'webhooks', ids: [] };
const tenantById = { resource: 'webhooks', ids: [{ in: 'params' as const, name: 'id', foreign: 'not_found' }] };
const read = (tenant: typeof tenantOwn | typeof tenantById) => ({
  auth: { mode: 'key_or_session' as const, role: 'viewer' as const, scope: 'read' as const, tenant },
});
const write = (tenant: typeof tenantOwn | typeof tenantById) => ({
  auth: { mode: 'key_or_session' as const, role: 'admin' as const, scope: 'write' as const, tenant },
});

const webhooks: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.webhooks;
  const actor = (req: { caller: { orgId: number; tier: import('../../../domain/tiers.ts').Tier } }) => ({
    orgId: req.caller.orgId,
    tier: req.caller.tier,
  });

  app.post(
    '/api/v1/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary:
          'Create a webhook; the signing secret is generated and returned once (owner or admin). Past the webhook cap: 403 cap_exceeded',
        description: capRefusalDescription('webhooks'),
        security,
        errors: [...PLAN, capExceeded('webhooks')],
        querystring: NoQuery,
        body: CreateWebhook,
        response: { 201: Envelope(WithSecret, Type.Object({})) },
      },
      config: write(tenantOwn),
    },
    async (req, reply) => {
      const r = await svc.create(actor(req), req.body);
      reply.code(201);
      return ok(req, { ...r.webhook, secret: r.secret }, {});
    },
  );

  app.get(
    '/api/v1/webhooks',
    {
      schema: {
        tags: ['webhooks'],
        summary: "List your organization's webhooks (oldest first)",
        security,
        errors: PLAN,
        querystring: PageQuery,
        response: { 200: CollectionEnvelope(Webhook, Type.Object({})) },
      },
      config: read(tenantOwn),
    },
    async (req) => {
      const r = await svc.list(actor(req));
      return listCollection(req, r);
    },
  );

  app.get(
    '/api/v1/webhooks/:id',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'One webhook',
        security,
        errors: PLAN,
        params: Params,
        querystring: NoQuery,
        response: { 200: Envelope(Webhook, Type.Object({})) },
      },
      config: read(tenantById),
    },
    async (req) => {
      return ok(req, await svc.get(actor(req), req.params.id), {});
    },
  );

  app.patch(
    '/api/v1/webhooks/:id',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Change the label or the URL (the URL is checked as at creation)',
        security,
        errors: PLAN,
        params: Params,
        querystring: NoQuery,
        body: UpdateWebhook,
        response: { 200: Envelope(Webhook, Type.Object({})) },
      },
      config: write(tenantById),
    },
    async (req) => {
      return ok(req, await svc.update(actor(req), req.params.id, req.body), {});
    },
  );

  app.delete(
    '/api/v1/webhooks/:id',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Delete a webhook and its delivery records',
        security,
        errors: PLAN,
        params: Params,
        querystring: NoQuery,
        body: NoBody,
        response: { 200: Envelope(Type.Object({ id: Type.Integer(), deleted: Type.Literal(true) }), Type.Object({})) },
      },
      config: write(tenantById),
    },
    async (req) => {
      await svc.remove(actor(req), req.params.id);
      return ok(req, { id: req.params.id, deleted: true as const }, {});
    },
  );

  app.post(
    '/api/v1/webhooks/:id/enable',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Re-enable a disabled webhook (spec §3.1); the failure count restarts at 0',
        security,
        errors: PLAN,
        params: Params,
        querystring: NoQuery,
        body: NoBody,
        response: { 200: Envelope(Webhook, Type.Object({})) },
      },
      config: write(tenantById),
    },
    async (req) => {
      return ok(req, await svc.enable(actor(req), req.params.id), {});
    },
  );

  app.post(
    '/api/v1/webhooks/:id/rotate-secret',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Generate a new secret, returned once; the old one is invalid immediately (spec §3.1)',
        description:
          'Concurrent rotations of one webhook: one wins (200, its secret is the one in force); the others answer 409 rotation_conflict and change nothing.',
        security,
        errors: [
          ...PLAN,
          {
            key: 'CONFLICT',
            error: 'rotation_conflict',
            when: 'another rotate-secret of this webhook ran at the same time; its secret is the one in force',
          },
        ],
        params: Params,
        querystring: NoQuery,
        body: NoBody,
        response: { 200: Envelope(WithSecret, Type.Object({})) },
      },
      config: write(tenantById),
    },
    async (req) => {
      // The arrival of the request: a rotation stamped after it overlapped this one (409 rotation_conflict).
      const r = await svc.rotateSecret(
        actor(req),
        req.params.id,
        new Date(Date.now() - (performance.now() - req.startedAt)),
      );
      return ok(req, { ...r.webhook, secret: r.secret }, {});
    },
  );

  app.post(
    '/api/v1/webhooks/:id/test',
    {
      schema: {
        tags: ['webhooks'],
        summary: 'Send a test delivery (event webhook.test, docs/webhooks.md) now and report its outcome',
        security,
        errors: PLAN,
        params: Params,
        querystring: NoQuery,
        body: NoBody,
        response: { 200: Envelope(DeliveryResult, Type.Object({})) },
      },
      config: write(tenantById),
    },
    async (req) => {
      return ok(req, await svc.test(actor(req), req.params.id), {});
    },
  );

  app.get(
    '/api/v1/webhooks/:id/deliveries',
    {
      schema: {
        tags: ['webhooks'],
        summary: "A webhook's deliveries, newest first: status, HTTP code, duration and error",
        security,
        errors: PLAN,
        params: Params,
        querystring: DeliveriesQuery,
        response: { 200: CollectionEnvelope(Delivery, Type.Object({})) },
      },
      config: read(tenantById),
    },
    async (req) => {
      const page = req.query.page ?? 1;
      const perPage = req.query.per_page ?? 20;
      const r = await svc.deliveries(actor(req), req.params.id, page, perPage);
      return collection(req, r.deliveries, pagination(r.total, page, perPage, r.deliveries.length), {});
    },
  );
};
export default webhooks;
