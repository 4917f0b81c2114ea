// Benchmark of POST /api/v2/assets/correlate: 200 hosts of mixed products (cumulative and legacy, with KB
// lists) against all MSRC documents, over real HTTP to the real app on 127.0.0.1, with real PostgreSQL
// (results stored on every call). Reports p50/p95 per call end to end, the index build time, and the heap
// taken by the evaluation index. Never part of `npm test`.
// Usage: node --expose-gc --import tsx bench/windows-correlate.ts [MSRC_DIR] [calls]
//        (MSRC_DIR default: ../shared/data/msrc-cvrf when present, else snapshot/msrc; TEST_DATABASE_URL as in the tests)
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { buildApp } from '../src/app.ts';
import { importMsrcDocuments } from '../src/services/import/msrc-documents.ts';
import pg from 'pg';
import { openStore } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { seedOrg, TEST_INTERNAL_KEY } from '../test/helpers/app.ts';
import { benchHosts as hosts } from './windows-correlate-hosts.ts';

const shared = path.resolve('..', 'shared', 'data', 'msrc-cvrf');
const dir = process.argv[2] ?? (existsSync(shared) ? shared : 'snapshot/msrc');
const CALLS = Number(process.argv[3] ?? 20);
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

// Its own database, outside the vi_t_* names of the test runs (test/run.mjs drops those of its own runs).
const admin = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = `vi_bench_win_${process.pid}`;
const adminClient = new pg.Client({ connectionString: admin });
await adminClient.connect();
await adminClient.query(`CREATE DATABASE ${dbName}`);
const dbUrl = new URL(admin);
dbUrl.pathname = `/${dbName}`;
const store = openStore(dbUrl.toString());
await migrate(store.pool, { log: () => {} });
const db = {
  store,
  url: dbUrl.toString(),
  async drop() {
    await store.close();
    await adminClient.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await adminClient.end();
  },
};
try {
  const t0 = performance.now();
  const imported = await importMsrcDocuments(db.store.db, [dir]);
  const importMs = Math.round(performance.now() - t0);
  const config = loadConfig({
    DATABASE_URL: db.url,
    VULNINTEL_INTERNAL_KEY: TEST_INTERNAL_KEY,
    VULNINTEL_PUBLIC_URL: 'http://vulnintel.test',
    VULNINTEL_AUTO_IMPORT: 'false',
    LOG_LEVEL: 'silent',
  });
  const app = await buildApp({ config, store: db.store });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address() as { port: number };
  const org = await seedOrg(db.store);
  const body = JSON.stringify({ windows_hosts: hosts() });
  const call = async () => {
    const s = performance.now();
    const r = await fetch(`http://127.0.0.1:${addr.port}/api/v2/assets/correlate`, {
      method: 'POST',
      headers: { ...org.auth, 'content-type': 'application/json' },
      body,
    });
    const text = await r.text();
    if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${text.slice(0, 300)}`);
    return { ms: performance.now() - s, bytes: text.length, json: text };
  };
  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const first = await call(); // builds the index from the stored documents
  gc();
  const heapIndex = process.memoryUsage().heapUsed - heap0;
  const times: number[] = [];
  const took: number[] = [];
  let bytes = 0;
  for (let i = 0; i < CALLS; i++) {
    const r = await call();
    times.push(r.ms);
    bytes = r.bytes;
    // Server-side time (meta.took_ms: request start to body assembled), read outside the timed section.
    took.push(Number(/"took_ms":(\d+)/.exec(r.json.slice(-2000))?.[1] ?? NaN));
  }
  took.sort((a, b) => a - b);
  times.sort((a, b) => a - b);
  const q = (p: number) => Math.round(times[Math.min(times.length - 1, Math.floor(p * times.length))]);
  const parsed = JSON.parse(first.json);
  const result = {
    documents: imported.documents,
    import_ms: importMs,
    hosts: 200,
    calls: CALLS,
    first_call_ms_including_index_build: Math.round(first.ms),
    p50_ms: q(0.5),
    p95_ms: q(0.95),
    server_took_ms_p50: took[Math.floor(took.length / 2)],
    load_average_1m: Number((await import('node:os')).loadavg()[0].toFixed(1)),
    max_ms: Math.round(times[times.length - 1]),
    response_bytes: bytes,
    index_heap_mb: Math.round(heapIndex / 1e6),
    rss_mb: Math.round(process.memoryUsage().rss / 1e6),
    cve_results_per_call: parsed.data.assets.reduce(
      (n: number, a: { counts: Record<string, number> }) =>
        n + a.counts.confirmed_open + a.counts.cleared + a.counts.needs_review,
      0,
    ),
    microsoft_data_as_of: parsed.meta.microsoft_data_as_of,
  };
  console.log(JSON.stringify(result, null, 2));
  mkdirSync('bench/out', { recursive: true });
  writeFileSync('bench/out/windows-correlate.json', JSON.stringify(result, null, 2));
  await app.close();
} finally {
  await db.drop();
}
