// Starting the job workers: inside `vulnintel serve` (the default) or alone with `vulnintel worker`.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Store } from '../store/db.ts';
import { startJobQueue, type JobQueue } from './queue.ts';
import { JOBS } from './registry.ts';

export function startWorkers(config: Readonly<Config>, store: Store, log: Logger): Promise<JobQueue> {
  return startJobQueue({ config, store, log, jobs: JOBS, workers: true });
}
