// Bounded heap growth for long batch runs (the import pipeline). After each full collection V8 lets the heap grow
// up to about four times its live size when allocation is fast. An import allocates short-lived strings at about
// 500 MB/s (feed text, XML, the JSON sent to PostgreSQL) while its live set stays under 300 MB, so the heap, and
// with it the process RSS, reached 0.9–1.1 GB on the full corpus. A fixed growth factor of 1.5 keeps RSS near
// 0.5 GB for about 7 % more run time (docs/benchmarks.md). V8 reads the flag at each heap-limit computation, so it
// can be set and reset at run time; 0 is V8's default (dynamic factor).
import v8 from 'node:v8';

let holders = 0;

/** Bounds V8's heap growth until the returned function is called (nested holders share one setting). */
export function boundHeapGrowth(percent = 50): () => void {
  if (holders++ === 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--holders === 0) v8.setFlagsFromString('--heap-growing-percent=0');
  };
}
