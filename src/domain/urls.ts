// URL helpers for the reference, patch and exploit rules. Pure.

const SECOND_LEVEL = new Set([
  'co.jp', 'ne.jp', 'or.jp', 'ac.jp', 'go.jp', 'co.uk', 'org.uk', 'ac.uk', 'gov.uk', 'com.cn', 'net.cn', 'org.cn', 'com.tw', 'org.tw',
  'com.au', 'net.au', 'org.au', 'co.kr', 'or.kr', 'com.br', 'com.sg', 'co.in', 'co.il', 'com.mx', 'com.tr', 'co.nz', 'co.za',
]);

export function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return null;
  }
}

/** Registrable domain: the last two labels, or three under a known second-level suffix (co.jp, com.cn …). */
export function registrableDomain(host: string): string {
  const labels = host.split('.');
  const lastTwo = labels.slice(-2).join('.');
  return SECOND_LEVEL.has(lastTwo) ? labels.slice(-3).join('.') : lastTwo;
}

export function domainOfEmail(email: string | null): string | null {
  if (!email) return null;
  const at = email.lastIndexOf('@');
  return at > 0 ? registrableDomain(email.slice(at + 1).toLowerCase()) : null;
}
