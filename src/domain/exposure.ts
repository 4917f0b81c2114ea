// Exposure history and plant reports (docs/reports.md): the figures of one environment's daily snapshot, the
// history window, the report periods and what changed between two reports. Pure: the services compute the open
// CVEs (services/overview.ts) and the decisions (store/triage-decisions.ts); this only shapes and compares them.
import type { DecisionStatus } from './triage.ts';
import { SAGE_PRIORITIES, type SagePriority } from './alerts.ts';

/** Days of snapshots kept; older ones are pruned by the daily job. */
export const HISTORY_DAYS = 400;
/** Days of history before the web app draws the exposure line (fewer: it says how many there are). */
export const CHART_MIN_DAYS = 30;

const DAY_MS = 86_400_000;

export interface SeverityFigures {
  critical: number;
  high: number;
  medium: number;
  low: number;
  none: number;
}

/** One environment on one day. */
export interface ExposureFigures {
  open_cves: number;
  by_priority: Record<SagePriority, number>;
  by_severity: SeverityFigures;
  known_exploited: number;
  assets_exposed: number;
  windows_eol_hosts: number;
  decisions: Record<DecisionStatus, number> & { review_again: number };
  /** Mean days since publication of the open known-exploited CVEs, one decimal; null when there is none. */
  kev_mean_age_days: number | null;
}

/** The UTC calendar day of an instant, YYYY-MM-DD. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** `day` moved by `days` (negative: back), YYYY-MM-DD. */
export function addDays(day: string, days: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS));
}

/** The first day still kept on `today`: snapshots of earlier days are pruned. */
export function oldestKept(today: string): string {
  return addDays(today, -(HISTORY_DAYS - 1));
}

/**
 * Mean age in days (to `at`) of the open known-exploited CVEs, from their publication date; CVEs without one are
 * left out. One decimal; null when none counts.
 */
export function meanKevAgeDays(
  open: readonly { known_exploited: boolean; published_at: string | null }[],
  at: Date,
): number | null {
  let sum = 0;
  let n = 0;
  for (const c of open) {
    if (!c.known_exploited || c.published_at === null) continue;
    sum += Math.max(0, (at.getTime() - Date.parse(c.published_at)) / DAY_MS);
    n++;
  }
  return n === 0 ? null : Math.round((sum / n) * 10) / 10;
}

/** An environment's decisions by status, with how many are flagged "review again". */
export function decisionFigures(
  decisions: Iterable<{ status: DecisionStatus; review: boolean }>,
): ExposureFigures['decisions'] {
  const out: Record<DecisionStatus, number> = { under_investigation: 0, affected: 0, not_affected: 0, fixed: 0 };
  let review = 0;
  for (const d of decisions) {
    out[d.status]++;
    if (d.review) review++;
  }
  return { ...out, review_again: review };
}

export type Cadence = 'weekly' | 'monthly';
export const CADENCES = ['none', 'weekly', 'monthly'] as const;

/** A report period: from `start` (included) to `end` (excluded), UTC days. */
export interface Period {
  start: string;
  end: string;
}

/**
 * The last complete period of a cadence on `today`: the ISO week (Monday to Monday) or the calendar month that
 * ended on or before today. A scheduled report covers it; a run on any later day of the next period finds the same
 * one, so a report not sent yet is retried until the next period ends.
 */
export function lastCompletePeriod(cadence: Cadence, today: string): Period {
  const d = new Date(`${today}T00:00:00Z`);
  if (cadence === 'weekly') {
    const sinceMonday = (d.getUTCDay() + 6) % 7;
    const end = addDays(today, -sinceMonday);
    return { start: addDays(end, -7), end };
  }
  const end = utcDay(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)));
  const start = utcDay(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1)));
  return { start, end };
}

/** What changed between two reports: CVEs newly open, CVEs no longer open, and each figure's difference. */
export interface ReportChanges {
  new_open: string[];
  no_longer_open: string[];
  open_cves: number;
  known_exploited: number;
  assets_exposed: number;
  windows_eol_hosts: number;
}

export function changesSince(
  before: { open_cve_ids: readonly string[]; figures: ExposureFigures },
  now: { open_cve_ids: readonly string[]; figures: ExposureFigures },
): ReportChanges {
  const was = new Set(before.open_cve_ids);
  const is = new Set(now.open_cve_ids);
  return {
    new_open: [...is].filter((c) => !was.has(c)).sort(),
    no_longer_open: [...was].filter((c) => !is.has(c)).sort(),
    open_cves: now.figures.open_cves - before.figures.open_cves,
    known_exploited: now.figures.known_exploited - before.figures.known_exploited,
    assets_exposed: now.figures.assets_exposed - before.figures.assets_exposed,
    windows_eol_hosts: now.figures.windows_eol_hosts - before.figures.windows_eol_hosts,
  };
}

/** Days of history a range holds (inclusive); refuses a range that ends before it starts. */
export function rangeDays(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

/** A YYYY-MM-DD that names a real calendar day. */
export function isCalendarDay(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const t = Date.parse(`${s}T00:00:00Z`);
  return Number.isFinite(t) && utcDay(new Date(t)) === s;
}

/**
 * What to patch first: sage priority (PATCH NOW first), then known-exploited, then the CVE on more open assets,
 * then the CVE id (a stable order for equal ones).
 */
export function patchFirstOrder(
  a: { cve_id: string; priority: SagePriority; known_exploited: boolean; assets: readonly unknown[] },
  b: typeof a,
): number {
  return (
    SAGE_PRIORITIES.indexOf(a.priority) - SAGE_PRIORITIES.indexOf(b.priority) ||
    Number(b.known_exploited) - Number(a.known_exploited) ||
    b.assets.length - a.assets.length ||
    (a.cve_id < b.cve_id ? -1 : a.cve_id > b.cve_id ? 1 : 0)
  );
}
