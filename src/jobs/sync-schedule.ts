// One scheduled sync: the body of the `sync` job (src/jobs/registry.ts), run by a job worker on the
// VULNINTEL_SYNC_INTERVAL_HOURS schedule (off by default because an offline install would record a failed run
// every interval). pg-boss runs one job per slot; the sync's advisory lock still makes a slot that finds a
// `vulnintel sync` from the shell running skip its round.
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Store } from '../store/db.ts';
import { systemClock } from '../lib/clock.ts';
import { createEgress } from '../lib/egress.ts';
import { runSync, SyncBusyError, type SyncReport } from './sync.ts';
import { pipelineSink } from './sync-sink.ts';

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
      proxyVariable: config.proxyVariable,
      stagingRoot: path.join(config.dataDir, 'sync-staging'),
    });
  } catch (e) {
    if (e instanceof SyncBusyError) return 'busy';
    throw e;
  } finally {
    await egress.close();
  }
}
