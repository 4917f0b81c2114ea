// Process entry: loadConfig → open the database (embedded or DATABASE_URL) → migrate → buildApp → listen.
// Drains on SIGINT/SIGTERM: stop accepting, finish in-flight requests, close the pool, stop embedded Postgres.
import { loadConfig, ConfigError } from './config.ts';
import { createLogger } from './lib/logger.ts';
import { openRuntime } from './runtime.ts';
import { buildApp } from './app.ts';
import { DataDirBusyError } from './store/embedded.ts';
import { MigrationError } from './store/migrate.ts';
import { startupTasks } from './startup.ts';

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
  let runtime;
  try {
    runtime = await openRuntime(config, log);
  } catch (e) {
    if (e instanceof DataDirBusyError || e instanceof MigrationError) {
      log.fatal(e.message);
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
  const app = await buildApp({ config, store: runtime.store, logger: log });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    try {
      await app.close();
    } finally {
      await runtime.close();
      log.info('stopped');
      process.exit(0);
    }
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  await startupTasks({ config, store: runtime.store, log });
  await app.listen({ port: config.port, host: config.host });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  serve().catch((e) => {
    process.stderr.write(`Failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
