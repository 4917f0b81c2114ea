// Exposure history (docs/reports.md): the daily snapshot of every environment of the active organizations, taken by
// the `exposure-snapshot` job, and its reading by GET /api/v1/environments/{id}/exposure-history and the web app's
// chart. Each figure comes from the services that show it elsewhere: the open CVEs from the overview
// (services/overview.ts, which reads the correlation answers with their decisions), the decisions from the triage
// service, the Windows hosts past end of life from the Windows correlation's stored results. No rule of its own.
import type { Clock } from '../lib/clock.ts';
import type { Db } from '../store/db.ts';
import type { Config } from '../config.ts';
import { environmentExists } from '../store/windows.ts';
import { activeOrgIds, pruneSnapshots, putSnapshots, snapshotsBetween, type SnapshotRow } from '../store/exposure.ts';
import { decisionFigures, meanKevAgeDays, oldestKept, utcDay, type ExposureFigures } from '../domain/exposure.ts';
import { createEnvironmentService, type Environment, type EnvironmentService } from './environments.ts';
import { createOverviewService, type EnvironmentOverview, type OverviewService } from './overview.ts';
import { createAssetCorrelation } from './asset-correlation.ts';
import { createWindowsCorrelation, type WindowsCorrelation } from './windows-correlation.ts';
import { createTriageService, type TriageService } from './triage.ts';
import { SORTS } from './correlation-answer.ts';

export interface EolHost {
  asset_id: string;
  microsoft_product: string | null;
}

/** One environment now: its overview, the figures of a snapshot, and the Windows hosts past end of life. */
export interface EnvironmentExposure {
  overview: EnvironmentOverview;
  figures: ExposureFigures;
  open_cve_ids: string[];
  eol_hosts: EolHost[];
}

export interface ExposureDeps {
  db: Db;
  clock: Clock;
  environments: EnvironmentService;
  overview: OverviewService;
  windows: WindowsCorrelation;
  triage: TriageService;
}

/** Environments snapshotted at once: each is a few queries, so a little overlap keeps the database busy. */
const PARALLEL = 8;
const HOST_PAGE = 200;

export function createExposureHistory(deps: ExposureDeps) {
  /** The environment's stored Windows hosts that the Windows correlation finds past end of life, by asset_id. */
  async function eolHosts(orgId: number, env: Environment): Promise<EolHost[]> {
    // Without hosts there is nothing to evaluate (and no reason to load the Windows engine's index).
    if (env.host_count === 0) return [];
    const out: EolHost[] = [];
    for (let page = 1; ; page++) {
      const r = await deps.windows.results({
        orgId,
        environmentId: env.id,
        page,
        perPage: HOST_PAGE,
        options: {
          include_cleared: false,
          sort: SORTS[0],
          confirmed_only: false,
          known_exploited_only: false,
          fix_available_only: false,
          cve_page: 1,
          cve_page_size: 1,
        },
      });
      for (const h of r.assets)
        if (h.end_of_life) out.push({ asset_id: h.asset_id, microsoft_product: h.microsoft_product });
      if (page * HOST_PAGE >= r.total) break;
    }
    return out;
  }

  async function exposure(orgId: number, env: Environment): Promise<EnvironmentExposure> {
    const at = deps.clock.now();
    const [overview, decisions, eol] = await Promise.all([
      deps.overview.environmentOverview({ orgId }, env),
      deps.triage.statuses(orgId, env.id),
      eolHosts(orgId, env),
    ]);
    const figures: ExposureFigures = {
      open_cves: overview.open_cves.length,
      by_priority: overview.by_priority,
      by_severity: overview.by_severity,
      known_exploited: overview.known_exploited,
      assets_exposed: overview.assets_exposed,
      windows_eol_hosts: eol.length,
      decisions: decisionFigures(decisions.values()),
      kev_mean_age_days: meanKevAgeDays(overview.open_cves, at),
    };
    return { overview, figures, open_cve_ids: overview.open_cves.map((c) => c.cve_id).sort(), eol_hosts: eol };
  }

  return {
    exposure,

    /**
     * Takes today's (UTC) snapshot of every environment of every active organization, then prunes what is older
     * than the kept window. Rerun on the same day, it replaces the day's rows.
     */
    async snapshotAll(
      onError: (orgId: number, environmentId: number, err: Error) => void = () => {},
    ): Promise<{ day: string; environments: number; failed: number; pruned: number }> {
      const day = utcDay(deps.clock.now());
      const orgs = await activeOrgIds(deps.db);
      let environments = 0;
      let failed = 0;
      let next = 0;
      async function worker() {
        while (next < orgs.length) {
          const orgId = orgs[next++];
          const rows = [];
          for (const env of await deps.environments.list(orgId)) {
            try {
              const e = await exposure(orgId, env);
              rows.push({ orgId, environmentId: env.id, figures: e.figures, open_cve_ids: e.open_cve_ids });
            } catch (err) {
              // One environment that cannot be read (its stored hosts refused by today's rules, say) does not stop the others.
              failed++;
              onError(orgId, env.id, err instanceof Error ? err : new Error(String(err)));
            }
          }
          await putSnapshots(deps.db, day, deps.clock.now(), rows);
          environments += rows.length;
        }
      }
      await Promise.all(Array.from({ length: PARALLEL }, worker));
      const pruned = await pruneSnapshots(deps.db, oldestKept(day));
      return { day, environments, failed, pruned };
    },

    /** The environment's snapshots from `from` to `to` (included); null when it is not the organization's. */
    async history(orgId: number, environmentId: number, from: string, to: string): Promise<SnapshotRow[] | null> {
      if (!(await environmentExists(deps.db, orgId, environmentId))) return null;
      return snapshotsBetween(deps.db, orgId, environmentId, from, to);
    },
  };
}
export type ExposureHistory = ReturnType<typeof createExposureHistory>;

/**
 * The services the background jobs read exposure with, built over the store alone (no HTTP app): the same
 * constructors as buildServices, without the caches a request path keeps.
 */
export function exposureServicesFor(db: Db, config: Readonly<Config>, clock: Clock): ExposureDeps {
  const environments = createEnvironmentService(db, config.planCaps);
  const assets = createAssetCorrelation({ db, clock, publicUrl: config.publicUrl, planCaps: config.planCaps });
  return {
    db,
    clock,
    environments,
    overview: createOverviewService({ environments, assets }),
    windows: createWindowsCorrelation({ db, clock, planCaps: config.planCaps }),
    triage: createTriageService(db),
  };
}
