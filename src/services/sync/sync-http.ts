// HTTP behaviour shared by every sync source (docs/sync.md "Backoff" and "Rate limits"): retries with
// Retry-After or exponential backoff with jitter, a rolling-window rate limiter, and conditional whole-file
// downloads that skip unchanged feeds.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Clock } from '../../lib/clock.ts';
import type { Egress, EgressRequestInit, EgressResponse } from '../../lib/egress.ts';
import { EgressError } from '../../lib/egress-policy.ts';

export interface RetryPolicy {
  /** Total attempts per request, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is cut to it (a misbehaving server cannot park the sync for a day). */
  maxRetryAfterMs: number;
  /** Statuses that mean "slow down / try again" (NVD answers 403 when its rate limit is exceeded). */
  retryStatuses: readonly number[];
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 6_000,
  maxDelayMs: 120_000,
  maxRetryAfterMs: 15 * 60_000,
  retryStatuses: [403, 429, 502, 503, 504],
};

export class SyncHttpError extends Error {
  constructor(
    message: string,
    public readonly status: number | null,
  ) {
    super(message);
    this.name = 'SyncHttpError';
  }
}

/** Retry-After as delay-seconds or an HTTP-date (RFC 9110 §10.2.3); null when absent or malformed. */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (value === undefined) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at) || !/[A-Za-z]/.test(v)) return null;
  return Math.max(0, at - now.getTime());
}

/**
 * The server's time of a response (its `Date` header), else this machine's: an HTTP-date Retry-After is an instant
 * on the server's clock, and with this clock ahead of it, "retry at 12:00:30" read against our 12:10 would be "now",
 * six attempts in a row with no wait.
 */
export function serverNow(res: Pick<EgressResponse, 'headers'>, local: Date): Date {
  const d = res.headers.date;
  const t = d && /[A-Za-z]/.test(d) ? Date.parse(d) : NaN;
  return Number.isNaN(t) ? local : new Date(t);
}

/** Exponential backoff with "equal jitter": half the step is fixed, half random, so delays still grow. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(step / 2 + (step / 2) * random());
}

/** At most `limit` requests in any rolling window of `windowMs` (NVD: 5 per 30 s without a key, 50 with one). */
export class RollingWindowLimiter {
  private stamps: number[] = [];
  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly clock: Clock,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  async take(): Promise<void> {
    const now = this.clock.now().getTime();
    this.stamps = this.stamps.filter((t) => t > now - this.windowMs);
    if (this.stamps.length >= this.limit) {
      const wait = this.stamps[0] + this.windowMs - now;
      if (wait > 0) await this.sleep(wait);
      const after = this.clock.now().getTime();
      this.stamps = this.stamps.filter((t) => t > after - this.windowMs);
    }
    this.stamps.push(this.clock.now().getTime());
  }
}

export interface HttpDeps {
  egress: Egress;
  clock: Clock;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  retry: RetryPolicy;
  log: { warn(obj: object, msg: string): void };
  limiter?: RollingWindowLimiter;
  /** The proxy variable set in the environment (config.proxyVariable), named when a feed cannot be reached. */
  proxyVariable?: string | null;
}

const ALLOW_HINT =
  'a feed mirror reached over http or at a private address must be listed in VULNINTEL_EGRESS_ALLOW (host or host:port; docs/egress.md)';

/** The URL as it may appear in logs and errors: no query string (it may carry tokens on other feeds). */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

const STATUS_TEXT: Record<number, string> = {
  403: 'Forbidden',
  429: 'Too Many Requests',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** Failures of the transfer itself (reset, silence, deadline, name lookup): the request is tried again. */
function transient(e: unknown): e is EgressError {
  return e instanceof EgressError && ['network_error', 'timeout', 'dns_failure'].includes(e.code);
}

/**
 * GET with the retry policy, the body read inside the retry: `read` gets each response whose status is not
 * retryable (2xx, 304, 404, 500…), and a transfer that breaks off while it reads the body (a reset, a silent or slow
 * connection, a proxy cutting the download) is one more failed attempt, retried with the same backoff, not the end
 * of the source. Network failures and timeouts are retried like a 503; policy refusals (blocked address, scheme) are
 * not; SyncHttpError once the attempts are used up.
 */
export async function fetchAndRead<T>(
  deps: HttpDeps,
  url: string,
  init: EgressRequestInit,
  read: (res: EgressResponse) => Promise<T>,
): Promise<T> {
  const { retry } = deps;
  let last = '';
  let lastStatus: number | null = null;
  for (let attempt = 1; attempt <= retry.maxAttempts; attempt++) {
    await deps.limiter?.take();
    let res: EgressResponse;
    try {
      res = await deps.egress.fetch(url, init);
    } catch (e) {
      if (!transient(e)) throw egressRefusal(url, e);
      last = e.message;
      lastStatus = null;
      if (attempt === retry.maxAttempts) break;
      const delay = backoffDelay(attempt, retry, deps.random);
      deps.log.warn({ url: displayUrl(url), attempt, delay_ms: delay, error: e.code }, 'feed request failed; retrying');
      await deps.sleep(delay);
      continue;
    }
    if (!retry.retryStatuses.includes(res.status)) {
      try {
        return await read(res);
      } catch (e) {
        if (!transient(e)) throw egressRefusal(url, e);
        await res.discard();
        last = `${e.message} while the body was read`;
        lastStatus = null;
        if (attempt === retry.maxAttempts) break;
        const delay = backoffDelay(attempt, retry, deps.random);
        deps.log.warn(
          { url: displayUrl(url), attempt, delay_ms: delay, error: e.code },
          'feed download broke off; retrying',
        );
        await deps.sleep(delay);
        continue;
      }
    }
    last = `HTTP ${res.status} ${STATUS_TEXT[res.status] ?? ''}`.trim();
    lastStatus = res.status;
    const retryAfter = parseRetryAfter(res.headers['retry-after'], serverNow(res, deps.clock.now()));
    await res.discard();
    if (attempt === retry.maxAttempts) break;
    const delay =
      retryAfter !== null ? Math.min(retryAfter, retry.maxRetryAfterMs) : backoffDelay(attempt, retry, deps.random);
    deps.log.warn(
      { url: displayUrl(url), attempt, status: res.status, delay_ms: delay, retry_after: retryAfter !== null },
      'feed server asked to slow down; retrying',
    );
    await deps.sleep(delay);
  }
  let hint = lastStatus === 403 ? ' (NVD answers 403 when the rate limit is exceeded or the API key is invalid)' : '';
  if (lastStatus === null && deps.proxyVariable) {
    hint = ` (${deps.proxyVariable} is set, but vulnintel sync connects directly and uses no proxy (docs/egress.md): point the VULNINTEL_FEED_URL_* variables at an internal mirror, listed in VULNINTEL_EGRESS_ALLOW, or copy the feed files over and run vulnintel sync --from DIR)`;
  }
  throw new SyncHttpError(
    `${displayUrl(url)}: ${last} on all ${retry.maxAttempts} attempts; giving up${hint}`,
    lastStatus,
  );
}

/** An egress error that is not retried (a policy refusal, a body over its cap), named with its URL; others as they are. */
function egressRefusal(url: string, e: unknown): unknown {
  if (!(e instanceof EgressError)) return e;
  if (e.code === 'response_too_large') return new SyncHttpError(`${displayUrl(url)}: ${e.message}`, null);
  const hint = ['scheme_not_allowed', 'blocked_address', 'host_not_allowed'].includes(e.code) ? `; ${ALLOW_HINT}` : '';
  return new SyncHttpError(`${displayUrl(url)}: refused by the egress policy: ${e.message}${hint}`, null);
}

/** Fails with a clear message unless the response is a 200. */
export async function expectOk(res: EgressResponse, what: string): Promise<void> {
  if (res.status === 200) return;
  await res.discard();
  throw new SyncHttpError(`${what}: ${displayUrl(res.url)} answered HTTP ${res.status}`, res.status);
}

/** A field of a parsed JSON value when it is an object (or an array) holding one; undefined otherwise. */
export function jsonField(x: unknown, key: string): unknown {
  return typeof x === 'object' && x !== null ? Reflect.get(x, key) : undefined;
}

export async function sha256File(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) {
    // A stream opened without an encoding reads Buffers.
    if (!Buffer.isBuffer(chunk)) throw new TypeError(`${path}: read a ${typeof chunk}, not bytes`);
    h.update(chunk);
  }
  return h.digest('hex');
}

/** What a whole-file feed's cursor remembers to skip an unchanged file next time. */
export interface FileValidators {
  etag: string | null;
  last_modified: string | null;
  sha256: string;
}

export type FileFetch =
  | { changed: false; reason: 'not-modified' }
  /** The server sent the file again (new or no validators) but its content is the one already imported. */
  | { changed: false; reason: 'same-content'; validators: FileValidators }
  | { changed: true; file: string; bytes: number; validators: FileValidators };

/**
 * Downloads a whole feed file to `dest` unless it is unchanged: a conditional GET with the stored ETag /
 * Last-Modified (304 → unchanged), and, for servers without validators, the content's SHA-256.
 */
export async function fetchFileIfChanged(
  deps: HttpDeps,
  url: string,
  dest: string,
  previous: Partial<FileValidators> | null,
  opts: { maxBytes: number; what: string; timeoutMs?: number },
): Promise<FileFetch> {
  const headers: Record<string, string> = {};
  if (previous?.etag) headers['if-none-match'] = previous.etag;
  if (previous?.last_modified) headers['if-modified-since'] = previous.last_modified;
  const got = await fetchAndRead(
    deps,
    url,
    { headers, maxResponseBytes: opts.maxBytes, timeoutMs: opts.timeoutMs },
    async (res) => {
      if (res.status === 304) {
        await res.discard();
        return null;
      }
      await expectOk(res, opts.what);
      return { bytes: await res.saveTo(dest), headers: res.headers };
    },
  );
  if (!got) return { changed: false, reason: 'not-modified' };
  const { bytes } = got;
  const sha256 = await sha256File(dest);
  const validators = { etag: got.headers.etag ?? null, last_modified: got.headers['last-modified'] ?? null, sha256 };
  if (previous?.sha256 === sha256) {
    await rm(dest, { force: true });
    return { changed: false, reason: 'same-content', validators };
  }
  return { changed: true, file: dest, bytes, validators };
}
