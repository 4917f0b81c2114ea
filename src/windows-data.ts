// The Windows engine's data at run time: the in-memory evaluation index, rebuilt from the stored MSRC
// documents whenever they change (a fingerprint query per call, one rebuild at a time), and the CVE-corpus
// signals (KEV, EPSS, BCS, CVSS, exploit availability, references) of the CVEs the index knows, cached for
// SIGNAL_TTL_MS and refreshed ahead of it; every load is single-flight. Glue between store/ and domain/ (no HTTP).
import type { Db } from './store/db.ts';
import { loadCveSignals, loadMsrcPayloads, msrcVersion } from './store/windows.ts';
import { decodeMsrcPayload } from './ingest/msrc.ts';
import { IndexBuilder, type EvaluationIndex } from './domain/windows/evaluation-index.ts';
import type { CveSignals, SignalLookup } from './domain/windows/evaluate.ts';
import { RefreshingValue, SingleFlight } from './lib/refreshing-cache.ts';

export const SIGNAL_TTL_MS = 5 * 60 * 1000;
/** Signals at least SIGNAL_TTL_MS - SIGNAL_REFRESH_AHEAD_MS old are served and reloaded in the background. */
export const SIGNAL_REFRESH_AHEAD_MS = 60 * 1000;

export interface IndexInfo {
  index: EvaluationIndex;
  version: string;
  /** MSRC documents the index was built from. */
  documents: number;
  built_ms: number;
  heap_delta_mb: number | null;
}

interface SignalGeneration {
  map: Map<string, CveSignals>;
  lookup: SignalLookup;
}

export interface WindowsDataLoads {
  /** Index builds started (one per MSRC data version, however many calls wait for it). */
  builds: number;
  /** Corpus signal loads started (single-flight, refreshed ahead of expiry). */
  signalLoads: number;
}

/**
 * Both caches are single-flight: a burst of calls on a cold or expired cache runs one
 * index build, one version check at a time and one signal load, and the others wait for it, so they never take
 * a connection each from the pool. Signals are refreshed ahead of expiry by the call that finds them old.
 */
export class WindowsData {
  private current: IndexInfo | null = null;
  private readonly builds = new SingleFlight<IndexInfo>();
  private readonly versionChecks = new SingleFlight<string>();
  private readonly signalCache: RefreshingValue<SignalGeneration>;
  private info: IndexInfo | null = null;
  readonly loads: WindowsDataLoads = { builds: 0, signalLoads: 0 };

  constructor(
    private readonly db: Db,
    now: () => number = Date.now,
    onRefreshError?: (err: Error) => void,
  ) {
    this.signalCache = new RefreshingValue((version) => this.loadSignals(version), {
      ttlMs: SIGNAL_TTL_MS,
      refreshAheadMs: SIGNAL_REFRESH_AHEAD_MS,
      now,
      onRefreshError,
    });
  }

  /** The index for the documents stored now; rebuilt when they changed since the last build. */
  async index(): Promise<IndexInfo> {
    // Calls arriving while a version check is under way share its answer (one query for a burst).
    const version = await this.versionChecks.run('v', () => msrcVersion(this.db));
    if (this.current && this.current.version === version) return this.current;
    return this.builds.run(version, () => this.build(version));
  }

  private async build(version: string): Promise<IndexInfo> {
    this.loads.builds++;
    const t0 = performance.now();
    const h0 = process.memoryUsage().heapUsed;
    const rows = await loadMsrcPayloads(this.db);
    const b = new IndexBuilder(new Map(rows.filter((r) => r.cvrf_url).map((r) => [r.id, r.cvrf_url!])));
    for (const r of rows) {
      b.add(decodeMsrcPayload(r.payload));
      // Yield between documents: a rebuild (after an import or sync) must not stall other requests.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const index = b.finish();
    const info = {
      index,
      version,
      documents: rows.length,
      built_ms: Math.round(performance.now() - t0),
      heap_delta_mb: Math.round((process.memoryUsage().heapUsed - h0) / 1e6),
    };
    if (!this.current || this.current.version !== version) this.current = info;
    return info;
  }

  /** Corpus signals of every CVE in the index: single-flight, refreshed ahead of SIGNAL_TTL_MS, reloaded for a new index. */
  async signals(info: IndexInfo): Promise<SignalLookup> {
    this.info = info;
    return (await this.signalCache.get(info.version)).lookup;
  }

  private async loadSignals(version: string): Promise<SignalGeneration> {
    this.loads.signalLoads++;
    const info = this.info && this.info.version === version ? this.info : await this.index();
    const rows = await loadCveSignals(this.db, [...info.index.cves.keys()]);
    const map = new Map<string, CveSignals>();
    for (const r of rows) {
      map.set(r.cve_id, {
        kev: r.kev_flagged,
        epss: r.epss_score,
        bcs: r.bcs_score,
        cvss: r.cvss_score,
        hasExploit: r.poc_available || r.has_public_exploit,
        publishedAt: r.published_at ? r.published_at.toISOString() : null,
        references: r.references,
      });
    }
    // One lookup function per cache generation: the engine keys its per-product caches on it.
    return { map, lookup: (cve) => map.get(cve) };
  }

  /**
   * Builds the index and loads the corpus signals ahead of the first call (the server does it once it listens):
   * the first v2 call then answers at full speed instead of paying the build (about 3 s for 190 documents).
   * The build yields between documents, so requests served meanwhile are not stalled.
   */
  async warm(): Promise<{ documents: number; cves: number; built_ms: number }> {
    const info = await this.index();
    await this.signals(info);
    return { documents: info.documents, cves: info.index.cves.size, built_ms: info.built_ms };
  }

  /** Forget cached signals (after an import changed the corpus in this process). */
  invalidateSignals(): void {
    this.signalCache.invalidate();
  }
}

const SHARED = new WeakMap<Db, WindowsData>();

/**
 * The process's WindowsData for a database: the v2 routes (services/windows-correlation.ts) and the alert run
 * (services/alerts.ts, also when the job workers run inside the server) share one index and one signal cache
 * instead of building two. The first caller's clock and error handler are kept.
 */
export function windowsDataFor(db: Db, now?: () => number, onRefreshError?: (err: Error) => void): WindowsData {
  let d = SHARED.get(db);
  if (!d) SHARED.set(db, (d = new WindowsData(db, now, onRefreshError)));
  return d;
}
