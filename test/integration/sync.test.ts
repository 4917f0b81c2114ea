// `vulnintel sync` against a loopback server replaying the real feed files (test/helpers/replay-server.ts),
// with real PostgreSQL for checkpoints, ingest runs and the single-flight lock. Sleeps and time are injected:
// nothing here waits for a real backoff.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { gunzipSync, gzipSync } from 'node:zlib';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { ReplayServer, loadNvdRecords } from '../helpers/replay-server.ts';
import { RecordingSink } from '../helpers/recording-sink.ts';
import { fixedClock } from '../../src/lib/clock.ts';
import { createEgress } from '../../src/lib/egress.ts';
import { runSync, SyncBusyError, type SyncDeps } from '../../src/services/sync/sync.ts';
import { SYNC_LOCK_KEY, getCursor } from '../../src/store/sync-state.ts';
import type { NvdCursor } from '../../src/services/sync/sync-nvd.ts';
import { healthFacts } from '../../src/store/health.ts';
import { buildHealth } from '../../src/domain/health.ts';

const FIX = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'fixtures', 'sync');
const quiet = { info() {}, warn() {} };

// The replay server serves these six feeds; the MSRC source (last in SYNC_SOURCES) is synced in windows-sync.test.ts.
const FEEDS = ['cwe', 'capec', 'nvd', 'csaf', 'kev', 'epss'];
const ALL_NVD = loadNvdRecords()
  .map((r) => r.id as string)
  .sort();

let staging: string;
before(async () => {
  staging = await mkdtemp(path.join(os.tmpdir(), 'vi-sync-'));
});
after(async () => {
  await rm(staging, { recursive: true, force: true });
});

interface Harness {
  db: TestDb;
  srv: ReplayServer;
  sink: RecordingSink;
  clock: ReturnType<typeof fixedClock>;
  sleeps: number[];
  deps: SyncDeps;
  close(): Promise<void>;
}

async function harness(
  opts: { pageSize?: number; apiKey?: string | null; maxAttempts?: number; allowLoopback?: boolean } = {},
): Promise<Harness> {
  const db = await freshDb();
  const srv = await new ReplayServer().start();
  const sink = new RecordingSink();
  const clock = fixedClock('2026-10-01T00:00:00.000Z');
  const sleeps: number[] = [];
  const egress = createEgress({ allowList: opts.allowLoopback === false ? [] : [`127.0.0.1:${srv.port}`] });
  const deps: SyncDeps = {
    store: db.store,
    egress,
    sink,
    clock,
    log: quiet,
    urls: srv.urls,
    nvdApiKey: opts.apiKey === undefined ? null : opts.apiKey,
    stagingRoot: path.join(staging, db.name),
    // The injected sleep moves the fake clock, so the rate limiter and Retry-After see time pass.
    sleep: async (ms) => {
      sleeps.push(ms);
      clock.advance(ms);
    },
    random: () => 0.5,
    retry: opts.maxAttempts ? { maxAttempts: opts.maxAttempts } : undefined,
    nvdPageSize: opts.pageSize ?? 5,
  };
  return {
    db,
    srv,
    sink,
    clock,
    sleeps,
    deps,
    async close() {
      await egress.close();
      await srv.close();
      await db.drop();
    },
  };
}

async function runs(h: Harness) {
  const r = await h.db.store.pool.query(
    'SELECT stage, source, status, rows, error, finished_at FROM ingest_runs ORDER BY id',
  );
  return r.rows as {
    stage: string;
    source: string;
    status: string;
    rows: number;
    error: string | null;
    finished_at: Date | null;
  }[];
}

function csafFixtureCves(): Promise<Map<string, string[]>> {
  return readdir(path.join(FIX, 'csaf', 'docs')).then(async (files) => {
    const m = new Map<string, string[]>();
    for (const f of files) {
      const doc = JSON.parse(await readFile(path.join(FIX, 'csaf', 'docs', f), 'utf8'));
      m.set(doc.document.tracking.id, (doc.vulnerabilities ?? []).map((v: { cve?: string }) => v.cve).filter(Boolean));
    }
    return m;
  });
}

test('full sync of every source, then a second run that fetches nothing new, then only what changed', async () => {
  const h = await harness({ apiKey: 'test-nvd-key' });
  try {
    h.srv.useKev('2025-08-25');
    const first = await runSync(h.deps, FEEDS);
    assert.equal(first.ok, true, JSON.stringify(first.sources.filter((s) => s.status !== 'succeeded')));
    assert.deepEqual(
      first.sources.map((s) => s.source),
      ['cwe', 'capec', 'nvd', 'csaf', 'kev', 'epss'],
    );

    // NVD: the initial pull pages through everything without a date filter, 5 per page, with the API key header.
    const nvdReqs = h.srv.requestsTo('/rest/json/cves/2.0');
    assert.deepEqual(
      nvdReqs.map((r) => r.query.startIndex),
      ['0', '5', '10', '15', '20'],
    );
    assert.ok(nvdReqs.every((r) => r.query.resultsPerPage === '5' && !('lastModStartDate' in r.query)));
    assert.ok(nvdReqs.every((r) => r.headers.apikey === 'test-nvd-key'));
    assert.deepEqual([...h.sink.ids('nvd')].sort(), ALL_NVD);
    assert.equal(h.sink.of('nvd').length, 5);
    assert.deepEqual(await getCursor<NvdCursor>(h.db.store.db, 'nvd'), { last_mod_end: '2026-10-01T00:00:00.000' });

    // KEV: the whole 2025-08-25 catalog; EPSS: the 49 rows of the official file; CWE from the zip; CAPEC bundle.
    assert.equal(h.sink.ids('kev').length, 1404);
    assert.equal(h.sink.ids('epss').length, 49);
    assert.equal(h.sink.ids('epss')[0], 'CVE-1999-0001');
    assert.deepEqual(
      h.sink.ids('cwe').filter((x) => ['CWE-79', 'CWE-89', 'CWE-787'].includes(x)),
      ['CWE-787', 'CWE-79', 'CWE-89'],
    );
    assert.equal(h.sink.ids('cwe').length, 18);
    assert.equal(h.sink.ids('capec').length, 40);
    const csaf = await csafFixtureCves();
    assert.deepEqual(h.sink.ids('csaf').sort(), [...csaf.values()].flat().sort());
    assert.equal(h.sink.of('csaf').length, 6);
    // The six advisories went to the pipeline together, in one run.
    assert.deepEqual(
      h.sink.calls.filter((c) => c.source === 'csaf').map((c) => c.files.length),
      [6],
    );

    const kevCursor = await getCursor<{ etag: string; meta: Record<string, string> }>(h.db.store.db, 'kev');
    assert.deepEqual(kevCursor?.meta, { catalogVersion: '2025.08.25', count: '1404' });
    const epssCursor = await getCursor<{ meta: Record<string, string> }>(h.db.store.db, 'epss');
    assert.deepEqual(epssCursor?.meta, { model_version: 'v2026.06.15', score_date: '2026-09-29T12:00:22Z' });
    const cweCursor = await getCursor<{ meta: Record<string, string>; last_modified: string }>(h.db.store.db, 'cwe');
    assert.deepEqual(cweCursor?.meta, { version: '4.15', date: '2024-07-16' });

    // One ingest run per source, stage ingest, succeeded, with the record counts.
    const r1 = await runs(h);
    assert.deepEqual(
      r1.map((r) => [r.stage, r.source, r.status, r.rows]),
      [
        ['ingest', 'sync:cwe', 'succeeded', 18],
        ['ingest', 'sync:capec', 'succeeded', 40],
        ['ingest', 'sync:nvd', 'succeeded', 21],
        ['ingest', 'sync:csaf', 'succeeded', h.sink.ids('csaf').length],
        ['ingest', 'sync:kev', 'succeeded', 1404],
        ['ingest', 'sync:epss', 'succeeded', 49],
      ],
    );
    assert.ok(r1.every((r) => r.finished_at !== null && r.error === null));

    // Second run a day later: conditional GETs answer 304, CAPEC (no validators) is the same content, the CSAF
    // feed is unchanged so no document is fetched, NVD's window since the last run holds nothing.
    const importsBefore = h.sink.imports.length;
    const reqsBefore = h.srv.requests.length;
    h.clock.advance(24 * 3600 * 1000);
    const second = await runSync(h.deps, FEEDS);
    assert.equal(second.ok, true);
    assert.deepEqual(
      second.sources.map((s) => s.records),
      [0, 0, 0, 0, 0, 0],
    );
    assert.equal(h.sink.imports.length, importsBefore);
    const again = h.srv.requests.slice(reqsBefore);
    assert.deepEqual(
      again.map((r) => r.path),
      [
        '/data/xml/cwec_latest.xml.zip',
        '/mitre/cti/master/capec/2.1/stix-capec.json',
        '/rest/json/cves/2.0',
        '/csaf/csaf_files/OT/white/cisa-csaf-ot-feed-tlp-white.json',
        '/sites/default/files/feeds/known_exploited_vulnerabilities.json',
        '/epss_scores-current.csv.gz',
      ],
    );
    assert.equal(again[0].headers['if-modified-since'], 'Tue, 16 Jul 2024 12:00:00 GMT');
    assert.equal(again[4].headers['if-none-match'], kevCursor?.etag);
    assert.deepEqual(again[2].query, {
      resultsPerPage: '5',
      startIndex: '0',
      lastModStartDate: '2026-10-01T00:00:00.000',
      lastModEndDate: '2026-10-02T00:00:00.000',
    });
    assert.match(second.sources[0].summary ?? '', /unchanged \(304 Not Modified\)/);
    assert.match(second.sources[1].summary ?? '', /same content/);

    // Third run: KEV has a new catalog, NVD modified one record, CISA revised one advisory.
    h.srv.useKev('2026-08-07');
    h.srv.touchNvd('CVE-2024-3506', '2026-10-02T08:30:00.000');
    h.srv.touchCsaf('ICSA-24-296-01', '2026-10-02T06:00:00.000000Z');
    h.clock.advance(24 * 3600 * 1000);
    const reqsBefore3 = h.srv.requests.length;
    const third = await runSync(h.deps, FEEDS);
    assert.equal(third.ok, true);
    const bySource = Object.fromEntries(third.sources.map((s) => [s.source, s.records]));
    assert.equal(bySource.kev, 1662);
    assert.equal(bySource.nvd, 1);
    assert.deepEqual(h.sink.of('nvd').at(-1)?.ids, ['CVE-2024-3506']);
    assert.deepEqual(h.sink.of('csaf').at(-1)?.ids, csaf.get('ICSA-24-296-01'));
    const docReqs = h.srv.requests.slice(reqsBefore3).filter((r) => /\/2024\/icsa-/.test(r.path));
    assert.deepEqual(
      docReqs.map((r) => r.path),
      ['/csaf/csaf_files/OT/white/2024/icsa-24-296-01.json'],
    );
    assert.equal(bySource.epss, 0);
  } finally {
    await h.close();
  }
});

test('NVD: a failure on page 2 marks the run failed; the next run resumes at page 2 from the checkpoint', async () => {
  const h = await harness();
  try {
    h.srv.inject((r) => r.path === '/rest/json/cves/2.0' && r.query.startIndex === '5', 500, {
      body: 'Internal Server Error',
    });
    const first = await runSync(h.deps, ['nvd']);
    assert.equal(first.ok, false);
    assert.equal(first.sources[0].status, 'failed');
    assert.match(
      first.sources[0].error ?? '',
      /NVD: http:\/\/127\.0\.0\.1:\d+\/rest\/json\/cves\/2\.0 answered HTTP 500/,
    );
    const failedRun = (await runs(h))[0];
    assert.deepEqual([failedRun.source, failedRun.status, failedRun.rows], ['sync:nvd', 'failed', 5]);
    assert.match(failedRun.error ?? '', /HTTP 500/);
    assert.deepEqual(await getCursor(h.db.store.db, 'nvd'), {
      window: { start: null, end: '2026-10-01T00:00:00.000' },
      start_index: 5,
    });
    const page1 = h.sink.ids('nvd');
    assert.equal(page1.length, 5);

    const reqsBefore = h.srv.requests.length;
    const second = await runSync(h.deps, ['nvd']);
    assert.equal(second.ok, true);
    const resumed = h.srv.requests.slice(reqsBefore);
    assert.deepEqual(
      resumed.map((r) => r.query.startIndex),
      ['5', '10', '15', '20'],
    );
    // Every record exactly once across both runs: nothing re-imported, nothing skipped.
    assert.deepEqual([...h.sink.ids('nvd')].sort(), ALL_NVD);
    assert.equal(new Set(h.sink.ids('nvd')).size, 21);
    assert.deepEqual(await getCursor(h.db.store.db, 'nvd'), { last_mod_end: '2026-10-01T00:00:00.000' });
    assert.deepEqual(
      (await runs(h)).map((r) => [r.status, r.rows]),
      [
        ['failed', 5],
        ['succeeded', 16],
      ],
    );
  } finally {
    await h.close();
  }
});

test('NVD: a pipeline failure does not advance the checkpoint past the uncommitted page', async () => {
  const h = await harness();
  try {
    await runSync(h.deps, ['nvd']);
    h.sink.imports.length = 0;
    h.srv.touchNvd('CVE-2023-0228', '2026-10-01T12:00:00.000');
    h.clock.advance(24 * 3600 * 1000);
    h.sink.failNext('nvd');
    const failed = await runSync(h.deps, ['nvd']);
    assert.equal(failed.ok, false);
    assert.match(failed.sources[0].error ?? '', /simulated pipeline failure/);
    assert.deepEqual(await getCursor(h.db.store.db, 'nvd'), { last_mod_end: '2026-10-01T00:00:00.000' });
    const ok = await runSync(h.deps, ['nvd']);
    assert.equal(ok.ok, true);
    assert.deepEqual(h.sink.ids('nvd'), ['CVE-2023-0228']);
    assert.deepEqual(await getCursor(h.db.store.db, 'nvd'), { last_mod_end: '2026-10-02T00:00:00.000' });
  } finally {
    await h.close();
  }
});

test('NVD: incremental windows are at most 120 days, contiguous, and cover the gap up to now', async () => {
  const h = await harness({ pageSize: 2000 });
  try {
    await h.db.store.pool.query(`INSERT INTO sync_state(source, cursor) VALUES ('nvd', $1)`, [
      JSON.stringify({ last_mod_end: '2025-01-01T00:00:00.000' }),
    ]);
    const report = await runSync(h.deps, ['nvd']);
    assert.equal(report.ok, true);
    const reqs = h.srv.requestsTo('/rest/json/cves/2.0');
    const windows = reqs.map((r) => [r.query.lastModStartDate, r.query.lastModEndDate]);
    assert.equal(windows[0][0], '2025-01-01T00:00:00.000');
    assert.equal(windows.at(-1)?.[1], '2026-10-01T00:00:00.000');
    for (let i = 0; i < windows.length; i++) {
      const span = Date.parse(`${windows[i][1]}Z`) - Date.parse(`${windows[i][0]}Z`);
      assert.ok(span > 0 && span <= 120 * 24 * 3600 * 1000, `window ${i} spans ${span} ms`);
      if (i > 0) assert.equal(windows[i][0], windows[i - 1][1]);
    }
    assert.equal(
      windows.length,
      Math.ceil((Date.parse('2026-10-01') - Date.parse('2025-01-01')) / (120 * 24 * 3600 * 1000)),
    );
    const expected = loadNvdRecords()
      .filter((r) => Date.parse(`${r.lastModified}Z`) >= Date.parse('2025-01-01T00:00:00Z'))
      .map((r) => r.id)
      .sort();
    assert.ok(expected.length > 0 && expected.length < 21);
    assert.deepEqual([...h.sink.ids('nvd')].sort(), expected);
    // Public rate limit (no key): 5 requests per rolling 30 s, so the 6th request waited for the window.
    assert.ok(windows.length > 5);
    assert.equal(h.sleeps.length, Math.floor((windows.length - 1) / 5));
    assert.ok(h.sleeps.every((ms) => ms > 0 && ms <= 30_000));
  } finally {
    await h.close();
  }
});

test('NVD: 429 with Retry-After is honoured, then the run succeeds', async () => {
  const h = await harness();
  try {
    h.srv.inject((r) => r.path === '/rest/json/cves/2.0' && r.query.startIndex === '0', 429, {
      headers: { 'retry-after': '7' },
    });
    // The server's clock agrees with ours here: its Date header is the fake clock's time at that request.
    h.srv.inject((r) => r.path === '/rest/json/cves/2.0' && r.query.startIndex === '10', 503, {
      headers: {
        'retry-after': new Date(Date.parse('2026-10-01T00:00:00Z') + 7000 + 12_000).toUTCString(),
        date: new Date(Date.parse('2026-10-01T00:00:00Z') + 7000).toUTCString(),
      },
    });
    const report = await runSync(h.deps, ['nvd']);
    assert.equal(report.ok, true);
    assert.equal(h.sleeps[0], 7000);
    // The HTTP-date form: 12 s after the fake clock's time at that request (7 s were already slept).
    assert.equal(h.sleeps[1], 12_000);
    assert.deepEqual(
      h.srv.requestsTo('/rest/json/cves/2.0').map((r) => r.query.startIndex),
      ['0', '0', '5', '10', '10', '15', '20'],
    );
    assert.deepEqual([...h.sink.ids('nvd')].sort(), ALL_NVD);
  } finally {
    await h.close();
  }
});

test('NVD: 403 is retried with bounded exponential backoff, then the run is marked failed with a clear error', async () => {
  const key = 'nvd-key-0f1e2d3c4b5a';
  const h = await harness({ maxAttempts: 4, apiKey: key });
  const logged: unknown[] = [];
  h.deps.log = { info: (o, m) => logged.push([o, m]), warn: (o, m) => logged.push([o, m]) };
  try {
    h.srv.inject((r) => r.path === '/rest/json/cves/2.0', 403, { times: 100 });
    const report = await runSync(h.deps, ['nvd']);
    // The key travels in the apiKey header only: never in the URL, a log line, the error or the run record.
    assert.ok(h.srv.requests.every((r) => r.headers.apikey === key && !JSON.stringify(r.query).includes(key)));
    assert.equal(logged.filter((l) => JSON.stringify(l).includes('retrying')).length, 3);
    assert.ok(!JSON.stringify(logged).includes(key));
    assert.ok(!JSON.stringify(report).includes(key));
    assert.ok(!JSON.stringify(await runs(h)).includes(key));
    assert.equal(report.ok, false);
    const msg = report.sources[0].error ?? '';
    assert.match(msg, /HTTP 403 Forbidden on all 4 attempts; giving up/);
    assert.match(msg, /rate limit is exceeded or the API key is invalid/);
    assert.equal(h.srv.requestsTo('/rest/json/cves/2.0').length, 4);
    // base 6 s doubling, equal jitter at random()=0.5: 3/4 of each step.
    assert.deepEqual(h.sleeps, [4500, 9000, 18000]);
    const [run] = await runs(h);
    assert.deepEqual([run.stage, run.source, run.status, run.rows], ['ingest', 'sync:nvd', 'failed', 0]);
    assert.equal(run.error, msg);
    assert.equal(h.sink.imports.length, 0);
  } finally {
    await h.close();
  }
});

test('CSAF: a document that fails is retried alone on the next run; the others are not fetched again', async () => {
  const h = await harness();
  try {
    h.srv.inject((r) => r.path.endsWith('/icsa-24-298-02.json'), 404, { body: 'gone' });
    const first = await runSync(h.deps, ['csaf']);
    assert.equal(first.ok, false);
    assert.match(
      first.sources[0].error ?? '',
      /CSAF: 1 of 6 new or changed documents failed \(first: ICSA-24-298-02: CSAF ICSA-24-298-02: .* answered HTTP 404\); 5 imported/,
    );
    assert.equal(h.sink.of('csaf').length, 5);
    const before = h.srv.requests.length;
    const second = await runSync(h.deps, ['csaf']);
    assert.equal(second.ok, true);
    const docs = h.srv.requests
      .slice(before)
      .filter((r) => /\/2024\//.test(r.path))
      .map((r) => path.basename(r.path));
    assert.deepEqual(docs, ['icsa-24-298-02.json']);
    const versions = await h.db.store.pool.query(
      `SELECT doc_id, version FROM sync_documents WHERE source = 'csaf' ORDER BY doc_id`,
    );
    assert.equal(versions.rows.length, 6);
    assert.deepEqual(
      versions.rows.find((r) => r.doc_id === 'ICSA-24-291-05'),
      { doc_id: 'ICSA-24-291-05', version: '2024-10-17T06:00:00.000000Z' },
    );
  } finally {
    await h.close();
  }
});

test('CSAF: a document the reader cannot read does not keep the rest of its batch out', async () => {
  const h = await harness();
  try {
    h.srv.inject((r) => r.path.endsWith('/icsa-24-298-01.json'), 200, {
      headers: { 'content-type': 'application/json' },
      body: '<html>maintenance</html>',
    });
    const first = await runSync(h.deps, ['csaf']);
    assert.equal(first.ok, false);
    assert.match(
      first.sources[0].error ?? '',
      /CSAF: 1 of 6 new or changed documents failed \(first: ICSA-24-298-01: .*not valid/,
    );
    // The batch call failed (nothing recorded), then each document went alone: five got in.
    assert.deepEqual(
      h.sink.calls.map((c) => c.files.length),
      [1, 1, 1, 1, 1],
    );
    assert.deepEqual(
      h.sink.of('csaf').map((i) => i.ids.length > 0),
      [true, true, true, true, true],
    );
    const stored = (await h.db.store.pool.query(`SELECT doc_id FROM sync_documents ORDER BY doc_id`)).rows.map(
      (r) => r.doc_id,
    );
    assert.deepEqual(stored, [
      'ICSA-24-268-06',
      'ICSA-24-291-05',
      'ICSA-24-296-01',
      'ICSA-24-298-02',
      'ICSA-24-298-03',
    ]);
    const second = await runSync(h.deps, ['csaf']);
    assert.equal(second.ok, true);
    assert.deepEqual(
      h.sink.calls.at(-1)?.files.map((f) => path.basename(f)),
      ['ICSA-24-298-01.json'],
    );
  } finally {
    await h.close();
  }
});

test('KEV: the same content under a new ETag is not imported again, and the new ETag is used next time', async () => {
  const h = await harness();
  try {
    await runSync(h.deps, ['kev']);
    assert.equal(h.sink.ids('kev').length, 1662);
    const body = gunzipSync(
      await readFile(path.join(FIX, 'kev', 'known_exploited_vulnerabilities-2026-08-07.json.gz')),
    ).toString('utf8');
    h.srv.inject((r) => r.path.endsWith('/known_exploited_vulnerabilities.json'), 200, {
      headers: { etag: '"rotated-v2"' },
      body,
    });
    const second = await runSync(h.deps, ['kev']);
    assert.match(second.sources[0].summary ?? '', /unchanged \(same content as the last sync\)/);
    assert.equal(h.sink.of('kev').length, 1);
    const cursor = await getCursor<{ etag: string; meta: Record<string, string> }>(h.db.store.db, 'kev');
    assert.equal(cursor?.etag, '"rotated-v2"');
    assert.deepEqual(cursor?.meta, { catalogVersion: '2026.08.07', count: '1662' });
    await runSync(h.deps, ['kev']);
    assert.equal(h.srv.requests.at(-1)?.headers['if-none-match'], '"rotated-v2"');
  } finally {
    await h.close();
  }
});

test('single flight: a second concurrent sync exits with a clear message and records nothing', async () => {
  const h = await harness();
  const holder = new pg.Client({ connectionString: h.db.url });
  await holder.connect();
  try {
    await holder.query('SELECT pg_advisory_lock($1)', [SYNC_LOCK_KEY]);
    const pid = (await holder.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    await assert.rejects(runSync(h.deps), (e: unknown) => {
      assert.ok(e instanceof SyncBusyError);
      assert.equal(
        e.message,
        `Another vulnintel sync is already running (database backend pid ${pid}); this one exits without doing anything. Try again when it has finished.`,
      );
      return true;
    });
    assert.deepEqual(h.srv.requests, []);
    assert.deepEqual(await runs(h), []);
    await holder.query('SELECT pg_advisory_unlock($1)', [SYNC_LOCK_KEY]);
    const report = await runSync(h.deps, ['kev']);
    assert.equal(report.ok, true);
  } finally {
    await holder.end();
    await h.close();
  }
});

test('egress: without the explicit allow list the loopback feeds are refused before any request', async () => {
  const h = await harness({ allowLoopback: false });
  try {
    const report = await runSync(h.deps, FEEDS);
    assert.equal(report.ok, false);
    assert.equal(report.sources.length, 6);
    for (const s of report.sources) {
      assert.equal(s.status, 'failed');
      assert.match(
        s.error ?? '',
        /^http:\/\/127\.0\.0\.1:\d+\/\S*: refused by the egress policy: http is allowed only for hosts on the egress allow list \(127\.0\.0\.1:\d+\); a feed mirror reached over http or at a private address must be listed in VULNINTEL_EGRESS_ALLOW \(host or host:port; docs\/egress\.md\)$/,
      );
    }
    assert.deepEqual(h.srv.requests, []);
  } finally {
    await h.close();
  }
});

test('a download that breaks off mid-body (a reset by a flaky proxy) is retried with backoff, for whole files, NVD pages and CSAF documents', async () => {
  const h = await harness();
  try {
    // KEV: twice cut halfway through its body (Content-Length announced), then served whole.
    h.srv.cutBody((r) => r.path.endsWith('/known_exploited_vulnerabilities.json'), 2);
    h.srv.cutBody((r) => r.path === '/rest/json/cves/2.0' && r.query.startIndex === '5');
    h.srv.cutBody((r) => r.path.endsWith('/icsa-24-298-02.json'));
    const report = await runSync(h.deps, ['nvd', 'csaf', 'kev']);
    assert.equal(report.ok, true, JSON.stringify(report.sources));
    assert.equal(h.srv.requestsTo('/sites/default/files/feeds/known_exploited_vulnerabilities.json').length, 3);
    assert.deepEqual(
      h.srv.requestsTo('/rest/json/cves/2.0').map((r) => r.query.startIndex),
      ['0', '5', '5', '10', '15', '20'],
    );
    assert.equal(h.srv.requests.filter((r) => r.path.endsWith('/icsa-24-298-02.json')).length, 2);
    // Everything arrived once, whole.
    assert.equal(h.sink.ids('kev').length, 1662);
    assert.deepEqual([...h.sink.ids('nvd')].sort(), ALL_NVD);
    assert.equal(h.sink.of('csaf').length, 6);
    // Backoff between the attempts (6 s base, equal jitter at random()=0.5), not a tight loop.
    assert.deepEqual(h.sleeps.filter((ms) => ms === 4500 || ms === 9000).length, 4);
  } finally {
    await h.close();
  }
});

test('a download that keeps breaking off fails its source after the attempts, naming the URL and what happened', async () => {
  const h = await harness({ maxAttempts: 3 });
  try {
    h.srv.cutBody((r) => r.path.endsWith('/known_exploited_vulnerabilities.json'), 10);
    const report = await runSync(h.deps, ['kev', 'epss']);
    assert.equal(report.sources[0].status, 'failed');
    assert.match(
      report.sources[0].error ?? '',
      /^http:\/\/127\.0\.0\.1:\d+\/sites\/default\/files\/feeds\/known_exploited_vulnerabilities\.json: network error: \S+ while the body was read on all 3 attempts; giving up$/,
    );
    assert.equal(h.srv.requestsTo('/sites/default/files/feeds/known_exploited_vulnerabilities.json').length, 3);
    // The next source still ran.
    assert.equal(report.sources[1].status, 'succeeded');
    assert.deepEqual(await getCursor(h.db.store.db, 'kev'), null);
    assert.equal(h.sink.of('kev').length, 0);
  } finally {
    await h.close();
  }
});

test('a feed going backwards (a stale mirror or cache serving an older KEV catalog or EPSS file) is refused, and the newer data stays', async () => {
  const h = await harness();
  try {
    assert.equal((await runSync(h.deps, ['kev', 'epss'])).ok, true);
    const kevBefore = await getCursor<{ etag: string; meta: Record<string, string> }>(h.db.store.db, 'kev');
    const epssBefore = await getCursor<{ meta: Record<string, string> }>(h.db.store.db, 'epss');
    h.srv.useKev('2025-08-25');
    // The official file of the day before (same rows, an earlier score_date).
    const csv = (await readFile(path.join(FIX, 'epss', 'epss_scores-2026-09-29.head.csv'), 'utf8')).replace(
      'score_date:2026-09-29T12:00:22Z',
      'score_date:2026-09-28T12:00:19Z',
    );
    h.srv.inject((r) => r.path === '/epss_scores-current.csv.gz', 200, {
      headers: { 'content-type': 'application/gzip' },
      body: gzipSync(csv),
    });
    const report = await runSync(h.deps, ['kev', 'epss']);
    assert.equal(report.ok, false);
    assert.deepEqual(
      report.sources.map((s) => s.status),
      ['failed', 'failed'],
    );
    assert.match(
      report.sources[0].error ?? '',
      /^KEV: http:\/\/127\.0\.0\.1:\d+\/sites\/default\/files\/feeds\/known_exploited_vulnerabilities\.json served an older file \(catalogVersion 2025\.08\.25, count 1404\) than the one imported on 2026-10-01T00:00:00\.000Z \(catalogVersion 2026\.08\.07, count 1662\); not imported, the corpus keeps the newer one\. A stale mirror or cache answers like this; the next sync asks again$/,
    );
    assert.match(
      report.sources[1].error ?? '',
      /^EPSS: .* served an older file \(model_version v2026\.06\.15, score_date 2026-09-28T12:00:19Z\) than the one imported on .* \(model_version v2026\.06\.15, score_date 2026-09-29T12:00:22Z\); not imported/,
    );
    // Nothing of the older files reached the pipeline; the checkpoints (validators and facts) are the newer ones.
    assert.equal(h.sink.of('kev').length, 1);
    assert.equal(h.sink.of('epss').length, 1);
    assert.deepEqual(await getCursor(h.db.store.db, 'kev'), kevBefore);
    assert.deepEqual(await getCursor(h.db.store.db, 'epss'), epssBefore);
    const [kevRun] = (await runs(h)).filter((r) => r.source === 'sync:kev').slice(-1);
    assert.equal(kevRun.status, 'failed');
    assert.match(kevRun.error ?? '', /served an older file/);
    // The source serves the current catalog again: it is the one already imported (304), nothing changes.
    h.srv.useKev('2026-08-07');
    const again = await runSync(h.deps, ['kev']);
    assert.equal(again.ok, true);
    assert.match(again.sources[0].summary ?? '', /unchanged \(304 Not Modified\)/);
  } finally {
    await h.close();
  }
});

test('runs a killed sync left running are marked failed by the next sync even when it finds nothing new (health does not say "running" for days)', async () => {
  const h = await harness();
  try {
    assert.equal((await runSync(h.deps, ['kev'])).ok, true);
    // What a sync killed inside a pipeline run leaves (the pipeline opens both rows, the kill never closes them).
    await h.db.store.pool.query(`INSERT INTO ingest_runs (stage, source, status, started_at) VALUES
      ('ingest', 'sync:nvd:pipeline', 'running', '2026-09-30T23:00:00Z'), ('enricher', 'sync:nvd:pipeline', 'running', '2026-09-30T23:00:00Z')`);
    const health = async () => {
      const f = await healthFacts(h.db.store.db);
      return buildHealth({
        now: new Date(Date.now() + 120_000),
        db: { sizeBytes: f.dbSizeBytes, runs: f.runs, totalCves: f.totalCves, pendingEnrichment: f.pendingEnrichment },
        diskFreeBytes: null,
      });
    };
    assert.equal((await health()).pipeline.enricher.status, 'running');
    // The next sync: KEV unchanged (304), so the pipeline is never started. (Its clock is the database's, as in
    // production: the stale rows are closed at the database's now().)
    h.clock.set(new Date(Date.now() + 60_000));
    const next = await runSync(h.deps, ['kev']);
    assert.match(next.sources[0].summary ?? '', /unchanged \(304 Not Modified\)/);
    const left = await h.db.store.pool.query(
      `SELECT stage, status, error FROM ingest_runs WHERE source = 'sync:nvd:pipeline' ORDER BY id`,
    );
    assert.deepEqual(
      left.rows.map((r) => [r.stage, r.status]),
      [
        ['ingest', 'failed'],
        ['enricher', 'failed'],
      ],
    );
    assert.ok(left.rows.every((r) => /^interrupted/.test(r.error)));
    const hv = await health();
    assert.equal(hv.pipeline.enricher.status, 'failed');
    assert.equal(hv.services.enricher, 'failed');
    assert.equal(hv.pipeline.ingest.status, 'success');
  } finally {
    await h.close();
  }
});

test('a sync leaves alone the running rows of an import that holds the pipeline lock', async () => {
  const h = await harness();
  const importer = new pg.Client({ connectionString: h.db.url });
  await importer.connect();
  try {
    await importer.query('SELECT pg_advisory_lock(7224101)');
    await h.db.store.pool.query(
      `INSERT INTO ingest_runs (stage, source, status) VALUES ('ingest', 'import', 'running')`,
    );
    const report = await runSync(h.deps, ['kev']);
    assert.equal(report.ok, true);
    assert.deepEqual((await h.db.store.pool.query(`SELECT status FROM ingest_runs WHERE source = 'import'`)).rows, [
      { status: 'running' },
    ]);
  } finally {
    await importer.end();
    await h.close();
  }
});

test('NVD: with this clock ahead of the NVD clock, a window ends at the NVD time (the page timestamp), so a record NVD modifies in between is not skipped', async () => {
  const h = await harness({ pageSize: 2000 });
  try {
    // This machine's clock runs 1 h ahead of NVD's.
    const skew = 3600_000;
    h.srv.nvdNow = () => new Date(h.clock.now().getTime() - skew);
    const first = await runSync(h.deps, ['nvd']);
    assert.equal(first.ok, true);
    assert.deepEqual(await getCursor<NvdCursor>(h.db.store.db, 'nvd'), { last_mod_end: '2026-09-30T23:00:00.000' });
    // Half an hour later (NVD time 23:30, ours 00:30), NVD modifies a record.
    h.clock.advance(30 * 60_000);
    h.srv.touchNvd('CVE-2024-3506', '2026-09-30T23:30:00.000');
    h.clock.advance(60 * 60_000);
    const second = await runSync(h.deps, ['nvd']);
    assert.equal(second.ok, true);
    assert.deepEqual(h.sink.of('nvd').at(-1)?.ids, ['CVE-2024-3506']);
    const q = h.srv.requestsTo('/rest/json/cves/2.0').at(-1)?.query;
    assert.deepEqual([q?.lastModStartDate, q?.lastModEndDate], ['2026-09-30T23:00:00.000', '2026-10-01T01:30:00.000']);
    assert.deepEqual(await getCursor<NvdCursor>(h.db.store.db, 'nvd'), { last_mod_end: '2026-10-01T00:30:00.000' });
  } finally {
    await h.close();
  }
});

test('NVD: an empty page before totalResults is reached fails the run at that page instead of ending the window early', async () => {
  const h = await harness();
  try {
    h.srv.inject((r) => r.path === '/rest/json/cves/2.0' && r.query.startIndex === '10', 200, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        resultsPerPage: 0,
        startIndex: 10,
        totalResults: 21,
        format: 'NVD_CVE',
        version: '2.0',
        timestamp: '2026-10-01T00:00:00.000',
        vulnerabilities: [],
      }),
    });
    const first = await runSync(h.deps, ['nvd']);
    assert.equal(first.ok, false);
    assert.match(
      first.sources[0].error ?? '',
      /^NVD: http:\/\/127\.0\.0\.1:\d+\/rest\/json\/cves\/2\.0 answered an empty page at startIndex 10 of 21 results; the next sync resumes at this page$/,
    );
    assert.deepEqual(await getCursor<NvdCursor>(h.db.store.db, 'nvd'), {
      window: { start: null, end: '2026-10-01T00:00:00.000' },
      start_index: 10,
    });
    const second = await runSync(h.deps, ['nvd']);
    assert.equal(second.ok, true);
    assert.deepEqual([...h.sink.ids('nvd')].sort(), ALL_NVD);
  } finally {
    await h.close();
  }
});

test('Retry-After as an HTTP-date is read against the server clock (its Date header): this clock 10 min ahead still waits', async () => {
  const h = await harness();
  try {
    // The server's time is 10 minutes behind ours; it asks for a retry 30 s after its own now.
    const serverNow = Date.parse('2026-10-01T00:00:00Z') - 10 * 60_000;
    h.srv.inject((r) => r.path.endsWith('/known_exploited_vulnerabilities.json'), 503, {
      headers: { date: new Date(serverNow).toUTCString(), 'retry-after': new Date(serverNow + 30_000).toUTCString() },
    });
    const report = await runSync(h.deps, ['kev']);
    assert.equal(report.ok, true);
    assert.deepEqual(h.sleeps, [30_000]);
    assert.equal(h.srv.requestsTo('/sites/default/files/feeds/known_exploited_vulnerabilities.json').length, 2);
  } finally {
    await h.close();
  }
});

test('egress: a mirror on a private address is refused naming the URL and VULNINTEL_EGRESS_ALLOW; a feed that cannot be reached names the proxy variable that is set but not used', async () => {
  const h = await harness({ maxAttempts: 2 });
  try {
    // KEV: an https mirror at a private address, not on the allow list. EPSS: an allow-listed host:port where nothing
    // listens (what a plant without direct internet access sees, its proxy variable set but not used).
    const closed = await import('node:net').then(
      (net) =>
        new Promise<number>((resolve) => {
          const s = net.createServer().listen(0, '127.0.0.1', () => {
            const port = (s.address() as import('node:net').AddressInfo).port;
            s.close(() => resolve(port));
          });
        }),
    );
    h.deps.urls = {
      ...h.deps.urls,
      kev: 'https://10.20.30.40/feeds/kev.json',
      epss: `http://127.0.0.1:${closed}/epss_scores-current.csv.gz`,
    };
    h.deps.egress = createEgress({ allowList: [`127.0.0.1:${closed}`] });
    h.deps.proxyVariable = 'HTTPS_PROXY';
    const report = await runSync(h.deps, ['kev', 'epss']);
    await h.deps.egress.close();
    assert.equal(
      report.sources[0].error,
      'https://10.20.30.40/feeds/kev.json: refused by the egress policy: address 10.20.30.40 is in a blocked range (private 10.0.0.0/8); a feed mirror reached over http or at a private address must be listed in VULNINTEL_EGRESS_ALLOW (host or host:port; docs/egress.md)',
    );
    assert.match(
      report.sources[1].error ?? '',
      new RegExp(
        `^http://127\\.0\\.0\\.1:${closed}/epss_scores-current\\.csv\\.gz: network error: ECONNREFUSED on all 2 attempts; giving up \\(HTTPS_PROXY is set, but vulnintel sync connects directly and uses no proxy \\(docs/egress\\.md\\): point the VULNINTEL_FEED_URL_\\* variables at an internal mirror, listed in VULNINTEL_EGRESS_ALLOW, or copy the feed files over and run vulnintel sync --from DIR\\)$`,
      ),
    );
  } finally {
    await h.close();
  }
});
