// Vendor version schemes (docs/correlation.md §1 "Version schemes"). Pure.
//
// Each scheme orders the spellings of its own grammar and hands everything else to the general comparator
// (versions.ts compareVersions), which answers needs_review where it cannot be certain. Which scheme a range uses is
// decided by its vendor (and product): schemeOf. A scheme never orders two spellings of different grammars by a guess:
// "V7.5 SP2 Update 15" against "V7.5.2.13" (Siemens writes both for WinCC) is needs_review, and explainUnordered says
// why in words.
//   siemens    V<major>.<minor>[.<patch>…] [SP<n>] [Update|Upd <n>[<letter>]] [HF<n>]: ordered as the tuple (core,
//              SP, update, update letter, HF), each missing part 0; a spelling with a qualifier against a plain one
//              with more components than its core is a mix of schemes (decided only where the shared components
//              already differ)
//   rockwell   firmware revisions <major>.<minor> ("V33.017", "v.32.011"): dotted numerics; one fix per major line is
//              a range reading (free-text-ranges.ts), not an order
//   schneider  "SV3.51", "V3.51", "3.51" are one version (the letters are dropped); an IR build "SV1.70 IR22" comes
//              after its release and before the next
//   yokogawa   R<major>.<minor>.<patch> ("R4.01.00"): the R is optional on either side
//   openssl    letter releases "1.1.1i" < "1.1.1za" (the general comparator's firmware letters)
//   hotfix     Fortinet and Palo Alto hotfixes "10.2.7-h3": after 10.2.7, before 10.2.8
//   bind       ISC's BIND: "9.18.24-S1" is the Supported Preview (subscription) edition: ordered within its edition;
//              a -S version against an open-source one is needs_review
//   f5         four-part versions "16.1.4.2": dotted numerics
//   cisco      IOS trains "15.2(4)M" (the general comparator's Cisco releases), NX-OS "6.0(2)A3(1)" and IOS XE 3
//              "3.7.4aS": ordered within one train (two trains of a release run side by side: needs_review); ISE
//              patches "2.6.0 p1" after their release; AsyncOS builds "11.7.0-406" within their release (a release
//              without its build against one of its builds is needs_review)
//   juniper    Junos releases "22.4R3-S3": (release, R, S) with "22.4" the start of its train (before 22.4R1); Junos
//              OS Evolved's "-EVO" spellings are ordered among themselves, never against plain Junos
//   ivanti     Connect Secure "22.5R1.3" as (release, R, build); Endpoint Manager "2022 SU6" as (release, SU)
//   sap        a software component and its release "SAP_BASIS 731", "KERNEL 7.53": ordered within one component
//   rpm        package EVRs "[epoch:]version[-release]" ("0:6.5.2-6.el9_2") where the record says versionType "rpm": rpm's
//              own order (rpmvercmp: alphanumeric segments, numbers above letters, "~" before anything, "^" after the
//              end), epoch first (absent: 0), then version, then release; a spelling without a release against a
//              build is needs_review ("9.2" may be the release of the product carrying the package)
//   dotted     everything else: the general comparator, whatever the record's versionType says
// Every scheme also orders a spelling with a readable dotted release and an unreadable rest that keeps it within that
// release ("6.2..14", "1.0:0", "17.6.1z1", "2.4.4-p9", a build "3.4.4 Build 16102416" or "4.71 AFBT48C":
// version-grammar.ts certainPrefix) against a version whose components already differ within that release (6.2..14 <
// 7.2.7; 3.4.3 < 3.4.4 Build 16102416): certain whatever the rest means.
import { branchPrefix, normaliseVersion, orderable, parseVersion, type Comparison, type Order } from './versions.ts';
import type { AffectedRange } from './ranges.ts';
import { memoTable } from './memo.ts';
import {
  byGrammar,
  certainPrefix,
  compareCoreSuffix,
  compareTuple,
  core,
  coreAndSuffix,
  general,
  type Compare,
} from './version-grammar.ts';
import {
  compareBind,
  compareCisco,
  compareHotfix,
  compareIvanti,
  compareJuniper,
  compareRpm,
  compareSap,
  IOS,
  parseBind,
  parseCiscoRelease,
  parseEvr,
  parseHotfix,
  parseIvanti,
  parseJuniper,
  parseSap,
} from './version-schemes-it.ts';
import { vendorSlug } from './product-match.ts';

export type Scheme =
  | 'siemens'
  | 'rockwell'
  | 'schneider'
  | 'yokogawa'
  | 'openssl'
  | 'hotfix'
  | 'bind'
  | 'f5'
  | 'cisco'
  | 'juniper'
  | 'ivanti'
  | 'sap'
  | 'rpm'
  | 'dotted';

/** The scheme of each vendor that has its own (vendor slugs, product-match.ts vendorSlug). */
const VENDOR_SCHEME: Record<string, Scheme> = {
  siemens: 'siemens',
  'rockwell-automation': 'rockwell',
  'schneider-electric': 'schneider',
  yokogawa: 'yokogawa',
  openssl: 'openssl',
  fortinet: 'hotfix',
  'palo-alto-networks': 'hotfix',
  isc: 'bind',
  f5: 'f5',
  cisco: 'cisco',
  juniper: 'juniper',
  'juniper-networks': 'juniper',
  ivanti: 'ivanti',
  sap: 'sap',
};

const SCHEMES = memoTable<string, Scheme>(10_000);

const OPENSSL = /^\s*openssl\b/i;

/**
 * The scheme a vendor's product uses: RPM where the record states `versionType: "rpm"` (its versions are package
 * EVRs, whoever ships them), OpenSSL by its product name whoever ships it, else by the vendor (memoised by vendor
 * name: correlation asks it once per range row).
 */
export function schemeOf(vendor: string, product: string, versionType: string | null = null): Scheme {
  if (versionType !== null && versionType.length === 3 && versionType.toLowerCase() === 'rpm') return 'rpm';
  if (product.length >= 7 && OPENSSL.test(product)) return 'openssl';
  let s = SCHEMES.get(vendor);
  if (s === undefined) {
    s = VENDOR_SCHEME[vendorSlug(vendor) ?? ''] ?? 'dotted';
    SCHEMES.set(vendor, s);
  }
  return s;
}

// ---- Siemens ----------------------------------------------------------------------------------------------------

export interface SiemensVersion {
  core: number[];
  sp: number;
  update: number;
  /** The letter of an update ("Update 3a": 1), 0 without one. */
  letter: number;
  hf: number;
  /** Whether the spelling names an SP, an update or a hotfix. */
  qualified: boolean;
  /** How many components the core is written with ("V7.5" 2, "V7.5.2.13" 4): what decides a mix of schemes. */
  written: number;
}

const SIEMENS =
  /^(\d{1,6}(?:\.\d{1,6}){0,5})(?:\s?sp\s?(\d{1,4}))?(?:\s?(?:update|upd)\s?(\d{1,4})([a-z])?)?(?:\s?(?:hf|hotfix)\s?(\d{1,4}))?$/;

/**
 * A Siemens spelling ("V1.0 SP1 Update 1", "V16 Update 3a", "V4.7 SP6 HF1", "V7.5.2.13"; underscores for spaces as some
 * CISA advisories write them: "V18_Update_2"); null for anything else.
 */
export function parseSiemens(raw: string): SiemensVersion | null {
  const m = SIEMENS.exec(normaliseVersion(raw.replace(/_/g, ' ')));
  if (!m) return null;
  const q = m[2] !== undefined || m[3] !== undefined || m[5] !== undefined;
  return {
    core: core(m[1]),
    sp: Number(m[2] ?? 0),
    update: Number(m[3] ?? 0),
    letter: m[4] ? m[4].charCodeAt(0) - 96 : 0,
    hf: Number(m[5] ?? 0),
    qualified: q,
    written: m[1].split('.').length,
  };
}

export function compareSiemensParsed(a: SiemensVersion, b: SiemensVersion): Comparison {
  if (a.qualified !== b.qualified) {
    // A service-pack spelling against a plain one of more components: only the components the qualified one writes
    // are comparable ("V7.5 SP2 Update 15" against "V7.5.2.13": SP2 may be the .2; against "V7.6.0.1": before it).
    const q = a.qualified ? a : b;
    const p = a.qualified ? b : a;
    // "V7.5.0" is V7.5 itself (its extra components zero): ordered as usual below.
    if (p.written > q.written && p.core.length > q.written) {
      const n = q.written;
      const c = compareTuple(q.core.slice(0, n), p.core.slice(0, n));
      if (c === 0) return 'needs_review';
      return a.qualified ? c : (-c as Order);
    }
  }
  const c = compareTuple(a.core, b.core);
  if (c !== 0) return c;
  return compareTuple([a.sp, a.update, a.letter, a.hf], [b.sp, b.update, b.letter, b.hf]);
}

export const compareSiemens: Compare = byGrammar(parseSiemens, compareSiemensParsed);

// ---- Schneider --------------------------------------------------------------------------------------------------

/** A Schneider spelling as its core and IR build ("SV1.70 IR22": 1.70, IR 22); null for anything else. */
export const parseSchneider = coreAndSuffix(/^(?:sv|v)?\s?(\d{1,6}(?:\.\d{1,6}){0,5})(?:\s?ir\s?(\d{1,4}))?$/);
export const compareSchneider: Compare = byGrammar(parseSchneider, compareCoreSuffix);

// ---- Yokogawa ---------------------------------------------------------------------------------------------------

const dropR = (raw: string) => normaliseVersion(raw).replace(/^r(?=\d)/, '');

export function compareYokogawa(a: string, b: string): Comparison {
  return general(dropR(a), dropR(b));
}

/**
 * Whether two spellings a scheme cannot order are still certainly two different versions: Cisco releases of two
 * trains ("7.0(3)F3(3)" and "7.0(3)I7(5)") or of two grammars with trains (NX-OS against IOS XE 3 or a plain
 * release). What lets a list of exact versions leave an asset out without ordering it.
 */
export function distinctIn(scheme: Scheme, a: string, b: string): boolean {
  if (scheme !== 'cisco') return false;
  // An IOS or NX-OS release without a train rebuild ("9.3(5)", "15.2(4)M1"): a grammar of its own.
  const kindOf = (v: string) =>
    parseCiscoRelease(v) ?? (IOS.test(normaliseVersion(v)) ? ({ kind: 'ios', train: '' } as const) : null);
  const x = kindOf(a);
  const y = x && kindOf(b);
  if (!x || !y) return false;
  const trained = (k: string) => k === 'nxos' || k === 'xe3';
  return (trained(x.kind) || trained(y.kind)) && (x.kind !== y.kind || x.train !== y.train);
}

const COMPARE: Record<Scheme, Compare> = {
  siemens: compareSiemens,
  rockwell: general,
  schneider: compareSchneider,
  yokogawa: compareYokogawa,
  openssl: general,
  hotfix: compareHotfix,
  bind: compareBind,
  f5: general,
  cisco: compareCisco,
  juniper: compareJuniper,
  ivanti: compareIvanti,
  sap: compareSap,
  rpm: compareRpm,
  dotted: general,
};

/** The comparator of a scheme. */
export function comparatorOf(scheme: Scheme): Compare {
  return COMPARE[scheme];
}

/** Whether a scheme's own grammar (or the general comparator's) orders a spelling, without the certain-prefix rule. */
function byGrammarIn(scheme: Scheme, raw: string): boolean {
  switch (scheme) {
    case 'siemens':
      if (parseSiemens(raw)) return true;
      break;
    case 'schneider':
      if (parseSchneider(raw)) return true;
      break;
    case 'yokogawa':
      if (parseVersion(dropR(raw))) return true;
      break;
    case 'hotfix':
      if (parseHotfix(raw)) return true;
      break;
    case 'bind':
      if (parseBind(raw)) return true;
      break;
    case 'juniper':
      if (parseJuniper(raw)) return true;
      break;
    case 'ivanti':
      if (parseIvanti(raw)) return true;
      break;
    case 'sap':
      if (parseSap(raw)) return true;
      break;
    case 'rpm':
      return parseEvr(raw) !== null;
    case 'cisco':
      if (parseCiscoRelease(raw)) return true;
      break;
    default:
      break;
  }
  return orderable(raw);
}

/** Whether a scheme's comparator can order a spelling against others of its kind. */
export function orderableIn(scheme: Scheme, raw: string): boolean {
  return byGrammarIn(scheme, raw) || (scheme !== 'rpm' && certainPrefix(raw) !== null);
}

/** The versions a range states: its exact version, its bounds and its changes. */
function statedVersions(r: AffectedRange): string[] {
  const out = r.changes.map((c) => c.at);
  if (r.version) out.push(r.version);
  if (r.start) out.push(r.start.version);
  if (r.end) out.push(r.end.version);
  return out;
}

/**
 * Whether a range reads as a machine range in its scheme: no text left, and every version it states (exact, bounds,
 * changes) orderable there or a branch pattern ("6.1.*"). What the range census counts (bench/range-census.ts).
 */
export function rangeReadable(r: AffectedRange): boolean {
  // The builds of a package the product carries are no range of the product's own versions.
  if (r.text || r.package) return false;
  const scheme = schemeOf(r.vendor, r.product, r.versionType);
  return statedVersions(r).every((v) => branchPrefix(v) !== null || orderableIn(scheme, v));
}

/**
 * A readable range (rangeReadable) one of whose versions its scheme orders only by the certain-prefix rule
 * (version-grammar.ts certainPrefix: "4.71 AFBT48C", "2.4.4-p9"): decided for versions outside that release's family,
 * needs_review within it. The census counts these apart within the parsed ones.
 */
export function prefixOnly(r: AffectedRange): boolean {
  if (!rangeReadable(r)) return false;
  const scheme = schemeOf(r.vendor, r.product, r.versionType);
  return statedVersions(r).some((v) => branchPrefix(v) === null && !byGrammarIn(scheme, v));
}

/**
 * Why two spellings of one scheme cannot be ordered, in words, when the reason is a mix of grammars; null when it is
 * not (an unreadable spelling says so itself).
 */
export function explainUnordered(scheme: Scheme, a: string, b: string): string | null {
  if (scheme === 'siemens') {
    const x = parseSiemens(a);
    const y = parseSiemens(b);
    if (x && y && x.qualified !== y.qualified) {
      const [q, p] = x.qualified ? [a, b] : [b, a];
      return `the record mixes version schemes: "${q}" is a Siemens service-pack/update spelling, "${p}" a plain version of more components, and which of the two comes first is not stated`;
    }
  }
  if (scheme === 'cisco') {
    const x = parseCiscoRelease(a);
    const y = parseCiscoRelease(b);
    if (x && y && distinctIn(scheme, a, b))
      return `"${a}" and "${b}" are Cisco releases of two trains, which run side by side: neither comes first`;
    if (x && y && (x.kind === 'build') !== (y.kind === 'build'))
      return `"${x.kind === 'build' ? b : a}" names no build of its release, and "${x.kind === 'build' ? a : b}" one build of it`;
  }
  if (scheme === 'rpm') {
    const x = parseEvr(a);
    const y = parseEvr(b);
    if (x && y && (x.release === null) !== (y.release === null))
      return `"${x.release === null ? b : a}" is an RPM package build (version-release) and "${x.release === null ? a : b}" names no release: it may be the version of the product that carries the package, or an upstream version, and neither is ordered against a build`;
  }
  if (scheme === 'bind') {
    const x = parseBind(a);
    const y = parseBind(b);
    if (x && y && (x.s === null) !== (y.s === null))
      return `"${x.s === null ? b : a}" is a BIND Supported Preview (-S) edition version and "${x.s === null ? a : b}" an open-source one: two editions are not ordered`;
  }
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  if (pa && pb && pa.qualifier.kind !== pb.qualifier.kind)
    return `"${a}" and "${b}" use different version qualifiers (${pa.qualifier.kind} and ${pb.qualifier.kind}) on the same version number`;
  return null;
}
