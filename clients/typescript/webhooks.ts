// Verifying a signed webhook delivery (docs/webhooks.md "Headers of a signed delivery"), in Node: over the raw body
// bytes as received, never a re-serialised object.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

function equalText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The spec's signature: `X-Vulnintel-Signature` is `sha256=` + hex HMAC-SHA256 of the raw body, keyed by the lowercase
 * hex text of SHA-256(secret). Compared in constant time, `sha256=` included. It does not cover the timestamp: use
 * {@link verifyStandardWebhook} to refuse replays.
 */
export function verifyWebhookSignature(
  secret: string,
  rawBody: Uint8Array | string,
  header: string | null | undefined,
): boolean {
  if (typeof header !== 'string') return false;
  const key = createHash('sha256').update(secret, 'utf8').digest('hex');
  return equalText(`sha256=${createHmac('sha256', key).update(rawBody).digest('hex')}`, header);
}

export interface StandardWebhookHeaders {
  'webhook-id'?: string | null;
  'webhook-timestamp'?: string | null;
  'webhook-signature'?: string | null;
}

/**
 * The Standard Webhooks signature: `webhook-signature` holds `v1,<base64 HMAC-SHA256>` entries (space separated) over
 * `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed by the bytes the `whsec_` secret's base64 part encodes. The
 * timestamp must be within `toleranceSec` (default 300 s) of `now`, so a captured delivery cannot be replayed later.
 */
export function verifyStandardWebhook(
  secret: string,
  rawBody: Uint8Array | string,
  headers: StandardWebhookHeaders,
  opts: { toleranceSec?: number; now?: Date } = {},
): boolean {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const sig = headers['webhook-signature'];
  if (!id || !ts || !sig || !/^\d{1,12}$/.test(ts)) return false;
  const nowSec = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSec - Number(ts)) > (opts.toleranceSec ?? 300)) return false;
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  const expected = `v1,${createHmac('sha256', key).update(`${id}.${ts}.`, 'utf8').update(rawBody).digest('base64')}`;
  return sig.split(' ').some((s) => equalText(s, expected));
}
