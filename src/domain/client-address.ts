// The client address of a request for the edge limit (spec §8, docs/limits.md): the socket's peer address, or,
// only when that peer is a configured trusted proxy, the address the proxies recorded in X-Forwarded-For. The
// header is walked from the right (the entry the nearest proxy appended) past every trusted hop; the first
// untrusted address is the client. With no trusted proxies (the default) the header is never read, so a spoofed
// X-Forwarded-For changes nothing.
import { BlockList, isIP } from 'node:net';

export interface TrustedRange {
  /** As configured, normalised (e.g. 10.0.0.0/8, 192.0.2.7). */
  text: string;
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** Parses VULNINTEL_TRUSTED_PROXIES: comma-separated IPs or CIDRs (IPv4 or IPv6). Throws on a bad entry. */
export function parseTrustedProxies(raw: string): TrustedRange[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const [addr, bits, extra] = entry.split('/');
      const v = isIP(addr);
      if (v === 0 || extra !== undefined) throw new Error(`"${entry}" is not an IP address or CIDR range`);
      const max = v === 4 ? 32 : 128;
      if (bits !== undefined && (!/^\d{1,3}$/.test(bits) || Number(bits) > max))
        throw new Error(`"${entry}": prefix length must be 0–${max}`);
      const prefix = bits === undefined ? max : Number(bits);
      return { text: `${addr}/${prefix}`, address: addr, prefix, family: v === 4 ? 'ipv4' : 'ipv6' };
    });
}

/** IPv4-mapped IPv6 (::ffff:192.0.2.1, as Node reports IPv4 peers on a dual-stack socket) as plain IPv4. */
export function normalizeAddress(a: string): string {
  const m = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(a);
  return m ? m[1] : a;
}

export interface ClientAddressResolver {
  (peer: string | undefined, forwardedFor: string | string[] | undefined): string;
}

export function clientAddressResolver(ranges: readonly TrustedRange[]): ClientAddressResolver {
  // Stryker disable next-line ConditionalExpression: an empty BlockList trusts no address, so the general path answers the peer too
  if (ranges.length === 0) return (peer) => normalizeAddress(peer ?? 'unknown');
  const list = new BlockList();
  for (const r of ranges) list.addSubnet(r.address, r.prefix, r.family);
  const trusted = (a: string) => {
    const v = isIP(a);
    // Stryker disable next-line ConditionalExpression: BlockList.check of a string that is no IP is false, as the isIP check answers
    return v !== 0 && list.check(a, v === 4 ? 'ipv4' : 'ipv6');
  };
  return (peer, forwardedFor) => {
    let current = normalizeAddress(peer ?? 'unknown');
    if (!trusted(current) || forwardedFor === undefined) return current;
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    // Stryker disable next-line ConditionalExpression: hops[-1] is undefined, which is no IP: the loop ends on it as on the bound
    for (let i = hops.length - 1; i >= 0 && trusted(current); i--) {
      const hop = normalizeAddress(hops[i]);
      if (isIP(hop) === 0) break; // garbage written by the client itself: the last trusted hop is all we know
      current = hop;
    }
    return current;
  };
}
