// Runs the CLI (`src/cli.ts` through tsx) in a child process with only PATH, LOG_LEVEL=warn and the given
// environment, and answers its exit code and output; or starts a long-running command (`serve`, `worker`) of the
// `vulnintel` binary and answers the process once its output says it is ready.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

export function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src', 'cli.ts'), ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Starts `vulnintel <args>` (bin/vulnintel.js) with only PATH and `env`, and resolves with the process once its output
 * (stdout or stderr) matches `ready`; rejects when it exits first or is not ready within `timeoutMs`.
 */
export function startCommand(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 240_000,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(root, 'bin', 'vulnintel.js'), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args[0]} not ready in ${timeoutMs / 1000} s: ${out.slice(-2000)}`));
    }, timeoutMs);
    const on = (d: Buffer) => {
      out = (out + d.toString()).slice(-20_000);
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout!.on('data', on);
    child.stderr!.on('data', on);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args[0]} exited ${code}: ${out.slice(-2000)}`));
    });
  });
}
