// Runs one sync source against a started replay server, through the real import pipeline, into a migrated
// database of its own, and measures it (wall time, peak RSS of this process, corpus size). Loopback only.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ADMIN_URL, ensureTemplate } from '../test/helpers/db.ts';
import type { ReplayServer } from '../test/helpers/replay-server.ts';
import { openStore } from '../src/store/db.ts';
import { createEgress } from '../src/lib/egress.ts';
import { systemClock } from '../src/lib/clock.ts';
import { runSync, type SourceReport } from '../src/services/sync/sync.ts';
import { pipelineSink } from '../src/services/sync/sync-sink.ts';

export interface SyncMeasure {
  report: SourceReport;
  seconds: number;
  peakRssMb: number;
  corpusCves: number;
}

export async function measureSync(srv: ReplayServer, source: string): Promise<SyncMeasure> {
  // Its own database name, outside the vi_t_* names of the test runs, which test/run.mjs drops.
  const tpl = await ensureTemplate();
  const name = `vi_bench_${source}_${process.pid}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${tpl}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const store = openStore(url.toString(), { max: 5 });
  const staging = await mkdtemp(path.join(os.tmpdir(), `vi-bench-${source}-`));
  const egress = createEgress({ allowList: [`127.0.0.1:${srv.port}`] });
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 100);
  const t0 = performance.now();
  try {
    // The NVD rate-limit waits are not part of the measure (no-op sleep); the real API adds them (docs/sync.md).
    const r = await runSync(
      {
        store,
        egress,
        sink: pipelineSink(store.db),
        clock: systemClock,
        log: { info() {}, warn() {} },
        urls: srv.urls,
        nvdApiKey: null,
        stagingRoot: staging,
        sleep: async () => {},
      },
      [source],
    );
    const seconds = (performance.now() - t0) / 1000;
    const corpus = (await store.pool.query('SELECT count(*)::int AS n FROM cves')).rows[0].n as number;
    return {
      report: r.sources[0],
      seconds: Number(seconds.toFixed(1)),
      peakRssMb: Math.round(peak / 1048576),
      corpusCves: corpus,
    };
  } finally {
    clearInterval(sampler);
    await egress.close();
    await store.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    await rm(staging, { recursive: true, force: true });
  }
}
