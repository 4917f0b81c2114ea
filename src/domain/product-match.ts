// Vendor and product matching as users type names from a nameplate (docs/correlation.md §2). Pure.
//
// Both sides (the asset and each stored range) are reduced to a vendor slug (domain/vendors.ts: the catalog's
// canonical vendors and aliases, so "Siemens AG", "SIEMENS" and the CPE token "siemens" are one vendor) and a
// product key (lower case, every run of punctuation, '_' or '-' one space, the vendor's own name and a trailing
// "firmware" / "family" / "series" / "products" dropped). A match states its basis and confidence:
//   exact       the product as typed equals the source's product (case and surrounding space aside), or the
//               asset's CPE names the same vendor and product tokens as the range's CPE;
//   normalised  the product keys are equal (punctuation, CPE underscores, vendor prefix, "firmware" suffix);
//   family      the source names a product family whose key is a whole-word prefix of the asset's product key
//               ("SIMATIC S7-1500" covers "SIMATIC S7-1500 CPU 1518-4 PN/DP"); through a one-word name ("NPort")
//               it is `broad` (broadLine), answered at most needs_review by correlate.ts. The other way round, an asset
//               typed less specifically than the source's product is only one of these two, each answered at
//               most needs_review by correlate.ts (which product the asset is decides):
//   variant     the source names the asset's product with a note narrowing it to a variant ("… CPU 1511-1 PN
//               (6ES7511-1AK02-0AB0)") (variantBaseKey);
//   member      the asset names a product family of at least MEMBER_MIN_WORDS words, and the source one of its
//               products: the asset's key is a whole-word prefix of the source's ("SIMATIC S7-1500" names the
//               family of "SIMATIC S7-1500 CPU 1511-1 PN"; isMemberKey), for one vendor slug.
// The vendor must resolve to the same canonical vendor on both sides, or to one organisation named with and
// without its organisation word ("Apache Software Foundation" and the CPE token "apache": vendorStem); such a
// match is at most normalised, and its basis says which two vendor names were read as one.
import { canonicalVendor, vendorSpellings } from './vendors.ts';
import { parseCpe } from './cpe-name.ts';
import { stemFreeKey, vendorStem } from './vendor-stem.ts';
import { memoTable } from './memo.ts';

export type MatchConfidence = 'exact' | 'normalised' | 'family' | 'variant' | 'member';

/**
 * The fewest words of an asset's product key that can name a family of the source's products (member matches): "SIMATIC
 * S7-1500" (3) and "Windows 10" (2) do, "SIMATIC" or "Windows" alone would make every product of the vendor a review.
 */
export const MEMBER_MIN_WORDS = 2;

/** Whether a product key has enough words to name a family of products (MEMBER_MIN_WORDS). */
function namesFamily(key: string): boolean {
  let words = 1;
  for (let i = 0; i < key.length; i++) if (key[i] === ' ') words++;
  return words >= MEMBER_MIN_WORDS;
}

/**
 * The vendor slug and product key under which the products of the family an asset names are looked up (their keys
 * start with it and a space), or null when the asset's key is too short to name a family.
 */
export function familyLookup(vendor: string, product: string): { slug: string; key: string } | null {
  const slug = vendorSlug(vendor);
  const key = productKey(product, vendor);
  return slug && key && namesFamily(key) ? { slug, key } : null;
}

/**
 * Whether the asset's key `family` names a family `member` (a source's product key) belongs to. A member that names
 * a release of the family ("Windows 10 Version 1607": the words after the family's begin with "version") belongs
 * to it only for an asset of that release, when the asset states its version ("1607", "Version 1607"); an asset
 * without a version may be any release.
 */
export function isMemberKey(family: string, member: string, version: string | null = null): boolean {
  if (!(
    member.length > family.length + 1 &&
    member.startsWith(family) &&
    member[family.length] === ' ' &&
    namesFamily(family)
  ))
    return false;
  const rest = member.slice(family.length + 1);
  if (version === null || !rest.startsWith('version ')) return true;
  const release = rest.split(' ')[1];
  return (
    productKey(version)
      .split(' ')
      .filter((w) => w !== 'version')[0] === release
  );
}

export interface ProductMatch {
  confidence: MatchConfidence;
  /** Plain words: why this product matched (what was compared). */
  basis: string;
  /**
   * A family match through a one-word product line name ("NPort", "IOS", "Firefox") that names no model, edition or
   * release: whether the asset's product is one the source means is not stated (broadLine). Its verdict is at most
   * needs_review, and only when no row names the asset's product more closely (correlate.ts). Not serialised.
   */
  broad?: true;
}

/**
 * Whether a family match of the asset's key `ak` under the source's key `rk` goes through a bare product line name:
 * a one-word key the source did not call a family itself ("NPort Series", "EcoStruxure family" do: the trailing word
 * claims the whole line), under which the asset's extra words are not the start of its own version ("Tomcat 9" at
 * 9.0.50 names a release of Tomcat; "NPort 5110" at 2.0 names a model, and CISA's "NPort <= 2.1" of ICSA-20-287-01
 * is about the NPort IAW5000A-I/O only; "IOS XE" is another product than IOS).
 */
export function broadLine(ak: string, rk: string, rangeProduct: string, version: string | null): boolean {
  if (rk.includes(' ')) return false;
  const last = words(rangeProduct).pop();
  if (last === 'family' || last === 'series' || last === 'products') return false;
  if (version === null) return true;
  const extra = ak.slice(rk.length + 1).split(' ');
  const bare = (w: string) => w.replace(/^v(?=\d)/, '');
  const parts = words(version)
    .filter((w) => w !== 'version')
    .map(bare);
  return !extra.every((w, i) => parts[i] === bare(w));
}

const TRAILING = new Set(['firmware', 'family', 'series', 'products', 'product', 'all', 'versions']);

/**
 * The canonical vendor slug of a name as typed or as a CPE token; null when it names no vendor. (The CPE flag of
 * canonicalVendor changes only the display name, never the slug.)
 */
export function vendorSlug(raw: string): string | null {
  return canonicalVendor(raw)?.slug ?? null;
}

function words(s: string): string[] {
  // Stryker disable MethodExpression,Regex: the key is trimmed and split on single spaces after runs of other characters became one space: the same words either way
  return s
    .toLowerCase()
    .replace(/\\(.)/g, '$1')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);
}

// Stryker restore MethodExpression,Regex
/**
 * The product key: words only, without the vendor's own name in front, a widening note ("(incl. SIPLUS variants)")
 * or a family/firmware word at the end.
 */
export function productKey(product: string, vendor: string | null = null): string {
  return keysOf(product, vendor).key;
}

/**
 * The key of the product a variant belongs to: for a product name ending with a note in parentheses (an order
 * number "(6ES7511-1AK02-0AB0)", a region "(EU)", an installation kind "(Server Core installation)"), the key of
 * the name without that note; null when the name has no such note or the note adds no words to the key. A widening
 * note ("(incl. SIPLUS variants)") is not a variant: productKey drops it.
 */
export function variantBaseKey(product: string, vendor: string | null = null): string | null {
  return keysOf(product, vendor).base;
}

/**
 * Both keys of a (product, vendor) pair, memoised together: correlation compares every matched stored range with
 * the asset, tens of thousands of rows a call naming a few hundred distinct pairs, and the import asks both for
 * every range row. Bounded; a pure function of its inputs.
 */
function keysOf(product: string, vendor: string | null): { key: string; base: string | null } {
  // Stryker disable next-line StringLiteral: a memo key only: any separator that no vendor or product holds keeps different pairs apart
  const k = `${vendor ?? ''}\u0000${product}`;
  let e = KEYS.get(k);
  if (e === undefined) {
    const key = computeProductKey(product, vendor);
    e = { key, base: computeVariantBase(product, vendor, key) };
    KEYS.set(k, e);
  }
  return e;
}
const KEYS = memoTable<string, { key: string; base: string | null }>(50_000);

/**
 * A parenthesised note that widens the product to its variants: Siemens' "(incl. SIPLUS variants)", "(incl. related
 * ET200 CPUs and SIPLUS variants)", Yokogawa's "(Including CENTUM VP Entry Class)". The product it follows is the
 * product (or family) named; the note is dropped from the key. Other notes (order numbers, power variants,
 * "Server Core installation") name a narrower product and stay.
 */
const WIDENING_NOTE = /\(\s*(?:incl\b\.?|including\b)[^)]*\)/gi;

function computeProductKey(product: string, vendor: string | null): string {
  let w = words(product.replace(WIDENING_NOTE, ' '));
  if (vendor) {
    const v = canonicalVendor(vendor);
    // The vendor's own name in front, as given, canonical, or any spelling of the alias table (a brand of the vendor:
    // Rockwell Automation's "Allen-Bradley"); the longest that fits ("Mitsubishi Electric" before "Mitsubishi").
    const names = [vendor, v?.name ?? '', v?.slug ?? '', ...(v?.known ? vendorSpellings(v.slug) : [])]
      .map(words)
      .sort((a, b) => b.length - a.length);
    for (const vw of names) {
      if (vw.length && vw.length < w.length && vw.every((x, i) => w[i] === x)) {
        w = w.slice(vw.length);
        break;
      }
    }
  }
  while (w.length > 1 && TRAILING.has(w[w.length - 1])) w = w.slice(0, -1);
  // "Series" inside a name ("MELSEC iQ-R Series R00CPU", "MicroLogix 1400 Controllers Series B") is a word the
  // nameplate leaves out ("MELSEC iQ-R R00CPU"); the words around it name the product.
  if (w.length > 1 && w.includes('series')) w = w.filter((x) => x !== 'series');
  return w.join(' ');
}

/** variantBaseKey of a name whose own key is `key`. */
function computeVariantBase(product: string, vendor: string | null, key: string): string | null {
  // Most names end with no note.
  if (!product.trimEnd().endsWith(')')) return null;
  const m = /^(.*\S)\s*\([^()]*\)\s*$/s.exec(product.replace(WIDENING_NOTE, ' ').trimEnd());
  if (!m) return null;
  const base = computeProductKey(m[1], vendor);
  return base && base !== key ? base : null;
}

/** Every whole-word prefix of a product key, longest first: the family keys an asset's product can fall under. */
export function familyKeys(key: string): string[] {
  const w = key.split(' ').filter(Boolean);
  const out: string[] = [];
  for (let n = w.length; n >= 1; n--) out.push(w.slice(0, n).join(' '));
  return out;
}

export interface AssetName {
  vendor: string;
  product: string;
  cpe?: string | null;
  /** The asset's version, where a match depends on it (a member naming a release: isMemberKey). */
  version?: string | null;
}

export interface RangeName {
  vendor: string;
  product: string;
  cpe: string | null;
}

/** Does this stored range's product name the asset's product? null when not. */
export function matchProduct(asset: AssetName, range: RangeName): ProductMatch | null {
  const ac = asset.cpe ? parseCpe(asset.cpe) : null;
  const rc = range.cpe ? parseCpe(range.cpe) : null;
  if (ac && rc && ac.vendor === rc.vendor && ac.product === rc.product) {
    return { confidence: 'exact', basis: `CPE vendor and product ${rc.vendor}:${rc.product}` };
  }
  const av = vendorSlug(asset.vendor);
  const rv = vendorSlug(range.vendor);
  if (!av || !rv) return null;
  if (av === rv && asset.product.trim().toLowerCase() === range.product.trim().toLowerCase()) {
    return { confidence: 'exact', basis: `product "${range.product}" of vendor ${av}` };
  }
  return matchKeys(
    asset.product,
    productKey(asset.product, asset.vendor),
    av,
    range.product,
    productKey(range.product, range.vendor),
    rv,
    range.vendor,
    asset.version ?? null,
  );
}

/**
 * The key comparison of two products whose vendors are `av` (the asset's) and `rv` (the source's): one vendor, or
 * one organisation (same vendorStem; keys compared without the stem in front). Shared by matchProduct and
 * correlate's matchRow, which compares with the stored row keys.
 */
export function matchKeys(
  assetProduct: string,
  ak: string,
  av: string,
  rangeProduct: string,
  rk: string,
  rv: string,
  rangeVendor: string,
  version: string | null = null,
): ProductMatch | null {
  if (!ak || !rk) return null;
  let vendor = `vendor ${av}`;
  if (av !== rv) {
    const stem = vendorStem(av);
    if (stem !== vendorStem(rv)) return null;
    ak = stemFreeKey(ak, stem);
    rk = stemFreeKey(rk, stem);
    vendor = `vendor ${av}; the source's vendor "${rangeVendor}" (${rv}) read as the same organisation`;
  } else if (ak !== rk && !ak.startsWith(`${rk} `)) {
    // One vendor whose name carries an organisation word: its products may or may not repeat the organisation's
    // own name ("Apache Software Foundation": "Apache Tomcat"; the asset typed "Tomcat").
    const stem = vendorStem(av);
    if (stem !== av) {
      ak = stemFreeKey(ak, stem);
      rk = stemFreeKey(rk, stem);
    }
  }
  if (ak === rk) return { confidence: 'normalised', basis: `product "${assetProduct}" read as "${rk}" (${vendor})` };
  if (ak.startsWith(`${rk} `)) {
    if (broadLine(ak, rk, rangeProduct, version)) {
      return {
        confidence: 'family',
        broad: true,
        basis: `"${assetProduct}" may be one of the products the source names only by its line name "${rangeProduct}" (${vendor}); which models or editions it means is not stated`,
      };
    }
    return { confidence: 'family', basis: `"${assetProduct}" is in the product family "${rangeProduct}" (${vendor})` };
  }
  return null;
}

/**
 * The lookup keys (vendor slug, product key) under which stored ranges of an asset's product can be: its own slug
 * and every slug of `related` (vendors of the corpus with the same stem), each with the product key, with and
 * without the stem in front, and every whole-word prefix of it (family matches). `full`: the key is the whole
 * product key (not a family prefix), under which variants of the product are looked up too.
 */
export function assetLookupKeys(
  vendor: string,
  product: string,
  related: (stem: string) => readonly string[],
): { slug: string; key: string; full: boolean }[] {
  const slug = vendorSlug(vendor);
  const key = productKey(product, vendor);
  if (!slug || !key) return [];
  const stem = vendorStem(slug);
  const out: { slug: string; key: string; full: boolean }[] = [];
  const seen = new Set<string>();
  const addAll = (s: string, whole: string, skip: string | null = null) => {
    for (const k of familyKeys(whole)) {
      const id = `${s}\u0000${k}`;
      if (k !== skip && !seen.has(id)) {
        seen.add(id);
        out.push({ slug: s, key: k, full: k === whole });
      }
    }
  };
  addAll(slug, key);
  const bare = stemFreeKey(key, stem);
  for (const s of new Set([slug, ...related(stem)])) {
    if (s === slug && s === stem) continue;
    addAll(s, bare);
    // A vendor named with its organisation word keeps the organisation's name on its products ("apache tomcat").
    if (s !== stem) addAll(s, `${stem} ${bare}`, stem);
  }
  return out;
}

const RANK: Record<MatchConfidence, number> = { exact: 3, normalised: 2, family: 1, variant: 0, member: 0 };

/** The stronger of two matches (exact > normalised > family > variant, member). */
export function strongerMatch(a: ProductMatch, b: ProductMatch): ProductMatch {
  return RANK[b.confidence] > RANK[a.confidence] ? b : a;
}
