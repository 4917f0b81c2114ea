// One scheduled sync: the body of the `sync` job (src/jobs/registry.ts), run by a job worker on the
// VULNINTEL_SYNC_INTERVAL_HOURS schedule (daily by default, as the spec syncs the KEV catalog). pg-boss runs one job
// per slot; the sync's advisory lock still makes a slot that finds a `vulnintel sync` from the shell running skip its
// round. A machine without network keeps its corpus as it is (a failed source changes nothing) and its log gets one
// warning per run, not one per retry and per feed; health shows each feed's age.
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Store } from '../store/db.ts';
import { systemClock } from '../lib/clock.ts';
import { createEgress } from '../lib/egress.ts';
import { runSync, SyncBusyError, type SyncDeps, type SyncReport } from '../services/sync/sync.ts';
import { pipelineSink } from '../services/sync/sync-sink.ts';

/**
 * The one warning of a scheduled run, or null when nothing went wrong: the failed feeds with their errors, and the
 * warnings the run held back (each retry, each document not imported), counted and the first few quoted.
 */
export function runWarning(
  report: SyncReport,
  held: readonly { msg: string; [k: string]: unknown }[],
): { obj: object; msg: string } | null {
  const failed = report.sources.filter((s) => s.status === 'failed');
  const others = held.filter((h) => h.msg !== 'sync source failed');
  if (failed.length === 0 && others.length === 0) return null;
  const obj = {
    failed: failed.map((s) => ({ source: s.source, error: s.error })),
    held_warnings: others.length,
    ...(others.length ? { first_warnings: others.slice(0, 5) } : {}),
  };
  if (failed.length > 0 && failed.length === report.sources.length) {
    return {
      obj,
      msg: `scheduled sync: no feed could be reached (${failed.length} of ${failed.length} failed; no network?); the corpus is kept as it is, and the next slot tries again`,
    };
  }
  if (failed.length > 0)
    return {
      obj,
      msg: `scheduled sync: ${failed.length} of ${report.sources.length} feeds failed; their data is kept as it was`,
    };
  return { obj, msg: `scheduled sync finished with ${others.length} warning(s)` };
}

/** Runs one full sync; a held lock is a skipped round, not an error. At most one warning reaches the log per run. */
export async function syncOnce(
  config: Readonly<Config>,
  store: Store,
  log: Logger,
  overrides: Partial<Pick<SyncDeps, 'sleep' | 'retry'>> = {},
): Promise<SyncReport | 'busy'> {
  const egress = createEgress({ allowList: config.egressAllowList });
  const held: { msg: string; [k: string]: unknown }[] = [];
  try {
    const report = await runSync({
      ...overrides,
      store,
      egress,
      sink: pipelineSink(store.db, { log }),
      clock: systemClock,
      log: {
        info: (o, m) => log.info(o, m),
        warn: (o, m) => {
          held.push({ ...o, msg: m });
          log.debug(o, m);
        },
      },
      urls: config.feedUrls,
      nvdApiKey: config.nvdApiKey,
      proxyVariable: config.proxyVariable,
      stagingRoot: path.join(config.dataDir, 'sync-staging'),
    });
    const w = runWarning(report, held);
    if (w) log.warn(w.obj, w.msg);
    return report;
  } catch (e) {
    if (e instanceof SyncBusyError) return 'busy';
    throw e;
  } finally {
    await egress.close();
  }
}
