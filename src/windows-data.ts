// The Windows engine's data at run time: the in-memory evaluation index, rebuilt from the stored MSRC
// documents whenever they change (a fingerprint query per call, one rebuild at a time), and the CVE-corpus
// signals (KEV, EPSS, BCS, CVSS, exploit availability, references) of the CVEs the index knows, cached for
// SIGNAL_TTL_MS. Glue between store/ and domain/ (no HTTP).
import type { Db } from './store/db.ts';
import { loadCveSignals, loadMsrcPayloads, msrcVersion } from './store/windows.ts';
import { decodeMsrcPayload } from './ingest/msrc.ts';
import { IndexBuilder, type EvaluationIndex } from './domain/windows/evaluation-index.ts';
import type { CveSignals, ReferencesOut, SignalLookup } from './domain/windows/evaluate.ts';

export const SIGNAL_TTL_MS = 5 * 60 * 1000;

export interface IndexInfo {
  index: EvaluationIndex;
  version: string;
  /** MSRC documents the index was built from. */
  documents: number;
  built_ms: number;
  heap_delta_mb: number | null;
}

export class WindowsData {
  private current: IndexInfo | null = null;
  private building: Promise<IndexInfo> | null = null;
  private signalCache: { at: number; version: string; map: Map<string, CveSignals>; lookup: SignalLookup } | null = null;

  constructor(private readonly db: Db, private readonly now: () => number = Date.now) {}

  /** The index for the documents stored now; rebuilt when they changed since the last build. */
  async index(): Promise<IndexInfo> {
    const version = await msrcVersion(this.db);
    if (this.current && this.current.version === version) return this.current;
    if (!this.building) {
      this.building = this.build(version).finally(() => { this.building = null; });
    }
    const built = await this.building;
    return built.version === version ? built : this.index();
  }

  private async build(version: string): Promise<IndexInfo> {
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
    const info = { index, version, documents: rows.length, built_ms: Math.round(performance.now() - t0), heap_delta_mb: Math.round((process.memoryUsage().heapUsed - h0) / 1e6) };
    this.current = info;
    this.signalCache = null;
    return info;
  }

  /** Corpus signals of every CVE in the index, refreshed after SIGNAL_TTL_MS or a new index. */
  async signals(info: IndexInfo): Promise<SignalLookup> {
    const c = this.signalCache;
    if (!c || c.version !== info.version || this.now() - c.at > SIGNAL_TTL_MS) {
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
          references: (r.references as ReferencesOut | null) ?? null,
        });
      }
      // One lookup function per cache generation: the engine keys its per-product caches on it.
      this.signalCache = { at: this.now(), version: info.version, map, lookup: (cve) => map.get(cve) };
    }
    return this.signalCache!.lookup;
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
    this.signalCache = null;
  }
}
