// NVD sync throughput: a synthetic NVD API 2.0 corpus (bench/generate-corpus.ts, distributions from the real
// files) served on loopback by the replay server in pages of 2,000, synced through the real import pipeline
// into a fresh database. The NVD rate limit is not waited for (sleep injected as a no-op); the real API adds
// its rolling-window limit on top (docs/sync.md). Prints wall time, records/s and peak RSS. Loopback only.
//   npx tsx bench/generate-corpus.ts /tmp/corpus 20000 && node --import tsx bench/sync-nvd.ts /tmp/corpus
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ReplayServer } from '../test/helpers/replay-server.ts';
import { createEgress } from '../src/lib/egress.ts';
import { systemClock } from '../src/lib/clock.ts';
import { runSync } from '../src/jobs/sync.ts';
import { pipelineSink } from '../src/jobs/sync-sink.ts';
import { benchDb } from './bench-db.ts';

const dir = path.resolve(process.argv[2] ?? 'bench/out/corpus');
const srv = new ReplayServer();
srv.nvdRecords = [];
for (const f of (await readdir(dir)).filter((x) => /^nvd-page-\d+\.json$/.test(x)).sort()) {
  for (const v of JSON.parse(await readFile(path.join(dir, f), 'utf8')).vulnerabilities) srv.nvdRecords.push(v.cve);
}
await srv.start();
const db = await benchDb('sync_nvd');
const staging = await mkdtemp(path.join(os.tmpdir(), 'vi-bench-nvd-'));
const egress = createEgress({ allowList: [`127.0.0.1:${srv.port}`] });
let peak = 0;
const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 100);
const t0 = performance.now();
try {
  const report = await runSync({
    store: db.store, egress, sink: pipelineSink(db.store.db), clock: systemClock, log: { info() {}, warn() {} },
    urls: srv.urls, nvdApiKey: null, stagingRoot: staging, sleep: async () => {},
  }, ['nvd']);
  const secs = (performance.now() - t0) / 1000;
  const s = report.sources[0];
  const corpus = (await db.store.pool.query('SELECT count(*)::int AS n FROM cves')).rows[0].n;
  console.log(JSON.stringify({
    status: s.status, error: s.error, served: srv.nvdRecords.length, pages: s.files, records: s.records, corpus_cves: corpus,
    seconds: Number(secs.toFixed(1)), records_per_s: Math.round((s.records ?? 0) / secs), peak_rss_mb: Math.round(peak / 1048576),
  }));
} finally {
  clearInterval(sampler);
  await egress.close();
  await srv.close();
  await db.drop();
  await rm(staging, { recursive: true, force: true });
}
