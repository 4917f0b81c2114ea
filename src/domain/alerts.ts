// The alert run's rules (spec §6; docs/alerts.md): the sage_priority of an alert, and which of an
// organization's matching watch entries an alert names. Pure.
import type { ExploitMaturity } from './cve-document.ts';
import { maturityRank } from './changes.ts';
import type { WatchEntityType } from './watchlist.ts';
import { sageVisible, truncateSummary } from './cve-view.ts';
import { TIER_PERMISSIONS, type Tier } from './tiers.ts';

export const SAGE_PRIORITIES = ['PATCH NOW', 'PATCH NEXT', 'MONITOR', 'IGNORE'] as const;
export type SagePriority = (typeof SAGE_PRIORITIES)[number];

/** Where an alert stands: stored 'pending' by the run; the delivery work moves it on (docs/alerts.md "Delivery"). */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'no_webhooks', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** What the priority rule reads: the CVE's current facts, and whether it matched one of the organization's assets. */
export interface PriorityFacts {
  kev: boolean;
  exploit_maturity: ExploitMaturity;
  bcs: number;
  cvss: number | null;
  epss_percentile: number | null;
  patch_available: boolean;
  asset_match: boolean;
}

/**
 * sage_priority, modelled on the published four-tier "what to act on first" framework (published notes §3):
 *
 * PATCH NOW (same day), any of:
 *   - KEV (or WEAPONIZED) and (BCS ≥ 9 or an asset match);
 *   - CVSS 10 with at least a proof of concept and no fix available.
 * PATCH NEXT (within 72 h), any of:
 *   - KEV (or WEAPONIZED);
 *   - BCS ≥ 8 and a functional exploit or better;
 *   - EPSS percentile ≥ 0.90 and BCS ≥ 7;
 *   - an asset match and BCS ≥ 9.
 * MONITOR (next maintenance window), any of:
 *   - BCS ≥ 4;
 *   - a proof of concept or better;
 *   - EPSS percentile ≥ 0.50;
 *   - an asset match.
 * IGNORE: none of the above (BCS below 4, no exploit evidence, EPSS below the median, no asset match).
 *
 * A fix being available lowers nothing for a KEV CVE: the published BCS example keeps a patched KEV CVE at 10.
 */
export function sagePriority(f: PriorityFacts): SagePriority {
  const exploited = f.kev || f.exploit_maturity === 'WEAPONIZED';
  const m = maturityRank(f.exploit_maturity);
  const pct = f.epss_percentile ?? 0;
  if (exploited && (f.bcs >= 9 || f.asset_match)) return 'PATCH NOW';
  // Stryker disable next-line ConditionalExpression: null >= 10 is false in JavaScript; the null check is kept for the type narrowing
  if (f.cvss !== null && f.cvss >= 10 && m >= maturityRank('POC') && !f.patch_available) return 'PATCH NOW';
  if (exploited) return 'PATCH NEXT';
  if (f.bcs >= 8 && m >= maturityRank('FUNCTIONAL')) return 'PATCH NEXT';
  if (pct >= 0.9 && f.bcs >= 7) return 'PATCH NEXT';
  if (f.asset_match && f.bcs >= 9) return 'PATCH NEXT';
  if (f.bcs >= 4 || m >= maturityRank('POC') || pct >= 0.5 || f.asset_match) return 'MONITOR';
  return 'IGNORE';
}

/** A matching watch entry (or, once asset correlation stores matches, an environment). */
export interface MatchCandidate {
  entity_type: WatchEntityType | 'environment';
  entity_name: string;
}

/** The most specific first: the CVE itself, an asset, a product, a vendor, a protocol. */
const SPECIFICITY: Record<MatchCandidate['entity_type'], number> = {
  cve: 0,
  environment: 1,
  product: 2,
  vendor: 3,
  protocol: 4,
};

/** The match an alert names (spec §6 `watchlist_match`): the most specific; ties by name. */
export function bestMatch(candidates: MatchCandidate[]): MatchCandidate | null {
  let best: MatchCandidate | null = null;
  for (const c of candidates) {
    if (!best) best = c;
    else {
      const d = SPECIFICITY[c.entity_type] - SPECIFICITY[best.entity_type];
      if (d < 0 || (d === 0 && c.entity_name.localeCompare(best.entity_name) < 0)) best = c;
    }
  }
  return best;
}

/**
 * An alert's delivery status from its webhook outcomes (docs/alerts.md "Delivery"): no active webhook →
 * `no_webhooks`; any failure → `failed`; otherwise any delivery → `delivered`; every webhook already claimed for
 * this CVE by an earlier attempt (or disabled meanwhile) → `skipped` (nothing sent now: the claim forbids a resend).
 */
export function deliveryStatusOf(
  outcomes: readonly ('delivered' | 'failed' | 'skipped')[],
): Exclude<DeliveryStatus, 'pending'> {
  if (outcomes.length === 0) return 'no_webhooks';
  if (outcomes.includes('failed')) return 'failed';
  if (outcomes.includes('delivered')) return 'delivered';
  return 'skipped';
}

/** What an alert email shows of one alert (the stored cve.alert payload's data). */
export interface EmailAlertLine {
  cve_id: string;
  title: string;
  sage_priority: string;
  cvss_score: number | null;
  kev_flagged: boolean;
  url: string;
  reasons?: string[];
  watchlist_match: { entity_type: string; entity_name: string };
}

/** One instant alert, or a digest of several (plain text; docs/alerts.md "Email"). */
export function alertEmail(
  kind: 'instant' | 'daily_digest',
  lines: readonly EmailAlertLine[],
): { subject: string; text: string } {
  const block = (d: EmailAlertLine) =>
    [
      `${d.cve_id} — ${d.sage_priority}${d.kev_flagged ? ' (CISA KEV)' : ''}, CVSS ${d.cvss_score ?? 'n/a'}`,
      `  ${d.title}`,
      `  Matched: ${d.watchlist_match.entity_type} ${d.watchlist_match.entity_name}`,
      ...(d.reasons?.length ? [`  Why: ${d.reasons.join('; ')}`] : []),
      `  ${d.url}`,
    ].join('\n');
  const footer = '\n\nYou receive this because of your notification preferences (Account → Notifications).\n';
  if (kind === 'instant') {
    const d = lines[0];
    return { subject: `[Vulnintel] ${d.sage_priority}: ${d.cve_id}`, text: block(d) + footer };
  }
  return {
    subject: `[Vulnintel] Daily digest: ${lines.length} alert${lines.length === 1 ? '' : 's'}`,
    text: `${lines.length} alert${lines.length === 1 ? '' : 's'} since your last digest:\n\n${lines.map(block).join('\n\n')}${footer}`,
  };
}

/**
 * A cve.alert payload as an organization on `tier` may see it (spec §2.8 `sage_visible`, `virtual_patch`): the AI
 * texts follow the CVE API's rule (docs/cve-api.md "sage per tier"): below Professional the executive summary is
 * truncated and the remediation guidance (`mitigation`) withheld; `virtual_patch` only where the plan has it. The
 * stored payload is the CVE's, shared by every organization; this is applied where it leaves for one (the alert
 * list, the webhook delivery).
 */
export function alertPayloadFor<P extends { data: object }>(payload: P, tier: Tier | null): P {
  const full = sageVisible(tier);
  const patch = tier !== null && TIER_PERMISSIONS[tier].virtual_patch;
  if (full && patch) return payload;
  const d = payload.data as Record<string, unknown>;
  const data: Record<string, unknown> = { ...d };
  if (!full) {
    if ('executive_summary' in d)
      data.executive_summary = typeof d.executive_summary === 'string' ? truncateSummary(d.executive_summary) : null;
    if ('mitigation' in d) data.mitigation = null;
  }
  if (!patch && 'virtual_patch' in d) data.virtual_patch = null;
  return { ...payload, data };
}
