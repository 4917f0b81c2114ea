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
export interface CoreSuffix {
  core: number[];
  n: number;
}

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

/** A dotted release of two or more numbers at the start of a spelling, and what follows it. */
const PREFIX = /^(\d{1,9}(?:\.\d{1,9}){1,7})(.*)$/;

/**
 * What may follow a release glued to it and keep the spelling within that release's family: a doubled dot or a colon
 * ("6.2..14", "1.0:0"), a letter ("17.6.1z1", "2.0.0p39", "4.1.2cu.5182_b20201102"), a dot, hyphen or underscore then a
 * letter ("2.4.4-p9", "3.0.0.1-tm", "15.03.20_multi", "2.3.0.r5542") or a bracket ("1.2.0.14(408)").
 */
const GLUED = /^(?:\.\.|:|[a-z(]|[._-][a-z])/;
/** A build number after a hyphen or underscore ("9.2.0-9289", "3.0.0.4.386_50460", "1.0.7-2", "2.0-22165"). */
const GLUED_BUILD = /^[-_](\d{1,12})(?:$|[-_.a-z(])/;
/** A build token after a space: a digit in it, as "AFBT48C", "TCU4", "16102416", "(win64)" have. */
const TOKEN = /^[a-z0-9(][a-z0-9._()-]*$/;

/**
 * The components a spelling that does not parse states for certain: its leading dotted release of two or more
 * numbers, when what follows keeps it within that release's family, whatever it means (1.0:0, 6.2..14, 17.6.1z1 and
 * 2.4.4-p9 are 1.0, 6.2, 17.6.1 and 2.4.4 or something of theirs): glued to it (GLUED), a build number after a hyphen
 * or underscore where it cannot be a second version (the release has three or more components, or the number three or
 * more digits: "1.0.7-2", "9.2.0-9289"; never "2.0-3"), or one to three build tokens after a space, each with a
 * digit, "build" allowed in front ("4.71 AFBT48C": Lenovo XCC, the release and its build id; "511.5 TCU4 HF3",
 * Honeywell; "3.4.4 Build 16102416", Weidmüller; "5.3 SP2 P1", Dell). null otherwise: never when the rest names
 * another version (a dotted number or branch: "1.0br_v15.03.05.16" is hardware revision 1.0 with firmware
 * 15.03.05.16; "3.0.0-3.0.4" a range; "3.3 SP1 3.x"), states a range or a list ("<", ">", "=", "|", ",", "&", "/", "~"), or is words ("10.0.0 <
 * publication", "1.00 dated 16-12-2020", "3.4.4 Build", "2.13B01 BETA": a token without a digit).
 */
export function certainPrefix(raw: string): number[] | null {
  const n = normaliseVersion(raw);
  if (parseVersion(n)) return null;
  const m = PREFIX.exec(n);
  if (!m) return null;
  const release = m[1].split('.');
  const rest = m[2];
  if (/\d\.[\dx*]|[<>=|,&/~]/.test(rest)) return null;
  let ok: boolean;
  if (rest.startsWith(' ')) {
    const tokens = rest.slice(1).split(' ');
    ok =
      tokens.length <= 3 &&
      tokens.every((t, i) => TOKEN.test(t) && (/\d/.test(t) || (t === 'build' && i < tokens.length - 1)));
  } else {
    const b = GLUED_BUILD.exec(rest);
    ok = !/\s/.test(rest) && (b ? release.length >= 3 || b[1].length >= 3 : GLUED.test(rest));
  }
  return ok ? release.map(Number) : null;
}

/**
 * A certain prefix against another spelling: ordered where the components both state already differ. A version with
 * a qualifier (SP, update, hotfix, letter, pre-release) states only its written core ("V7.5 SP2" may be V7.5.2), and a
 * spelling with a certain prefix only that prefix.
 */
function byPrefix(prefix: number[], other: string): Comparison {
  const p = parseVersion(other);
  const q = p ? null : certainPrefix(other);
  if (!p && !q) return 'needs_review';
  const known = p
    ? p.qualifier.kind === 'none'
      ? prefix.length
      : Math.min(prefix.length, p.core.length)
    : Math.min(prefix.length, q!.length);
  const theirs = p ? p.core : q!;
  for (let i = 0; i < known; i++) {
    const d = prefix[i] - (theirs[i] ?? 0);
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
