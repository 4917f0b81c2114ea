// The grammar helpers the version schemes share (version-schemes.ts, version-schemes-it.ts), and the general
// comparator with its certain-prefix rule: what every scheme answers for a spelling outside its own grammar. Pure.
import { compareVersions, normaliseVersion, parseVersion, type Comparison, type Order } from './versions.ts';

export type Compare = (a: string, b: string) => Comparison;

export function sign(n: number): Order {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

function trimZeros(core: number[]): number[] {
  let n = core.length;
  while (n > 0 && core[n - 1] === 0) n--;
  return core.slice(0, n);
}

export function compareTuple(a: readonly number[], b: readonly number[]): Order {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return sign(d);
  }
  return 0;
}

export const core = (s: string) => trimZeros(s.split('.').map(Number));

/**
 * A scheme's comparator from its grammar: two spellings it parses are ordered by `cmp`; anything else goes to the
 * general comparator (which answers needs_review where it cannot be certain).
 */
export function byGrammar<T>(parse: (raw: string) => T | null, cmp: (x: T, y: T) => Comparison): Compare {
  return (a, b) => {
    const x = parse(a);
    const y = x && parse(b);
    return x && y ? cmp(x, y) : general(a, b);
  };
}

/** A dotted core and one numbered suffix after it (an IR build, a hotfix): 0 when the suffix is absent. */
export interface CoreSuffix { core: number[]; n: number }

/** The parser of a grammar whose first group is the dotted core and second the suffix number. */
export function coreAndSuffix(re: RegExp): (raw: string) => CoreSuffix | null {
  return (raw) => {
    const m = re.exec(normaliseVersion(raw));
    return m ? { core: core(m[1]), n: Number(m[2] ?? 0) } : null;
  };
}

export function compareCoreSuffix(x: CoreSuffix, y: CoreSuffix): Order {
  return compareTuple(x.core, y.core) || sign(x.n - y.n);
}

// ---- the general comparator with the certain-prefix rule --------------------------------------------------------

const PREFIX = /^(\d{1,9}(?:\.\d{1,9})+)(?=\.\.|:)/;

/** A release and its build number: "3.4.4 Build 16102416" (Weidmüller), "1.2 build 09123015" (Moxa). */
const BUILD = /^(\d{1,9}(?:\.\d{1,9})+) build \d{1,12}$/;

/**
 * The components a spelling that does not parse states for certain: a dotted prefix of two or more numbers followed by
 * a doubled dot or a colon ("6.2..14" → 6.2; "1.0:0" → 1.0), in one token (no space), or a release followed by its
 * build ("3.4.4 Build 16102416" → 3.4.4); null otherwise (a hyphen or an underscore may join two versions:
 * "3.0.0-3.0.4", "V33.017_V34.014").
 */
export function certainPrefix(raw: string): number[] | null {
  const n = normaliseVersion(raw);
  const b = BUILD.exec(n);
  if (b) return b[1].split('.').map(Number);
  // One token only: "10.0.0 < publication" is words about a version, not a spelling of one.
  if (/\s/.test(n) || parseVersion(n)) return null;
  const m = PREFIX.exec(n);
  return m ? m[1].split('.').map(Number) : null;
}

function byPrefix(prefix: number[], other: string): Comparison {
  const p = parseVersion(other);
  if (!p) return 'needs_review';
  for (let i = 0; i < prefix.length; i++) {
    const d = prefix[i] - (p.core[i] ?? 0);
    if (d !== 0) return sign(d);
  }
  return 'needs_review';
}

/** compareVersions, then the certain-prefix rule for a spelling that does not parse. */
export function general(a: string, b: string): Comparison {
  const c = compareVersions(a, b);
  if (c !== 'needs_review') return c;
  const pa = certainPrefix(a);
  if (pa) return byPrefix(pa, b);
  const pb = certainPrefix(b);
  if (pb) {
    const r = byPrefix(pb, a);
    return r === 'needs_review' ? r : (-r as Order);
  }
  return c;
}
