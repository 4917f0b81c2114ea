// Vendors and products of a merged CVE (spec §2.3 `affected` vendors/products/primary_*/vendor_count).
// Pure. Primary vendor/product come from the sources' own words first (CSAF, KEV, MSRC, the CNA's
// `affected` block), then NVD CPE tokens; docs/enrichment.md "Vendors and products".
import type { AffectedProduct } from '../ingest/types.ts';
import type { MergedCve } from './merge.ts';
import { canonicalVendor, productDisplay, vendorByDomain, type CanonicalVendor } from './vendors.ts';
import { domainOfEmail } from './urls.ts';

export interface ResolvedAffected {
  vendors: CanonicalVendor[];
  products: string[];
  primary_vendor: CanonicalVendor | null;
  primary_product: string | null;
  /** CPE parts seen on vulnerable configurations (a / o / h). */
  cpe_parts: string[];
}

const PRIMARY_ORDER: AffectedProduct['origin'][] = ['csaf', 'kev', 'msrc', 'cna', 'cpe'];

export function resolveAffected(merged: MergedCve): ResolvedAffected {
  let affected = merged.affected;
  if (!affected.length) {
    // No source names a vendor (e.g. an NVD record still awaiting analysis): a CNA that is a known
    // vendor (psirt@moxa.com) names itself.
    const cna = domainOfEmail(merged.assigner);
    const v = cna ? vendorByDomain(cna) : undefined;
    if (v) affected = [{ vendor: v.name, product: null, origin: 'cna' }];
  }
  const entries = affected
    .map((a, i) => ({ a, i, v: canonicalVendor(a.vendor, a.origin === 'cpe') }))
    .filter((x): x is { a: AffectedProduct; i: number; v: CanonicalVendor } => x.v !== null);
  const ranked = [...entries].sort((x, y) => PRIMARY_ORDER.indexOf(x.a.origin) - PRIMARY_ORDER.indexOf(y.a.origin) || x.i - y.i);
  const vendors: CanonicalVendor[] = [];
  for (const { v } of ranked) if (!vendors.some((x) => x.slug === v.slug)) vendors.push(v);
  const products: string[] = [];
  const seen = new Set<string>();
  for (const { a } of ranked) {
    if (!a.product) continue;
    const p = productDisplay(a.product, a.origin === 'cpe');
    const k = p.toLowerCase();
    if (p && !seen.has(k)) {
      seen.add(k);
      products.push(p);
    }
  }
  const first = ranked[0];
  const withProduct = ranked.find((x) => x.a.product);
  const cpeParts = [...new Set(entries.filter((x) => x.a.origin === 'cpe' && x.a.cpe_part).map((x) => x.a.cpe_part!))].sort();
  return {
    vendors,
    products,
    primary_vendor: first?.v ?? null,
    primary_product: withProduct ? productDisplay(withProduct.a.product!, withProduct.a.origin === 'cpe') : null,
    cpe_parts: cpeParts,
  };
}
