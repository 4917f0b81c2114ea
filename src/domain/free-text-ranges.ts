// Free-text version ranges read into structured ones (docs/correlation.md §3 "Free text"). Pure.
//
// A CVE record's `version` written as words, or a CISA advisory's product_version_range, read where its meaning is
// certain, into one or more ranges:
//   "All versions", "All versions < X", "All versions prior to X"
//   "prior to X", "before X", "earlier than X", "Versions prior to X"            → < X
//   "X and prior", "X and earlier", "X and below", "X or lower", "up to and including X", "0 <= X" → <= X
//   "X through Y", "X thru Y", "X to Y", "X - Y", "X-Y"                          → X ≤ v ≤ Y
//   ">= X < Y", ">= X and < Y", ">= X, < Y", ">= X | <= Y"                       → one interval
//   lists separated by "|" or ",": "2.7 | 3.0.71 | >= 4.0.x | <= 4.6.4"          → one range per item (a ">=" item and
//                                                                                 the "<"/"<=" item after it are one)
//   "Fixed in OpenSSL 3.0.5 (Affected 3.0.0-3.0.4)"                              → 3.0.0 ≤ v ≤ 3.0.4, fixed in 3.0.5
//   "<V33.017_V34.014_V35.013_V36.011" (one fix per major line)                  → < V33.017, and per later line
//                                                                                 >= V34 < V34.014, … (each its own fix)
//   "ArubaOS 10.5.x.x: 10.5.1.0 and below" (the product's name, a branch, a range within it) → 10.5 ≤ v ≤ 10.5.1.0
//   "Android 12.0, 13.0, 14.0", "Android11/Android12", "android_11_12_13" (platform releases where a chipset vendor puts
//   the version)                                                                 → one exact platform release per item
//   "N.x" ("12.6.X"): the whole N branch as an exact version or an inclusive end, N itself as a start, below N as an
//   exclusive end ("< 4.5.x": below every 4.5 version)
// Around the range: a trailing period is dropped; the product's own name in front ("FortiOS before 7.0.3", "CENTUM VP
// (Including CENTUM VP Entry Class): R6.01.10 through R6.09.00", "Included in CX-One … V9.80 and earlier") is dropped
// when its words are the product's or the vendor's; a condition in words ("- (if VP6E5000 is installed)", "LHS4800
// (CAMS for HIS) is installed", "(affected only if the CAMS function is used)") is kept as the ranges' `condition`,
// never dropped: correlation answers needs_review with it for a version inside the range.
// Every version must be one the range's scheme orders (version-schemes.ts orderableIn); anything else is no reading
// (null), and the caller keeps the text, answered needs_review quoting it.
import type { VersionBound } from './ranges.ts';
import { orderableIn, schemeOf, type Scheme } from './version-schemes.ts';
import { normaliseVersion } from './versions.ts';

export interface ReadPiece {
  /** One exact version (or a branch pattern "12.6.*"), else null. */
  version: string | null;
  start: VersionBound | null;
  end: VersionBound | null;
  /** The fix the text states for this piece (an exclusive end, a per-line fix, "Fixed in X"), else null. */
  fixedIn: string | null;
}

export interface FreeTextReading {
  /** Every version (no bounds) when empty and `all` is set. */
  all: boolean;
  pieces: ReadPiece[];
  /** A condition stated in words, quoted as written; null when there is none. */
  condition: string | null;
}

const WORDS = (s: string) =>
  s
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** A condition in words at the end: "- (if VP6E5000 is installed)", "(affected only if …)", "| LHS4800 … is installed." */
const CONDITION_TAIL =
  /\s*(?:[-–|,;]\s*)?\(?\s*((?:affected\s+)?(?:only\s+)?(?:if|when|where)\s+[^()]+?)\s*\)?\s*\.?$/i;
const INSTALLED_ITEM = /^[^|<>=]*\b(?:is|are)\s+(?:installed|used|enabled|configured)\.?$/i;

/** A version as written inside a range: a trailing period and enclosing brackets ("<=(R4.10)") dropped. */
function cleanVersion(v: string): string {
  return v
    .trim()
    .replace(/\.$/, '')
    .replace(/^\((.+)\)$/, '$1')
    .trim();
}

/** "N.x" spellings: the branch pattern of an exact version or inclusive end, N as a start, N as an exclusive end. */
function xBranch(v: string): string | null {
  const m = /^(v?\d{1,9}(?:\.\d{1,9})*)(?:\.[x*])+$/i.exec(v.trim());
  return m ? m[1] : null;
}

class Reader {
  constructor(private readonly scheme: Scheme) {}

  ok(v: string): boolean {
    return v !== '' && orderableIn(this.scheme, v);
  }

  /** One bound; null when its version is not orderable. */
  bound(v: string, inclusive: boolean, side: 'start' | 'end'): VersionBound | null {
    const x = xBranch(v);
    if (x !== null) {
      if (side === 'start') return this.ok(x) ? { version: x, inclusive: true } : null;
      return inclusive ? { version: `${x}.*`, inclusive: true } : this.ok(x) ? { version: x, inclusive: false } : null;
    }
    const c = cleanVersion(v);
    return this.ok(c) ? { version: c, inclusive } : null;
  }

  exact(v: string): ReadPiece | null {
    const x = xBranch(v);
    if (x !== null) return { version: `${x}.*`, start: null, end: null, fixedIn: null };
    const c = cleanVersion(v);
    return this.ok(c) ? { version: c, start: null, end: null, fixedIn: null } : null;
  }

  range(start: VersionBound | null, end: VersionBound | null): ReadPiece {
    return { version: null, start, end, fixedIn: end && !end.inclusive ? end.version : null };
  }

  /** One item of a text (no list separators): a piece, or a lone lower bound (joined with the next item). */
  item(s0: string): ReadPiece | { open: VersionBound } | null {
    const s = s0
      .trim()
      .replace(/^(?:firmware\s+)?(?:versions?\s*|ver\.?\s*(?=v?\d))?/i, '')
      .replace(/^from\s+/i, '');
    let r: RegExpExecArray | null;
    // ">= a < b", ">= a and < b", "> a <= b"
    if ((r = /^(>=|>|≥)\s*(.+?)\s*(?:and\s+)?(<=|<|≤)\s*(.+)$/i.exec(s))) {
      const a = this.bound(r[2], r[1] !== '>', 'start');
      const b = this.bound(r[4], r[3] !== '<', 'end');
      return a && b ? this.range(a, b) : null;
    }
    // "0 < X", "0 <= X": a CVE record's open start.
    if ((r = /^0\s*(<=|<)\s*(.+)$/.exec(s))) {
      const b = this.bound(r[2], r[1] === '<=', 'end');
      return b ? this.range(null, b) : null;
    }
    if ((r = /^(<=|<|≤)\s*(.+)$/.exec(s))) {
      const b = this.bound(r[2], r[1] !== '<', 'end');
      return b ? this.range(null, b) : null;
    }
    if ((r = /^(>=|>|≥)\s*(.+)$/.exec(s))) {
      const a = this.bound(r[2], r[1] !== '>', 'start');
      return a ? { open: a } : null;
    }
    if ((r = /^=\s*(.+)$/.exec(s))) return this.exact(r[1]);
    if (
      (r = /^(?:all\s+versions\s+)?(?:prior\s+to|before|earlier\s+than|older\s+than|lower\s+than|below)\s+(.+)$/i.exec(
        s,
      ))
    ) {
      const b = this.bound(r[1], false, 'end');
      return b ? this.range(null, b) : null;
    }
    if ((r = /^up\s+to\s+and\s+including\s+(.+)$/i.exec(s))) {
      const b = this.bound(r[1], true, 'end');
      return b ? this.range(null, b) : null;
    }
    if ((r = /^(.+?)\s+(?:and|or)\s+(?:earlier|prior|older|below|lower|before)(?:\s+versions?)?$/i.exec(s))) {
      const b = this.bound(r[1], true, 'end');
      return b ? this.range(null, b) : null;
    }
    if ((r = /^(\S+)\s+(?:to|through|thru|-|–)\s+(\S+)$/i.exec(s)) || (r = /^([^\s-]+)-([^\s-]+)$/.exec(s))) {
      // "10.2.7-h3" (a hotfix), "1.2.3-1" (a revision): one version; "3.0.0-3.0.4": two.
      if (!/\s/.test(r[0]) && !/^v?\d{1,9}\.\d/i.test(r[2])) return this.exact(s);
      const a = this.bound(r[1], true, 'start');
      const b = this.bound(r[2], true, 'end');
      return a && b ? this.range(a, b) : null;
    }
    return this.exact(s);
  }

  /** A list of items separated by "|" or ","; null when any item is unreadable. */
  list(s: string): ReadPiece[] | null {
    const items = s.split(/\s*[|,]\s*/).filter((x) => x !== '');
    const out: ReadPiece[] = [];
    let open: VersionBound | null = null;
    for (const it of items) {
      const p = this.item(it);
      if (!p) return null;
      if ('open' in p) {
        if (open) out.push(this.range(open, null));
        open = p.open;
        continue;
      }
      if (open) {
        // ">= a" then "<= b" / "< b": one interval.
        if (p.start === null && p.end !== null && p.version === null) {
          out.push(this.range(open, p.end));
          open = null;
          continue;
        }
        out.push(this.range(open, null));
        open = null;
      }
      out.push(p);
    }
    if (open) out.push(this.range(open, null));
    return out.length ? out : null;
  }

  /**
   * "<V33.017_V34.014_V35.013_V36.011": one fix per major line, majors ascending. null: no such text (one whose parts
   * do not all begin as versions: "<V18_Update_2" is a Siemens spelling with underscores for spaces); empty: such a
   * text that cannot be read (lines not ascending), which is no other reading either.
   */
  perLine(s: string): ReadPiece[] | null {
    const m = /^<\s*(\S+(?:_\S+)+)$/.exec(s);
    if (!m) return null;
    const none: ReadPiece[] = [];
    const fixes = m[1].split('_');
    if (!fixes.every((f) => /^v?\.?\d/i.test(f))) return null;
    const majors = fixes.map((f) => /^v?\.?(\d{1,6})\.\d/i.exec(f)?.[1]);
    if (majors.some((x) => x === undefined) || fixes.some((f) => !this.ok(f))) return none;
    const nums = majors.map(Number);
    for (let i = 1; i < nums.length; i++) if (nums[i] <= nums[i - 1]) return none;
    return fixes.map((f, i) => ({
      version: null,
      start: i === 0 ? null : { version: String(nums[i]), inclusive: true },
      end: { version: f, inclusive: false },
      fixedIn: f,
    }));
  }
}

const ownWords = (vendor: string, product: string) =>
  new Set([
    ...WORDS(vendor),
    ...WORDS(product),
    'including',
    'incl',
    'entry',
    'class',
    'series',
    'firmware',
    'software',
  ]);

/**
 * "ArubaOS 10.5.x.x: 10.5.1.0 and below", "InstantOS or ArubaOS (access points) 8.10.x.x: 8.10.0.6 and below": the
 * product's name, a branch, then the range within that branch. Read: each upper bound of the rest becomes an interval
 * from the branch's start (10.5 ≤ v ≤ 10.5.1.0), an exact version stays one; null when the text is not so written,
 * when a word in front is not the product's, or when a version of the rest lies outside the branch.
 */
function branchLine(s: string, vendor: string, product: string, reader: Reader): ReadPiece[] | null {
  const m = /^(.*?)\s*(\d{1,6}(?:\.\d{1,6})*)(?:\.[x*])+:\s*(.+)$/i.exec(s);
  if (!m) return null;
  const own = ownWords(vendor, product);
  if (!WORDS(m[1]).every((w) => own.has(w) || w === 'or' || w === 'and')) return null;
  const branch = m[2];
  const inside = (v: string) => normaliseVersion(v).startsWith(`${branch}.`) || normaliseVersion(v) === branch;
  const rest = reader.list(m[3]);
  if (!rest || !reader.ok(branch)) return null;
  const out: ReadPiece[] = [];
  for (const p of rest) {
    if (p.version !== null && p.start === null && p.end === null && inside(p.version)) out.push(p);
    else if (p.version === null && p.start === null && p.end !== null && inside(p.end.version))
      out.push({ ...p, start: { version: branch, inclusive: true } });
    else return null;
  }
  return out;
}

const PLATFORMS = /^(android|openwrt|yocto)$/i;
const PLATFORM_RELEASE = /^(android|openwrt|yocto)[ -]?(\d{1,4}(?:\.\d{1,4}){0,3})$/i;
const RELEASE = /^\d{1,4}(?:\.\d{1,4}){0,3}$/;

/**
 * A list of platform releases where a chipset vendor puts the version: "Android 12.0, 13.0, 14.0", "Android11/Android12",
 * "android9_android10_android11", "android_11_12_13", "android12.0_13.0" (MediaTek, Unisoc). Items are separated by
 * ",", "/", "|" or "_"; a bare release is one of the platform named before it. One exact version per item ("Android
 * 13.0", versions.ts orders it against the same platform's releases only); null when the text does not begin with a
 * platform's name or any item is something else ("andriod10", "IOT-v23.0", "SMR Jul-2024 Release in Android 12").
 */
function platformList(s: string): ReadPiece[] | null {
  if (!/^(?:android|openwrt|yocto)[ _-]?\d/i.test(s)) return null;
  const out: ReadPiece[] = [];
  let platform = '';
  let pending = false;
  for (const token of s.split(/\s*[,/|]\s*|_/)) {
    let r: RegExpExecArray | null;
    if (PLATFORMS.test(token)) {
      platform = token;
      pending = true;
      continue;
    }
    if ((r = PLATFORM_RELEASE.exec(token))) platform = r[1];
    else if (!platform || !RELEASE.test(token)) return null;
    out.push({ version: `${platform} ${r ? r[2] : token}`, start: null, end: null, fixedIn: null });
    pending = false;
  }
  return pending || !out.length ? null : out;
}

/** The product's (or vendor's) own name in front of a range, dropped: every word of it is one of theirs. */
function dropProductName(s: string, vendor: string, product: string): string {
  const own = ownWords(vendor, product);
  // "CENTUM VP (Including CENTUM VP Entry Class): R6.01.10 through R6.09.00", "Rockwell Automation GuardLogix 5580: <V…"
  const colon = /^([^:<>=|]+):\s*(.+)$/.exec(s);
  if (colon && WORDS(colon[1]).every((w) => own.has(w))) return colon[2];
  // "FortiOS before 7.0.3", "FortiOS 6.2.0 and below": leading words that are all the product's (not versions).
  const words = s.split(/\s+/);
  let i = 0;
  while (
    i < words.length - 1 &&
    !/\d/.test(words[i]) &&
    WORDS(words[i]).length > 0 &&
    WORDS(words[i]).every((w) => own.has(w))
  )
    i++;
  return words.slice(i).join(' ');
}

/**
 * Reads one free-text range of a product (vendor and product as the source names them, for its version scheme and its
 * own name); null when its meaning is not certain.
 */
export function readFreeText(text: string, vendor: string, product: string): FreeTextReading | null {
  let s = text.trim().replace(/\s+/g, ' ');
  if (s === '') return null;
  let condition: string | null = null;
  // A condition item of a list: "| LHS4800 (CAMS for HIS) is installed."
  const items = s.split(/\s*\|\s*/);
  if (items.length > 1 && INSTALLED_ITEM.test(items[items.length - 1])) {
    condition = items.pop()!.replace(/\.$/, '');
    s = items.join(' | ');
  }
  const tail = CONDITION_TAIL.exec(s);
  if (tail && tail.index > 0) {
    condition = condition ? `${condition}; ${tail[1]}` : tail[1];
    s = s.slice(0, tail.index).trim();
  }
  // A widening note ("(Including CENTUM VP Entry Class)", "(incl. SIPLUS variants)") says the product's variants are
  // covered too: no condition, dropped (as the product key drops it, docs/correlation.md §2).
  s = s.replace(/\s*\((?:including|incl\.?)\s[^()]*\)\s*$/i, '');
  s = s.replace(/\.$/, '').trim();
  if (/^all(?: versions)?$/i.test(s)) return { all: true, pieces: [], condition };
  s = dropProductName(s, vendor, product);
  // "Included in CX-One CXONE-AL[][]D-V4 V9.80 and earlier": the suite that carries the product, then its version.
  const included = /^included in .+? (v?\d[\w.]*) and (?:earlier|prior)$/i.exec(s);
  if (included) s = `${included[1]} and earlier`;
  const reader = new Reader(schemeOf(vendor, product));
  if (/^all(?: versions)?$/i.test(s)) return { all: true, pieces: [], condition };
  s = s.replace(/^all versions\s+(?=[<>=≤≥]|prior|before)/i, '');
  // "Fixed in OpenSSL 3.0.5 (Affected 3.0.0-3.0.4)"
  const fixed = /^fixed in (?:[a-z][\w-]* )*?(v?\d\S*) \(affected (.+)\)$/i.exec(s);
  if (fixed) {
    const fix = fixed[1];
    const inner = reader.list(fixed[2]);
    if (!inner || !reader.ok(fix.replace(/-dev$/i, ''))) return null;
    return { all: false, pieces: inner.map((p) => ({ ...p, fixedIn: fix.replace(/-dev$/i, '') })), condition };
  }
  const pieces = platformList(s) ?? reader.perLine(s) ?? branchLine(s, vendor, product, reader) ?? reader.list(s);
  return pieces && pieces.length ? { all: false, pieces, condition } : null;
}
