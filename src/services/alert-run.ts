// The alert run (spec §6; docs/alerts.md): the changes recorded since the last completed run, matched against every
// active organization's watchlist and environment assets (alert-match.ts), stored as alerts pending delivery.
// Single-flight: the pg-boss singleton policy plus an advisory lock (a `vulnintel alerts run` from the shell).
import type { Db } from '../store/db.ts';
import { buildAssetIndex, familyNames, type HostEvaluator } from '../domain/asset-alerts.ts';
import { EvaluationRun, type SignalLookup } from '../domain/windows/evaluate.ts';
import { windowsDataFor, type WindowsData } from '../windows-data.ts';
import { namedProducts } from '../store/ranges.ts';
import { flagForReview } from '../store/triage-decisions.ts';
import { completeRun, openRun, unfinishedRun, windowCves, withAlertLock } from '../store/alert-runs.ts';
import { environmentAssets, hasEnvironmentHosts } from '../store/alert-matching.ts';
import { insertAlertCves, insertAlerts } from '../store/alert-rows.ts';
import { matchChunk, type ChunkMatch } from './alert-match.ts';

/**
 * CVEs matched per chunk: a chunk's alerts are held in memory until stored (two chunks at most: one matched, one
 * being stored). 250 since alerts are stored lean (migration 1060): fewer round trips, and a chunk of a widely
 * deployed product's CVEs still stays within a few tens of MB.
 */
const CHUNK = 250;

export interface AlertRunReport {
  run_id: number;
  resumed: boolean;
  from_seq: number;
  to_seq: number;
  cves: number;
  alerts_stored: number;
  alerts_total: number;
}

export interface AlertRunOptions {
  publicUrl: string;
  /** When the run stamps payloads (injected clock). */
  now: () => Date;
  /** CVEs matched per transaction (default CHUNK). */
  chunkSize?: number;
  /** Test hook: called after each committed chunk (a run that dies midway is simulated by throwing here). */
  afterChunk?: (n: number) => Promise<void> | void;
}

/** Who flags a decision "review again" in its history. */
const REVIEW_ACTOR = { member: null, key: null, label: 'alert run' };

/** Host verdicts need no corpus signals (they order results, they do not decide them). */
const NO_SIGNALS: SignalLookup = () => undefined;

export function createAlertRun(db: Db, opts: AlertRunOptions) {
  // The Windows engine's data: the process's one for this database (windows-data.ts windowsDataFor, shared with the
  // v2 routes and every alert service of the process), taken when first needed.
  let windows: WindowsData | null = null;

  /**
   * The run's Windows evaluator: the engine's index is loaded on the first chunk that holds a Microsoft CVE (a
   * window without one never builds it), and evaluations are memoised per host profile by the index.
   */
  function hostEvaluator(): { load(): Promise<HostEvaluator> } {
    let run: Promise<EvaluationRun> | null = null;
    const today = opts.now().toISOString().slice(0, 10);
    const start = async () => {
      windows ??= windowsDataFor(db);
      return new EvaluationRun((await windows.index()).index, NO_SIGNALS, today);
    };
    return {
      async load() {
        const r = await (run ??= start());
        return (host) => r.evaluate(host, []);
      },
    };
  }

  return {
    /**
     * Loads the Windows engine's index ahead of the first run when environment hosts are stored (a worker calls
     * this at start), so the first scheduled run does not pay the build. True when it loaded it.
     */
    async warm(): Promise<boolean> {
      if (!(await hasEnvironmentHosts(db))) return false;
      windows ??= windowsDataFor(db);
      await windows.index();
      return true;
    },

    /** The Windows data the run evaluates hosts with (tests). */
    get windowsData(): WindowsData | null {
      return windows;
    },

    /** One run now; 'busy' when another holds the lock. A run left unfinished is resumed over its own window. */
    async run(trigger: 'schedule' | 'cli'): Promise<AlertRunReport | 'busy'> {
      const r = await withAlertLock(db, async (conn) => {
        const open = await unfinishedRun(conn);
        const run = open ?? (await openRun(conn, trigger));
        const ids = await windowCves(conn, run);
        // Every active organization's environment assets, indexed once per run (not per organization or chunk).
        // Loaded on a pool connection while the first chunk is read on the run's.
        const assets = ids.length
          ? environmentAssets(db).then(async (env) =>
              buildAssetIndex(env.assets, env.hosts, await namedProducts(db, familyNames(env.assets))),
            )
          : Promise.resolve(buildAssetIndex([], []));
        assets.catch(() => {});
        const evaluator = hostEvaluator();
        let stored = 0;
        const size = opts.chunkSize ?? CHUNK;
        // A chunk is stored while the next one is matched on the run's connection, so PostgreSQL writes while Node
        // matches; its alerts go in two halves on two pool connections at once (the insert is PostgreSQL's work,
        // and one backend uses one core). At most one chunk is being stored, and a chunk is stored only after the
        // previous one committed and afterChunk returned: a run that dies midway has stored a prefix of its alerts,
        // which the resumed run completes (ON CONFLICT DO NOTHING).
        let storing: Promise<number> | null = null;
        let n = 0;
        const settle = async () => {
          if (!storing) return;
          stored += await storing;
          storing = null;
          await opts.afterChunk?.(++n);
        };
        const store = async (chunk: ChunkMatch) => {
          // The decisions flagged "review again" first: a resumed run flags nothing twice (flagForReview keeps a reason once).
          if (chunk.flags.length)
            await db.transaction().execute((trx) => flagForReview(trx, chunk.flags, REVIEW_ACTOR));
          await insertAlertCves(db, run.id, chunk.cves);
          const half = Math.ceil(chunk.rows.length / 2);
          const done = await Promise.all([
            insertAlerts(db, run.id, chunk.rows.slice(0, half)),
            insertAlerts(db, run.id, chunk.rows.slice(half)),
          ]);
          return done[0] + done[1];
        };
        for (let i = 0; i < ids.length; i += size) {
          const chunk = await matchChunk(conn, run, ids.slice(i, i + size), {
            assetIndex: assets,
            evaluator,
            publicUrl: opts.publicUrl,
            now: opts.now,
          });
          await settle();
          storing = store(chunk);
          // Never left unobserved: a failing store is rethrown by settle().
          storing.catch(() => {});
        }
        await settle();
        const total = await completeRun(conn, run.id, ids.length);
        return {
          run_id: run.id,
          resumed: open !== null,
          from_seq: run.from_seq,
          to_seq: run.to_seq,
          cves: ids.length,
          alerts_stored: stored,
          alerts_total: total,
        };
      });
      return r.ran ? r.value : 'busy';
    },
  };
}
