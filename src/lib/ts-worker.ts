// Worker threads whose code is TypeScript (the full-text index, the feed reader): they start at
// tsx-worker-entry.mjs, which registers tsx in the thread (a worker does not inherit the loader of the thread that
// started it) and then imports `target`. `data` reaches the thread as workerData next to those two.
import { Worker } from 'node:worker_threads';

export function startTsWorker(target: URL, data: object = {}): Worker {
  return new Worker(new URL('./tsx-worker-entry.mjs', import.meta.url), {
    execArgv: [],
    workerData: { ...data, tsx: import.meta.resolve('tsx/esm/api'), target: target.href },
  });
}
