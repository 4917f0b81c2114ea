// Bounded heap growth for long batch runs (the import pipeline). After each full collection V8 lets the heap grow
// up to about four times its live size when allocation is fast. An import allocates short-lived strings at a high
// rate (feed text, the JSON texts sent to PostgreSQL) while its live set stays under 300 MB, so the heap, and with
// it the process RSS, reached 0.9–1.1 GB on the full corpus (1.05 GB in session 8). A fixed growth factor keeps it
// flat: 1.5 held RSS near 0.5 GB but cost about 15 % of the import's Node CPU in full collections (37 of them for the
// 44k CVE records); 2 keeps the full import at about 0.6 GB and costs about half of that (docs/decisions.md 34).
// V8 reads the flag at each heap-limit computation, so it can be set and reset at run time; 0 is V8's default
// (dynamic factor).
import v8 from 'node:v8';

let holders = 0;

/** Bounds V8's heap growth until the returned function is called (nested holders share one setting). */
export function boundHeapGrowth(percent = 100): () => void {
  if (holders++ === 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--holders === 0) v8.setFlagsFromString('--heap-growing-percent=0');
  };
}
