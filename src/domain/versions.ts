// The one version comparator of asset correlation (docs/correlation.md §1). Pure.
//
// A version spelling is parsed into a numeric core (1 to 8 dot-separated integers) plus at most one qualifier:
//   - a firmware letter glued to the last number:            V1.2a, 2.0.1b, 1.1.1za (OpenSSL: after z, za, zb, …)
//   - a service pack:                                        3.0 SP1, V3.0SP1, 3.0 Service Pack 1
//   - an update:                                             8 Update 3, 8u3, 2.1 Upd 3
//   - a hotfix:                                              V12.01 HF4, R510.2_HF14, 15.1 HF001, 2.0 Hotfix 1
//   - a pre-release (semver's after '-', or after '.' or glued), starting with alpha, beta, rc, pre, preview, dev,
//     a, b, m or milestone (Apache's milestones), with or without a number:
//                                                            1.0.0-rc.1, 1.0.0-beta, 2.0b3, 9.0.0.M1, 11.0.0-M10
// plus semver build metadata (+...), which is ignored (semver §10). A leading v/V (and "Version ") is dropped, case
// is ignored, so V2.9.2 equals 2.9.2. Trailing zero components do not count: 2.0 equals 2.0.0.
//
// Two spellings are ordered only when the answer is certain:
//   - different cores: the cores decide (2.10 > 2.9; 1.0.0-rc.1 < 1.0.1; 3.0 SP1 < 3.1);
//   - same core: no qualifier < letter / SP / update / hotfix; a pre-release < no qualifier; the same kind compares its
//     number (or the semver identifiers of a pre-release);
//   - same core with two different qualifier kinds (SP1 vs Update 3, 1.2a vs 1.2 SP1, rc vs SP): needs_review;
//   - anything that does not parse (dates, git hashes, "1.2.3-1" revisions, words, "*"): needs_review, unless the
//     two spellings are the same after normalisation, both are Cisco releases of one train ("15.2(7)E" <
//     "15.2(7)E3": compareCisco), or both carry the same letters in front of a version ("R510.2" < "R511.1":
//     comparePrefixed).
// The answer is -1, 0, 1 or 'needs_review', never a guess.

import { memoTable } from './memo.ts';

export type Order = -1 | 0 | 1;
export type Comparison = Order | 'needs_review';

export type Qualifier =
  | { kind: 'none' }
  | { kind: 'letter'; n: number }
  | { kind: 'sp'; n: number }
  | { kind: 'update'; n: number }
  | { kind: 'hotfix'; n: number }
  | { kind: 'pre'; ids: (string | number)[] };

export interface ParsedVersion {
  /** Numeric components with trailing zeros removed (2.0.0 → [2]; 0 → []). */
  core: number[];
  qualifier: Qualifier;
}

const MAX_PARTS = 8;
const PRE_WORDS = new Set(['alpha', 'beta', 'rc', 'pre', 'preview', 'dev', 'a', 'b', 'm', 'milestone']);

/** Lower-case, trimmed, without a leading "v", "v.", "ver." or "version" and without semver build metadata. */
export function normaliseVersion(raw: string): string {
  // CPE escapes ("15.2\\(8\\)e2" in CPE-derived bounds) are undone first: a version never means a backslash.
  let s = raw.trim().toLowerCase().replace(/\\(.)/g, '$1').replace(/\s+/g, ' ');
  // "Version 4.1", "Ver.2.60" (Mitsubishi), "V2.9.2", "v.32.011" (Rockwell), "V.2.0.15" (Advantech).
  s = s.replace(/^(?:version\s*|ver\.?\s*(?=\d))/, '').replace(/^v\.?\s?(?=\d)/, '');
  const plus = s.indexOf('+');
  if (plus > 0) s = s.slice(0, plus);
  return s;
}

function trimZeros(core: number[]): number[] {
  let n = core.length;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: core[-1] is undefined, never 0: the loop ends there as on the bound
  while (n > 0 && core[n - 1] === 0) n--;
  return core.slice(0, n);
}

function parsePre(rest: string): (string | number)[] | null {
  const ids = rest.split('.');
  if (ids.some((i) => !/^[0-9a-z]+$/.test(i))) return null;
  // "rc1" → ["rc", 1]: a pre-release word glued to its number.
  const out: (string | number)[] = [];
  for (const id of ids) {
    const m = /^([a-z]+)(\d+)$/.exec(id);
    if (m) {
      out.push(m[1], Number(m[2]));
      continue;
    }
    out.push(/^\d+$/.test(id) ? Number(id) : id);
  }
  // Stryker disable next-line ConditionalExpression: PRE_WORDS holds strings only, so has() of a number is false; the typeof check is kept for the type narrowing
  if (typeof out[0] !== 'string' || !PRE_WORDS.has(out[0])) return null;
  return out;
}

/**
 * Parsed spellings, memoised: correlation compares one asset version with thousands of range bounds, most of
 * them the same few spellings. Bounded (cleared when full); the parsed values are never mutated by callers.
 */
const PARSED = memoTable<string, ParsedVersion | null>(50_000);

/** Parses one spelling; null when it is not a version this comparator can order. */
export function parseVersion(raw: string): ParsedVersion | null {
  const hit = PARSED.get(raw);
  // Stryker disable next-line ConditionalExpression: a memo: parsing again gives the same spelling
  if (hit !== undefined) return hit;
  const p = parseFresh(raw);
  PARSED.set(raw, p);
  return p;
}

function parseFresh(raw: string): ParsedVersion | null {
  const s = normaliseVersion(raw);
  // Stryker disable next-line Regex: the spelling is normalised first (trimmed, one line), so the $ anchor after .* changes nothing
  const m = /^(\d{1,9}(?:\.\d{1,9})*)(.*)$/.exec(s);
  if (!m) return null;
  const parts = m[1].split('.').map(Number);
  if (parts.length > MAX_PARTS) return null;
  const core = trimZeros(parts);
  const tail = m[2];
  if (tail === '') return { core, qualifier: { kind: 'none' } };
  let q: RegExpExecArray | null;
  // A firmware letter; OpenSSL goes on after "z" with "za", "zb", … (1.1.1w < 1.1.1z < 1.1.1za): each leading z counts 26.
  if ((q = /^(z*)([a-z])$/.exec(tail)))
    return { core, qualifier: { kind: 'letter', n: 26 * q[1].length + q[2].charCodeAt(0) - 96 } };
  if ((q = /^[ _-]?(?:sp|service pack) ?(\d{1,4})$/.exec(tail)))
    return { core, qualifier: { kind: 'sp', n: Number(q[1]) } };
  if ((q = /^[ _-]?(?:u|upd|update) ?(\d{1,5})$/.exec(tail)))
    return { core, qualifier: { kind: 'update', n: Number(q[1]) } };
  // Siemens "V12.01 HF4", Honeywell "R510.2_HF14", Schneider "15.1 HF001".
  if ((q = /^[ _-]?(?:hf|hotfix) ?(\d{1,5})$/.exec(tail)))
    return { core, qualifier: { kind: 'hotfix', n: Number(q[1]) } };
  // Stryker disable next-line Regex: the spelling is normalised first (trimmed, one line), so the $ anchor after .* changes nothing
  if ((q = /^[-.](.+)$/.exec(tail)) || (q = /^([a-z].*)$/.exec(tail))) {
    const ids = parsePre(q[1]);
    if (ids) return { core, qualifier: { kind: 'pre', ids } };
  }
  return null;
}

function sign(n: number): Order {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

function compareCore(a: number[], b: number[]): Order {
  const n = Math.max(a.length, b.length);
  // Stryker disable next-line EqualityOperator: a part past the end of both cores is undefined on both sides and compares as equal
  for (let i = 0; i < n; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return sign(d);
  }
  return 0;
}

/** Semver §11 pre-release precedence: numbers < words, numbers numerically, words by ASCII, longer wins. */
function comparePre(a: (string | number)[], b: (string | number)[]): Order {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return sign(x - y);
    if (typeof x === 'number') return -1;
    // Stryker disable next-line ConditionalExpression,StringLiteral: pre-release identifiers are distinct strings here (equal ones returned 0 above), so only the sign's side of the comparison matters
    if (typeof y === 'number') return 1;
    // Stryker disable next-line EqualityOperator: pre-release identifiers are distinct strings here (equal ones returned 0 above), so only the sign's side of the comparison matters
    return x < y ? -1 : 1;
  }
  return sign(a.length - b.length);
}

/** Orders two parsed versions; needs_review when their qualifiers are of different kinds on the same core. */
export function compareParsed(a: ParsedVersion, b: ParsedVersion): Comparison {
  const c = compareCore(a.core, b.core);
  if (c !== 0) return c;
  const x = a.qualifier;
  const y = b.qualifier;
  if (x.kind === 'none' && y.kind === 'none') return 0;
  if (x.kind === 'none') return y.kind === 'pre' ? 1 : -1;
  if (y.kind === 'none') return x.kind === 'pre' ? -1 : 1;
  if (x.kind !== y.kind) return 'needs_review';
  // Stryker disable next-line ConditionalExpression,LogicalOperator: two different kinds returned needs_review above, so one pre side means both are pre
  if (x.kind === 'pre' && y.kind === 'pre') return comparePre(x.ids, y.ids);
  return sign((x as { n: number }).n - (y as { n: number }).n);
}

/** The comparator: -1 (a before b), 0 (same version), 1 (a after b) or 'needs_review' (cannot be ordered with certainty). */
export function compareVersions(a: string, b: string): Comparison {
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  if (pa && pb) return compareParsed(pa, pb);
  const na = normalised(a);
  const nb = normalised(b);
  if (na !== '' && na === nb) return 0;
  if (pa || pb) return 'needs_review';
  const cisco = compareCisco(na, nb);
  return cisco === null ? comparePrefixed(na, nb) : cisco;
}

/**
 * Cisco's release spellings (IOS, IOS XE before 16, NX-OS, the Stratix switches' IOS): major.minor(maintenance) with
 * an optional interim letter inside the parentheses, then a train ("E", "SY", "M", none on NX-OS) and a rebuild:
 * "15.2(7)E3", "12.2(58)SE", "9.3(7a)", "10.2(1q)". Two of one train (case aside) are ordered by major, minor,
 * maintenance, interim letter (none first), rebuild number (none = 0) and rebuild letter; 15.2(7)E < 15.2(7)E3 <
 * 15.2(8)E. Two trains, or a Cisco spelling against a plain one, are needs_review. null when either is no such
 * spelling.
 */
const CISCO = /^(\d{1,4})\.(\d{1,4})\((\d{1,4})([a-z]{0,2})\)([a-z]{0,4})(\d{0,4})([a-z]?)$/;

function compareCisco(a: string, b: string): Comparison | null {
  const x = CISCO.exec(a);
  const y = x && CISCO.exec(b);
  if (!x || !y) return null;
  if (x[5] !== y[5]) return 'needs_review';
  for (let i = 1; i <= 3; i++) {
    const d = Number(x[i]) - Number(y[i]);
    if (d !== 0) return sign(d);
  }
  if (x[4] !== y[4]) return x[4] < y[4] ? -1 : 1;
  const r = Number(x[6] || 0) - Number(y[6] || 0);
  if (r !== 0) return sign(r);
  return x[7] === y[7] ? 0 : x[7] < y[7] ? -1 : 1;
}

/**
 * A release train's letters in front of its numbers ("R510.2" Honeywell Experion, "SV2.70", "QCA6390"): 1 to 4
 * letters, then an optional dot, dash or underscore ("SW_4.1.1.10", "FW_1.2.10.9": AutomationDirect's software and
 * firmware versions, two trains), then the version (not a space: "to 2.0", "the 4.3" are words). Commit hashes
 * (7 to 40 hex digits) are not such spellings.
 */
const PREFIXED = /^([a-z]{1,4})[._-]?(\d.*)$/;
const HASH = /^[0-9a-f]{7,40}$/;
/**
 * A platform's release where a chipset vendor puts the version ("Android 12.0", "android_12.0", "Android11": MediaTek
 * and Unisoc state the Android releases their chipset software is affected on): the platform's name, an optional
 * space, underscore or hyphen, and its release. Only these names: a word in front of a number is otherwise no
 * version ("Modbus TCP 7.11" names a variant).
 */
const PLATFORM = /^(android|openwrt|yocto)[ _-]?(\d.*)$/;

/** A normalised spelling read as a release train's letters and the version after them; null for anything else. */
function trainOf(n: string): { letters: string; rest: ParsedVersion } | null {
  const m = HASH.test(n) ? null : (PLATFORM.exec(n) ?? PREFIXED.exec(n));
  const rest = m && parseVersion(m[2]);
  return rest ? { letters: m[1], rest } : null;
}

/**
 * Whether the comparator can order a spelling against others of its kind: it parses, or it is a Cisco release or a
 * release train's letters in front of a version (what a CSAF range text may be read with: csaf-ranges.ts).
 */
export function orderable(raw: string): boolean {
  if (parseVersion(raw)) return true;
  const n = normalised(raw);
  return CISCO.test(n) || trainOf(n) !== null;
}

/**
 * Two normalised spellings that do not parse: ordered by the rest when both carry the same letters in front and the
 * rests parse ("R510.2" < "R511.1"; "SV2.70" < "SV2.80"); otherwise needs_review ("R510.2" against "510.3", or
 * "QCA6390" against "WCN3990", stay unordered).
 */
function comparePrefixed(a: string, b: string): Comparison {
  const x = trainOf(a);
  const y = x && trainOf(b);
  return x && y && x.letters === y.letters ? compareParsed(x.rest, y.rest) : 'needs_review';
}

/** normaliseVersion, memoised: the spellings that do not parse are compared again and again (one per range bound). */
const NORMALISED = memoTable<string, string>(50_000);
function normalised(raw: string): string {
  let n = NORMALISED.get(raw);
  if (n === undefined) NORMALISED.set(raw, (n = normaliseVersion(raw)));
  return n;
}

/**
 * A branch pattern, "6.1.*" or "11.*" (CVE Record 5: a version ending in `*` is arbitrarily large within its prefix,
 * so `lessThanOrEqual: "6.1.*"` is the whole 6.1 branch; the Linux kernel's records state every stable fix so): its
 * numeric prefix, or null when the spelling is no such pattern ("21.1*", "10-00-*" and words stay unordered).
 */
export function branchPrefix(raw: string): number[] | null {
  if (!raw.endsWith('*')) return null;
  const m = /^(\d{1,9}(?:\.\d{1,9}){0,6})\.\*$/.exec(normaliseVersion(raw));
  return m ? m[1].split('.').map(Number) : null;
}

/**
 * Where a version stands against a branch (branchPrefix): -1 before it, 0 within it (any version whose first
 * components are the prefix, pre-releases and qualifiers included), 1 after it; needs_review when the version does
 * not parse.
 */
export function compareBranch(version: string, prefix: readonly number[]): Comparison {
  const p = parseVersion(version);
  if (!p) return 'needs_review';
  for (let i = 0; i < prefix.length; i++) {
    const d = (p.core[i] ?? 0) - prefix[i];
    if (d !== 0) return sign(d);
  }
  return 0;
}

/**
 * A version against a version a source states, which may be a branch pattern: compareVersions, or for a pattern
 * 'within' its branch (never equal to the pattern itself, so an exclusive bound does not leave it out) or -1 / 1.
 */
function compareStated(
  version: string,
  stated: string,
  cmp: (a: string, b: string) => Comparison,
): Comparison | 'within' {
  const prefix = branchPrefix(stated);
  if (!prefix) return cmp(version, stated);
  const c = compareBranch(version, prefix);
  return c === 0 ? 'within' : c;
}

/**
 * Whether a version is the exact spelling a source states, or within the branch it names ("12.2.*"): 'in', 'out' or
 * 'needs_review'.
 */
export function sameVersion(
  version: string,
  stated: string,
  cmp: (a: string, b: string) => Comparison = compareVersions,
): RangeAnswer {
  const c = compareStated(version, stated, cmp);
  return c === 'needs_review' ? c : c === 0 || c === 'within' ? 'in' : 'out';
}

export interface Bound {
  version: string;
  inclusive: boolean;
}

/** Where a version stands against a range [start, end] (either bound may be null = unbounded). */
export type RangeAnswer = 'in' | 'out' | 'needs_review';

/**
 * Bounds may be branch patterns (branchPrefix): a start "8.2.*" begins with the 8.2 branch, an end "6.1.*" ends
 * after it (its every version is inside, whether the end is inclusive or not: the pattern is larger than any of them).
 * `cmp` is the comparator of the range's version scheme (version-schemes.ts), compareVersions by default.
 */
export function inRange(
  version: string,
  start: Bound | null,
  end: Bound | null,
  cmp: (a: string, b: string) => Comparison = compareVersions,
): RangeAnswer {
  if (start) {
    const c = compareStated(version, start.version, cmp);
    if (c === 'needs_review') return 'needs_review';
    if (c === -1 || (c === 0 && !start.inclusive)) return 'out';
  }
  if (end) {
    const c = compareStated(version, end.version, cmp);
    if (c === 'needs_review') return 'needs_review';
    if (c === 1 || (c === 0 && !end.inclusive)) return 'out';
  }
  return 'in';
}
