// NVD sync throughput: a synthetic NVD API 2.0 corpus (bench/generate-corpus.ts, distributions from the real
// files) served on loopback by the replay server in pages of 2,000, synced through the real import pipeline
// into a fresh database. The NVD rate limit is not waited for (sleep injected as a no-op); the real API adds
// its rolling-window limit on top (docs/sync.md). Prints wall time, records/s and peak RSS. Loopback only.
//   npx tsx bench/generate-corpus.ts /tmp/corpus 20000 && node --import tsx bench/sync-nvd.ts /tmp/corpus
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { ReplayServer } from '../test/helpers/replay-server.ts';
import { measureSync } from './bench-sync.ts';

const dir = path.resolve(process.argv[2] ?? 'bench/out/corpus');
const srv = new ReplayServer();
srv.nvdRecords = [];
for (const f of (await readdir(dir)).filter((x) => /^nvd-page-\d+\.json$/.test(x)).sort()) {
  for (const v of JSON.parse(await readFile(path.join(dir, f), 'utf8')).vulnerabilities) srv.nvdRecords.push(v.cve);
}
await srv.start();
try {
  const m = await measureSync(srv, 'nvd');
  console.log(
    JSON.stringify({
      status: m.report.status,
      error: m.report.error,
      served: srv.nvdRecords.length,
      pages: m.report.files,
      records: m.report.records,
      corpus_cves: m.corpusCves,
      seconds: m.seconds,
      records_per_s: Math.round((m.report.records ?? 0) / m.seconds),
      peak_rss_mb: m.peakRssMb,
    }),
  );
} finally {
  await srv.close();
}
