// The address rules of outbound HTTP (docs/egress.md; lib/egress.ts is the client that applies them): which URLs and
// addresses each of the two named policies refuses, checked before connecting (IP literals) and inside the agent's
// `lookup` (names), so the socket connects only to addresses that were validated.
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

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
  constructor(
    public readonly code: EgressErrorCode,
    message: string,
  ) {
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
  const parsed = ipaddr.parse(bare);
  const addr = parsed instanceof ipaddr.IPv6 ? (embeddedV4(parsed) ?? parsed) : parsed;
  if (addr instanceof ipaddr.IPv4) {
    // ipaddr.isValid accepts the legacy forms (0x7f.1, 017700000001); parse() normalises them like WHATWG URL does.
    for (const r of V4_RANGES) if (addr.match(r.range)) return `${r.name} ${r.cidr}`;
    return null;
  }
  for (const r of V6_RANGES) if (addr.match(r.range)) return `${r.name} ${r.cidr}`;
  return null;
}

function normaliseHost(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
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

function checkWith(
  input: string | URL,
  allowList: readonly string[],
  blocked: (address: string) => string | null,
): CheckedUrl {
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
    throw new EgressError(
      'scheme_not_allowed',
      `http is allowed only for hosts on the egress allow list (${url.host})`,
    );
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
  if (addr instanceof ipaddr.IPv6 && addr.parts.slice(0, 6).every((x) => x === 0)) return 'ipv4-compatible ::/96';
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
  return {
    name: 'webhooks',
    check: (u) => checkWith(u, testAllowList, webhookBlockedRange),
    blocked: webhookBlockedRange,
  };
}

/**
 * A `net` lookup that resolves through `resolver` and, when `enforce`, refuses the connection if any address is
 * blocked (by `blocked`: the feeds table by default).
 */
export function policyLookup(
  resolver: Resolver,
  enforce: boolean,
  blocked: (address: string) => string | null = blockedRange,
): LookupFunction {
  return (hostname, options, callback) => {
    // An error's answer carries an empty address: net reads none after an error.
    const fail = (err: EgressError) => callback(err, '');
    resolver(hostname).then(
      (addresses) => {
        if (addresses.length === 0) return fail(new EgressError('dns_failure', `${hostname} has no address`));
        if (enforce) {
          for (const a of addresses) {
            const range = blocked(a.address);
            if (range) {
              return fail(
                new EgressError(
                  'blocked_address',
                  `${hostname} resolves to ${a.address}, in a blocked range (${range})`,
                ),
              );
            }
          }
        }
        // Only the validated addresses are handed to the socket: this is the pin.
        const family = options?.family === 4 || options?.family === 6 ? options.family : 0;
        const usable = family ? addresses.filter((a) => a.family === family) : addresses;
        if (usable.length === 0) return fail(new EgressError('dns_failure', `${hostname} has no IPv${family} address`));
        if (options?.all)
          callback(
            null,
            usable.map((a) => ({ address: a.address, family: a.family })),
          );
        else callback(null, usable[0].address, usable[0].family);
      },
      (err: NodeJS.ErrnoException) =>
        fail(new EgressError('dns_failure', `cannot resolve ${hostname}: ${err.code ?? err.message}`)),
    );
  };
}
