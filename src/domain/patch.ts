// Patch block: exactly the five patch rules of spec §2.3. Pure. Known patch and fix sources are listed
// in docs/enrichment.md ("Patch").
import type { CveDocument } from './cve-document.ts';
import type { SourceReference } from './records.ts';
import type { MergedCve } from './merge.ts';
import { registrableDomain, urlParts } from './urls.ts';
import { canonicalVendor, type CanonicalVendor } from './vendors.ts';

export const VARIES_NOTE =
  'Fixed versions differ per product in the vendor advisory. Send vendor, product and version to POST /api/v1/assets/correlate-cves to check a specific asset.';

const CODE_HOST_FIX: [string, RegExp][] = [
  ['github.com', /^\/[^/]+\/[^/]+\/(?:commit|commits|pull|releases|compare)\b/],
  ['gitlab.com', /\/-\/(?:commit|commits|merge_requests|releases|tags)\b/],
  ['bitbucket.org', /^\/[^/]+\/[^/]+\/(?:commits|pull-requests)\b/],
  ['git.kernel.org', /\/(?:commit|c)\//],
];

const DISTRIBUTION_SECURITY: [string, RegExp][] = [
  ['access.redhat.com', /^\/(?:errata|security)\//],
  ['ubuntu.com', /^\/security\//],
  ['usn.ubuntu.com', /./],
  ['www.debian.org', /^\/security\//],
  ['lists.debian.org', /^\/debian-(?:security-announce|lts-announce)\//],
  ['security.gentoo.org', /^\/glsa\//],
  ['www.suse.com', /^\/(?:security|support\/update)\//],
  ['lists.opensuse.org', /./],
  ['lists.fedoraproject.org', /package-announce/],
  ['security.archlinux.org', /./],
  ['www.oracle.com', /^\/security-alerts\//],
  ['security.netapp.com', /^\/advisory\//],
  ['www.freebsd.org', /^\/security\//],
];

const NATIONAL_ICS_ADVISORY: [string, RegExp][] = [
  ['www.cisa.gov', /^\/news-events\/ics-(?:medical-)?advisories\//],
  ['us-cert.cisa.gov', /^\/ics\/advisories\//],
  ['ics-cert.us-cert.gov', /^\/advisories\//],
  ['jvn.jp', /^\/(?:vu|jp)\//],
];

function matches(list: [string, RegExp][], host: string, path: string): boolean {
  return list.some(([h, re]) => (host === h || (h.startsWith('www.') && host === h.slice(4))) && re.test(path));
}

/**
 * Whether a reference is a known patch or fix source (rule 4): a release, commit or pull request on a
 * code host, a distribution security page, a vendor security page (a vendor advisory, or a link NVD
 * tagged "Patch"), or a national ICS advisory.
 */
export function isPatchSource(ref: SourceReference, isVendorAdvisory: boolean): boolean {
  if (isVendorAdvisory || ref.tags.includes('Patch')) return true;
  const url = urlParts(ref.url);
  if (!url) return false;
  const { host, path } = url;
  if (matches(CODE_HOST_FIX, host, path)) return true;
  if (matches(DISTRIBUTION_SECURITY, host, path)) return true;
  if (matches(NATIONAL_ICS_ADVISORY, host, path)) return true;
  return registrableDomain(host) === 'ubuntu.com' && path.startsWith('/security/');
}

/** vendor_fix text that states there is no fix (end-of-life, "will not issue a fix", "currently, no fix is available"). */
const STATES_NO_FIX =
  /\bno fix\b|\bwill not (?:be )?(?:develop|releas|issu|fix|provid|patch|updat|receiv)|\b(?:does|do) not (?:plan|intend) to\b|\bno (?:plans?|intention) to\b|\bend[- ]of[- ]life\b|\bno longer supported\b|\bdiscontinued\b/i;
/** Words of a fix: many advisories also file general advice under vendor_fix ("See recommendations from section
 * Workaround and Mitigations", "Users should contact Carlo Gavazzi for more information."). */
const FIX_WORDS = /(?<![a-z])(?:updat|upgrad|patch|fix|hotfix|releas|firmware|version|service pack)/i;
/** Words that speak of a fix only with the version they name ("Install V1.04.01", "Corrected in v33.016"): alone they
 * are general advice ("Install physical controls", "antivirus … on hosts with the … application installed",
 * ICSA-23-129-02; "contact … about their installations"). */
const FIX_WORDS_WITH_VERSION = /\b(?:install|download|resolv|remediat|correct)/i;
/** A version number stated in the text ("Version 3.1.2", "V6.5.0.2"). */
const STATES_VERSION = /\d+(?:\.\d+)+/;

/**
 * Whether a CSAF remediation of category vendor_fix offers a fix: it speaks of an update, upgrade, patch, fix,
 * release, firmware, version or service pack (or of an installation, download or correction together with a
 * version number), and does not state that there is none. Advisories file end-of-life notices under vendor_fix
 * ("Carlo Gavazzi will not issue a fix as this product is end-of-life.", ICSA-23-138-01); such text is no fix
 * unless it also states a version to move to (KUKA ICSA-20-098-05: "upgrading … to Version 3.1.2").
 */
export function vendorFixOffersFix(details: string): boolean {
  const speaksOfFix = FIX_WORDS.test(details) || (FIX_WORDS_WITH_VERSION.test(details) && STATES_VERSION.test(details));
  return speaksOfFix && (!STATES_NO_FIX.test(details) || STATES_VERSION.test(details));
}

/** Whether a CISA advisory states a fix for the CVE (a fixed version, or a vendor fix whose text offers one). */
function hasFix(a: MergedCve['advisories'][number]): boolean {
  return a.fixes.length > 0 || a.vendor_fixes.some((f) => vendorFixOffersFix(f.details));
}

/** Whether a URL is the page of one of the CISA advisories `ids` (lower-case advisory ids). */
function linksAdvisory(url: string, ids: string[]): boolean {
  const id = /\/(icsm?a-\d{2}-\d{3}-\d{2}[a-z]?)\b/i.exec(url)?.[1]?.toLowerCase();
  return id !== undefined && ids.includes(id);
}

/**
 * Whether an advisory is the CVE's own vendor's (rule 3 speaks of "the vendor's advisory"): it lists a product of
 * the catalog vendor for this CVE. An advisory for a downstream product that ships the vulnerable component
 * (Log4Shell, CVE-2021-44228, in ICSA-22-356-01's "PowerManage") is not: its fixed version belongs to correlation
 * results for an asset of that product, not to the CVE's patch block. With no catalog vendor, or an advisory whose
 * vendors are unknown, every advisory counts.
 */
export function isOwnVendorAdvisory(
  a: MergedCve['advisories'][number],
  catalogVendor: CanonicalVendor | null,
): boolean {
  if (!catalogVendor || !a.vendors?.length) return true;
  return a.vendors.some((v) => canonicalVendor(v)?.slug === catalogVendor.slug);
}

export function buildPatch(
  merged: MergedCve,
  vendorAdvisoryUrls: Set<string>,
  catalogVendor: CanonicalVendor | null = null,
): CveDocument['patch'] {
  const own = merged.advisories.filter((a) => isOwnVendorAdvisory(a, catalogVendor));
  // Per-product fixed versions across every advisory of the CVE's own vendor that names the CVE (rules 1–3).
  const pairs = new Map<string, { product: string; version: string }>();
  for (const a of own) {
    for (const f of a.fixes) {
      const k = `${f.product.toLowerCase()}\u0000${f.version.toLowerCase()}`;
      if (!pairs.has(k)) pairs.set(k, { product: f.product, version: f.version });
    }
  }
  const fixes = [...pairs.values()];
  const advisoryWithFix = merged.advisories.find(hasFix);
  // Advisories we hold whose text offers no fix for this CVE: a link to their page is not a fix source.
  const noFixIds = merged.advisories.filter((a) => !hasFix(a)).map((a) => a.advisory_id.toLowerCase());
  // A page a CISA advisory links (provided_by csaf) speaks for that advisory: it is a fix source only as the
  // advisory's stated fix is (advisoryWithFix), so an advisory with no fix does not become "patched" by its links.
  const patchSource =
    merged.references.some(
      (r) =>
        r.provided_by !== 'csaf' && !linksAdvisory(r.url, noFixIds) && isPatchSource(r, vendorAdvisoryUrls.has(r.url)),
    ) ||
    // A CISA ICS advisory (national ICS advisory) that states a vendor fix for this CVE.
    advisoryWithFix !== undefined;
  // The notes and URL of a remediation that offers a fix come first; general advice only when there is none. Only
  // the CVE's own vendor's advisories: a downstream product's remediation text is not this CVE's.
  const allVendorFixes = own.flatMap((a) => a.vendor_fixes);
  const vendorFixes = [
    ...allVendorFixes.filter((f) => vendorFixOffersFix(f.details)),
    ...allVendorFixes.filter((f) => !vendorFixOffersFix(f.details)),
  ];
  const firstVendorFix = vendorFixes[0];
  // The URL of a remediation that offers a fix only: a "contact our sales network" link is no patch URL, and neither
  // is a mailto: address some advisories give there (CVE-2019-12258: mailto:PSIRT@windriver.com).
  const patchUrl =
    merged.references.find((r) => r.tags.includes('Patch'))?.url ??
    vendorFixes.find((f) => f.url && /^https?:\/\//i.test(f.url) && vendorFixOffersFix(f.details))?.url ??
    null;
  const notes = firstVendorFix?.details ? firstVendorFix.details.replace(/\s+/g, ' ').trim().slice(0, 500) : null;

  if (fixes.length >= 2) {
    return {
      status: 'varies_by_product',
      patch_available: false,
      patch_version: null,
      patch_url: patchUrl,
      patch_notes: notes,
      note: VARIES_NOTE,
      fixed_in: null,
    };
  }
  const status = patchSource ? 'patched' : 'unknown';
  if (fixes.length === 1) {
    const f = fixes[0];
    return {
      status,
      patch_available: status === 'patched',
      patch_version: f.version,
      patch_url: patchUrl,
      patch_notes: notes,
      note: `The advisory lists a fix for one product only: ${f.product} ${f.version}.`,
      fixed_in: { product: f.product, version: f.version },
    };
  }
  return {
    status,
    patch_available: status === 'patched',
    patch_version: null,
    patch_url: patchUrl,
    patch_notes: notes,
    note: null,
    fixed_in: null,
  };
}
