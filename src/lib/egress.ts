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
import dns from 'node:dns';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Readable, Transform } from 'node:stream';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, request as undiciRequest, type Dispatcher } from 'undici';

export type ResolvedAddress = { address: string; family: 4 | 6 };
/** Resolves a host name to every address it has. Injected in tests so no real DNS (or private packet) is involved. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const all = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export type EgressErrorCode =
  | 'invalid_url'
  | 'scheme_not_allowed'
  | 'userinfo_not_allowed'
  | 'host_not_allowed'
  | 'blocked_address'
  | 'dns_failure'
  | 'timeout'
  | 'response_too_large'
  | 'network_error';

export class EgressError extends Error {
  constructor(public readonly code: EgressErrorCode, message: string) {
    super(message);
    this.name = 'EgressError';
  }
}

// docs/reliability.md S2. Name → CIDR. IPv4-mapped (::ffff:0:0/96), IPv4-compatible (::/96) and 6to4 (2002::/16)
// addresses are unwrapped to their IPv4 address and checked against the IPv4 rows.
const BLOCKED_V4: [string, string][] = [
  ['0.0.0.0/8', 'this-network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'carrier-grade-nat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'ietf-protocol-assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['255.255.255.255/32', 'broadcast'],
];
const BLOCKED_V6: [string, string][] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['ff00::/8', 'multicast'],
  ['2001:db8::/32', 'documentation'],
  ['64:ff9b::/96', 'nat64'],
  ['64:ff9b:1::/48', 'nat64-local'],
];
const V4_RANGES = BLOCKED_V4.map(([cidr, name]) => ({ range: ipaddr.IPv4.parseCIDR(cidr), name, cidr }));
const V6_RANGES = BLOCKED_V6.map(([cidr, name]) => ({ range: ipaddr.IPv6.parseCIDR(cidr), name, cidr }));

/** The IPv4 address embedded in an IPv6 one (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, 6to4 2002:AABB:CCDD::), or null. */
function embeddedV4(v6: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = v6.parts;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  // IPv4-compatible (deprecated): 96 zero bits then the IPv4 address; :: and ::1 are classified as IPv6.
  if (p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7] > 1)) {
    return new ipaddr.IPv4([p[6] >> 8, p[6] & 0xff, p[7] >> 8, p[7] & 0xff]);
  }
  if (p[0] === 0x2002) return new ipaddr.IPv4([p[1] >> 8, p[1] & 0xff, p[2] >> 8, p[2] & 0xff]);
  return null;
}

/**
 * The blocked range an address falls in (e.g. "loopback 127.0.0.0/8"), or null when it is public unicast.
 * Unparseable input counts as blocked: an address we cannot classify is never connected to.
 */
export function blockedRange(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return 'unparseable address';
  let addr = ipaddr.parse(bare);
  if (addr.kind() === 'ipv6') {
    const v4 = embeddedV4(addr as ipaddr.IPv6);
    if (v4) addr = v4;
  }
  if (addr.kind() === 'ipv4') {
    // ipaddr.isValid accepts the legacy forms (0x7f.1, 017700000001); parse() normalises them like WHATWG URL does.
    for (const r of V4_RANGES) if ((addr as ipaddr.IPv4).match(r.range)) return `${r.name} ${r.cidr}`;
    return null;
  }
  for (const r of V6_RANGES) if ((addr as ipaddr.IPv6).match(r.range)) return `${r.name} ${r.cidr}`;
  return null;
}

function normaliseHost(hostname: string): string {
  return hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

/** Allow-list entries are `host` or `host:port` (IPv6 as `[addr]` or `[addr]:port`). */
function allowListed(allowList: readonly string[], url: URL): boolean {
  const host = normaliseHost(url.hostname);
  const port = url.port || (url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '');
  for (const raw of allowList) {
    const entry = raw.trim().toLowerCase();
    const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry) ?? /^([^:]+)(?::(\d+))?$/.exec(entry);
    if (!m) continue;
    if (normaliseHost(m[1]) === host && (m[2] === undefined || m[2] === port)) return true;
  }
  return false;
}

export interface CheckedUrl {
  url: URL;
  /** The host is on the operator's allow list: http and private/loopback addresses are permitted for it. */
  allowListed: boolean;
}

/**
 * Synchronous URL checks (everything that needs no DNS): scheme, userinfo, `localhost`, IP literals, under the
 * feeds policy: an allow-listed host may be http and private. Throws EgressError.
 */
export function checkUrl(input: string | URL, allowList: readonly string[]): CheckedUrl {
  return checkWith(input, allowList, blockedRange);
}

function checkWith(input: string | URL, allowList: readonly string[], blocked: (address: string) => string | null): CheckedUrl {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch {
    throw new EgressError('invalid_url', 'not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new EgressError('scheme_not_allowed', `scheme ${url.protocol} is not allowed (https only)`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new EgressError('userinfo_not_allowed', 'URLs with credentials (user:pass@) are not allowed');
  }
  if (url.hostname === '') throw new EgressError('invalid_url', 'URL has no host');
  const listed = allowListed(allowList, url);
  if (listed) return { url, allowListed: true };
  if (url.protocol !== 'https:') {
    throw new EgressError('scheme_not_allowed', `http is allowed only for hosts on the egress allow list (${url.host})`);
  }
  const host = normaliseHost(url.hostname);
  if (host === 'localhost' || host.endsWith('.localhost')) {
    throw new EgressError('host_not_allowed', `host ${host} is not allowed`);
  }
  const bare = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(bare)) {
    const range = blocked(bare);
    if (range) throw new EgressError('blocked_address', `address ${bare} is in a blocked range (${range})`);
  }
  return { url, allowListed: false };
}

/**
 * The webhook policy's address check: everything blockedRange refuses, plus every address ipaddr.js does not
 * class as plain unicast: IPv4-mapped and -compatible forms (whatever they carry), NAT64 (64:ff9b::/96 and the
 * local-use 64:ff9b:1::/48), 6to4, Teredo, discard-only and reserved ranges.
 */
export function webhookBlockedRange(address: string): string | null {
  const range = blockedRange(address);
  if (range) return range;
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const addr = ipaddr.parse(bare);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).parts.slice(0, 6).every((x) => x === 0)) return 'ipv4-compatible ::/96';
  const kind = addr.range();
  return kind === 'unicast' ? null : `non-unicast (${kind})`;
}

/** The two outbound policies (docs/egress.md). */
export interface EgressPolicy {
  readonly name: 'feeds' | 'webhooks';
  /** Synchronous checks of a URL; throws EgressError. */
  readonly check: (input: string | URL) => CheckedUrl;
  /** The range an address is refused for under this policy, or null. */
  readonly blocked: (address: string) => string | null;
}

/** Feed sync and the analysis provider: the operator's allow list may name private mirrors and http hosts. */
export function feedsPolicy(allowList: readonly string[] = []): EgressPolicy {
  return { name: 'feeds', check: (u) => checkWith(u, allowList, blockedRange), blocked: blockedRange };
}

/**
 * Tenant webhooks: https to public unicast addresses only. `testAllowList` (VULNINTEL_WEBHOOK_EGRESS_ALLOW, a
 * test/dev setting refused in production) is the only exception; the feeds allow list is never consulted.
 */
export function webhookPolicy(testAllowList: readonly string[] = []): EgressPolicy {
  return { name: 'webhooks', check: (u) => checkWith(u, testAllowList, webhookBlockedRange), blocked: webhookBlockedRange };
}

/**
 * A `net` lookup that resolves through `resolver` and, when `enforce`, refuses the connection if any address is
 * blocked (by `blocked`: the feeds table by default).
 */
export function policyLookup(resolver: Resolver, enforce: boolean, blocked: (address: string) => string | null = blockedRange): LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    resolver(hostname).then(
      (addresses) => {
        if (addresses.length === 0) return callback(new EgressError('dns_failure', `${hostname} has no address`));
        if (enforce) {
          for (const a of addresses) {
            const range = blocked(a.address);
            if (range) {
              return callback(new EgressError('blocked_address', `${hostname} resolves to ${a.address}, in a blocked range (${range})`));
            }
          }
        }
        // Only the validated addresses are handed to the socket: this is the pin.
        const family = options?.family === 4 || options?.family === 6 ? options.family : 0;
        const usable = family ? addresses.filter((a) => a.family === family) : addresses;
        if (usable.length === 0) return callback(new EgressError('dns_failure', `${hostname} has no IPv${family} address`));
        if (options?.all) callback(null, usable.map((a) => ({ address: a.address, family: a.family })));
        else callback(null, usable[0].address, usable[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(new EgressError('dns_failure', `cannot resolve ${hostname}: ${err.code ?? err.message}`)),
    );
  }) as LookupFunction;
}

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
  json<T = unknown>(): Promise<T>;
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
  const err = e as { code?: string; name?: string; message?: string; cause?: unknown };
  if (err?.cause instanceof EgressError) return err.cause;
  if (deadlineHit || err?.name === 'TimeoutError' || /TIMEOUT/.test(err?.code ?? '')) {
    return new EgressError('timeout', `request timed out (${err?.code ?? err?.name ?? 'deadline'})`);
  }
  return new EgressError('network_error', `network error: ${err?.code ?? err?.message ?? String(e)}`);
}

export function createEgress(opts: EgressOptions = {}): Egress {
  const policy = opts.policy ?? feedsPolicy(opts.allowList ?? []);
  const resolver = opts.resolver ?? systemResolver;
  const { policy: _p, allowList: _a, resolver: _r, ...timings } = opts;
  const o = { ...EGRESS_DEFAULTS, ...Object.fromEntries(Object.entries(timings).filter(([, v]) => v !== undefined)) } as typeof EGRESS_DEFAULTS;
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
        const chunks: Buffer[] = [];
        try {
          for await (const c of body()) chunks.push(c as Buffer);
        } catch (e) {
          throw mapError(e, deadlineHit);
        }
        return Buffer.concat(chunks);
      };
      return {
        status: res.statusCode,
        headers,
        url: url.toString(),
        body,
        bytes: collect,
        text: async () => (await collect()).toString('utf8'),
        json: async <T>() => JSON.parse((await collect()).toString('utf8')) as T,
        async saveTo(path: string) {
          let written = 0;
          const src = body();
          src.on('data', (c: Buffer) => { written += c.length; });
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
    ...Object.fromEntries(Object.entries({ timeoutMs: opts.timeoutMs, maxResponseBytes: opts.maxResponseBytes, userAgent: opts.userAgent }).filter(([, v]) => v !== undefined)),
    resolver: opts.resolver,
    policy: webhookPolicy(opts.testAllowList ?? []),
  });
}
