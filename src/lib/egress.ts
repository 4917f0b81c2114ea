// The one way Vulnintel makes outbound HTTP requests (feed sync, webhooks, the analysis provider), under one of
// two named policies (docs/egress.md):
//   - feeds (createEgress): the operator's allow list (VULNINTEL_EGRESS_ALLOW) may name private mirrors;
//   - webhooks (createWebhookEgress): tenant URLs, never a private, loopback, link-local, mapped, NAT64 or other
//     non-unicast address, https only; the one exception is the test/dev list VULNINTEL_WEBHOOK_EGRESS_ALLOW.
// The feeds allow list never reaches the webhook policy. Common rules (docs/reliability.md S1–S6, ADR 0090):
//   - https only, unless the host (or host:port) is on the operator's allow list (VULNINTEL_EGRESS_ALLOW);
//   - no userinfo in URLs; the literal `localhost` is refused;
//   - every address a name resolves to is checked, and the request is refused if ANY is in a private, loopback,
//     link-local or reserved range (table below; IPv4-mapped/compatible and 6to4 forms are unwrapped first);
//   - IP-literal URLs are classified before connecting (a custom `lookup` is never called for literals:
//     nodejs/undici#2019);
//   - the socket connects to the addresses that were validated (the check runs inside the agent's `lookup`,
//     so there is no second resolution a DNS-rebinding attacker could answer differently);
//   - redirects are never followed: a 3xx is handed back to the caller as is;
//   - connect/headers/body/total timeouts and a response size cap;
//   - direct egress only: undici's Agent ignores HTTP(S)_PROXY, so a proxy cannot re-resolve the name.
// The URL and address rules and the two policies are in lib/egress-policy.ts; this file is the client.
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { buffer } from 'node:stream/consumers';
import { Readable, Transform } from 'node:stream';
import { Agent, request as undiciRequest, type Dispatcher } from 'undici';
import { errorField } from './errors.ts';
import {
  EgressError,
  feedsPolicy,
  policyLookup,
  systemResolver,
  webhookPolicy,
  type EgressPolicy,
  type Resolver,
} from './egress-policy.ts';

export interface EgressOptions {
  /** Hosts (`host` or `host:port`) that may be reached over http and at private/loopback addresses (feeds policy). */
  allowList?: readonly string[];
  /** The policy (default: feeds with `allowList`). */
  policy?: EgressPolicy;
  resolver?: Resolver;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  /** Longest silence while reading a body. */
  bodyTimeoutMs?: number;
  /** Whole-request deadline unless the request sets its own. */
  timeoutMs?: number;
  /** Response body cap unless the request sets its own. */
  maxResponseBytes?: number;
  userAgent?: string;
}

export interface EgressRequestInit {
  method?: 'GET' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs?: number;
  maxResponseBytes?: number;
  signal?: AbortSignal;
}

export interface EgressResponse {
  status: number;
  /** Lower-case header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  url: string;
  /** The body as a stream, counted against the size cap (EgressError response_too_large past it). */
  body(): Readable;
  bytes(): Promise<Buffer>;
  text(): Promise<string>;
  json(): Promise<unknown>;
  /** Streams the body into a file; returns the bytes written. */
  saveTo(path: string): Promise<number>;
  /** Reads nothing more and frees the connection. */
  discard(): Promise<void>;
}

/** Fetch-like outbound HTTP under the egress policy. Jobs and `buildApp` receive one; tests inject a loopback-allowed one. */
export interface Egress {
  fetch(url: string | URL, init?: EgressRequestInit): Promise<EgressResponse>;
  close(): Promise<void>;
}

export const EGRESS_DEFAULTS = {
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 60_000,
  timeoutMs: 300_000,
  maxResponseBytes: 64 * 1024 * 1024,
  userAgent: 'Vulnintel/0.1 (+https://github.com/vulnintel)',
} as const;

function capStream(source: Readable, max: number): Readable {
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      if (seen > max) {
        cb(new EgressError('response_too_large', `response body exceeds ${max} bytes`));
        // Stop reading from the server: the error above is the one the caller sees.
        source.unpipe(counter);
        source.on('error', () => {});
        source.destroy();
        return;
      }
      cb(null, chunk);
    },
  });
  source.on('error', (e) => {
    if (!counter.destroyed) counter.destroy(e);
  });
  return source.pipe(counter);
}

function mapError(e: unknown, deadlineHit: boolean): Error {
  if (e instanceof EgressError) return e;
  const cause = errorField(e, 'cause');
  if (cause instanceof EgressError) return cause;
  const text = (key: string) => {
    const v = errorField(e, key);
    return typeof v === 'string' ? v : undefined;
  };
  const code = text('code');
  if (deadlineHit || text('name') === 'TimeoutError' || /TIMEOUT/.test(code ?? '')) {
    return new EgressError('timeout', `request timed out (${code ?? text('name') ?? 'deadline'})`);
  }
  return new EgressError('network_error', `network error: ${code ?? text('message') ?? String(e)}`);
}

export function createEgress(opts: EgressOptions = {}): Egress {
  const policy = opts.policy ?? feedsPolicy(opts.allowList ?? []);
  const resolver = opts.resolver ?? systemResolver;
  const d = EGRESS_DEFAULTS;
  const o = {
    connectTimeoutMs: opts.connectTimeoutMs ?? d.connectTimeoutMs,
    headersTimeoutMs: opts.headersTimeoutMs ?? d.headersTimeoutMs,
    bodyTimeoutMs: opts.bodyTimeoutMs ?? d.bodyTimeoutMs,
    timeoutMs: opts.timeoutMs ?? d.timeoutMs,
    maxResponseBytes: opts.maxResponseBytes ?? d.maxResponseBytes,
    userAgent: opts.userAgent ?? d.userAgent,
  };
  const agentFor = (enforce: boolean) =>
    new Agent({
      connect: { lookup: policyLookup(resolver, enforce, policy.blocked), timeout: o.connectTimeoutMs },
      headersTimeout: o.headersTimeoutMs,
      bodyTimeout: o.bodyTimeoutMs,
    });
  // Two pools, so a connection made for an allow-listed host is never reused for a checked one or vice versa.
  const strict = agentFor(true);
  const permissive = agentFor(false);

  return {
    async fetch(input, init = {}) {
      const { url, allowListed: listed } = policy.check(input);
      const timeoutMs = init.timeoutMs ?? o.timeoutMs;
      const max = init.maxResponseBytes ?? o.maxResponseBytes;
      const controller = new AbortController();
      let deadlineHit = false;
      const timer = setTimeout(() => {
        deadlineHit = true;
        controller.abort(new EgressError('timeout', `request exceeded ${timeoutMs} ms`));
      }, timeoutMs);
      timer.unref();
      const onOuterAbort = () => controller.abort(init.signal?.reason);
      init.signal?.addEventListener('abort', onOuterAbort, { once: true });
      let res: Dispatcher.ResponseData;
      try {
        res = await undiciRequest(url, {
          dispatcher: listed ? permissive : strict,
          method: init.method ?? 'GET',
          headers: { 'user-agent': o.userAgent, ...init.headers },
          body: init.body,
          signal: controller.signal,
        });
      } catch (e) {
        clearTimeout(timer);
        init.signal?.removeEventListener('abort', onOuterAbort);
        throw mapError(e, deadlineHit);
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) {
        if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
      }
      const declared = Number(headers['content-length']);
      // Destroying an unread body emits an error; nobody is reading it then, so it must not become uncaught.
      const drop = () => {
        res.body.on('error', () => {});
        res.body.destroy();
      };
      let consumed = false;
      const finish = () => {
        clearTimeout(timer);
        init.signal?.removeEventListener('abort', onOuterAbort);
      };
      const body = (): Readable => {
        if (consumed) throw new Error('response body already read');
        consumed = true;
        if (Number.isFinite(declared) && declared > max) {
          drop();
          finish();
          const r = new Readable({ read() {} });
          r.destroy(new EgressError('response_too_large', `response body of ${declared} bytes exceeds ${max} bytes`));
          return r;
        }
        const capped = capStream(res.body, max);
        capped.once('close', finish);
        return capped;
      };
      const collect = async (): Promise<Buffer> => {
        try {
          return await buffer(body());
        } catch (e) {
          throw mapError(e, deadlineHit);
        }
      };
      return {
        status: res.statusCode,
        headers,
        url: url.toString(),
        body,
        bytes: collect,
        text: async () => (await collect()).toString('utf8'),
        json: async (): Promise<unknown> => JSON.parse((await collect()).toString('utf8')),
        async saveTo(path: string) {
          let written = 0;
          const src = body();
          src.on('data', (c: Buffer) => {
            written += c.length;
          });
          try {
            await pipeline(src, createWriteStream(path));
          } catch (e) {
            throw mapError(e, deadlineHit);
          }
          return written;
        },
        async discard() {
          if (!consumed) {
            consumed = true;
            drop();
          }
          finish();
        },
      };
    },
    async close() {
      await Promise.all([strict.close(), permissive.close()]);
    },
  };
}

/** Webhook deliveries: 10 s for the whole exchange (spec: a 2xx within 10 s), a receiver's answer read up to 64 KiB. */
export const WEBHOOK_EGRESS_DEFAULTS = {
  connectTimeoutMs: 5_000,
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 10_000,
  timeoutMs: 10_000,
  maxResponseBytes: 64 * 1024,
} as const;

export interface WebhookEgressOptions {
  /** VULNINTEL_WEBHOOK_EGRESS_ALLOW (test/dev only): receivers that may be http or private, e.g. a loopback one. */
  testAllowList?: readonly string[];
  resolver?: Resolver;
  timeoutMs?: number;
  maxResponseBytes?: number;
  userAgent?: string;
}

/**
 * Outbound HTTP for tenant webhooks (the alerts issue delivers through it): the webhook policy, checked before
 * connecting and again on every resolved address, the socket pinned to the validated addresses, redirects never
 * followed, the response read capped, one deadline for the whole request.
 */
export function createWebhookEgress(opts: WebhookEgressOptions = {}): Egress {
  return createEgress({
    ...WEBHOOK_EGRESS_DEFAULTS,
    ...Object.fromEntries(
      Object.entries({
        timeoutMs: opts.timeoutMs,
        maxResponseBytes: opts.maxResponseBytes,
        userAgent: opts.userAgent,
      }).filter(([, v]) => v !== undefined),
    ),
    resolver: opts.resolver,
    policy: webhookPolicy(opts.testAllowList ?? []),
  });
}
