// Entry of the worker threads whose code is TypeScript, started by ts-worker.ts (the full-text index; the feed
// reader, src/ingest/feed-thread.ts): the sources are loaded through tsx, whose loader a worker does not inherit
// from the thread that started it, so it is registered here first (workerData.tsx is the resolved `tsx/esm/api`,
// workerData.target the module to run).
import { workerData } from 'node:worker_threads';

const { register } = await import(workerData.tsx);
register();
await import(workerData.target);
