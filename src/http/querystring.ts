// The query-string parser of every route. Same reading as Fastify's default (fast-querystring): `&`-separated
// pairs, `+` is a space, percent-escapes decoded as UTF-8, a repeated name gives an array, no prototype. One
// difference: a name or value whose percent-encoding is not valid UTF-8 (`%zz`, a lone `%`, `%FF`, an encoded
// UTF-16 surrogate such as `%ED%A0%80`) was kept as its raw text by the default parser, so `q=%FF` searched for the
// three characters "%FF" and `q=%ED%A0%80` never met the lone-surrogate check. Such parameters are kept raw here too
// and listed under UNDECODABLE, and the text guard (text-guard.ts) refuses them with 422 on the field.

/** Names of the parameters whose name or value could not be decoded (a non-enumerable property of the result). */
export const UNDECODABLE: unique symbol = Symbol('undecodable query parameters');

export type ParsedQuery = Record<string, string | string[]> & { [UNDECODABLE]?: string[] };

/** The decoded text, or null when its percent-encoding is not valid UTF-8. */
function decode(s: string): string | null {
  const spaced = s.includes('+') ? s.replace(/\+/g, ' ') : s;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return null;
  }
}

export function parseQueryString(input: string): ParsedQuery {
  const out = Object.create(null) as ParsedQuery;
  if (input.length === 0) return out;
  let bad: string[] | undefined;
  for (const pair of input.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawKey = eq === -1 ? pair : pair.slice(0, eq);
    const rawValue = eq === -1 ? '' : pair.slice(eq + 1);
    const key = decode(rawKey);
    const value = decode(rawValue);
    const name = key ?? rawKey;
    if (key === null || value === null) (bad ??= []).push(name);
    const v = value ?? rawValue;
    const prev = out[name];
    // A repeated name grows its array in place (a copy per repeat was quadratic: 7,000 repeats cost 0.3 s).
    if (prev === undefined) out[name] = v;
    else if (Array.isArray(prev)) prev.push(v);
    else out[name] = [prev, v];
  }
  if (bad) Object.defineProperty(out, UNDECODABLE, { value: [...new Set(bad)], enumerable: false });
  return out;
}
