// Webhooks (spec §3.1, §4.6, §6; docs/webhooks.md): management for an organization (create, list, get, update,
// delete, enable, rotate-secret, test, deliveries), over the delivery in webhook-delivery.ts (`deliverAlert`, called
// by the alert run or the `webhook-deliver` job). A receiver URL is checked against the tenant webhook egress policy
// when it is set. The secret is sealed at rest (src/lib/crypto.ts), returned only by create and rotate-secret, and
// never logged.
import { oneOf } from './stored-values.ts';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { Config } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import type { Db } from '../store/db.ts';
import { keyFingerprint, loadSecretKey, sealSecret } from '../lib/crypto.ts';
import { recordKeyFingerprint } from '../store/sealing-key.ts';
import { assertWebhookRoom } from './plan-caps.ts';
import { invalidInput, Refusal } from './refusal.ts';
import { DEFAULT_PLAN_CAPS, type PlanCapsTable } from '../domain/plan-caps.ts';
import { createWebhookEgress, type Egress } from '../lib/egress.ts';
import { EgressError, systemResolver, webhookPolicy, type Resolver } from '../lib/egress-policy.ts';
import { TIER_PERMISSIONS, type Tier } from '../domain/tiers.ts';
import {
  discordTestBody,
  isDiscordUrl,
  testBody,
  WEBHOOK_SECRET_PREFIX,
  WEBHOOK_TIMEOUT_MS,
  webhookSealContext,
  type WebhookEvent,
} from '../domain/webhooks.ts';
import {
  deleteWebhook,
  enableWebhook,
  getWebhook,
  insertWebhook,
  listDeliveries,
  listWebhooks,
  newTenantId,
  replaceSecret,
  updateWebhook,
  type DeliveryRow,
  type WebhookRow,
} from '../store/webhooks.ts';
import { createWebhookDelivery, type DeliveryResult } from './webhook-delivery.ts';

/** A webhook as the API shows it (docs/webhooks.md "Webhook record"). Never the secret. */
export interface Webhook {
  id: number;
  label: string;
  url: string;
  kind: 'signed' | 'discord';
  status: 'active' | 'disabled';
  consecutive_failures: number;
  disabled_reason: 'consecutive_failures' | null;
  disabled_at: string | null;
  last_delivery_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface Delivery {
  id: number;
  event: WebhookEvent;
  cve_id: string | null;
  status: 'claimed' | 'delivered' | 'failed';
  http_status: number | null;
  duration_ms: number | null;
  error: string | null;
  claimed_at: string;
  sent_at: string | null;
  finished_at: string | null;
}

/** Who is asking: the organization and its plan (webhook_delivery, spec §2.8). */
export interface WebhookActor {
  orgId: number;
  tier: Tier;
}

export interface WebhookServiceDeps {
  db: Db;
  clock: Clock;
  config: Readonly<Pick<Config, 'webhookEgressAllowList' | 'secretKey' | 'dataDir'>> & {
    readonly planCaps?: Readonly<PlanCapsTable>;
  };
  /** Outbound HTTP (default: createWebhookEgress with the config's test list and `resolver`); closed by close() only when made here. */
  egress?: Egress;
  /** DNS for the create-time check and the default egress (tests inject one). */
  resolver?: Resolver;
  /** The 2xx deadline (default WEBHOOK_TIMEOUT_MS, 10 s; tests shorten it). */
  timeoutMs?: number;
  /** The sealing key (default: loadSecretKey(config), read on first use). */
  secretKey?: Buffer;
  /** Where a disable is reported (webhook and organization ids only: never the URL or the secret). */
  onDisabled?: (e: { orgId: number; webhookId: number }) => void;
  /** Test hook: runs after a delivery is claimed and before it is sent (a throw here is a crash between the two). */
  afterClaim?: (e: { deliveryId: number; webhookId: number }) => void | Promise<void>;
}

const WEBHOOK_EVENTS: readonly WebhookEvent[] = ['cve.alert', 'webhook.test'];
const DELIVERY_STATUSES: readonly Delivery['status'][] = ['claimed', 'delivered', 'failed'];
const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());

/** A new signing secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks form; docs/webhooks.md). */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64');
}

function view(r: WebhookRow): Webhook {
  return {
    id: r.id,
    label: r.label,
    url: r.url,
    kind: isDiscordUrl(r.url) ? 'discord' : 'signed',
    status: r.enabled ? 'active' : 'disabled',
    consecutive_failures: r.consecutive_failures,
    disabled_reason: r.disabled_reason === null ? null : 'consecutive_failures',
    disabled_at: iso(r.disabled_at),
    last_delivery_at: iso(r.last_delivery_at),
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
  };
}

function deliveryView(r: DeliveryRow): Delivery {
  return {
    id: r.id,
    event: oneOf(WEBHOOK_EVENTS, r.event, 'webhook_deliveries.event'),
    cve_id: r.cve_id,
    status: oneOf(DELIVERY_STATUSES, r.status, 'webhook_deliveries.status'),
    http_status: r.http_status,
    duration_ms: r.duration_ms,
    error: r.error,
    claimed_at: iso(r.claimed_at)!,
    sent_at: iso(r.sent_at),
    finished_at: iso(r.finished_at),
  };
}

// The refusals (services/refusal.ts): a plan without webhooks, a webhook not of the organization, a receiver URL
// refused (422 on body.url), a rotation overlapped by another.
const notFound = () => new Refusal('not_found', 'No such webhook in your organization');
const invalidUrl = (problem: string) =>
  invalidInput(`url: ${problem}`, [{ field: 'body.url', message: problem, type: 'url_not_allowed' }]);

export function createWebhookService(deps: WebhookServiceDeps) {
  const { db, clock } = deps;
  const policy = webhookPolicy(deps.config.webhookEgressAllowList);
  const resolver = deps.resolver ?? systemResolver;
  const ownEgress = deps.egress
    ? null
    : createWebhookEgress({ testAllowList: deps.config.webhookEgressAllowList, resolver });
  const egress = deps.egress ?? ownEgress!;
  let key: Buffer | null = deps.secretKey ?? null;
  const sealingKey = () => (key ??= loadSecretKey(deps.config));
  const sender = createWebhookDelivery({
    db,
    clock,
    egress,
    timeoutMs: deps.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
    sealingKey,
    onDisabled: deps.onDisabled,
    afterClaim: deps.afterClaim,
  });

  const gate = (a: WebhookActor): void => {
    if (!TIER_PERMISSIONS[a.tier].webhook_delivery)
      throw new Refusal(
        'upgrade_required',
        `Webhooks are available on the Standard plan and above; this organization is on ${a.tier}`,
      );
  };

  /** The create/update check (docs/egress.md, reliability S1–S2): the policy's URL rules, then every address the name resolves to. */
  async function urlProblem(raw: string): Promise<string | null> {
    // The URL parser drops tabs and line breaks and trims spaces silently; the stored URL is the one given, so it
    // must already be the one that is reached.
    // eslint-disable-next-line no-control-regex -- control characters are what this check refuses
    if (/[\u0000-\u0020\u007f]/.test(raw))
      return 'the URL contains spaces or control characters (tab, line break, …); send it on one line without them';
    let checked;
    try {
      checked = policy.check(raw);
    } catch (e) {
      if (e instanceof EgressError) return e.message;
      throw e;
    }
    if (checked.allowListed) return null;
    const host = checked.url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) return null; // literals were classified by policy.check
    let addresses;
    try {
      addresses = await resolver(host);
    } catch {
      return `the host ${host} does not resolve`;
    }
    if (addresses.length === 0) return `the host ${host} does not resolve`;
    // The address itself is not echoed: the answer must not become a way to map an internal DNS.
    if (addresses.some((a) => policy.blocked(a.address) !== null))
      return `the host ${host} resolves to an address webhooks may not reach (private, loopback, link-local or reserved)`;
    return null;
  }

  async function owned(a: WebhookActor, id: number): Promise<WebhookRow> {
    gate(a);
    const row = await getWebhook(db, a.orgId, id);
    if (!row) throw notFound();
    return row;
  }

  let fingerprinted = false;
  async function sealed(id: number): Promise<{ secret: string; sealed: string }> {
    const secret = generateWebhookSecret();
    // The first seal of an installation records the key's fingerprint: from then on, a process started with another
    // key refuses to start while sealed secrets exist (services/sealing-key.ts).
    if (!fingerprinted) {
      await recordKeyFingerprint(db, keyFingerprint(sealingKey()));
      fingerprinted = true;
    }
    return { secret, sealed: sealSecret(sealingKey(), secret, webhookSealContext(id)) };
  }

  return {
    async create(
      a: WebhookActor,
      input: { label: string; url: string },
    ): Promise<{ webhook: Webhook; secret: string }> {
      gate(a);
      const problem = await urlProblem(input.url);
      if (problem) throw invalidUrl(problem);
      const id = await newTenantId(db);
      const s = await sealed(id);
      // The count and the insert hold the organization's row lock (services/plan-caps.ts): parallel creates at the
      // cap cannot both pass; past it, 403 cap_exceeded and nothing stored.
      const row = await db.transaction().execute(async (trx) => {
        await assertWebhookRoom(trx, deps.config.planCaps ?? DEFAULT_PLAN_CAPS, a.orgId);
        return insertWebhook(trx, a.orgId, {
          id,
          label: input.label.trim(),
          url: input.url,
          secret_sealed: s.sealed,
          now: clock.now(),
        });
      });
      return { webhook: view(row), secret: s.secret };
    },

    async list(a: WebhookActor): Promise<Webhook[]> {
      gate(a);
      return (await listWebhooks(db, a.orgId)).map(view);
    },

    async get(a: WebhookActor, id: number): Promise<Webhook> {
      return view(await owned(a, id));
    },

    async update(a: WebhookActor, id: number, input: { label?: string; url?: string }): Promise<Webhook> {
      gate(a);
      if (input.url !== undefined) {
        // An unknown id answers 404 before the URL is judged (no probing another organization's ids by URL errors).
        if (!(await getWebhook(db, a.orgId, id))) throw notFound();
        const problem = await urlProblem(input.url);
        if (problem) throw invalidUrl(problem);
      }
      const row = await updateWebhook(
        db,
        a.orgId,
        id,
        {
          ...(input.label !== undefined ? { label: input.label.trim() } : {}),
          ...(input.url !== undefined ? { url: input.url } : {}),
        },
        clock.now(),
      );
      if (!row) throw notFound();
      return view(row);
    },

    async remove(a: WebhookActor, id: number): Promise<void> {
      gate(a);
      if (!(await deleteWebhook(db, a.orgId, id))) throw notFound();
    },

    async enable(a: WebhookActor, id: number): Promise<Webhook> {
      gate(a);
      const row = await enableWebhook(db, a.orgId, id, clock.now());
      if (!row) throw notFound();
      return view(row);
    },

    /** A new secret; the old one signs nothing claimed after this returns (spec §3.1: invalid immediately). */
    async rotateSecret(
      a: WebhookActor,
      id: number,
      requestedAt: Date = new Date(),
    ): Promise<{ webhook: Webhook; secret: string }> {
      // Under the row lock, a rotation stamped at or after this request arrived (`requestedAt`, wall clock) overlapped
      // it: of concurrent rotations one wins, and the others, whose secret would already be replaced, are refused
      // (409 rotation_conflict), as concurrent rotations of one API key are (key_revoked). Wall-clock time, not the
      // service clock: this orders real events.
      await owned(a, id);
      const s = await sealed(id);
      const row = await replaceSecret(db, a.orgId, id, s.sealed, {
        now: clock.now(),
        requestedAt,
        rotatedAt: () => new Date(),
      });
      if (row === 'conflict') {
        throw new Refusal(
          'rotation_conflict',
          'Another rotate-secret of this webhook ran at the same time and its secret is now the one in force; use the secret of that answer, or rotate again',
        );
      }
      if (!row) throw notFound();
      return { webhook: view(row), secret: s.secret };
    },

    /** A test delivery (event webhook.test), sent now; recorded, but it neither counts as a failure nor resets the count. */
    async test(a: WebhookActor, id: number): Promise<DeliveryResult> {
      const row = await owned(a, id);
      const now = clock.now();
      const delivery = await sender.deliver(id, 'webhook.test', null, (w) =>
        (w.discord ? discordTestBody : testBody)({ id, label: row.label }, now),
      );
      // Nothing claimed: the webhook was deleted (or the plan changed) since it was read above; answered as such.
      if (delivery.outcome === 'skipped') await owned(a, id);
      return delivery;
    },

    async deliveries(
      a: WebhookActor,
      id: number,
      page: number,
      perPage: number,
    ): Promise<{ deliveries: Delivery[]; total: number }> {
      await owned(a, id);
      const { rows, total } = await listDeliveries(db, a.orgId, id, perPage, (page - 1) * perPage);
      return { deliveries: rows.map(deliveryView), total };
    },

    /** One cve.alert to every active webhook of the organization (webhook-delivery.ts). */
    deliverAlert: sender.deliverAlert,

    async close(): Promise<void> {
      await ownEgress?.close();
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
