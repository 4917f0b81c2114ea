// Merge: every source record of one CVE folds into one `MergedCve`. Precedence for text is NVD, then the CVE
// Program's record (cve5), then CSAF (CISA ICS advisories, oldest advisory first), then MSRC, then KEV; CVSS follows
// the fallback chain of `chooseCvss` (docs/enrichment.md "Merge precedence").
// The result depends only on the set of records, never on their arrival order, so re-importing the same
// files changes nothing.
import type {
  AffectedProduct,
  CsafAdvisoryFacts,
  Cve5Facts,
  CveSourceName,
  CveSourceRecord,
  CvssMetric,
  EpssRecord,
  KevFacts,
  MsrcFacts,
  SourceReference,
} from './records.ts';
import { CVE_SOURCES } from './records.ts';
import { isCveIdAnyCase } from './cve-id.ts';

export interface MergedCve {
  cve_id: string;
  /** Contributing sources in precedence order, plus 'epss' when the CVE has an EPSS score. */
  sources: (CveSourceName | 'epss')[];
  description: string | null;
  description_source: CveSourceName | null;
  /** Source titles in title precedence (CSAF vulnerability title, MSRC title, KEV vulnerabilityName). */
  titles: { source: CveSourceName; title: string }[];
  published: string | null;
  modified: string | null;
  /** The CVSS metric chosen by precedence, and every metric seen. */
  cvss: CvssMetric | null;
  all_cvss: CvssMetric[];
  cwes: number[];
  affected: AffectedProduct[];
  /** NVD (and MSRC) references, de-duplicated by URL in source order. */
  references: SourceReference[];
  assigner: string | null;
  kev: KevFacts | null;
  advisories: CsafAdvisoryFacts[];
  msrc: MsrcFacts | null;
  /** The CVE Program record's numbering authority, SSVC Exploitation and KEV marker (null without a cve5 record). */
  cve5: Cve5Facts | null;
  epss: EpssRecord | null;
}

const VERSION_RANK: Record<string, number> = { '4.0': 0, '3.1': 1, '3.0': 2, '2.0': 3 };

/** Records in merge order: source precedence, then CSAF advisories by release date and id. */
export function orderRecords(records: CveSourceRecord[]): CveSourceRecord[] {
  return [...records].sort((a, b) => {
    if (a.source !== b.source) return CVE_SOURCES.indexOf(a.source) - CVE_SOURCES.indexOf(b.source);
    const pa = a.advisory?.published ?? '';
    const pb = b.advisory?.published ?? '';
    // Stryker disable next-line EqualityOperator: V8's sort reads only the comparator's sign, and on these list sizes equal keys keep their order either way
    if (pa !== pb) return pa < pb ? -1 : 1;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: V8's sort reads only the comparator's sign, and on these list sizes equal keys keep their order either way
    return a.source_key < b.source_key ? -1 : a.source_key > b.source_key ? 1 : 0;
  });
}

/** An MSRC record's CNA note that names Microsoft (the documents before CNA notes list only Microsoft's CVEs). */
const MICROSOFT_CNA = /^microsoft\b|@microsoft\.com$/i;

/**
 * Whether an MSRC record speaks as the CVE's numbering authority: its CNA note names Microsoft, or it has none
 * (older documents, Microsoft's own CVEs only). MSRC also lists other CNAs' CVEs for the packages Azure Linux /
 * CBL-Mariner ships (CNA note "curl", "mitre", "Linux", …): there its CVSS is Microsoft's score as a distributor,
 * not the numbering authority's.
 */
export function msrcIsCna(assigner: string | null): boolean {
  return assigner === null || assigner.trim() === '' || MICROSOFT_CNA.test(assigner.trim());
}

/**
 * The CVSS fallback chain (one chain for the card and the detail, docs/enrichment.md "Severity"): NVD's own
 * analysis first; then the numbering authority's score (the CNA container of the CVE record, and MSRC for the CVEs
 * Microsoft is the CNA of); then CISA's (the CISA-ADP container, and CISA ICS advisories); then anything else
 * (MSRC's score of another CNA's CVE among them). The vendor's own rating (MSRC Critical/Important/…) comes after
 * every CVSS score (scoring.ts `cardSeverity`). `assigner` is the record's numbering authority (MSRC: its CNA note).
 */
export function cvssTier(source: CveSourceName, metric: CvssMetric, assigner: string | null = null): number {
  if (source === 'nvd') return 0;
  if (source === 'cve5') return metric.type === 'ADP' ? 2 : 1;
  if (source === 'msrc') return msrcIsCna(assigner) ? 1 : 3;
  if (source === 'csaf') return 2;
  return 3;
}

/**
 * The CVSS metric used for `scoring.cvss`: from the first tier of the chain (`cvssTier`) that has any, the first
 * source by precedence within it; within that source the newest version (4.0, 3.1, 3.0, then 2.0), and NVD's
 * Primary score before a Secondary one.
 */
export function chooseCvss(ordered: CveSourceRecord[]): CvssMetric | null {
  const tiers = [...new Set(ordered.flatMap((r) => r.cvss.map((m) => cvssTier(r.source, m, r.assigner))))].sort(
    (a, b) => a - b,
  );
  // Stryker disable next-line ConditionalExpression: tiers[0] of an empty list is undefined, and no record is in tier undefined: the loop below returns null too
  if (!tiers.length) return null;
  const tier = tiers[0];
  for (const r of ordered) {
    const inTier = r.cvss.filter((m) => cvssTier(r.source, m, r.assigner) === tier);
    if (!inTier.length) continue;
    const sorted = [...inTier].sort(
      (a, b) =>
        VERSION_RANK[a.version] - VERSION_RANK[b.version] ||
        (a.type === 'Primary' ? 0 : 1) - (b.type === 'Primary' ? 0 : 1) ||
        // Stryker disable next-line ConditionalExpression,EqualityOperator: V8's sort reads only the comparator's sign, and on these list sizes equal keys keep their order either way
        (a.vector < b.vector ? -1 : a.vector > b.vector ? 1 : 0),
    );
    return sorted[0];
  }
  return null;
}

function isCveIdOnly(title: string, cve: string): boolean {
  return title.trim().toUpperCase() === cve || isCveIdAnyCase(title.trim());
}

/** The sources whose titles name a CVE, in precedence order: the CNA's own title first. */
export const TITLE_SOURCES = ['cve5', 'csaf', 'msrc', 'kev'] as const;

export function mergeSources(cveId: string, records: CveSourceRecord[], epss: EpssRecord | null = null): MergedCve {
  const ordered = orderRecords(records.filter((r) => r.cve_id === cveId));
  const sources: MergedCve['sources'] = [];
  for (const r of ordered) if (!sources.includes(r.source)) sources.push(r.source);
  if (epss && epss.cve_id === cveId) sources.push('epss');
  const described = ordered.find((r) => r.description);
  const titles: MergedCve['titles'] = [];
  // Title precedence (docs/enrichment.md "Title"): the CNA's own title (the CVE record's) first, then the CSAF
  // vulnerability title, the MSRC title, the KEV vulnerabilityName (CISA's catalog name, never the CVE's own).
  for (const src of TITLE_SOURCES) {
    for (const r of ordered) {
      if (r.source === src && r.title && !isCveIdOnly(r.title, cveId)) titles.push({ source: src, title: r.title });
    }
  }
  const nvd = ordered.find((r) => r.source === 'nvd');
  const cve5 = ordered.find((r) => r.source === 'cve5');
  // Each advisory with the vendors of the products it lists for this CVE (patch rule 3 reads them).
  const advisories = ordered
    .filter((r) => r.advisory)
    .map((r) => ({ ...r.advisory!, vendors: [...new Set(r.affected.map((a) => a.vendor))] }));
  const kev = ordered.find((r) => r.kev)?.kev ?? null;
  const msrc = ordered.find((r) => r.msrc)?.msrc ?? null;
  const msrcRec = ordered.find((r) => r.source === 'msrc');
  // Publication date: NVD's; otherwise the earliest date another source gives.
  // Stryker disable next-line MethodExpression: nulls sort last as "null", after every ISO date, so the first date is the same with or without the filter
  const fallbackDates = [
    ...advisories.map((a) => a.published),
    msrcRec?.published ?? null,
    kev?.date_added ? `${kev.date_added}T00:00:00.000Z` : null,
  ]
    .filter((d): d is string => !!d)
    .sort();
  const published = nvd?.published ?? cve5?.published ?? fallbackDates[0] ?? null;
  const modified = nvd?.modified ?? cve5?.modified ?? msrcRec?.modified ?? published;

  const cwes: number[] = [];
  for (const r of ordered) for (const c of r.cwes) if (!cwes.includes(c)) cwes.push(c);
  const references: SourceReference[] = [];
  const byUrl = new Map<string, SourceReference>();
  for (const r of ordered) {
    for (const ref of r.references) {
      const seen = byUrl.get(ref.url);
      if (seen) {
        for (const t of ref.tags) if (!seen.tags.includes(t)) seen.tags.push(t);
        continue;
      }
      const copy = { url: ref.url, tags: [...ref.tags], provided_by: ref.provided_by };
      byUrl.set(ref.url, copy);
      references.push(copy);
    }
  }
  const cvss = chooseCvss(ordered);
  return {
    cve_id: cveId,
    sources,
    description: described?.description ?? null,
    description_source: described?.source ?? null,
    titles,
    published,
    modified,
    cvss,
    all_cvss: ordered.flatMap((r) => r.cvss),
    cwes,
    affected: ordered.flatMap((r) => r.affected),
    references,
    assigner: nvd?.assigner ?? null,
    kev,
    advisories,
    msrc,
    cve5: cve5?.cve5 ?? null,
    epss: epss && epss.cve_id === cveId ? epss : null,
  };
}
