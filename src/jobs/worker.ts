// Starting the job workers: inside `vulnintel serve` (the default) or alone with `vulnintel worker`.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Store } from '../store/db.ts';
import type { Command } from '../cli.ts';
import { startJobQueue, type JobQueue } from './queue.ts';
import { JOBS } from './registry.ts';

export function startWorkers(config: Readonly<Config>, store: Store, log: Logger): Promise<JobQueue> {
  return startJobQueue({ config, store, log, jobs: JOBS, workers: true });
}

const workerCommand: Command = {
  summary: 'Run the background job workers alone (scheduled sync; later alerts, webhooks, purge), without the API',
  usage: 'vulnintel worker',
  options: {},
  async run(ctx) {
    const rt = await ctx.runtime();
    const queue = await startWorkers(ctx.config, rt.store, ctx.log);
    ctx.err(`Job workers running (jobs: ${JOBS.map((j) => j.name).join(', ')}); stop with SIGTERM or Ctrl-C.`);
    // Runs until a signal, which this command handles itself (instead of the dispatcher's close-and-exit): the
    // queue stops first (running jobs get their grace period), then the dispatcher closes the database.
    process.removeAllListeners('SIGTERM');
    process.removeAllListeners('SIGINT');
    await new Promise<void>((resolve) => {
      const stop = () => void queue.stop().then(resolve, resolve);
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });
    return 0;
  },
};

export const WORKER_COMMANDS: Readonly<Record<string, Command>> = { worker: workerCommand };
