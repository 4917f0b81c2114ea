// The lookup rows of a CVE's ranges (what store/ranges.ts writes to cve_ranges), a range as a person reads it, and
// the product match of a stored row for an asset (docs/correlation.md §2–4). Pure.
import type { AffectedRange, RangeSource, VersionBound } from './ranges.ts';
import { parseCsafRange } from './csaf-ranges.ts';
import {
  isMemberKey,
  matchKeys,
  matchProduct,
  productKey,
  variantBaseKey,
  vendorSlug,
  type AssetName,
  type ProductMatch,
} from './product-match.ts';
import { parseCpe } from './cpe-name.ts';

export interface RangeRow {
  ord: number;
  source: RangeSource;
  source_key: string;
  vendor_slug: string;
  product_key: string;
  cpe_vendor: string | null;
  cpe_product: string | null;
  /** The key of the product this row's product is a variant of (variantBaseKey), else null. */
  base_key: string | null;
  /**
   * When its source record was last stated (CVE 5 `dateUpdated`, CSAF `tracking.current_release_date`, NVD
   * `lastModified`; ISO 8601), null when unknown: what source precedence compares (domain/correlate.ts).
   */
  stated_at?: string | null;
  range: AffectedRange;
}

/**
 * A range with its keys in one fixed order, nested objects included. A record stored as jsonb (before migration 1100
 * made the column json) has its keys in jsonb's order (shorter keys first), one still in memory in its reader's
 * order: without this, the same ranges serialised differently by path, so a CVE re-enriched from stored records
 * hashed as changed and had its range rows rewritten (store/ranges.ts compares JSON.stringify digests).
 */
export function canonicalRange(r: AffectedRange): AffectedRange {
  const bound = (b: VersionBound | null) => (b ? { version: b.version, inclusive: b.inclusive } : b);
  const v = versVersion(r);
  return {
    source: r.source,
    vendor: r.vendor,
    product: r.product,
    cpe: r.cpe,
    status: r.status,
    version: v.version,
    start: bound(v.start),
    end: bound(v.end),
    versionType: r.versionType,
    changes: r.changes.map((c) => ({ at: c.at, status: c.status })),
    defaultStatus: r.defaultStatus,
    fixedIn: v.fixedIn,
    runningOn: r.runningOn,
    text: v.text,
    // A condition only where one is stated: the ranges without one keep the shape (and the hash) they had.
    ...(r.condition ? { condition: r.condition } : {}),
    ...(r.package ? { package: r.package } : {}),
  };
}

/**
 * A version that is a `vers:` range string, read as the range it states (docs/correlation.md §3). CISA's advisories
 * name 872 product_version branches "vers:all/*" (every version); stored as an exact version, such a range matched no
 * version and answered needs_review. Every other version is kept as it is.
 */
function versVersion(r: AffectedRange): Pick<AffectedRange, 'version' | 'start' | 'end' | 'fixedIn' | 'text'> {
  const { version, start, end, fixedIn, text } = r;
  if (version === null || !/^vers:/i.test(version) || start || end) return { version, start, end, fixedIn, text };
  const p = parseCsafRange(version);
  // A fixed leaf's fixedIn is its own version (csaf.ts): a range string is no fixed version.
  const fixed = fixedIn === version ? null : fixedIn;
  switch (p.kind) {
    case 'all':
      return { version: null, start: null, end: null, fixedIn: fixed, text };
    case 'exact':
      return { version: p.version, start: null, end: null, fixedIn: fixedIn === version ? p.version : fixedIn, text };
    case 'bounds':
      return { version: null, start: p.start, end: p.end, fixedIn: fixed, text };
    default:
      return { version: null, start: null, end: null, fixedIn: fixed, text: text ?? version };
  }
}

/** Lookup rows of one CVE's ranges, from its source records (in record order). Ranges with no vendor are dropped. */
export function rangeRows(
  records: readonly { source: string; source_key: string; modified?: string | null; ranges?: AffectedRange[] }[],
): RangeRow[] {
  const out: RangeRow[] = [];
  // Stryker disable ArithmeticOperator,ConditionalExpression,EqualityOperator: records reach rangeRows in one order from each caller, and the rows' order only feeds the range set's canonical hash, which sorts again
  const sorted = [...records].sort((a, b) =>
    a.source + a.source_key < b.source + b.source_key ? -1 : a.source + a.source_key > b.source + b.source_key ? 1 : 0,
  );
  // Stryker restore ArithmeticOperator,ConditionalExpression,EqualityOperator
  for (const rec of sorted) {
    for (const r of rec.ranges ?? []) {
      const cpe = r.cpe ? parseCpe(r.cpe) : null;
      const slug = vendorSlug(r.vendor);
      const key = productKey(r.product, r.vendor);
      if (!slug || !key) continue;
      // `range` stays the last key (store/ranges.ts cuts its text from the row's).
      out.push({
        ord: out.length,
        source: r.source,
        source_key: rec.source_key,
        vendor_slug: slug,
        product_key: key,
        cpe_vendor: cpe?.vendor ?? null,
        cpe_product: cpe?.product ?? null,
        base_key: variantBaseKey(r.product, r.vendor),
        stated_at: rec.modified ?? null,
        range: canonicalRange(r),
      });
    }
  }
  return out;
}

const SOURCE_NAME: Record<RangeSource, string> = {
  nvd: 'NVD CPE configuration',
  cve5: 'CVE record',
  csaf: 'CISA advisory',
};
export function sourceLabel(s: RangeSource): string {
  return SOURCE_NAME[s];
}

/** A range as a person reads it: its text, exact version, or bounds (">= 2.0, < 2.9.2"), else "all versions". */
export function describe(r: AffectedRange): string {
  if (r.text) return r.text;
  if (r.version) return r.version;
  const bits: string[] = [];
  if (r.start) bits.push(`${r.start.inclusive ? '>=' : '>'} ${r.start.version}`);
  if (r.end) bits.push(`${r.end.inclusive ? '<=' : '<'} ${r.end.version}`);
  return bits.length ? bits.join(', ') : 'all versions';
}

/** The match of a stored row for an asset (the CPE-token match, else vendor and product names). */
export function matchRow(asset: AssetName, row: RangeRow): ProductMatch | null {
  const viaName = matchProduct(asset, { vendor: row.range.vendor, product: row.range.product, cpe: row.range.cpe });
  if (viaName) return viaName;
  // The stored row keys (vendor slug, product key) already normalise the source's names; an asset key equal to
  // them, or extending them word by word, is the same match the name comparison would make (also across the
  // vendor names of one organisation: matchKeys).
  const slug = vendorSlug(asset.vendor);
  if (!slug) return null;
  const key = productKey(asset.product, asset.vendor);
  const m = matchKeys(
    asset.product,
    key,
    slug,
    row.range.product,
    row.product_key,
    row.vendor_slug,
    row.range.vendor,
    asset.version ?? null,
  );
  if (m) return m;
  // The source names a variant of the asset's product ("… CPU 1511-1 PN (6ES7511-1AK02-0AB0)" for a nameplate
  // "… CPU 1511-1 PN"): the same comparison with the row's base key, equal keys only; a variant match, whose
  // verdict is at most needs_review (the variant decides).
  if (
    row.base_key &&
    matchKeys(asset.product, key, slug, row.range.product, row.base_key, row.vendor_slug, row.range.vendor)
      ?.confidence === 'normalised'
  ) {
    return {
      confidence: 'variant',
      basis: `the source names a variant of "${asset.product}": "${row.range.product}" (vendor ${row.vendor_slug}); which variant the asset is decides`,
    };
  }
  // The asset names a family (at least two words) and the source one of its products: a member match, whose verdict
  // is at most needs_review (which product the asset is decides). One vendor slug only.
  if (row.vendor_slug === slug && isMemberKey(key, row.product_key, asset.version ?? null)) {
    return {
      confidence: 'member',
      basis: `"${asset.product}" names a product family; the source names its product "${row.range.product}" (vendor ${slug}); which product the asset is decides`,
    };
  }
  return null;
}
