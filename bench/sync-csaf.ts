// First CSAF sync at real scale: the complete CISA OT ROLIE feed of 2024-10-24 (2,379 advisories, from
// shared/data/csaf-ics) served on loopback by the replay server, synced through the real import pipeline
// into a fresh database. Prints wall time, documents/s and peak RSS. Loopback only; never part of `npm test`.
//   node --import tsx bench/sync-csaf.ts            (needs PostgreSQL at TEST_DATABASE_URL or 127.0.0.1:5432)
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import { measureSync } from './bench-sync.ts';
import { ReplayServer } from '../test/helpers/replay-server.ts';

const data = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'shared', 'data', 'csaf-ics');
const shared = process.env.SHARED_DATA_CSAF ?? (existsSync(data) ? data : '/work/shared/data/csaf-ics');

const tmp = await mkdtemp(path.join(os.tmpdir(), 'vi-bench-csaf-'));
execFileSync('tar', [
  '-xJf',
  path.join(shared, 'cisa-csaf-2017-2024.tar.xz'),
  '-C',
  tmp,
  'csaf_files/OT/white/cisa-csaf-ot-feed-tlp-white.json',
]);
const feed = JSON.parse(await readFile(path.join(tmp, 'csaf_files/OT/white/cisa-csaf-ot-feed-tlp-white.json'), 'utf8'));
const byId = new Map<string, string>();
for (const line of gunzipSync(await readFile(path.join(shared, 'cisa-csaf-all.jsonl.gz')))
  .toString('utf8')
  .split('\n')) {
  if (line.trim()) byId.set(JSON.parse(line).document.tracking.id, line);
}
const docs = new Map<string, Buffer>();
for (const e of feed.feed.entry) {
  const href = e.link.find((l: { rel: string }) => l.rel === 'self').href as string;
  const text = byId.get(e.id);
  if (text) docs.set(href.slice(href.lastIndexOf('/') + 1), Buffer.from(text));
}

const srv = await new ReplayServer({ csaf: { feed, docs } }).start();
try {
  const m = await measureSync(srv, 'csaf');
  console.log(
    JSON.stringify({
      status: m.report.status,
      error: m.report.error,
      advisories: m.report.files,
      records: m.report.records,
      corpus_cves: m.corpusCves,
      seconds: m.seconds,
      advisories_per_s: Number(((m.report.files ?? 0) / m.seconds).toFixed(1)),
      peak_rss_mb: m.peakRssMb,
    }),
  );
} finally {
  await srv.close();
  await rm(tmp, { recursive: true, force: true });
}
