// Per-CVE records from MSRC documents for the CVE corpus (Microsoft's vulnerabilities also feed the CVE corpus).
// The record has the shape of the ingest pipeline's `CveSourceRecord` (src/ingest/types.ts) with `source: 'msrc'`, so the merge folds it in under the same precedence
// (NVD, CSAF, MSRC, KEV). Nothing is constructed: the advisory URL is the one the document links.
// Documented in docs/windows-engine.md ("MSRC records for the CVE corpus").
import type { MsrcDocument, MsrcVulnerability } from '../domain/windows/msrc-types.ts';
import { msrcDateToIso } from './msrc-text.ts';
import { domainOfEmail } from '../domain/urls.ts';
import { vendorByDomain } from '../domain/vendors.ts';
import { isCveId } from '../domain/cve-id.ts';

export interface MsrcCvssMetric {
  version: '2.0' | '3.0' | '3.1' | '4.0';
  vector: string;
  score: number | null;
  scored_by: string | null;
  type: string | null;
}

export interface MsrcCveRecord {
  source: 'msrc';
  source_key: string;
  cve_id: string;
  description: string | null;
  title: string | null;
  published: string | null;
  modified: string | null;
  cvss: MsrcCvssMetric[];
  cwes: number[];
  affected: { vendor: string; product: string | null; origin: 'msrc'; cpe_part: null; version: null }[];
  references: { url: string; tags: string[]; provided_by: string }[];
  assigner: string | null;
  status: string | null;
  msrc: { exploited: boolean; publicly_disclosed: boolean | null; severity: string | null };
  document_date: string | null;
}

/** Azure Linux / CBL-Mariner package products ("cbl2 kernel 5.15.164.1-1 on CBL Mariner 2.0", "Azure Linux 3.0 x64"). */
const MARINER_RE = /\b(?:CBL[- ]?Mariner|Azure Linux)\b/i;

/**
 * CNAs (as MSRC's CNA note spells them, lower-cased) that assign for other people's software: the CVE
 * programme, coordinators, bug-bounty platforms, security firms, vulnerability databases and Linux
 * distributions. They name no vendor of the vulnerable package. Unlisted short names are taken as the vendor.
 */
const COORDINATOR_CNAS = new Set([
  'mitre',
  'mitre corporation',
  'github',
  'github_m',
  'github (maintainer security advisories)',
  'github, inc.',
  '@huntrdev',
  '@huntr_ai',
  'huntr',
  'vuldb',
  'hackerone',
  'vulncheck',
  'certcc',
  'cert/cc',
  'cert cc',
  'cert-pl',
  'jpcert',
  'zdi',
  'snyk',
  'talos',
  'dwf',
  'patchstack',
  'govtech csg',
  'star_labs',
  'turansec',
  'seal',
  'jfrog',
  'checkmarx',
  'hiddenlayer',
  'bitdefender',
  'tenable',
  'rapid7',
  'rapid7, inc.',
  'vdoo',
  'herodevs',
  'aha',
  'snps',
  'redhat',
  'red hat',
  'red hat, inc.',
  'red hat inc.',
  'redhat-cnalr',
  'fedora',
  'canonical',
  'canonical ltd.',
  'debian',
  'suse',
  'openeuler',
  'anolis',
  'opencloudos',
  'harborist',
  'tqtc',
  'cpansec',
]);
/** Registrable domains of such CNAs' e-mail addresses (secalert@redhat.com, cve@mitre.org, …). */
const COORDINATOR_DOMAINS = new Set([
  'mitre.org',
  'github.com',
  'huntr.dev',
  'hackerone.com',
  'vuldb.com',
  'redhat.com',
  'ubuntu.com',
  'debian.org',
  'suse.com',
  'openeuler.org',
  'openanolis.org',
  'snyk.io',
  'cert.org',
  'jpcert.or.jp',
  'distributedweaknessfiling.org',
  'jfrog.com',
  'checkmarx.com',
  'tenable.com',
  'vdoo.com',
  'hiddenlayer.com',
  'takeonme.org',
  'puiterwijk.org',
  'liggitt.net',
  'checkpoint.com',
]);
/** Coordinating teams inside a vendor (Cisco Talos reports other vendors' flaws). */
const COORDINATOR_ADDRESSES = new Set(['talos-cna@cisco.com']);
/** CNA short names whose vendor has another usual name. */
const CNA_VENDOR_NAMES: Record<string, string> = {
  go: 'Golang',
  psf: 'Python Software Foundation',
  eef: 'Erlang Ecosystem Foundation',
  isc: 'ISC',
  curl: 'curl',
  google_android: 'Google',
  chrome: 'Google',
  amzn: 'Amazon',
  xen: 'Xen',
  openjs: 'OpenJS Foundation',
  'nlnet labs': 'NLnet Labs',
  palo_alto: 'Palo Alto Networks',
  'samsung.tv_appliance': 'Samsung',
  meta: 'Meta',
};

/**
 * The vendor of a CVE's products as MSRC lists them (docs/enrichment.md "MSRC records"): Microsoft, except
 * for Azure Linux / CBL-Mariner packages of third-party software (every listed product is a Mariner one and
 * the CNA is not Microsoft), where the CNA names the vendor when it is the software's maintainer ("oracle",
 * "Linux", "secalert_us@oracle.com") and nobody is named (null) when the CNA is a coordinator, a distribution
 * or an opaque organisation id.
 */
export function msrcVendor(cna: string | null, productNames: string[]): string | null {
  const mariner = productNames.length > 0 && productNames.every((n) => MARINER_RE.test(n));
  const c = (cna ?? '').trim();
  if (!mariner || /^microsoft\b/i.test(c)) return 'Microsoft';
  if (!c || /^[0-9a-f]{8}-[0-9a-f]{4}-/i.test(c)) return null;
  if (c.includes('@')) {
    const domain = c.startsWith('@') ? null : domainOfEmail(c);
    if (!domain || COORDINATOR_DOMAINS.has(domain) || COORDINATOR_ADDRESSES.has(c.toLowerCase())) return null;
    return vendorByDomain(domain)?.name ?? domain.split('.')[0];
  }
  const key = c.toLowerCase();
  if (COORDINATOR_CNAS.has(key)) return null;
  return CNA_VENDOR_NAMES[key] ?? c;
}

/** Product Family branches that name a category, not a product users recognise. */
const CATEGORY_FAMILIES = new Set([
  'apps',
  'browser',
  'developer tools',
  'esu',
  'mariner',
  'open source software',
  'server software',
]);
/** Trailing words that name an edition, version or platform rather than the product. */
const EDITION_WORD =
  /^(?:\d[\w./]*|v\d[\w.]*|version|for|on|and|edition|sp\d+|service|pack|r2|x64|x86|arm64|arm|32-bit|64-bit|[a-z0-9]+-based|systems?|\(.*|.*\)|-|ltsc|rt)$/i;

function trimEdition(words: string[]): string[] {
  const w = [...words];
  while (w.length > 0 && EDITION_WORD.test(w[w.length - 1])) w.pop();
  return w;
}

/**
 * The family-level product of a Microsoft CVE (docs/enrichment.md "MSRC records"): among the CVE's products,
 * those of the Product Family branch holding most of them (ties: the family name first in alphabetical order);
 * the words their names (cut before " on …") share from the start, less trailing edition/version/platform words ("Windows 10 Version
 * 1607 for x64-based Systems" + "Windows Server 2019" → "Windows"; only Windows Server editions → "Windows
 * Server"; ".NET 6.0" + ".NET 8.0" → ".NET"); when that leaves nothing or only "Microsoft", the family's own
 * name when it names a product ("Microsoft Office"), else the base name (same cut and trim) most of them share
 * ("Microsoft .NET Framework"), else null (the record keeps its first product).
 */
export function msrcFamilyProduct(products: { name: string; family: string | null }[]): string | null {
  const groups = new Map<string, string[]>();
  for (const p of products) groups.set(p.family ?? '', [...(groups.get(p.family ?? '') ?? []), p.name]);
  const [family, names] = [...groups].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))[0] ?? [
    '',
    [],
  ];
  if (names.length === 0) return null;
  // "X on Windows 10 Version 1607 …" / ".NET 10.0 installed on Windows" name X; parentheticals name editions.
  const split = names.map((n) =>
    n
      .replace(/\s+(?:installed\s+)?on\s+.*$/i, '')
      .replace(/\s*\([^)]*\)/g, '')
      .split(' ')
      .filter(Boolean),
  );
  let common = split[0];
  for (const w of split.slice(1)) {
    let i = 0;
    while (i < common.length && i < w.length && common[i].toLowerCase() === w[i].toLowerCase()) i++;
    common = common.slice(0, i);
  }
  const useful = (n: string) => n !== '' && n.toLowerCase() !== 'microsoft';
  const name = trimEdition(common).join(' ');
  if (useful(name)) return name;
  if (family && !CATEGORY_FAMILIES.has(family.toLowerCase())) return family;
  // Mixed products of a category family (.NET Core, .NET Framework, PowerShell): the base name most share.
  const counts = new Map<string, number>();
  for (const w of split) {
    const base = trimEdition(w).join(' ');
    if (useful(base)) counts.set(base, (counts.get(base) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? null;
}

const SEVERITY_ORDER = ['Critical', 'Important', 'Moderate', 'Low'];

function stripHtml(s: string): string {
  return s
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
}

function cvssOf(v: MsrcVulnerability): MsrcCvssMetric[] {
  // MSRC scores per product; the record keeps the highest base score with its vector (as stated, with the
  // temporal metrics MSRC appends).
  let best: { score: number; vector: string } | null = null;
  for (const s of v.scoreSets) {
    if (s.baseScore === null || !s.vector) continue;
    if (!best || s.baseScore > best.score) best = { score: s.baseScore, vector: s.vector };
  }
  if (!best) return [];
  const version = /^CVSS:(3\.0|3\.1|4\.0)\//.exec(best.vector)?.[1];
  if (version !== '3.0' && version !== '3.1' && version !== '4.0') return [];
  return [{ version, vector: best.vector, score: best.score, scored_by: 'Microsoft', type: null }];
}

function revisionDates(v: MsrcVulnerability): { first: string | null; last: string | null } {
  const dates = v.revisions
    .map((r) => msrcDateToIso(r.date))
    .filter((d): d is string => d !== null)
    .sort();
  const one = v.revisions.find((r) => r.number === '1.0');
  return { first: (one ? msrcDateToIso(one.date) : null) ?? dates[0] ?? null, last: dates[dates.length - 1] ?? null };
}

/**
 * The fix links the document states: URLs of Vendor Fix remediations (KB pages on the Update Catalog or
 * support.microsoft.com, download pages, release notes), http(s) only, each once, in document order, tagged
 * "Patch" (patch rule 4). None is constructed from a KB number.
 */
export function fixReferences(v: MsrcVulnerability): MsrcCveRecord['references'] {
  const seen = new Set<string>();
  const out: MsrcCveRecord['references'] = [];
  for (const r of v.remediations) {
    const u = r.type === 'Vendor Fix' ? r.url?.trim() : undefined;
    if (!u || !/^https?:\/\/[^\s/]+\.[^\s]*$/i.test(u) || seen.has(u)) continue;
    seen.add(u);
    out.push({ url: u, tags: ['Patch'], provided_by: 'msrc' });
  }
  return out;
}

/** Records for every CVE of one document (ADV advisories and malformed ids are skipped). */
export function msrcCveRecords(doc: MsrcDocument): MsrcCveRecord[] {
  const out: MsrcCveRecord[] = [];
  for (const v of doc.vulnerabilities) {
    if (!isCveId(v.cve)) continue;
    const exploit = v.threats.find((t) => t.type === 'Exploit Status')?.description ?? '';
    const severities = new Set(v.threats.filter((t) => t.type === 'Severity').map((t) => t.description));
    const severity = SEVERITY_ORDER.find((s) => severities.has(s)) ?? null;
    const desc = v.notes.find((n) => n.type === 'Description' && n.text.trim());
    const pids = new Set(v.knownAffected);
    for (const r of v.remediations) if (r.type === 'Vendor Fix') for (const p of r.productIds) pids.add(p);
    const norm = (n: string) => n.replace(/\s+/g, ' ').trim();
    const names = [
      ...new Set(
        [...pids]
          .map((p) => doc.products.get(p))
          .filter((n): n is string => !!n)
          .map(norm),
      ),
    ].sort();
    const cna = v.notes.find((n) => n.type === 'CNA')?.text.trim() || null;
    // 'n/a' is the CVE records' own word for "no vendor named"; the merge keeps such products without a vendor.
    const vendor = msrcVendor(cna, names) ?? 'n/a';
    // Microsoft's products: the family-level name first (the primary product), then every listed product.
    const family =
      vendor === 'Microsoft'
        ? msrcFamilyProduct(
            [...pids]
              .filter((p) => doc.products.get(p))
              .map((p) => ({ name: norm(doc.products.get(p)!), family: doc.families?.get(p) ?? null })),
          )
        : null;
    const productNames = family && !names.includes(family) ? [family, ...names] : names;
    const { first, last } = revisionDates(v);
    const url = doc.advisoryUrls.get(v.cve);
    const disclosed = /Publicly Disclosed:\s*(Yes|No)/i.exec(exploit);
    out.push({
      source: 'msrc',
      source_key: '',
      cve_id: v.cve,
      // MSRC leaves the Description note empty for most Windows CVEs; its title is then the vendor's own
      // one-line statement of the flaw, and the corpus keeps only CVEs with a description.
      description: (desc ? stripHtml(desc.text) || null : null) ?? (v.title || null),
      title: v.title || null,
      published: first ?? doc.initialReleaseDate,
      modified: last ?? doc.currentReleaseDate,
      cvss: cvssOf(v),
      cwes: [
        ...new Set(
          v.cwes.map((c) => Number(/^CWE-(\d+)$/.exec(c.id)?.[1])).filter((n) => Number.isInteger(n) && n > 0),
        ),
      ],
      affected: productNames.map((product) => ({
        vendor,
        product,
        origin: 'msrc' as const,
        cpe_part: null,
        version: null,
      })),
      references: [...(url ? [{ url, tags: ['Vendor Advisory'], provided_by: 'msrc' }] : []), ...fixReferences(v)],
      assigner: cna,
      status: null,
      msrc: {
        exploited: /Exploited:\s*Yes/i.test(exploit),
        publicly_disclosed: disclosed ? disclosed[1].toLowerCase() === 'yes' : null,
        severity,
      },
      document_date: doc.currentReleaseDate || null,
    });
  }
  return out;
}
