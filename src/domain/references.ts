// References block (spec §2.5). Pure. No link is constructed or guessed: apart from the two record
// addresses the spec requires (nvd_url, cve_org_url), every URL is one a source stated.
import type { CisaIcsAdvisoryRef, CveDocument, OtherReference } from './cve-document.ts';
import type { SourceReference } from './records.ts';
import type { MergedCve } from './merge.ts';
import type { CanonicalVendor } from './vendors.ts';
import { domainOfEmail, hostOf, registrableDomain } from './urls.ts';

export const OTHER_REFERENCES_CAP = 25;

export const nvdUrl = (cve: string) => `https://nvd.nist.gov/vuln/detail/${cve}`;
export const cveOrgUrl = (cve: string) => `https://www.cve.org/CVERecord?id=${cve}`;

const alnum = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** True when the host is on one of the vendor's own domains (alias table, or domain label = vendor key). */
export function vendorOwnsHost(vendor: CanonicalVendor, host: string): boolean {
  const reg = registrableDomain(host);
  if (vendor.domains.includes(reg)) return true;
  const label = reg.split('.')[0];
  return label.length >= 3 && alnum(label) === alnum(vendor.slug);
}

function ownerOf(vendors: CanonicalVendor[], host: string): CanonicalVendor | undefined {
  return vendors.find((v) => vendorOwnsHost(v, host));
}

/**
 * A vendor advisory: on the vendor's own domain, and either tagged "Vendor Advisory" by NVD or supplied
 * by the vendor itself as the CVE's numbering authority (reference source = CNA whose e-mail domain is
 * the vendor's), or by the vendor's own feed (MSRC).
 */
export function isVendorAdvisory(ref: SourceReference, vendors: CanonicalVendor[], assigner: string | null): boolean {
  const host = hostOf(ref.url);
  if (!host) return false;
  const owner = ownerOf(vendors, host);
  if (!owner) return false;
  if (ref.tags.includes('Vendor Advisory')) return true;
  // MSRC's own advisory page; its fix links (tagged "Patch": Update Catalog, KB pages) are not advisories.
  if (ref.provided_by === 'msrc' && !ref.tags.includes('Patch')) return true;
  if (assigner && ref.provided_by === assigner) {
    const cnaDomain = domainOfEmail(assigner);
    return cnaDomain !== null && vendorOwnsHost(owner, cnaDomain);
  }
  return false;
}

export function cisaIcsAdvisories(merged: MergedCve): CisaIcsAdvisoryRef[] {
  const byId = new Map<string, CisaIcsAdvisoryRef>();
  for (const a of merged.advisories) {
    if (byId.has(a.advisory_id)) continue;
    byId.set(a.advisory_id, { advisory_id: a.advisory_id, url: a.url, title: a.title, published: a.published ? a.published.slice(0, 10) : null });
  }
  return [...byId.values()].sort((x, y) => (x.published ?? '').localeCompare(y.published ?? '') || x.advisory_id.localeCompare(y.advisory_id));
}

export function buildReferences(merged: MergedCve, vendors: CanonicalVendor[]): CveDocument['references'] {
  const advisories = cisaIcsAdvisories(merged);
  const advisoryUrls = new Set(advisories.map((a) => a.url).filter(Boolean) as string[]);
  const advisoryIds = advisories.map((a) => a.advisory_id.toLowerCase());
  const vendorAdvisories: CveDocument['references']['vendor_advisories'] = [];
  const other: OtherReference[] = [];
  for (const ref of merged.references) {
    const lower = ref.url.toLowerCase();
    // The national ICS advisory pages already listed in cisa_ics_advisories are not repeated.
    if (advisoryUrls.has(ref.url) || (/cisa\.gov\//.test(lower) && advisoryIds.some((id) => lower.includes(id)))) continue;
    const item = { url: ref.url, tags: ref.tags, provided_by: ref.provided_by };
    if (isVendorAdvisory(ref, vendors, merged.assigner)) vendorAdvisories.push(item);
    else other.push(item);
  }
  return {
    nvd_url: nvdUrl(merged.cve_id),
    cve_org_url: cveOrgUrl(merged.cve_id),
    vendor_advisories: vendorAdvisories,
    cisa_ics_advisories: advisories,
    other_references: other.slice(0, OTHER_REFERENCES_CAP),
    other_references_total: other.length,
  };
}
