// The decisions part of a correlate-cves answer in an environment (docs/triage.md "Correlation answers and
// counts"): each listed CVE's triage decision for the asset, and the asset's CVEs counted by decision.
import { isOpen, type DecisionStatus } from '../domain/triage.ts';

/** A CVE's triage decision for one asset, as answers in an environment show it (docs/triage.md). */
export interface DecisionMark {
  status: DecisionStatus;
  open: boolean;
  review_again: boolean;
}
/** The decision covering (CVE, asset) in the answer's environment, or null when undecided there. */
export type DecisionLookup = (cveId: string, assetId: string) => DecisionMark | null;
/**
 * The asset's CVEs that the correlation finds affected or to review, by decision: `open` leaves out not_affected and
 * fixed (shown here, never hidden); `undecided` are open too.
 */
export interface DecisionCounts {
  open: number;
  undecided: number;
  under_investigation: number;
  affected: number;
  not_affected: number;
  fixed: number;
  review_again: number;
}
export const noDecisionCounts = (): DecisionCounts => ({
  open: 0,
  undecided: 0,
  under_investigation: 0,
  affected: 0,
  not_affected: 0,
  fixed: 0,
  review_again: 0,
});

/** A lookup over an environment's decisions (store/triage-decisions.ts decisionStatuses). */
export function decisionLookup(
  map: ReadonlyMap<string, { status: DecisionStatus; asset_ids: string[]; review: boolean }>,
): DecisionLookup {
  return (cve, asset) => {
    const d = map.get(cve);
    if (!d || (d.asset_ids.length > 0 && !d.asset_ids.includes(asset))) return null;
    return { status: d.status, open: isOpen(d.status), review_again: d.review };
  };
}
