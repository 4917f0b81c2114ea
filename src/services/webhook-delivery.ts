// Webhook delivery (spec §6; docs/webhooks.md): one event to one webhook, and a cve.alert to every active webhook
// of an organization (`deliverAlert`, called by the alert run or the `webhook-deliver` job). A delivery claims
// (webhook, CVE) before sending, signs the exact bytes it sends, goes out through the tenant webhook egress policy
// (checked again at every delivery, DNS-pinned, reads capped), waits 10 s for a 2xx, never retries, and records
// the outcome; the 5th consecutive failure disables the webhook.
import { performance } from 'node:perf_hooks';
import type { Clock } from '../lib/clock.ts';
import type { Db } from '../store/db.ts';
import { openSecret } from '../lib/crypto.ts';
import type { Egress } from '../lib/egress.ts';
import { EgressError } from '../lib/egress-policy.ts';
import { TIERS, TIER_PERMISSIONS, type Tier } from '../domain/tiers.ts';
import { alertPayloadFor } from '../domain/alerts.ts';
import {
  alertBody,
  discordAlertBody,
  isDiscordUrl,
  isSuccessStatus,
  signedHeaders,
  DISCORD_HEADERS,
  webhookSealContext,
  type AlertPayload,
  type WebhookEvent,
} from '../domain/webhooks.ts';
import { claimDelivery, listEnabledWebhooks, recordOutcome } from '../store/webhooks.ts';

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

/** What delivery needs of the service: the egress, the deadline, the sealing key, and the hooks (WebhookServiceDeps). */
export interface DeliveryDeps {
  db: Db;
  clock: Clock;
  egress: Egress;
  timeoutMs: number;
  sealingKey: () => Buffer;
  onDisabled?: (e: { orgId: number; webhookId: number }) => void;
  afterClaim?: (e: { deliveryId: number; webhookId: number }) => void | Promise<void>;
}

const WEBHOOK_TIERS: readonly Tier[] = TIERS.filter((t) => TIER_PERMISSIONS[t].webhook_delivery);

/** The webhook's sealed signing secret does not open with this process's sealing key: nothing is sent. */
class UnreadableSecret extends Error {
  readonly code = 'secret_unreadable';
  constructor() {
    super(
      'the signing secret does not open with this process\'s sealing key (VULNINTEL_SECRET_KEY, else <data dir>/secret.key, differs from the key that sealed it); nothing was sent (docs/webhooks.md "Secrets")',
    );
  }
}

export function createWebhookDelivery(deps: DeliveryDeps) {
  const { db, clock, egress, timeoutMs, sealingKey } = deps;

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
          secret = openSecret(sealingKey(), claim.secret_sealed, webhookSealContext(webhookId));
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

  /**
   * One cve.alert to every active webhook of the organization (spec §6), in parallel. Each (webhook, CVE) goes at
   * most once: a second call for the same CVE, concurrent or later, is `skipped` for every webhook already claimed.
   */
  async function deliverAlert(orgId: number, payload: AlertPayload): Promise<DeliveryResult[]> {
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
  }

  /** `deliver`: one event to one webhook, claimed, sent once, recorded (`bodies` makes the bytes for the webhook's kind). */
  return { deliver, deliverAlert };
}
