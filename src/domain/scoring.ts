// EPSS interpretation, the BCS criticality score and the bsid. Pure; published in docs/enrichment.md.
import type { Severity } from './cve-document.ts';
import { severityFromScore } from './cvss.ts';
import { parseCveId } from './cve-id.ts';

/** EPSS interpretation label by percentile (published-service-notes §2.2). */
export function epssInterpretation(percentile: number | null): string | null {
  // Stryker disable next-line ConditionalExpression: Number.isFinite(null) is false, so null returns null either way; kept for the type narrowing
  if (percentile === null || !Number.isFinite(percentile)) return null;
  if (percentile >= 0.95) return 'Top 5% most likely to be exploited';
  if (percentile >= 0.9) return 'Top 10% most likely to be exploited';
  if (percentile >= 0.75) return 'Top 25% most likely to be exploited';
  if (percentile >= 0.5) return 'Above median exploitation probability';
  return 'Below median exploitation probability';
}

/** BCS weights (published in docs/enrichment.md). */
export const BCS_WEIGHTS = {
  /** Base when a CVE has no CVSS score at all (unknown severity reads as medium). */
  base_without_cvss: 5.0,
  kev: 2.0,
  public_exploit: 1.5,
  poc: 0.75,
  ics_relevance: 1.0,
  epss_top_10: 0.75,
  patch_available: -0.5,
} as const;
export const BCS_ICS_THRESHOLD = 0.7;
export const BCS_EPSS_PERCENTILE_THRESHOLD = 0.9;

export interface BcsInput {
  cvss_score: number | null;
  kev_flagged: boolean;
  has_public_exploit: boolean;
  poc_available: boolean;
  patch_available: boolean;
  ics_relevance: number;
  epss_percentile: number | null;
}

export function bcsTier(score: number): Severity {
  return severityFromScore(score);
}

/**
 * BCS = CVSS base + 2.0 (KEV) + 1.5 (functional public exploit) or 0.75 (PoC only) + 1.0 (ICS relevance ≥ 0.7)
 *       + 0.75 (EPSS percentile ≥ 0.90) − 0.5 (patch available), clamped to [0, 10], one decimal.
 */
export function computeBcs(i: BcsInput): { score: number; tier: Severity } {
  let s = i.cvss_score ?? BCS_WEIGHTS.base_without_cvss;
  if (i.kev_flagged) s += BCS_WEIGHTS.kev;
  if (i.has_public_exploit) s += BCS_WEIGHTS.public_exploit;
  else if (i.poc_available) s += BCS_WEIGHTS.poc;
  if (i.ics_relevance >= BCS_ICS_THRESHOLD) s += BCS_WEIGHTS.ics_relevance;
  // Stryker disable next-line ConditionalExpression: null >= the threshold is false in JavaScript; kept for the type narrowing
  if (i.epss_percentile !== null && i.epss_percentile >= BCS_EPSS_PERCENTILE_THRESHOLD) s += BCS_WEIGHTS.epss_top_10;
  if (i.patch_available) s += BCS_WEIGHTS.patch_available;
  const score = Math.round(Math.min(10, Math.max(0, s)) * 10) / 10;
  return { score, tier: bcsTier(score) };
}

/** MSRC's vendor rating (CVRF `Severity` threat) on the CVSS severity scale. */
const MSRC_RATING: Record<string, Severity> = {
  critical: 'CRITICAL',
  important: 'HIGH',
  moderate: 'MEDIUM',
  low: 'LOW',
};

/**
 * Severity of the summary card (spec §2.2): the CVSS severity of `scoring.cvss` (whose metric comes from the
 * fallback chain of merge.ts `chooseCvss`: NVD, the numbering authority, CISA, anything else); else the vendor's own rating — MSRC Critical → CRITICAL,
 * Important → HIGH, Moderate → MEDIUM, Low → LOW; else null: the CVE is not scored (e.g. a KEV-only CVE).
 * Never derived from the BCS, which already counts KEV and exploits.
 */
export function cardSeverity(cvssSeverity: Severity | null, vendorRating: string | null): Severity | null {
  if (cvssSeverity) return cvssSeverity;
  return (vendorRating && MSRC_RATING[vendorRating.trim().toLowerCase()]) || null;
}

const SEVERITY_LETTER: Record<Severity, string> = { CRITICAL: 'C', HIGH: 'H', MEDIUM: 'M', LOW: 'L' };

/**
 * bsid `BS-YYYY-NNNNNN-S`: the CVE year, its sequence number zero-padded to at least six digits (longer
 * sequence numbers are kept whole, so the id stays unique), and the severity letter (C/H/M/L) of the
 * card severity (`cardSeverity`), or of the BCS tier when the CVE is not scored.
 */
export function bsid(cveId: string, severity: Severity): string {
  const m = parseCveId(cveId);
  if (!m) throw new Error(`not a CVE id: ${cveId}`);
  return `BS-${m.year}-${m.seq.padStart(6, '0')}-${SEVERITY_LETTER[severity]}`;
}
