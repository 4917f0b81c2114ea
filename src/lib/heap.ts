// Bounded heap growth for long batch runs (the import pipeline). After each full collection V8 lets the heap grow
// up to about four times its live size when allocation is fast. An import allocates short-lived strings at a high
// rate (feed text, the JSON texts sent to PostgreSQL) while its live set stays under 300 MB, so the heap, and with
// it the process RSS, reaches 0.9–1.1 GB on the full corpus with V8's own factor. A fixed growth factor keeps it
// flat. The factor is 4 (ADR 0034): the full corpus peaks at 0.82 GB (the limit is 1 GB), and each
// smaller factor buys memory with full collections: 2 holds it at 0.58 GB but costs 18 % of the import's Node CPU and
// 8 % of its wall time. V8 reads the flag at each heap-limit computation, so it can be set and reset at
// run time; 0 is V8's default (dynamic factor).
import v8 from 'node:v8';

let holders = 0;

/** Bounds V8's heap growth until the returned function is called (nested holders share one setting). */
export function boundHeapGrowth(percent = 300): () => void {
  if (holders++ === 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--holders === 0) v8.setFlagsFromString('--heap-growing-percent=0');
  };
}
