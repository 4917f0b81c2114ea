#!/usr/bin/env node
// The `vulnintel` command: loads the TypeScript sources through tsx (no build step).
//
// `import` and `sync` run in a child Node with a larger young generation (docs/decisions.md 44): an import allocates
// short-lived objects at a high rate, and V8's default 16 MB semi-spaces cost it about 7 % of its CPU in extra
// scavenges. The flag can only be given when a process starts, so this process starts the child with it and stands
// in for it: the child inherits stdin, stdout and stderr; SIGTERM and SIGHUP are passed on (Ctrl-C reaches both
// processes of the group, and the child handles it); the exit code or signal is the child's; and if this process is
// killed outright, the child kills itself the same way (an import killed mid-run is consistent, docs/ingest.md).
// Other commands, `serve` and `worker` among them, run in this process, so their process id is the service's.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const FLAG = '--max-semi-space-size';
const SEMI_SPACE_MB = 32;
const RELAUNCHED = 'VULNINTEL_RELAUNCHED';
const relaunch = ['import', 'sync'].includes(process.argv[2] ?? '') && !process.env[RELAUNCHED]
  && ![...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((a) => a.startsWith(FLAG));

if (relaunch) {
  const child = spawn(process.execPath, [...process.execArgv, `${FLAG}=${SEMI_SPACE_MB}`, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, [RELAUNCHED]: '1' },
  });
  const ignore = () => {};
  const forward = (signal) => child.kill(signal);
  process.on('SIGINT', ignore);
  process.on('SIGTERM', forward);
  process.on('SIGHUP', forward);
  child.on('exit', (code, signal) => {
    process.removeListener('SIGINT', ignore);
    process.removeListener('SIGTERM', forward);
    process.removeListener('SIGHUP', forward);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
} else {
  if (process.env[RELAUNCHED] && process.channel) {
    // The channel to the parent only tells of its end; it does not keep this process alive.
    process.channel.unref();
    process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
  }
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli.ts');
}
