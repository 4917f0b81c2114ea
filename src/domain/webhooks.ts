// Webhook rules without I/O (spec §3.1, §6; ADRs 0085–0088; docs/webhooks.md):
// the signatures (the spec's and the Standard Webhooks ones), the payloads (cve.alert, webhook.test, the Discord
// embed) with the 64 KiB cap, and the failure rule of the state machine.
import { createHash, createHmac } from 'node:crypto';

/** Spec §6 rule 1: a 2xx within 10 seconds. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Spec §3.1 / ADR 0085: the 5th consecutive failure disables the webhook. */
export const WEBHOOK_FAILURE_LIMIT = 5;
/** ADR 0088: a delivery body is at most 64 KiB. */
export const WEBHOOK_PAYLOAD_CAP = 64 * 1024;
export const WEBHOOK_USER_AGENT = 'Vulnintel-Alert/1.0';
export const WEBHOOK_VERSION = '1.0';
/** Prefix of generated secrets (the Standard Webhooks form: `whsec_` + base64 of the key bytes). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

export type WebhookEvent = 'cve.alert' | 'webhook.test';
/** The context a webhook's signing secret is sealed with (src/lib/crypto.ts): its id, so a copied value does not open. */
export const webhookSealContext = (id: number): string => `webhook-secret:${id}`;

/** Spec §6 rule 1 as the delivery judges it: a 2xx status, and the response complete in time. */
export const isSuccessStatus = (status: number): boolean => status >= 200 && status <= 299;

// ---- Signatures ----------------------------------------------------------------------------------------------

/**
 * The spec's signature (§6): `sha256=` + hex HMAC-SHA256 of the raw body, keyed by the lowercase hex text of
 * SHA-256(secret), not the secret itself.
 */
export function specSignature(secret: string, body: Buffer): string {
  // Stryker disable next-line StringLiteral: Node reads an empty encoding name as utf8
  const key = createHash('sha256').update(secret, 'utf8').digest('hex');
  return `sha256=${createHmac('sha256', key).update(body).digest('hex')}`;
}

/** The Standard Webhooks key: the bytes the `whsec_` secret encodes in base64 (their spec, "Signature scheme"). */
function standardKey(secret: string): Buffer {
  return Buffer.from(
    secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret,
    'base64',
  );
}

/**
 * The Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`,
 * keyed by the secret's base64-decoded bytes. The timestamp is inside the signature, so receivers can refuse replays.
 */
export function standardSignature(secret: string, msgId: string, timestampSec: number, body: Buffer): string {
  const h = createHmac('sha256', standardKey(secret));
  // Stryker disable next-line StringLiteral: Node reads an empty encoding name as utf8
  h.update(`${msgId}.${timestampSec}.`, 'utf8');
  h.update(body);
  return `v1,${h.digest('base64')}`;
}

/** Discord webhook URLs (ADR 0086): discord.com / discordapp.com (and ptb./canary.), path under /api/webhooks/. */
export function isDiscordUrl(raw: string): boolean {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return false;
  }
  const host = u.hostname.toLowerCase().replace(/\.$/, '');
  const hosts = ['discord.com', 'discordapp.com'].flatMap((h) => [h, `ptb.${h}`, `canary.${h}`]);
  return hosts.includes(host) && u.pathname.startsWith('/api/webhooks/');
}

/** Every header of a signed delivery (spec §6 plus the Standard Webhooks three; ADR 0087). Lower-case names. */
export function signedHeaders(
  secret: string,
  msgId: string,
  timestampSec: number,
  body: Buffer,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'x-vulnintel-signature': specSignature(secret, body),
    'x-vulnintel-timestamp': String(timestampSec),
    'x-vulnintel-version': WEBHOOK_VERSION,
    'webhook-id': msgId,
    'webhook-timestamp': String(timestampSec),
    'webhook-signature': standardSignature(secret, msgId, timestampSec, body),
  };
}

/** Headers of a Discord delivery (spec §6 rule 5: no signature headers). */
export const DISCORD_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
  'user-agent': WEBHOOK_USER_AGENT,
});

// ---- Payloads ------------------------------------------------------------------------------------------------

export const SAGE_PRIORITIES = ['PATCH NOW', 'PATCH NEXT', 'MONITOR', 'IGNORE'] as const;
export type SagePriority = (typeof SAGE_PRIORITIES)[number];

/** `data` of a cve.alert (spec §6 payload table). The alert run builds it; delivery never changes identifiers. */
export interface AlertData {
  cve_id: string;
  title: string;
  cvss_score: number | null;
  cvss_vector: string | null;
  patch_status: string;
  kev_flagged: boolean;
  epss_score: number | null;
  sage_priority: SagePriority;
  published_at: string | null;
  url: string;
  executive_summary: string | null;
  mitigation: string | null;
  causal_boundary: string | null;
  virtual_patch: string | null;
  /** entity_type: vendor or product (watchlist), environment (asset match); the alert run may add others (protocol, cve). */
  watchlist_match: { entity_type: string; entity_name: string };
  /**
   * Beyond the spec (docs/alerts.md): why the alert fired, one line per change of the run's window, e.g.
   * ["added to KEV", "EPSS percentile 45 → 92"]. The alert run always sets it. Receivers may ignore it.
   */
  reasons?: string[];
  /** A single reason (a payload queued for the webhook-deliver job may carry this form); `reasons` wins. */
  reason?: string;
  /** Beyond the spec (docs/alerts.md): every watch entry and (up to 20) environment assets the CVE matched. */
  matches?: AlertMatch[];
  /** Beyond the spec: how many of the organization's environment assets the CVE hits, by verdict. */
  asset_matches?: { affected: number; needs_review: number };
}

/** One reason an organization is alerted: a watch entry, or an environment asset (with its verdict). */
export interface AlertMatch {
  entity_type: string;
  entity_name: string;
  asset_id?: string;
  asset_kind?: 'asset' | 'windows_host';
  status?: 'affected' | 'needs_review';
  product?: string;
  reason?: string;
}

export interface AlertPayload {
  event: 'cve.alert';
  version: '1.0';
  timestamp: string;
  data: AlertData;
}

/** The AI-generated fields (spec §6 "AI-generated"): the only ones shortened to fit the cap. */
export const AI_FIELDS = ['executive_summary', 'mitigation', 'causal_boundary', 'virtual_patch'] as const;

/** ISO 8601 with offset (spec §6 `timestamp`), second precision, UTC. */
export function isoSeconds(d: Date): string {
  // Stryker disable next-line Regex: toISOString always ends in .sssZ: the $ changes nothing
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `s` cut to at most `max` code points with an ellipsis (never splitting a surrogate pair). */
export function truncateText(s: string, max: number): string {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a fast path: the slow path gives the same string or bytes when it fits
  if (s.length <= max) return s; // UTF-16 units ≥ code points
  const cps = Array.from(s);
  if (cps.length <= max) return s;
  return max <= 0 ? '…' : `${cps.slice(0, max - 1).join('')}…`;
}

/** The UTF-16 index at which each code point of `s` starts. */
function codePointStarts(s: string): Uint32Array {
  const out = new Uint32Array(s.length);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    out[n++] = i;
    // Stryker disable next-line ArithmeticOperator,ConditionalExpression,EqualityOperator: charCodeAt past the end is NaN, which is no low surrogate: the pair check fails the same
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return out.subarray(0, n);
}

/**
 * The body bytes of a cve.alert, at most `cap` bytes (ADR 0088): when the JSON is larger, the AI fields are cut
 * to the longest common length that fits (with an ellipsis). Identifiers (cve_id, url, watchlist_match, scores)
 * are never touched; the title is cut only if the AI fields alone cannot make room. Throws if even that fails.
 */
export function alertBody(payload: AlertPayload, cap = WEBHOOK_PAYLOAD_CAP): Buffer {
  // Stryker disable next-line StringLiteral: Node reads an empty encoding name as utf8
  const full = Buffer.from(JSON.stringify(payload), 'utf8');
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a fast path: the slow path gives the same string or bytes when it fits
  if (full.length <= cap) return full;
  // Per AI field, the UTF-16 offset where each code point starts, computed once: a cut is then one slice.
  const starts = new Map(AI_FIELDS.map((f) => [f, payload.data[f] === null ? null : codePointStarts(payload.data[f])]));
  const cut = (f: (typeof AI_FIELDS)[number], max: number): string => {
    const text = payload.data[f]!;
    const at = starts.get(f)!;
    if (at.length <= max) return text;
    return max <= 0 ? '…' : `${text.slice(0, at[max - 1])}…`;
  };
  const withLimit = (n: number, titleLimit: number | null): string => {
    const data = { ...payload.data };
    for (const f of AI_FIELDS) if (data[f] !== null) data[f] = cut(f, n);
    if (titleLimit !== null) data.title = truncateText(data.title, titleLimit);
    return JSON.stringify({ ...payload, data });
  };
  // Stryker disable next-line StringLiteral: Node reads an empty encoding name as utf8
  const size = (json: string) => Buffer.byteLength(json, 'utf8');
  const longest = Math.max(...[...starts.values()].map((a) => a?.length ?? 0));
  const fit = (titleLimit: number | null): Buffer | null => {
    if (size(withLimit(0, titleLimit)) > cap) return null;
    let lo = 0;
    let hi = longest;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (size(withLimit(mid, titleLimit)) <= cap) lo = mid;
      else hi = mid - 1;
    }
    // Stryker disable next-line StringLiteral: Node reads an empty encoding name as utf8
    return Buffer.from(withLimit(lo, titleLimit), 'utf8');
  };
  const body = fit(null) ?? fit(256);
  if (!body) throw new Error(`alert for ${payload.data.cve_id} does not fit ${cap} bytes even without its AI text`);
  return body;
}

/** The body of a test delivery (POST /api/v1/webhooks/{id}/test; docs/webhooks.md "Test delivery"). */
export function testBody(webhook: { id: number; label: string }, now: Date): Buffer {
  return Buffer.from(
    JSON.stringify({
      event: 'webhook.test',
      version: WEBHOOK_VERSION,
      timestamp: isoSeconds(now),
      data: {
        webhook_id: webhook.id,
        label: webhook.label,
        message:
          'Test delivery from Vulnintel. Verify the signature headers; cve.alert deliveries are signed the same way.',
      },
    }),
    // Stryker disable next-line StringLiteral: Node reads an empty encoding name as utf8
    'utf8',
  );
}

// Discord embed limits (developer docs "Embed Limits"): title 256, description 4096, field value 1024, 25 fields.
const PRIORITY_COLOURS: Record<string, number> = {
  'PATCH NOW': 0xd32f2f,
  'PATCH NEXT': 0xf57c00,
  MONITOR: 0xfbc02d,
  IGNORE: 0x9e9e9e,
};

/** The Discord-formatted embed of a cve.alert (spec §6 rule 5). */
export function discordAlertBody(payload: AlertPayload): Buffer {
  const d = payload.data;
  // The alert run's payload carries `reasons` (one line per change); `reason` is the single-line form.
  const why = d.reasons?.length ? d.reasons.join('; ') : d.reason;
  const fields = [
    { name: 'Priority', value: d.sage_priority, inline: true },
    { name: 'CVSS', value: d.cvss_score === null ? 'n/a' : String(d.cvss_score), inline: true },
    { name: 'EPSS', value: d.epss_score === null ? 'n/a' : String(d.epss_score), inline: true },
    { name: 'KEV', value: d.kev_flagged ? 'yes' : 'no', inline: true },
    { name: 'Patch', value: truncateText(d.patch_status, 1024), inline: true },
    {
      name: 'Match',
      value: truncateText(`${d.watchlist_match.entity_type}: ${d.watchlist_match.entity_name}`, 1024),
      inline: true,
    },
    ...(why ? [{ name: 'Why', value: truncateText(why, 1024), inline: false }] : []),
  ];
  return Buffer.from(
    JSON.stringify({
      username: 'Vulnintel',
      embeds: [
        {
          title: truncateText(`${d.cve_id}: ${d.title}`, 256),
          url: d.url,
          description: truncateText(d.executive_summary ?? d.title, 2000),
          color: PRIORITY_COLOURS[d.sage_priority] ?? 0x9e9e9e,
          fields,
          timestamp: payload.timestamp,
          footer: { text: 'Vulnintel cve.alert' },
        },
      ],
    }),
    // Stryker disable next-line StringLiteral: Node reads an empty encoding name as utf8
    'utf8',
  );
}

/** The Discord form of a test delivery. */
export function discordTestBody(webhook: { id: number; label: string }, now: Date): Buffer {
  return Buffer.from(
    JSON.stringify({
      username: 'Vulnintel',
      embeds: [
        {
          title: 'Vulnintel test delivery',
          description: truncateText(`Webhook "${webhook.label}" (${webhook.id}) is configured.`, 2000),
          timestamp: isoSeconds(now),
        },
      ],
    }),
    // Stryker disable next-line StringLiteral: Node reads an empty encoding name as utf8
    'utf8',
  );
}

// ---- State machine (spec §3.1, ADR 0085) --------------------------------------------------------------------

export interface WebhookState {
  enabled: boolean;
  consecutiveFailures: number;
}

/** After a delivery outcome: a 2xx resets the count; a failure adds one and the 5th disables. */
export function afterDelivery(s: WebhookState, ok: boolean): WebhookState {
  if (ok) return { enabled: s.enabled, consecutiveFailures: 0 };
  const n = s.consecutiveFailures + 1;
  return { enabled: s.enabled && n < WEBHOOK_FAILURE_LIMIT, consecutiveFailures: n };
}
