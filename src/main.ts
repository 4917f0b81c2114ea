// Process entry: loadConfig → open the database (embedded or DATABASE_URL) → migrate → buildApp → listen.
// Drains on SIGINT/SIGTERM: stop accepting, finish in-flight requests, close the pool, stop embedded Postgres.
import { loadConfig, ConfigError } from './config.ts';
import { createLogger } from './lib/logger.ts';
import { openRuntime, type Runtime } from './runtime.ts';
import type { FastifyInstance } from 'fastify';
import { DataDirBusyError } from './store/embedded.ts';
import { MigrationError } from './store/migrate.ts';
import { startupTasks } from './startup.ts';
import { SealingKeyMismatchError } from './services/sealing-key.ts';
import { errorMessage } from './lib/errors.ts';

export async function serve(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  const log = createLogger(config.logLevel);
  let app: FastifyInstance | null = null;
  let runtime: Runtime | null = null;
  let stopping = false;
  let jobs: Promise<{ stop(): Promise<void> } | null> = Promise.resolve(null);
  let opened: Promise<unknown> = Promise.resolve();
  // Startup work (the first start's snapshot import) stops on a signal; the pool closes only after it has.
  const startup = new AbortController();
  let starting: Promise<unknown> = Promise.resolve();
  // Signals are handled from the very start: a SIGTERM while the embedded cluster is still starting waits for
  // it, then stops it, so no postmaster is left behind.
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    try {
      await opened.catch(() => {});
      startup.abort(new Error(`interrupted by ${signal}; the next start completes it`));
      await starting.catch(() => {});
      await app?.close(); // stop accepting, finish in-flight requests
      // Stop fetching jobs (waiting for the queue if it is still starting); a running job gets STOP_TIMEOUT_MS,
      // then is failed, and its policy retries it.
      await (await jobs.catch(() => null))?.stop();
    } finally {
      await runtime?.close(); // then the pool, then the embedded cluster
      log.info('stopped');
      process.exit(0);
    }
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  // The HTTP stack (Fastify, TypeBox, routes) loads while the database starts: the two are the bulk of the
  // time to first ping, and they do not depend on each other.
  const appModule = import('./app.ts');
  appModule.catch(() => {}); // awaited below; a failure surfaces there
  try {
    const pending = openRuntime(config, log);
    opened = pending;
    runtime = await pending;
  } catch (e) {
    if (e instanceof DataDirBusyError || e instanceof MigrationError || e instanceof SealingKeyMismatchError) {
      log.fatal(e.message);
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
  if (stopping) return;
  // Import work runs without the API's statement timeout (Runtime.work).
  starting = startupTasks({ config, store: runtime.work(), log, signal: startup.signal });
  try {
    await starting;
  } catch (e) {
    if (stopping) {
      log.info({ reason: errorMessage(e) }, 'startup work stopped');
      return;
    }
    throw e;
  }
  if (stopping) return;
  const { buildApp } = await appModule;
  app = await buildApp({ config, store: runtime.store, logger: log });
  if (stopping) return;
  await app.listen({ port: config.port, host: config.host });
  // Time from process start to accepting requests (the "ping within 3 s" budget, docs/operations.md).
  const cpu = process.cpuUsage();
  log.info(
    { startup_ms: Math.round(performance.now()), startup_cpu_ms: Math.round((cpu.user + cpu.system) / 1000) },
    'ready',
  );
  if (stopping) return;
  if (config.workers) {
    // The embedded default: this process also runs the background job workers (VULNINTEL_WORKERS=0 leaves them
    // to `vulnintel worker` processes). Started after listen, so the first ping is not delayed. `jobs` is set before
    // anything is awaited: a signal from here on waits for the workers to start (module load included), stops
    // them, and only then closes the database; a signal during the module load starts none.
    const work = runtime.work();
    jobs = import('./jobs/worker.ts').then(({ startWorkers }) => (stopping ? null : startWorkers(config, work, log)));
    try {
      await jobs;
    } catch (e) {
      if (stopping) return; // the signal closed the database under the starting queue
      throw e;
    }
  } else {
    log.info('job workers off in this process (VULNINTEL_WORKERS=0): run `vulnintel worker` next to it');
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  serve().catch((e) => {
    process.stderr.write(`Failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
