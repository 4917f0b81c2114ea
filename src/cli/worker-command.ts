// `vulnintel worker`: the background job workers alone, without the API (src/jobs/worker.ts starts them).
import type { Command } from './types.ts';
import { startWorkers } from '../jobs/worker.ts';
import { STOP_TIMEOUT_MS } from '../jobs/queue.ts';
import { JOBS } from '../jobs/registry.ts';

/** After a stop signal, the process exits at the latest this long after the queue's grace period. */
const STOP_MARGIN_MS = 15_000;

const workerCommand: Command = {
  summary:
    'Run the background job workers alone (scheduled sync, alert runs and digests, webhook deliveries, account purge), without the API',
  usage: 'vulnintel worker',
  options: {},
  async run(ctx) {
    const rt = await ctx.runtime();
    const queue = await startWorkers(ctx.config, rt.store, ctx.log);
    // Runs until a signal, which this command handles itself (instead of the dispatcher's close-and-exit): the
    // queue stops first (running jobs get their grace period), then the dispatcher closes the database. The handlers
    // are in place before the command says it is running. A stop that does not end within the grace period and a
    // margin (a pool that never drains, say) exits anyway, saying so: a stopped worker never lingers.
    process.removeAllListeners('SIGTERM');
    process.removeAllListeners('SIGINT');
    const stopped = new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        ctx.err(`Stopping the job workers (${signal}).`);
        setTimeout(() => {
          ctx.err(
            `The job workers did not stop within ${(STOP_TIMEOUT_MS + STOP_MARGIN_MS) / 1000} s of ${signal}; exiting.`,
          );
          process.exit(1);
        }, STOP_TIMEOUT_MS + STOP_MARGIN_MS).unref();
        void queue.stop().then(resolve, resolve);
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
    ctx.err(`Job workers running (jobs: ${JOBS.map((j) => j.name).join(', ')}); stop with SIGTERM or Ctrl-C.`);
    await stopped;
    return 0;
  },
};

/** `vulnintel worker` (table read by src/cli-commands.ts). */
export const WORKER_COMMANDS: Readonly<Record<string, Command>> = { worker: workerCommand };
