// Normalised MSRC CVRF content: what the ingest reader (XML or JSON form) produces and the Windows
// engine consumes. Field meanings follow the CVRF 1.1 elements (shared/docs/windows-engine.md §1).

export interface MsrcRemediation {
  /** 'Vendor Fix', 'Release Notes', 'Known Issue', 'Workaround', 'Mitigation', ... (XML Type text). */
  type: string;
  /** For Vendor Fix: the KB number without "KB" (or a text such as "Release Notes"). */
  description: string | null;
  url: string | null;
  /** Free text as served, e.g. "5034127", "4088875, 4100480", "MS16-110, 3187754". */
  supercedence: string | null;
  productIds: string[];
  subType: string | null;
  fixedBuild: string | null;
  restartRequired: string | null;
}

export interface MsrcScoreSet {
  baseScore: number | null;
  temporalScore: number | null;
  vector: string | null;
  productIds: string[];
}

export interface MsrcThreat {
  /** 'Impact' | 'Severity' | 'Exploit Status' | 'Target Set' */
  type: string;
  description: string;
  productIds: string[];
}

export interface MsrcRevision {
  number: string;
  date: string;
  description: string;
}

export interface MsrcVulnerability {
  cve: string;
  title: string;
  /** Notes by type (Description, FAQ, Tag, CNA, Other...), in document order. */
  notes: { type: string; title: string; text: string }[];
  cwes: { id: string; name: string }[];
  knownAffected: string[];
  threats: MsrcThreat[];
  scoreSets: MsrcScoreSet[];
  remediations: MsrcRemediation[];
  revisions: MsrcRevision[];
}

export interface MsrcDocument {
  /** Document ID as served, e.g. '2024-Aug', '2018-FEB', '2017-May-B'. */
  id: string;
  title: string;
  /** ISO 8601 UTC with Z (the document's own dates carry no zone; MSRC's index gives the same instant with Z). */
  initialReleaseDate: string | null;
  currentReleaseDate: string | null;
  /** The document-level revision counter (a regeneration number, not a semantic version). */
  revisionNumber: string | null;
  /** ProductID → FullProductName, exactly as served (names drift; key on the ID). */
  products: Map<string, string>;
  vulnerabilities: MsrcVulnerability[];
  /** CVE → vendor advisory page URL, as the document's own notes link it (no URL is constructed). */
  advisoryUrls: Map<string, string>;
  /** ProductID → name of the enclosing ProductTree Branch of Type "Product Family" ("Windows", "ESU",
   * "Microsoft Office", "Developer Tools", "Mariner", …). Absent on documents stored before it was read. */
  families?: Map<string, string>;
}

/** One entry of the `/cvrf/v3.0/updates` index. */
export interface MsrcUpdateEntry {
  id: string;
  alias: string;
  title: string;
  severity: string | null;
  initialReleaseDate: string;
  currentReleaseDate: string;
  cvrfUrl: string;
}
