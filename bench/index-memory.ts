// Memory of the in-memory full-text index alone (src/store/fulltext-index.ts loadFullTextIndex, the build the API's
// index thread runs), in a process that does nothing else: the peak RSS of the build (VmHWM), and after the build
// and two full collections its RSS, V8 heap in use and typed-array (ArrayBuffer) bytes, with the index's own count
// of what it holds where it has one. Tells the index's share of an API process's RSS. Never part of `npm test`.
// Usage: DATABASE_URL=postgres://…/vi_bench node --expose-gc --import tsx bench/index-memory.ts
import { readFileSync } from 'node:fs';
import { loadFullTextIndex } from '../src/store/fulltext-index.ts';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/vi_bench';
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const mb = (n: number) => Math.round(n / 1048576);
const hwm = () => Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024);
const rss0 = mb(process.memoryUsage().rss);
const t0 = Date.now();
const idx = await loadFullTextIndex(url, { aborted: false });
const peak = hwm();
gc();
await new Promise((r) => setTimeout(r, 500));
gc();
const m = process.memoryUsage();
const footprint = (idx as { footprint?: () => unknown } | null)?.footprint?.();
process.stdout.write(
  `${JSON.stringify({
    documents: idx?.size,
    build_s: (Date.now() - t0) / 1000,
    rss_before_mb: rss0,
    build_peak_rss_mb: peak,
    rss_mb: mb(m.rss),
    heap_used_mb: mb(m.heapUsed),
    array_buffers_mb: mb(m.arrayBuffers),
    footprint,
  })}\n`,
);
