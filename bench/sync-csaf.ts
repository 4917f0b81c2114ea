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
import pg from 'pg';
import { ADMIN_URL, ensureTemplate } from '../test/helpers/db.ts';
import { openStore } from '../src/store/db.ts';
import { ReplayServer } from '../test/helpers/replay-server.ts';
import { createEgress } from '../src/lib/egress.ts';
import { systemClock } from '../src/lib/clock.ts';
import { runSync } from '../src/jobs/sync.ts';
import { pipelineSink } from '../src/jobs/sync-sink.ts';

const data = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'shared', 'data', 'csaf-ics');
const shared = process.env.SHARED_DATA_CSAF ?? (existsSync(data) ? data : '/work/shared/data/csaf-ics');

const tmp = await mkdtemp(path.join(os.tmpdir(), 'vi-bench-csaf-'));
execFileSync('tar', ['-xJf', path.join(shared, 'cisa-csaf-2017-2024.tar.xz'), '-C', tmp, 'csaf_files/OT/white/cisa-csaf-ot-feed-tlp-white.json']);
const feed = JSON.parse(await readFile(path.join(tmp, 'csaf_files/OT/white/cisa-csaf-ot-feed-tlp-white.json'), 'utf8'));
const byId = new Map<string, string>();
for (const line of gunzipSync(await readFile(path.join(shared, 'cisa-csaf-all.jsonl.gz'))).toString('utf8').split('\n')) {
  if (line.trim()) byId.set(JSON.parse(line).document.tracking.id, line);
}
const docs = new Map<string, Buffer>();
for (const e of feed.feed.entry) {
  const href = e.link.find((l: { rel: string }) => l.rel === 'self').href as string;
  const text = byId.get(e.id);
  if (text) docs.set(href.slice(href.lastIndexOf('/') + 1), Buffer.from(text));
}

// Its own database name: `npm test` clears vi_t_* databases at start, which would pull a bench database away.
const tpl = await ensureTemplate();
const name = `vi_bench_sync_${process.pid}`;
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${name} TEMPLATE ${tpl}`);
const dbUrl = new URL(ADMIN_URL);
dbUrl.pathname = `/${name}`;
const db = { store: openStore(dbUrl.toString(), { max: 5 }), async drop() { await this.store.close(); await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`); await admin.end(); } };
const srv = await new ReplayServer({ csaf: { feed, docs } }).start();
const egress = createEgress({ allowList: [`127.0.0.1:${srv.port}`] });
let peak = 0;
const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 100);
const t0 = performance.now();
try {
  const report = await runSync({
    store: db.store, egress, sink: pipelineSink(db.store.db), clock: systemClock, log: { info() {}, warn() {} },
    urls: srv.urls, nvdApiKey: null, stagingRoot: path.join(tmp, 'staging'),
  }, ['csaf']);
  const secs = (performance.now() - t0) / 1000;
  const s = report.sources[0];
  const corpus = (await db.store.pool.query('SELECT count(*)::int AS n FROM cves')).rows[0].n;
  console.log(JSON.stringify({
    status: s.status, error: s.error, advisories: s.files, records: s.records, corpus_cves: corpus,
    seconds: Number(secs.toFixed(1)), advisories_per_s: Number(((s.files ?? 0) / secs).toFixed(1)), peak_rss_mb: Math.round(peak / 1048576),
  }));
} finally {
  clearInterval(sampler);
  await egress.close();
  await srv.close();
  await db.drop();
  await rm(tmp, { recursive: true, force: true });
}
