// CVE change history (docs/watchlists.md "Change history"): which differences between the stored and the
// newly enriched document people act on, with before and after values. Pure: the import reads the stored facts,
// builds the new document, and records what `diffCve` returns. An unchanged document yields nothing.
import type { CveDocument, ExploitMaturity, PatchStatus, Severity } from './cve-document.ts';
import type { AffectedRange } from './ranges.ts';
import { describe as rangeText } from './correlate.ts';

/** The parts of a document the change rules read (what the import loads of the stored row). */
export type FactSource = Pick<CveDocument, 'severity' | 'scoring' | 'exploitation' | 'patch' | 'references'>;

/** The facts compared between two versions of a CVE. */
export interface ChangeFacts {
  cvss_score: number | null;
  cvss_version: string | null;
  /** Card severity (CVSS, else the vendor rating). */
  severity: Severity | null;
  kev: boolean;
  kev_added_at: string | null;
  epss_percentile: number | null;
  exploit_maturity: ExploitMaturity;
  patch_status: PatchStatus;
  patch_available: boolean;
  /** Vendor advisory URLs, sorted. */
  vendor_advisories: string[];
  /** CISA ICS advisory ids, sorted. */
  cisa_advisories: string[];
}

export type ChangeKind =
  | 'new_cve'
  | 'cve_removed'
  | 'kev_added'
  | 'kev_removed'
  | 'epss_threshold'
  | 'cvss_changed'
  | 'exploit_maturity_up'
  | 'patch_changed'
  | 'advisory_added'
  | 'ranges_changed';

/** Every kind, in the order one CVE's changes are recorded. */
export const CHANGE_KINDS: readonly ChangeKind[] = [
  'new_cve',
  'cve_removed',
  'kev_added',
  'kev_removed',
  'epss_threshold',
  'cvss_changed',
  'exploit_maturity_up',
  'patch_changed',
  'advisory_added',
  'ranges_changed',
];

export interface CveChange {
  kind: ChangeKind;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/**
 * EPSS percentile thresholds: the published interpretation bands (median, top 25 %, top 10 %, top 5 %). A change
 * is recorded when the percentile moves from one band to another, in either direction; a move inside a band
 * (0.91 → 0.93) is not.
 */
export const EPSS_THRESHOLDS = [0.5, 0.75, 0.9, 0.95] as const;

/** The band of a percentile: how many thresholds it reaches (0 = below the median; null = no EPSS score). */
export function epssBand(p: number | null): number | null {
  if (p === null) return null;
  return EPSS_THRESHOLDS.filter((t) => p >= t).length;
}

const MATURITY_RANK: Record<ExploitMaturity, number> = { NONE: 0, POC: 1, FUNCTIONAL: 2, WEAPONIZED: 3 };

export function maturityRank(m: ExploitMaturity): number {
  return MATURITY_RANK[m] ?? 0;
}

const sorted = (xs: string[]) => [...new Set(xs)].sort();

export function factsOf(d: FactSource): ChangeFacts {
  return {
    cvss_score: d.scoring.cvss.score,
    cvss_version: d.scoring.cvss.version,
    severity: d.severity,
    kev: d.exploitation.kev_flagged,
    kev_added_at: d.exploitation.kev_added_at,
    epss_percentile: d.scoring.epss.percentile,
    exploit_maturity: d.exploitation.exploit_maturity,
    patch_status: d.patch.status,
    patch_available: d.patch.patch_available,
    vendor_advisories: sorted(d.references.vendor_advisories.map((a) => a.url)),
    cisa_advisories: sorted(d.references.cisa_ics_advisories.map((a) => a.advisory_id)),
  };
}

/** The values a reader needs to act on a change, carried by `new_cve` and `cve_removed`. */
function headline(f: ChangeFacts): Record<string, unknown> {
  return {
    cvss_score: f.cvss_score,
    severity: f.severity,
    kev: f.kev,
    epss_percentile: f.epss_percentile,
    exploit_maturity: f.exploit_maturity,
    patch_status: f.patch_status,
  };
}

/**
 * The changes from `before` (the stored facts; null = not in the corpus) to `after` (null = removed). A new CVE is
 * one `new_cve` change and nothing else (there is nothing to compare with). Rules:
 * - `kev_added` / `kev_removed`: the KEV flag changed;
 * - `epss_threshold`: the percentile moved to another band of EPSS_THRESHOLDS (a first score counts as a move
 *   from no band only when it lands at or above the median: a new 0.02 is noise);
 * - `cvss_changed`: the CVSS score, its version or the card severity changed;
 * - `exploit_maturity_up`: NONE < POC < FUNCTIONAL < WEAPONIZED rose (a fall is not recorded);
 * - `patch_changed`: the patch status or whether a fix is available changed;
 * - `advisory_added`: a vendor advisory URL or a CISA ICS advisory id appeared (removals are not recorded).
 */
export function diffCve(before: ChangeFacts | null, after: ChangeFacts | null): CveChange[] {
  if (before === null && after === null) return [];
  if (before === null) return [{ kind: 'new_cve', before: null, after: headline(after!) }];
  if (after === null) return [{ kind: 'cve_removed', before: headline(before), after: null }];
  const out: CveChange[] = [];
  if (before.kev !== after.kev) {
    out.push({
      kind: after.kev ? 'kev_added' : 'kev_removed',
      before: { kev: before.kev, kev_added_at: before.kev_added_at },
      after: { kev: after.kev, kev_added_at: after.kev_added_at },
    });
  }
  const bb = epssBand(before.epss_percentile);
  const ab = epssBand(after.epss_percentile);
  if (bb !== ab && !(bb === null && ab === 0) && !(bb === 0 && ab === null)) {
    out.push({
      kind: 'epss_threshold',
      before: { epss_percentile: before.epss_percentile, band: bb },
      after: { epss_percentile: after.epss_percentile, band: ab },
    });
  }
  if (
    before.cvss_score !== after.cvss_score ||
    before.cvss_version !== after.cvss_version ||
    before.severity !== after.severity
  ) {
    out.push({
      kind: 'cvss_changed',
      before: { cvss_score: before.cvss_score, cvss_version: before.cvss_version, severity: before.severity },
      after: { cvss_score: after.cvss_score, cvss_version: after.cvss_version, severity: after.severity },
    });
  }
  if (maturityRank(after.exploit_maturity) > maturityRank(before.exploit_maturity)) {
    out.push({
      kind: 'exploit_maturity_up',
      before: { exploit_maturity: before.exploit_maturity },
      after: { exploit_maturity: after.exploit_maturity },
    });
  }
  if (before.patch_status !== after.patch_status || before.patch_available !== after.patch_available) {
    out.push({
      kind: 'patch_changed',
      before: { patch_status: before.patch_status, patch_available: before.patch_available },
      after: { patch_status: after.patch_status, patch_available: after.patch_available },
    });
  }
  const newVendor = after.vendor_advisories.filter((u) => !before.vendor_advisories.includes(u));
  const newCisa = after.cisa_advisories.filter((u) => !before.cisa_advisories.includes(u));
  if (newVendor.length || newCisa.length) {
    out.push({
      kind: 'advisory_added',
      before: { vendor_advisories: before.vendor_advisories.length, cisa_advisories: before.cisa_advisories.length },
      after: { vendor_advisories: newVendor, cisa_advisories: newCisa },
    });
  }
  return out;
}

/** One line a person reads: "added to KEV", "EPSS percentile 45 → 92". */
export function describeChange(c: CveChange): string {
  const pct = (v: unknown) => (typeof v === 'number' ? String(Math.round(v * 100)) : 'none');
  const b = c.before ?? {};
  const a = c.after ?? {};
  switch (c.kind) {
    case 'new_cve':
      return 'new CVE';
    case 'cve_removed':
      return 'removed from the corpus';
    case 'kev_added':
      return 'added to KEV';
    case 'kev_removed':
      return 'removed from KEV';
    case 'epss_threshold':
      return `EPSS percentile ${pct(b.epss_percentile)} → ${pct(a.epss_percentile)}`;
    case 'cvss_changed': {
      const score = (v: unknown) => (typeof v === 'number' ? String(v) : 'none');
      const sev = (v: unknown) => (typeof v === 'string' ? v : 'not scored');
      return `CVSS ${score(b.cvss_score)} → ${score(a.cvss_score)}${b.severity !== a.severity ? ` (${sev(b.severity)} → ${sev(a.severity)})` : ''}`;
    }
    case 'exploit_maturity_up':
      return `exploit maturity ${String(b.exploit_maturity)} → ${String(a.exploit_maturity)}`;
    case 'patch_changed':
      return a.patch_available && !b.patch_available
        ? 'fix available'
        : `patch status ${String(b.patch_status)} → ${String(a.patch_status)}`;
    case 'ranges_changed':
      return 'affected versions changed';
    case 'advisory_added': {
      const texts = (x: unknown): string[] =>
        Array.isArray(x) ? x.filter((y): y is string => typeof y === 'string') : [];
      const v = texts(a.vendor_advisories).length;
      const cisa = texts(a.cisa_advisories);
      return [
        cisa.length ? `new CISA advisory ${cisa.join(', ')}` : '',
        v ? `${v} new vendor advisor${v === 1 ? 'y' : 'ies'}` : '',
      ]
        .filter(Boolean)
        .join('; ');
    }
  }
}

/** At most this many range lines are kept on each side of a `ranges_changed` change (the count says how many in all). */
export const RANGE_LINES_MAX = 50;

/**
 * One range as a compact line a person reads: "Siemens SIMATIC S7-1500: < V2.9.2, fixed in V2.9.2". The status is
 * named when it is not `affected`, the platform when the range applies only running on one.
 */
export function rangeLine(r: AffectedRange): string {
  const extra = [
    r.status !== 'affected' ? r.status : '',
    r.fixedIn ? `fixed in ${r.fixedIn}` : '',
    r.runningOn?.length ? `running on ${r.runningOn.join(' or ')}` : '',
  ].filter(Boolean);
  return `${r.vendor} ${r.product}: ${rangeText(r)}${extra.length ? `, ${extra.join(', ')}` : ''}`;
}

/**
 * `ranges_changed`: the affected ranges of a CVE before and after an import, compared as sets of lines (rangeLine),
 * so the same ranges in another order, or from a second source stating the same, are no change. The change holds
 * only the lines that differ: `before.ranges` those removed (or whose bounds / fixed version changed, in their old
 * form), `after.ranges` those added (in their new form), each sorted and capped at RANGE_LINES_MAX, with counts.
 */
export function diffRanges(before: readonly AffectedRange[], after: readonly AffectedRange[]): CveChange | null {
  const b = new Set(before.map(rangeLine));
  const a = new Set(after.map(rangeLine));
  const removed = [...b].filter((l) => !a.has(l)).sort();
  const added = [...a].filter((l) => !b.has(l)).sort();
  if (!removed.length && !added.length) return null;
  return {
    kind: 'ranges_changed',
    before: { ranges: removed.slice(0, RANGE_LINES_MAX), removed: removed.length, total: b.size },
    after: { ranges: added.slice(0, RANGE_LINES_MAX), added: added.length, total: a.size },
  };
}
