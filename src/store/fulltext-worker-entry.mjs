// Entry of the full-text index's worker thread (src/store/fulltext-worker.ts): the sources are TypeScript loaded
// through tsx, whose loader a worker does not inherit from the thread that started it, so it is registered here
// first (workerData.tsx is the resolved `tsx/esm/api`).
import { workerData } from 'node:worker_threads';

const { register } = await import(workerData.tsx);
register();
await import(workerData.target);
