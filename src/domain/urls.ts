// URL helpers for the reference, patch and exploit rules. Pure (memoised).
import { memoTable } from './memo.ts';

const SECOND_LEVEL = new Set([
  'co.jp',
  'ne.jp',
  'or.jp',
  'ac.jp',
  'go.jp',
  'co.uk',
  'org.uk',
  'ac.uk',
  'gov.uk',
  'com.cn',
  'net.cn',
  'org.cn',
  'com.tw',
  'org.tw',
  'com.au',
  'net.au',
  'org.au',
  'co.kr',
  'or.kr',
  'com.br',
  'com.sg',
  'co.in',
  'co.il',
  'com.mx',
  'com.tr',
  'co.nz',
  'co.za',
]);

/** A URL's host (lower case, no trailing dot) and path, or null when it does not parse. */
export interface UrlParts {
  host: string;
  path: string;
}

/**
 * The reference, patch and exploit rules each read a reference's host, so one document parsed each URL four times
 * (WHATWG URL parsing was 5 % of building a document); the last few thousand URLs are kept.
 */
const URLS = memoTable<string, UrlParts | null>(4096);

export function urlParts(url: string): UrlParts | null {
  let p = URLS.get(url);
  if (p !== undefined) return p;
  try {
    const u = new URL(url);
    p = { host: u.hostname.toLowerCase().replace(/\.$/, ''), path: u.pathname };
  } catch {
    p = null;
  }
  URLS.set(url, p);
  return p;
}

export function hostOf(url: string): string | null {
  return urlParts(url)?.host ?? null;
}

const DOMAINS = memoTable<string, string>(4096);

/** Registrable domain: the last two labels, or three under a known second-level suffix (co.jp, com.cn …). */
export function registrableDomain(host: string): string {
  let d = DOMAINS.get(host);
  if (d !== undefined) return d;
  const labels = host.split('.');
  const lastTwo = labels.slice(-2).join('.');
  d = SECOND_LEVEL.has(lastTwo) ? labels.slice(-3).join('.') : lastTwo;
  DOMAINS.set(host, d);
  return d;
}

export function domainOfEmail(email: string | null): string | null {
  if (!email) return null;
  const at = email.lastIndexOf('@');
  return at > 0 ? registrableDomain(email.slice(at + 1).toLowerCase()) : null;
}
