// Webhooks (spec §3.1, §4.6, §6; docs/webhooks.md): management for an organization (create, list, get, update,
// delete, enable, rotate-secret, test, deliveries) and delivery (`deliverAlert`, called by the alert run or the
// `webhook-deliver` job). Delivery claims (webhook, CVE) before sending, signs the exact bytes it sends, goes out
// through the tenant webhook egress policy (checked again at every delivery, DNS-pinned, reads capped), waits
// 10 s for a 2xx, never retries, and records the outcome; the 5th consecutive failure disables the webhook.
// The secret is sealed at rest (src/lib/crypto.ts), returned only by create and rotate-secret, and never logged.
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Config } from '../config.ts';
import type { Clock } from '../lib/clock.ts';
import type { Db } from '../store/db.ts';
import { keyFingerprint, loadSecretKey, openSecret, sealSecret } from '../lib/crypto.ts';
import { recordKeyFingerprint } from '../store/sealing-key.ts';
import { assertWebhookRoom } from './plan-caps.ts';
import { invalidInput, Refusal } from './refusal.ts';
import { DEFAULT_PLAN_CAPS, type PlanCapsTable } from '../domain/plan-caps.ts';
import { createWebhookEgress, type Egress } from '../lib/egress.ts';
import { EgressError, systemResolver, webhookPolicy, type Resolver } from '../lib/egress-policy.ts';
import { TIERS, TIER_PERMISSIONS, type Tier } from '../domain/tiers.ts';
import { alertPayloadFor } from '../domain/alerts.ts';
import {
  alertBody,
  discordAlertBody,
  discordTestBody,
  isDiscordUrl,
  isSuccessStatus,
  signedHeaders,
  testBody,
  DISCORD_HEADERS,
  WEBHOOK_SECRET_PREFIX,
  WEBHOOK_TIMEOUT_MS,
  webhookSealContext,
  type AlertPayload,
  type WebhookEvent,
} from '../domain/webhooks.ts';
import {
  claimDelivery,
  deleteWebhook,
  enableWebhook,
  getWebhook,
  insertWebhook,
  listDeliveries,
  listEnabledWebhooks,
  listWebhooks,
  newTenantId,
  recordOutcome,
  replaceSecret,
  updateWebhook,
  type DeliveryRow,
  type WebhookRow,
} from '../store/webhooks.ts';

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

/** What one delivery attempt came to. `skipped`: already claimed for this CVE, webhook disabled, or plan without webhooks. */
export interface DeliveryResult {
  webhook_id: number;
  delivery_id: number | null;
  outcome: 'delivered' | 'failed' | 'skipped';
  http_status: number | null;
  duration_ms: number | null;
  error: string | null;
  /** This delivery's failure disabled the webhook (exactly one outcome per disable). */
  disabled: boolean;
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

const WEBHOOK_TIERS: readonly Tier[] = TIERS.filter((t) => TIER_PERMISSIONS[t].webhook_delivery);
const sealContext = webhookSealContext;
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
    event: r.event as WebhookEvent,
    cve_id: r.cve_id,
    status: r.status as Delivery['status'],
    http_status: r.http_status,
    duration_ms: r.duration_ms,
    error: r.error,
    claimed_at: iso(r.claimed_at)!,
    sent_at: iso(r.sent_at),
    finished_at: iso(r.finished_at),
  };
}

/** The webhook's sealed signing secret does not open with this process's sealing key: nothing is sent. */
class UnreadableSecret extends Error {
  readonly code = 'secret_unreadable';
  constructor() {
    super(
      'the signing secret does not open with this process\'s sealing key (VULNINTEL_SECRET_KEY, else <data dir>/secret.key, differs from the key that sealed it); nothing was sent (docs/webhooks.md "Secrets")',
    );
  }
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
  const timeoutMs = deps.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  let key: Buffer | null = deps.secretKey ?? null;
  const sealingKey = () => (key ??= loadSecretKey(deps.config));

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

  async function deliver(
    webhookId: number,
    event: WebhookEvent,
    cveId: string | null,
    bodies: (w: { id: number; discord: boolean }) => Buffer,
  ): Promise<DeliveryResult> {
    const claim = await claimDelivery(db, webhookId, cveId, event, clock.now(), WEBHOOK_TIERS, event === 'cve.alert');
    const skipped: DeliveryResult = {
      webhook_id: webhookId,
      delivery_id: null,
      outcome: 'skipped',
      http_status: null,
      duration_ms: null,
      error: null,
      disabled: false,
    };
    if (!claim) return skipped;
    await deps.afterClaim?.({ deliveryId: claim.delivery_id, webhookId });
    const discord = isDiscordUrl(claim.url);
    const body = bodies({ id: webhookId, discord });
    const sentAt = clock.now();
    const ts = Math.floor(sentAt.getTime() / 1000);
    const started = performance.now();
    let httpStatus: number | null = null;
    let error: string | null = null;
    let ours = false;
    try {
      // A secret this process cannot open (another sealing key) fails this delivery, recorded; it never stops the
      // other webhooks' deliveries (reliability W8). It is our fault, never the receiver's: it does not count toward
      // the five failures that disable a webhook (docs/webhooks.md "Sealing key").
      let secret: string | null = null;
      if (!discord) {
        try {
          secret = openSecret(sealingKey(), claim.secret_sealed, sealContext(webhookId));
        } catch {
          throw new UnreadableSecret();
        }
      }
      const headers =
        secret === null ? { ...DISCORD_HEADERS } : signedHeaders(secret, `msg_${claim.delivery_id}`, ts, body);
      const res = await egress.fetch(claim.url, { method: 'POST', headers, body, timeoutMs });
      httpStatus = res.status;
      // The exchange must complete in time: the (capped) answer is read to its end, then dropped.
      await res.bytes();
      if (!isSuccessStatus(res.status)) {
        error =
          res.status >= 300 && res.status < 400
            ? `HTTP ${res.status}: redirects are not followed`
            : `HTTP ${res.status}`;
      }
    } catch (e) {
      ours = e instanceof UnreadableSecret;
      error =
        e instanceof UnreadableSecret || e instanceof EgressError
          ? `${e.code}: ${e.message}`
          : `network_error: ${e instanceof Error ? e.message : String(e)}`;
    }
    const durationMs = Math.round(performance.now() - started);
    const ok = error === null;
    const state = await recordOutcome(db, webhookId, claim.delivery_id, {
      ok,
      httpStatus,
      durationMs,
      error: error?.slice(0, 500) ?? null,
      sentAt,
      finishedAt: clock.now(),
      countsToState: event === 'cve.alert' && !ours,
    });
    if (state?.justDisabled) deps.onDisabled?.({ orgId: claim.org_id, webhookId });
    return {
      webhook_id: webhookId,
      delivery_id: claim.delivery_id,
      outcome: ok ? 'delivered' : 'failed',
      http_status: httpStatus,
      duration_ms: durationMs,
      error,
      disabled: state?.justDisabled ?? false,
    };
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
    return { secret, sealed: sealSecret(sealingKey(), secret, sealContext(id)) };
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
      const delivery = await deliver(id, 'webhook.test', null, (w) =>
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

    /**
     * One cve.alert to every active webhook of the organization (spec §6), in parallel. Each (webhook, CVE) goes at
     * most once: a second call for the same CVE, concurrent or later, is `skipped` for every webhook already claimed.
     */
    async deliverAlert(orgId: number, payload: AlertPayload): Promise<DeliveryResult[]> {
      // None when the organization is deactivated or its plan has no webhooks: the alert is then `no_webhooks`.
      const hooks = await listEnabledWebhooks(db, orgId, WEBHOOK_TIERS);
      if (!hooks.length) return [];
      // The AI texts as the organization's plan may see them (spec §2.8; docs/cve-api.md "sage per tier").
      const seen = alertPayloadFor(payload, hooks[0].tier);
      let signed: Buffer | null = null;
      let discord: Buffer | null = null;
      const bodies = (w: { discord: boolean }) =>
        w.discord ? (discord ??= discordAlertBody(seen)) : (signed ??= alertBody(seen));
      return Promise.all(hooks.map((h) => deliver(h.id, 'cve.alert', payload.data.cve_id, bodies)));
    },

    async close(): Promise<void> {
      await ownEgress?.close();
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
