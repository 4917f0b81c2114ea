// References block (spec §2.5). Pure. No link is constructed or guessed: apart from the two record
// addresses the spec requires (nvd_url, cve_org_url), every URL is one a source stated.
import type { CisaIcsAdvisoryRef, CveDocument, OtherReference } from './cve-document.ts';
import type { SourceReference } from './records.ts';
import type { MergedCve } from './merge.ts';
import type { CanonicalVendor } from './vendors.ts';
import { canonicalVendor } from './vendors.ts';
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

/** A CVE record's references: its CNA's (`cna:<short name>`) or an ADP container's (`adp:<short name>`). */
const isCveRecordProvider = (p: string) => p.startsWith(CNA_PREFIX) || p.startsWith('adp:');

/** The provider label of a CVE record's numbering-authority references (src/ingest/cve5.ts `cnaProvider`). */
const CNA_PREFIX = 'cna:';

/**
 * Whether a CVE record's numbering authority (cveMetadata.assignerShortName: siemens, microsoft, SICK AG,
 * Schneider, …) is the vendor itself: its short name resolves to the vendor, or is the vendor's key followed by a
 * qualifier (SamsungMobile, google_android, Mitsubishi-Electric-CNA).
 */
export function cnaIsVendor(shortName: string, vendor: CanonicalVendor): boolean {
  const v = canonicalVendor(shortName);
  if (v?.slug === vendor.slug) return true;
  const key = alnum(vendor.slug);
  return key.length >= 4 && alnum(shortName).startsWith(key);
}

/**
 * A vendor advisory (spec §2.5): on the vendor's own domain, and either tagged "Vendor Advisory" (by NVD, or by
 * the CVE record's numbering authority: the CVE 5 tag `vendor-advisory`), or published by the vendor itself — as the
 * CVE's numbering authority (NVD's reference source is the CNA whose e-mail domain is the vendor's, or the CVE
 * record's CNA is the vendor), through its own feed (MSRC), or as the vendor's advisory that a national ICS advisory
 * names (a CSAF document's reference). Pages published through a vendor's own channel (MSRC, a CSAF reference) are
 * the vendor advisory only for the CVE's catalog vendor (`catalogVendor`: the primary vendor): Microsoft's page
 * on a Chrome CVE that Edge ships is Microsoft's, not Google's advisory.
 */
export function isVendorAdvisory(
  ref: SourceReference,
  vendors: CanonicalVendor[],
  assigner: string | null,
  catalogVendor: CanonicalVendor | null = vendors[0] ?? null,
): boolean {
  const host = hostOf(ref.url);
  if (!host) return false;
  const owner = ownerOf(vendors, host);
  if (!owner) return false;
  const isCatalogVendor = catalogVendor?.slug === owner.slug;
  // MSRC's own advisory page (the reader tags it Vendor Advisory); its fix links (tagged "Patch": Update Catalog,
  // KB pages) are not advisories.
  if (ref.provided_by === 'msrc') return isCatalogVendor && !ref.tags.includes('Patch');
  if (ref.provided_by === 'csaf') return isCatalogVendor;
  // The CVE record's references (its CNA's, and the ADP containers' copies): the CNA that is the vendor publishes
  // its own advisories; a `vendor-advisory` tag counts for the catalog vendor's domain only (Adobe's CNA tags
  // Microsoft's page for "Acrobat for Edge", CVE-2024-34122: no Microsoft product).
  if (ref.provided_by.startsWith(CNA_PREFIX) && cnaIsVendor(ref.provided_by.slice(CNA_PREFIX.length), owner))
    return true;
  if (isCveRecordProvider(ref.provided_by)) return isCatalogVendor && ref.tags.includes('Vendor Advisory');
  if (ref.tags.includes('Vendor Advisory')) return true;
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
    byId.set(a.advisory_id, {
      advisory_id: a.advisory_id,
      url: a.url,
      title: a.title,
      published: a.published ? a.published.slice(0, 10) : null,
    });
  }
  return [...byId.values()].sort(
    (x, y) => (x.published ?? '').localeCompare(y.published ?? '') || x.advisory_id.localeCompare(y.advisory_id),
  );
}

/** A fix link of an MSRC document (the reader tags each Vendor Fix remediation URL "Patch"), not a reference. */
export function isMsrcFixLink(ref: { provided_by: string; tags: readonly string[] }): boolean {
  return ref.provided_by === 'msrc' && ref.tags.includes('Patch');
}

/** MSRC's update guide serves each CVE's page with or without a locale segment (`/update-guide/en-US/vulnerability/…`). */
const MSRC_LOCALE = /^(https:\/\/msrc\.microsoft\.com\/update-guide)\/[a-z]{2}-[a-z]{2}(?=\/)/i;

/** One key per page: two spellings of one page (MSRC's locale segment) are one reference. */
export function pageKey(url: string): string {
  return url.replace(MSRC_LOCALE, '$1');
}

export function buildReferences(merged: MergedCve, vendors: CanonicalVendor[]): CveDocument['references'] {
  const advisories = cisaIcsAdvisories(merged);
  const advisoryUrls = new Set(advisories.map((a) => a.url).filter((u) => !!u));
  const advisoryIds = advisories.map((a) => a.advisory_id.toLowerCase());
  const vendorAdvisories: CveDocument['references']['vendor_advisories'] = [];
  const other: OtherReference[] = [];
  // A page listed again (by another source, or in another spelling) is listed once, with every source's tags.
  const listed = new Map<string, { tags: string[] }>();
  for (const ref of merged.references) {
    const lower = ref.url.toLowerCase();
    // The national ICS advisory pages already listed in cisa_ics_advisories are not repeated.
    if (advisoryUrls.has(ref.url) || (/cisa\.gov\//.test(lower) && advisoryIds.some((id) => lower.includes(id))))
      continue;
    const key = pageKey(ref.url);
    const earlier = listed.get(key);
    if (earlier) {
      for (const t of ref.tags) if (!earlier.tags.includes(t)) earlier.tags.push(t);
      continue;
    }
    const item = { url: ref.url, tags: [...ref.tags], provided_by: ref.provided_by };
    if (isVendorAdvisory(ref, vendors, merged.assigner)) vendorAdvisories.push(item);
    // MSRC's fix links (Vendor Fix remediations: an Update Catalog or KB page per product's update, up to dozens per
    // CVE) are not the CVE's references (spec §2.5 "every other NVD reference"): patch.ts reads them for the fix, and a
    // host's own KB link is its answer's fix.source. In other_references they were 73 % of a v2 answer's bytes.
    else if (!isMsrcFixLink(ref)) other.push(item);
    else continue;
    listed.set(key, item);
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
