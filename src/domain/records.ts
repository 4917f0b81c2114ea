// The normalised per-CVE record shapes the feed readers produce and the domain rules consume (merge,
// enrichment, references, exploit, patch). They live in domain/ so the rules import nothing from ingest/;
// the readers (src/ingest/) import them from here.
import type { AffectedRange } from './ranges.ts';

/**
 * Sources that contribute per-CVE facts. Merge precedence for text is this order: NVD, then the CVE Program's own
 * record (`cve5`, CVE Record Format 5: the numbering authority's words), then CISA ICS advisories (CSAF), MSRC and
 * KEV. CVSS follows its own fallback chain (merge.ts `chooseCvss`, docs/enrichment.md).
 */
export const CVE_SOURCES = ['nvd', 'cve5', 'csaf', 'msrc', 'kev'] as const;
export type CveSourceName = (typeof CVE_SOURCES)[number];

export type CvssVersion = '2.0' | '3.0' | '3.1' | '4.0';

export interface CvssMetric {
  version: CvssVersion;
  vector: string;
  /** Base score as published by the source (null when the source gave none). */
  score: number | null;
  /** Who scored it (NVD `source`, e.g. nvd@nist.gov or a CNA; CVE 5: the CNA's short name or CISA-ADP). */
  scored_by: string | null;
  /** NVD `type`: Primary or Secondary; CVE 5: CNA or ADP (the container); null for other feeds. */
  type: string | null;
}

export interface SourceReference {
  url: string;
  tags: string[];
  /**
   * Who supplied the reference (NVD `source`, 'csaf', 'msrc', 'kev'; CVE 5: `cna:<assignerShortName>` for the
   * numbering authority's own references, `adp:<shortName>` (adp:CVE, adp:CISA-ADP) for an ADP container's).
   */
  provided_by: string;
}

/** One affected vendor/product pair as named by a source (names not yet canonicalised). */
export interface AffectedProduct {
  vendor: string;
  product: string | null;
  /** Where the pair came from: 'cpe' (NVD configurations), 'cna' (NVD affected block), 'csaf', 'kev', 'msrc'. */
  origin: 'cpe' | 'cna' | 'csaf' | 'kev' | 'msrc';
  /** CPE part: a (application), o (operating system / firmware), h (hardware); null when not from a CPE. */
  cpe_part?: 'a' | 'o' | 'h' | null;
  /** Free-text version statement (CSAF branch, CPE range) when the source gives one. */
  version?: string | null;
}

export interface KevFacts {
  date_added: string; // YYYY-MM-DD
  vendor_project: string;
  product: string;
  vulnerability_name: string;
  short_description: string;
  required_action: string;
  due_date: string | null;
  known_ransomware_campaign_use: string;
  notes: string;
}

export interface AdvisoryFix {
  product: string; // product name as the advisory states it (product_name branch)
  version: string; // fixed version
  origin: 'product_status.fixed' | 'vendor_fix';
}

export interface CsafAdvisoryFacts {
  advisory_id: string;
  title: string;
  /** The advisory's own web page URL as stated in document.references (never constructed). */
  url: string | null;
  /** The JSON (self) URL as stated in document.references. */
  json_url: string | null;
  published: string | null; // initial_release_date (ISO)
  /** Fixed versions per product for this CVE. */
  fixes: AdvisoryFix[];
  /** vendor_fix remediations for this CVE: details and URL as stated. */
  vendor_fixes: { details: string; url: string | null; products: string[] }[];
  /** Other remediation categories present (mitigation, workaround, none_available, no_fix_planned). */
  remediation_categories: string[];
  /**
   * Vendors (as the advisory's product tree names them) of the products the advisory lists for this CVE. Set by
   * the merge from the record's `affected`; a downstream vendor's advisory (a product that ships the vulnerable
   * component) is not the CVE's own vendor's advisory (patch rule 3).
   */
  vendors?: string[];
}

/** SSVC Exploitation decision point of the CISA-ADP container (spelling normalised to lower case). */
export type SsvcExploitation = 'none' | 'poc' | 'active';

/** What a CVE Record 5 adds beyond the common fields (src/ingest/cve5.ts). */
export interface Cve5Facts {
  /** cveMetadata.assignerShortName: the numbering authority (e.g. siemens, microsoft, mitre, icscert). */
  assigner_short_name: string | null;
  /** CISA-ADP SSVC Exploitation, null when the record has no SSVC decision. */
  ssvc_exploitation: SsvcExploitation | null;
  /** CISA-ADP KEV marker (`metrics[].other.type: "kev"`): the date CISA added the CVE to KEV, else null. */
  kev_date_added: string | null;
}

export interface MsrcFacts {
  exploited: boolean;
  publicly_disclosed: boolean | null;
  severity: string | null; // vendor rating
}

/**
 * Per-CVE facts from one source document. The merge input: `mergeSources()` folds a CVE's records
 * (any number, any order) into one `MergedCve` deterministically.
 */
export interface CveSourceRecord {
  source: CveSourceName;
  /** Distinguishes several records of one source for a CVE (CSAF: advisory id; otherwise ''). */
  source_key: string;
  cve_id: string;
  description: string | null;
  title: string | null;
  published: string | null; // ISO 8601 UTC
  modified: string | null;
  cvss: CvssMetric[];
  cwes: number[];
  affected: AffectedProduct[];
  references: SourceReference[];
  /** NVD sourceIdentifier (the CNA), e.g. psirt@moxa.com. */
  assigner: string | null;
  /** NVD vulnStatus (Rejected records are dropped by the reader). */
  status: string | null;
  kev?: KevFacts;
  advisory?: CsafAdvisoryFacts;
  msrc?: MsrcFacts;
  cve5?: Cve5Facts;
  /** MSRC: release date of the monthly document the record was read from (orders two records of one revision). */
  document_date?: string | null;
  /** Structured affected-version statements (NVD configurations, CVE 5 `affected[]`, CSAF product trees). */
  ranges?: AffectedRange[];
  /** CSAF: the vendor's own VEX, its `fixed` and `known_not_affected` product statuses (docs/triage.md). */
  vendor_statements?: VendorStatement[];
}

/**
 * One product a CSAF advisory states fixed (`fixed`, `first_fixed`) or not affected (`known_not_affected`) by a CVE:
 * the vendor's own VEX statement, as the advisory states it (nothing inferred).
 */
export interface VendorStatement {
  status: 'fixed' | 'not_affected';
  vendor: string | null;
  product: string;
  /** The product's version branch as stated: an exact version, a range text ("<= 4.8", "vers:all/*"), or none. */
  version: string | null;
  /** The product's full name in the advisory. */
  product_name: string;
  /** A CSAF flag naming the product: one of CISA's justifications (CSAF flags use the same five). */
  justification: string | null;
  /** The advisory's threats of category impact naming the product, joined. */
  impact_statement: string | null;
  /** The advisory's vendor_fix remediations naming the product (fixed), joined. */
  action_statement: string | null;
}

export interface EpssRecord {
  cve_id: string;
  epss: number;
  percentile: number;
}

export interface CweRecord {
  id: number;
  name: string;
  /** Pillar/Class/Base/Variant/Compound for weaknesses; 'Category' for categories. */
  abstraction: string;
  kind: 'weakness' | 'category';
  status: string | null;
  /** CAPEC ids from Related_Attack_Patterns (weaknesses only). */
  capec_ids: number[];
}

export interface CapecRecord {
  capec_id: number;
  name: string;
  typical_severity: string | null;
  status: string | null;
  /** Related weaknesses (CWE ids). */
  cwes: number[];
  deprecated: boolean;
}
