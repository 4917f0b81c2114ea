// Vendors and products of a merged CVE (spec §2.3 `affected` vendors/products/primary_*/vendor_count).
// Pure. The primary vendor is the vendor of the vulnerable product: the CVE record's own statement (the
// CNA's `affected` block), then NVD's CPE analysis, then KEV's vendorProject, then MSRC, and a CISA ICS
// advisory's vendor only when nothing better exists (an advisory may be a bundler's: Siemens RUGGEDCOM
// APE1808 ships PAN-OS, CVE-2024-3400). docs/enrichment.md "Vendors and products".
import type { AffectedProduct } from './records.ts';
import type { MergedCve } from './merge.ts';
import { canonicalVendor, productDisplay, vendorByDomain, type CanonicalVendor } from './vendors.ts';
import { domainOfEmail } from './urls.ts';
import { memoTable } from './memo.ts';

export interface ResolvedAffected {
  vendors: CanonicalVendor[];
  products: string[];
  primary_vendor: CanonicalVendor | null;
  primary_product: string | null;
  /** CPE parts seen on vulnerable configurations (a / o / h). */
  cpe_parts: string[];
}

/** Vendor precedence: who is most likely to name the vendor of the vulnerable product. */
export const PRIMARY_VENDOR_ORDER: readonly AffectedProduct['origin'][] = ['cna', 'cpe', 'kev', 'msrc', 'csaf'];
/** Product precedence: names in the sources' own words before CPE tokens (`windows_10_1809`). */
export const PRODUCT_ORDER: readonly AffectedProduct['origin'][] = ['cna', 'kev', 'msrc', 'csaf', 'cpe'];

/** `list` ordered by origin (the order of `order`); array sort is stable, so entries of one origin keep their order. */
function rank<T extends { a: AffectedProduct }>(list: T[], order: readonly AffectedProduct['origin'][]): T[] {
  return [...list].sort((x, y) => order.indexOf(x.a.origin) - order.indexOf(y.a.origin));
}

/** Whether a text names a product (case-insensitive, whole words; a trailing parenthetical such as "(EOL)" or an
 * order number is not required). */
export function namedIn(text: string | null, product: string): boolean {
  if (!text) return false;
  let p = NAME_PATTERNS.get(product);
  if (p === undefined) {
    const name = product.replace(/\s*\([^)]*\)\s*$/, '').trim();
    const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // An ASCII name has a literal prefilter: under the non-unicode i flag its letters match only ASCII letters
    // (case folding never maps a non-ASCII character to an ASCII one), which toLowerCase() lowers one for one, so
    // a match implies the lowered name in the lowered text. The pattern's leading alternation keeps V8 from
    // searching for the literal itself, and descriptions are long: most names are absent and skip the regex.
    p =
      name.length < 3
        ? null
        : { re: new RegExp(`(?:^|[^\\w-])${esc}(?:[^\\w-]|$)`, 'i'), lower: isAscii(name) ? name.toLowerCase() : null };
    NAME_PATTERNS.set(product, p);
  }
  if (p === null) return false;
  if (p.lower !== null && !lowered(text).includes(p.lower)) return false;
  return p.re.test(text);
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** The last text lowered (namedIn asks about up to 20 products of one description in a row). */
let lastText = '';
let lastLower = '';
function lowered(text: string): string {
  if (text !== lastText) {
    lastText = text;
    lastLower = text.toLowerCase();
  }
  return lastLower;
}
/** namedIn's pattern per product name (null: too short to be named), compiled once (the import asks per CVE). */
const NAME_PATTERNS = memoTable<string, { re: RegExp; lower: string | null } | null>(4096);

export function resolveAffected(merged: MergedCve): ResolvedAffected {
  let affected = merged.affected;
  if (!affected.some((a) => a.origin === 'cna' || a.origin === 'cpe')) {
    // The CVE record names no vendor (e.g. an NVD record still awaiting analysis): a CNA that is a known
    // vendor (psirt@moxa.com) names itself, ahead of KEV, MSRC and advisories.
    const cna = domainOfEmail(merged.assigner);
    const v = cna ? vendorByDomain(cna) : undefined;
    // Stryker disable next-line StringLiteral: an origin outside the order list sorts first, where the assigner's entry sorts anyway
    if (v) affected = [{ vendor: v.name, product: null, origin: 'cna' }, ...affected];
  }
  // Products of entries whose vendor is no vendor ("multiple open source" uIP, CVE-2020-17468) are kept.
  const all = affected.map((a) => ({ a, v: canonicalVendor(a.vendor, a.origin === 'cpe') }));
  const entries = all.filter((x): x is { a: AffectedProduct; v: CanonicalVendor } => x.v !== null);
  const ranked = rank(entries, PRIMARY_VENDOR_ORDER);
  const byProduct = rank(all, PRODUCT_ORDER);
  const vendors: CanonicalVendor[] = [];
  for (const { v } of ranked) if (!vendors.some((x) => x.slug === v.slug)) vendors.push(v);
  const products: string[] = [];
  const seen = new Set<string>();
  for (const { a } of byProduct) {
    if (!a.product) continue;
    const p = productDisplay(a.product, a.origin === 'cpe');
    const k = p.toLowerCase();
    if (p && !seen.has(k)) {
      seen.add(k);
      products.push(p);
    }
  }
  const first = ranked[0];
  // The primary product is one of the primary vendor's products (any vendor's when it names none).
  const candidates =
    first && byProduct.filter((x) => x.a.product && x.v?.slug === first.v.slug).length
      ? byProduct.filter((x) => x.a.product && x.v?.slug === first.v.slug)
      : byProduct.filter((x) => x.a.product);
  // Among the best source's products, the one the description names: advisories list every product of the
  // advisory as affected by each CVE (ICSA-20-343-01: CVE-2020-17468 is FNET's, listed with uIP, picoTCP, …).
  // Stryker disable next-line OptionalChaining: the filter's callback runs only when candidates has a first element
  const best = candidates.filter((x) => x.a.origin === candidates[0]?.a.origin);
  // (Not for CPE tokens, which descriptions do not spell; at most 20 tried.)
  const named =
    // Stryker disable next-line EqualityOperator: with one candidate, the one the description names is that candidate
    best.length > 1 && best[0].a.origin !== 'cpe'
      ? best.slice(0, 20).find((x) => namedIn(merged.description, x.a.product!))
      : undefined;
  const withProduct = named ?? candidates[0];
  const cpeParts = [
    ...new Set(entries.filter((x) => x.a.origin === 'cpe' && x.a.cpe_part).map((x) => x.a.cpe_part!)),
  ].sort();
  // The primary product as `products` spells it: products are listed once per lower-case key, in the spelling of
  // the best source, and the primary vendor's entry may spell it otherwise (a CPE token "jiangqie free mini
  // program" next to the CNA's "JiangQie Free Mini Program", CVE-2024-49314).
  const primary = withProduct ? productDisplay(withProduct.a.product!, withProduct.a.origin === 'cpe') : null;
  return {
    vendors,
    products,
    primary_vendor: first?.v ?? null,
    primary_product:
      primary === null ? null : (products.find((x) => x.toLowerCase() === primary.toLowerCase()) ?? primary),
    cpe_parts: cpeParts,
  };
}
