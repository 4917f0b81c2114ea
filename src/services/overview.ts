// The overview of an organization's environments (the web app's first page, the daily exposure snapshot and the
// plant reports): per environment, the open CVEs of its stored assets by sage priority and by severity, the
// known-exploited ones and the worst-exposed assets. Computed from the same answers as GET /api/v1/assets/results
// (AssetCorrelation.results, with each CVE's triage decision), the same priority rule as the alert run
// (domain/alerts.ts sagePriority) and the same severity buckets as the check call (severityCounts): no rule of its own.
// A CVE is open on an asset when the correlation finds it affected and no decision there takes it out
// (not_affected, fixed: domain/triage.ts isOpen); it is open in the environment when it is open on one asset.
import { EXPLOIT_MATURITIES, oneOf } from './stored-values.ts';
import { sagePriority, type SagePriority } from '../domain/alerts.ts';
import { DEFAULT_OPTIONS, severityCounts, type SeverityCounts } from './correlation-answer.ts';
import type { AssetCorrelation } from './asset-correlation.ts';
import type { EnvironmentService, Environment } from './environments.ts';
import type { Principal } from './identity.ts';
import { LRUCache } from 'lru-cache';

export interface ExposedAsset {
  asset_id: string;
  vendor: string;
  product: string;
  version: string | null;
  affected: number;
  needs_review: number;
  known_exploited: number;
}

export interface OpenCve {
  cve_id: string;
  title: string;
  priority: SagePriority;
  known_exploited: boolean;
  published_at: string | null;
  vendor: string;
  severity: string | null;
  /** The open assets it affects, in the order met (asset_id order), and the fixed version the correlation names on each (null: none stated). */
  assets: { asset_id: string; product: string; version: string | null; fixed_version: string | null }[];
}

export interface EnvironmentOverview {
  environment: Environment;
  assets: number;
  /** Distinct open CVEs affecting at least one asset, by sage priority (an asset match counts, as in the alert run). */
  by_priority: Record<SagePriority, number>;
  /** The same CVEs by CVSS severity (severityCounts: a CVE without a severity counts as none). */
  by_severity: SeverityCounts;
  known_exploited: number;
  needs_review: number;
  /** Assets with at least one open CVE. */
  assets_exposed: number;
  /** Distinct CVEs the correlation finds affected whose decisions take them out of the open counts on every asset. */
  closed_by_decision: number;
  worst_assets: ExposedAsset[];
  open_cves: OpenCve[];
}

const PAGE = 500;
/** Environments whose overview is kept (docs/adr/0103): each holds its open CVEs with their assets, tens to hundreds of kB. */
const KEPT = 256;

export interface OverviewDeps {
  environments: EnvironmentService;
  assets: AssetCorrelation;
  /** A text that changes whenever the environment's stored assets or decisions do (store/asset-correlations.ts environmentStamp). */
  stamp?: (orgId: number, environmentId: number) => Promise<string>;
  /** The corpus generation the asset answers were decided against; null while it cannot be known (nothing is kept then). */
  generation?: () => number | null;
}

export function createOverviewService(deps: OverviewDeps) {
  const kept = new LRUCache<string, { stamp: string; generation: number; value: EnvironmentOverview }>({ max: KEPT });

  /**
   * An environment's overview, kept between calls while neither its stored assets and decisions (the stamp) nor the
   * corpus (the generation) changed: recomputing it decides every stored asset again (docs/adr/0103). Computed after
   * the stamp and generation are read, so a write landing meanwhile leaves a stale key, never a stale answer.
   */
  async function environmentOverview(p: Pick<Principal, 'orgId'>, env: Environment): Promise<EnvironmentOverview> {
    const generation = deps.generation?.() ?? null;
    if (!deps.stamp || generation === null) return computeOverview(p, env);
    const key = `${p.orgId}/${env.id}`;
    const stamp = await deps.stamp(p.orgId, env.id);
    const hit = kept.get(key);
    if (hit && hit.stamp === stamp && hit.generation === generation) return { ...hit.value, environment: env };
    const value = await computeOverview(p, env);
    kept.set(key, { stamp, generation, value });
    return value;
  }

  async function computeOverview(p: Pick<Principal, 'orgId'>, env: Environment): Promise<EnvironmentOverview> {
    const open = new Map<string, OpenCve>();
    const closed = new Set<string>();
    const review = new Set<string>();
    const exposed: ExposedAsset[] = [];
    let assets = 0;
    let assetsExposed = 0;
    for (let page = 1; ; page++) {
      const r = await deps.assets.results({
        principal: p,
        environmentId: env.id,
        assetId: null,
        page,
        perPage: PAGE,
        options: { ...DEFAULT_OPTIONS, cve_page: null },
      });
      for (let i = 0; i < r.count; i++) {
        const a = r.answer(i);
        assets++;
        let kev = 0;
        let openHere = 0;
        for (const d of a.listed) {
          if (d.v.status === 'needs_review') review.add(d.cve_id);
          if (d.v.status !== 'affected') continue;
          const mark = a.decisions?.marks.get(d.cve_id) ?? null;
          if (mark && !mark.open) {
            closed.add(d.cve_id);
            continue;
          }
          openHere++;
          if (d.card.kev_flagged) kev++;
          const onAsset = {
            asset_id: a.asset.asset_id,
            product: a.asset.product,
            version: a.asset.version,
            fixed_version: d.v.fixed_version,
          };
          const seen = open.get(d.cve_id);
          if (seen) {
            seen.assets.push(onAsset);
            continue;
          }
          const priority = sagePriority({
            kev: d.card.kev_flagged,
            exploit_maturity: oneOf(EXPLOIT_MATURITIES, d.card.exploit_maturity, 'cves.exploit_maturity'),
            bcs: d.card.bcs_score,
            cvss: d.card.cvss_score,
            epss_percentile: d.card.epss_percentile,
            patch_available: d.v.fixed_version !== null,
            asset_match: true,
          });
          open.set(d.cve_id, {
            cve_id: d.cve_id,
            title: d.card.title,
            priority,
            known_exploited: d.card.kev_flagged,
            published_at: d.card.published_at ? new Date(d.card.published_at).toISOString() : null,
            vendor: a.asset.vendor,
            severity: d.card.severity,
            assets: [onAsset],
          });
        }
        if (openHere > 0) assetsExposed++;
        exposed.push({
          asset_id: a.asset.asset_id,
          vendor: a.asset.vendor,
          product: a.asset.product,
          version: a.asset.version,
          affected: a.counts.affected,
          needs_review: a.counts.needs_review,
          known_exploited: kev,
        });
      }
      if (page * PAGE >= r.total) break;
    }
    const by_priority: Record<SagePriority, number> = { 'PATCH NOW': 0, 'PATCH NEXT': 0, MONITOR: 0, IGNORE: 0 };
    let known_exploited = 0;
    for (const c of open.values()) {
      by_priority[c.priority]++;
      if (c.known_exploited) known_exploited++;
    }
    for (const id of open.keys()) {
      review.delete(id);
      closed.delete(id);
    }
    const worst_assets = exposed
      .filter((x) => x.affected > 0)
      .sort(
        (x, y) =>
          y.known_exploited - x.known_exploited || y.affected - x.affected || (x.asset_id < y.asset_id ? -1 : 1),
      )
      .slice(0, 5);
    const open_cves = [...open.values()];
    return {
      environment: env,
      assets,
      by_priority,
      by_severity: severityCounts(
        open_cves.map((c) => ({ cve_id: c.cve_id, severity: c.severity, kev_flagged: c.known_exploited })),
      ),
      known_exploited,
      needs_review: review.size,
      assets_exposed: assetsExposed,
      closed_by_decision: closed.size,
      worst_assets,
      open_cves,
    };
  }

  return {
    environmentOverview,
    /** Every environment of the caller's organization, oldest first. */
    async overview(p: Pick<Principal, 'orgId'>): Promise<EnvironmentOverview[]> {
      const envs = await deps.environments.list(p.orgId);
      return Promise.all(envs.map((e) => environmentOverview(p, e)));
    },
  };
}
export type OverviewService = ReturnType<typeof createOverviewService>;
