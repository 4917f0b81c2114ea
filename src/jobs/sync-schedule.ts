// Optional in-process schedule for `vulnintel sync` (VULNINTEL_SYNC_INTERVAL_HOURS; off by default because an
// offline install would record a failed run every interval). Every replica may run the schedule: the sync's
// advisory lock makes it single-flight, and a replica that finds the lock held simply skips that round.
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Store } from '../store/db.ts';
import { systemClock } from '../lib/clock.ts';
import { createEgress } from '../lib/egress.ts';
import { runSync, SyncBusyError, type SyncReport } from './sync.ts';
import { pipelineSink } from './sync-sink.ts';
import './sync-msrc.ts';

export interface SyncSchedule {
  stop(): Promise<void>;
}

/** Runs one full sync; a held lock is a skipped round, not an error. */
export async function syncOnce(config: Readonly<Config>, store: Store, log: Logger): Promise<SyncReport | 'busy'> {
  const egress = createEgress({ allowList: config.egressAllowList });
  try {
    return await runSync({
      store,
      egress,
      sink: pipelineSink(store.db, { log }),
      clock: systemClock,
      log: { info: (o, m) => log.info(o, m), warn: (o, m) => log.warn(o, m) },
      urls: config.feedUrls,
      nvdApiKey: config.nvdApiKey,
      stagingRoot: path.join(config.dataDir, 'sync-staging'),
    });
  } catch (e) {
    if (e instanceof SyncBusyError) return 'busy';
    throw e;
  } finally {
    await egress.close();
  }
}

export function startSyncSchedule(config: Readonly<Config>, store: Store, log: Logger): SyncSchedule | null {
  if (config.syncIntervalHours <= 0) return null;
  const everyMs = config.syncIntervalHours * 3_600_000;
  let running: Promise<unknown> | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const round = () => {
    running = syncOnce(config, store, log)
      .then((r) => {
        if (r === 'busy') log.info('scheduled sync skipped: another sync holds the lock');
        else log.info({ ok: r.ok, sources: r.sources.map((s) => `${s.source}:${s.status}`) }, 'scheduled sync finished');
      })
      .catch((e: unknown) => log.error({ err: e instanceof Error ? e.message : String(e) }, 'scheduled sync failed'))
      .finally(() => {
        running = null;
        if (!stopped) timer = setTimeout(round, everyMs);
      });
  };
  // First round one minute after start, so start-up (and a snapshot import) is not slowed down.
  timer = setTimeout(round, Math.min(60_000, everyMs));
  log.info({ every_hours: config.syncIntervalHours }, 'sync schedule enabled');
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (running) await running;
    },
  };
}
