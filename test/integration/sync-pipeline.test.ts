// The sync wired to the real import pipeline (src/services/sync/sync-sink.ts → src/services/import/pipeline.ts) and the real
// `vulnintel sync` command in a child process, against the loopback replay server of the real feed files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freshDb } from '../helpers/db.ts';
import { ReplayServer, loadNvdRecords } from '../helpers/replay-server.ts';
import { fixedClock } from '../../src/lib/clock.ts';
import { createEgress } from '../../src/lib/egress.ts';
import { runSync, type SyncDeps } from '../../src/services/sync/sync.ts';
import { pipelineSink } from '../../src/services/sync/sync-sink.ts';
import { SYNC_LOCK_KEY } from '../../src/store/sync-state.ts';
import { runCli } from '../helpers/cli.ts';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const quiet = { info() {}, warn() {} };

// The replay server serves these six feeds; the MSRC source (last in SYNC_SOURCES) is synced in windows-sync.test.ts.
const FEEDS = ['cwe', 'capec', 'nvd', 'csaf', 'kev', 'epss'];

test('sync through the import pipeline: the corpus gets the feeds, a second run changes nothing, a modified record is updated', async () => {
  const db = await freshDb();
  const srv = await new ReplayServer().start();
  const staging = await mkdtemp(path.join(os.tmpdir(), 'vi-syncp-'));
  const egress = createEgress({ allowList: [`127.0.0.1:${srv.port}`] });
  const clock = fixedClock('2026-10-01T00:00:00.000Z');
  const deps: SyncDeps = {
    store: db.store,
    egress,
    sink: pipelineSink(db.store.db),
    clock,
    log: quiet,
    urls: srv.urls,
    nvdApiKey: null,
    stagingRoot: staging,
    sleep: async (ms) => clock.advance(ms),
    random: () => 0.5,
    nvdPageSize: 10,
  };
  const q = async (text: string, params: unknown[] = []) => (await db.store.pool.query(text, params)).rows;
  try {
    const first = await runSync(deps, FEEDS);
    assert.equal(first.ok, true, JSON.stringify(first.sources.filter((s) => s.status === 'failed')));
    const nvdIds = loadNvdRecords().map((r) => r.id as string);
    const inCorpus = await q(`SELECT cve_id, kev_flagged FROM cves WHERE cve_id = ANY($1) ORDER BY cve_id`, [nvdIds]);
    // All but CVE-2022-45793, whose NVD description is a placeholder and no other source describes it.
    assert.deepEqual(
      inCorpus.map((r) => r.cve_id),
      nvdIds.filter((id) => id !== 'CVE-2022-45793').sort(),
    );
    // CVE-2022-26925 is in the KEV catalog; CVE-2024-3506 (a Siemens camera driver advisory) is not.
    assert.equal(inCorpus.find((r) => r.cve_id === 'CVE-2022-26925')?.kev_flagged, true);
    assert.equal(inCorpus.find((r) => r.cve_id === 'CVE-2024-3506')?.kev_flagged, false);
    const [kevCount] = await q(`SELECT count(*)::int AS n FROM cves WHERE kev_flagged`);
    assert.equal(kevCount.n, 1662);
    // Every sync source has its summary run (sync:<name>, once); the pipeline recorded its own ingest and enricher
    // runs under sync:<name>:pipeline.
    const summaries = await q(
      `SELECT source, status FROM ingest_runs WHERE stage = 'ingest' AND source LIKE 'sync:%' AND source NOT LIKE '%:pipeline' ORDER BY id`,
    );
    assert.deepEqual(
      summaries.map((r) => r.source),
      ['sync:cwe', 'sync:capec', 'sync:nvd', 'sync:csaf', 'sync:kev', 'sync:epss'],
    );
    assert.ok(summaries.every((r) => r.status === 'succeeded'));
    const [enricher] = await q(
      `SELECT count(*)::int AS n FROM ingest_runs WHERE stage = 'enricher' AND source = 'sync:nvd:pipeline' AND status = 'succeeded'`,
    );
    assert.equal(enricher.n, 3, 'one pipeline run per NVD page of 10 (21 records)');

    const checksum = async () =>
      (
        await q(`SELECT md5(string_agg(cve_id || doc_hash, ',' ORDER BY cve_id)) AS h, count(*)::int AS n FROM cves`)
      )[0];
    const before = await checksum();
    const runsBefore = (await q(`SELECT count(*)::int AS n FROM ingest_runs`))[0].n;
    clock.advance(24 * 3600 * 1000);
    const second = await runSync(deps, FEEDS);
    assert.equal(second.ok, true);
    assert.deepEqual(await checksum(), before);
    // Only the six sync summaries were added: the pipeline was not called at all.
    assert.equal((await q(`SELECT count(*)::int AS n FROM ingest_runs`))[0].n, runsBefore + 6);

    srv.touchNvd('CVE-2023-33235', '2026-10-02T09:15:00.000');
    clock.advance(24 * 3600 * 1000);
    const third = await runSync(deps, ['nvd']);
    assert.equal(third.ok, true);
    assert.equal(third.sources[0].records, 1);
    const [moxa] = await q(`SELECT modified_at FROM cves WHERE cve_id = 'CVE-2023-33235'`);
    assert.equal(new Date(moxa.modified_at).toISOString(), '2026-10-02T09:15:00.000Z');
  } finally {
    await egress.close();
    await srv.close();
    await rm(staging, { recursive: true, force: true });
    await db.drop();
  }
});

test('vulnintel sync (CLI): syncs over the allow-listed loopback, refuses without it, and a concurrent sync exits 75', async () => {
  const db = await freshDb();
  const srv = await new ReplayServer().start();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vi-synccli-'));
  const urls = srv.urls;
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    VULNINTEL_DATA_DIR: dataDir,
    VULNINTEL_FEED_URL_NVD: urls.nvd,
    VULNINTEL_FEED_URL_KEV: urls.kev,
    VULNINTEL_FEED_URL_EPSS: urls.epss,
    VULNINTEL_FEED_URL_CWE: urls.cwe,
    VULNINTEL_FEED_URL_CAPEC: urls.capec,
    VULNINTEL_FEED_URL_CSAF: urls.csaf,
  };
  const holder = new pg.Client({ connectionString: db.url });
  try {
    const refused = await runCli(['sync', '--source', 'kev,epss', '--quiet'], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /^kev {4}FAILED {2}.*http is allowed only for hosts on the egress allow list/m);
    assert.match(refused.stdout, /^epss {3}FAILED/m);
    assert.deepEqual(srv.requests, []);

    const allowed = { ...env, VULNINTEL_EGRESS_ALLOW: `127.0.0.1:${srv.port}` };
    const ok = await runCli(['sync', '--source', 'kev', '--source', 'epss', '--json'], allowed);
    assert.equal(ok.code, 0, ok.stderr);
    const report = JSON.parse(ok.stdout);
    assert.equal(report.ok, true);
    assert.deepEqual(
      report.sources.map((s: { source: string; status: string }) => [s.source, s.status]),
      [
        ['kev', 'succeeded'],
        ['epss', 'succeeded'],
      ],
    );
    assert.match(report.sources[0].summary, /1662 records imported \(catalogVersion 2026\.08\.07, count 1662\)/);

    const status = await runCli(['sync', '--status', '--json'], allowed);
    assert.equal(status.code, 0, status.stderr);
    const st = JSON.parse(status.stdout).sources;
    assert.equal(st.find((s: { source: string }) => s.source === 'kev').last_run.status, 'succeeded');
    assert.equal(st.find((s: { source: string }) => s.source === 'nvd').last_run, null);

    await holder.connect();
    await holder.query('SELECT pg_advisory_lock($1)', [SYNC_LOCK_KEY]);
    const busy = await runCli(['sync', '--quiet'], allowed);
    assert.equal(busy.code, 75);
    assert.match(
      busy.stderr,
      /Another vulnintel sync is already running \(database backend pid \d+\); this one exits without doing anything/,
    );
  } finally {
    await holder.end().catch(() => {});
    await srv.close();
    await rm(dataDir, { recursive: true, force: true });
    await db.drop();
  }
});

test('vulnintel sync --from DIR (offline): imports the real feed files of a directory, no network involved', async () => {
  const db = await freshDb();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vi-syncfrom-'));
  const fix = path.join(root, 'test', 'fixtures', 'sync');
  try {
    await copyFile(
      path.join(fix, 'kev', 'known_exploited_vulnerabilities-2025-08-25.json.gz'),
      path.join(dir, 'kev.json.gz'),
    );
    await copyFile(path.join(fix, 'epss', 'epss_scores-2026-09-29.head.csv'), path.join(dir, 'epss.csv'));
    for (const f of await readdir(path.join(fix, 'csaf', 'docs')))
      await copyFile(path.join(fix, 'csaf', 'docs', f), path.join(dir, f));
    const r = await runCli(['sync', '--from', dir, '--json'], { DATABASE_URL: db.url, VULNINTEL_DATA_DIR: dir });
    assert.equal(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout);
    assert.equal(summary.inputs.length, 8);
    assert.deepEqual(summary.skipped, []);
    const formats = summary.inputs.map((i: { format: string }) => i.format).sort();
    assert.deepEqual(formats, ['csaf', 'csaf', 'csaf', 'csaf', 'csaf', 'csaf', 'epss-csv', 'kev']);
    const rows = (await db.store.pool.query(`SELECT count(*)::int AS n FROM cves WHERE kev_flagged`)).rows;
    assert.equal(rows[0].n, 1404);
    const run = (
      await db.store.pool.query(
        `SELECT source, status FROM ingest_runs WHERE stage = 'ingest' ORDER BY id DESC LIMIT 1`,
      )
    ).rows[0];
    assert.deepEqual(run, { source: 'sync:offline', status: 'succeeded' });
  } finally {
    await rm(dir, { recursive: true, force: true });
    await db.drop();
  }
});

test('a sync killed (SIGKILL) while waiting for page 3 resumes at page 3; the corpus ends complete and consistent', async () => {
  const db = await freshDb();
  const srv = await new ReplayServer().start();
  const staging = await mkdtemp(path.join(os.tmpdir(), 'vi-synckill-'));
  try {
    srv.inject((r) => r.path === '/rest/json/cves/2.0' && r.query.startIndex === '10', 0, { hang: true });
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'test', 'helpers', 'sync-child.ts')], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: db.url,
        FEED_URLS: JSON.stringify(srv.urls),
        ALLOW: `127.0.0.1:${srv.port}`,
        STAGING: staging,
        PAGE_SIZE: '5',
      },
      stdio: 'ignore',
    });
    const exited = new Promise<string | null>((r) => child.on('exit', (_c, sig) => r(sig)));
    // Wait (bounded) until the child has asked for page 3; pages 1 and 2 are committed by then.
    for (let i = 0; i < 600 && !srv.requests.some((r) => r.query.startIndex === '10'); i++)
      await new Promise((r) => setTimeout(r, 50));
    assert.ok(
      srv.requests.some((r) => r.query.startIndex === '10'),
      'the child reached page 3',
    );
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');
    const q = async (text: string) => (await db.store.pool.query(text)).rows;
    assert.deepEqual((await q(`SELECT cursor FROM sync_state WHERE source = 'nvd'`))[0].cursor, {
      window: { start: null, end: (await q(`SELECT cursor->'window'->>'end' AS e FROM sync_state`))[0].e },
      start_index: 10,
    });
    // The two committed pages of 5 (the server pages in id order), less the placeholder-only CVE-2022-45793.
    const firstTen = loadNvdRecords()
      .map((r) => r.id as string)
      .sort()
      .slice(0, 10)
      .filter((id) => id !== 'CVE-2022-45793');
    assert.deepEqual(
      (await q(`SELECT cve_id FROM cves ORDER BY cve_id`)).map((r) => r.cve_id),
      firstTen,
    );

    // The killed session's advisory lock goes with its connection; poll (bounded) until the server has noticed.
    const clock = fixedClock('2026-10-01T00:00:00.000Z');
    const egress = createEgress({ allowList: [`127.0.0.1:${srv.port}`] });
    const before = srv.requests.length;
    let report;
    try {
      for (let i = 0; i < 100; i++) {
        try {
          report = await runSync(
            {
              store: db.store,
              egress,
              sink: pipelineSink(db.store.db),
              clock,
              log: quiet,
              urls: srv.urls,
              nvdApiKey: null,
              stagingRoot: staging,
              sleep: async () => {},
              nvdPageSize: 5,
            },
            ['nvd'],
          );
          break;
        } catch (e) {
          if (!/already running/.test((e as Error).message)) throw e;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    } finally {
      await egress.close();
    }
    assert.equal(report?.ok, true);
    assert.deepEqual(
      srv.requests.slice(before).map((r) => r.query.startIndex),
      ['10', '15', '20'],
    );
    const ids = (await q(`SELECT cve_id FROM cves ORDER BY cve_id`)).map((r) => r.cve_id);
    assert.deepEqual(
      ids,
      loadNvdRecords()
        .map((r) => r.id as string)
        .filter((id) => id !== 'CVE-2022-45793')
        .sort(),
    );
    // The child's pipeline runs all finished before the kill; nothing is left 'running'.
    assert.deepEqual(await q(`SELECT count(*)::int AS n FROM ingest_runs WHERE status = 'running'`), [{ n: 0 }]);
  } finally {
    await srv.close();
    await rm(staging, { recursive: true, force: true });
    await db.drop();
  }
});

test('a cut EPSS gzip (a truncated download served whole) is refused before the pipeline: no score of it is stored', async () => {
  const db = await freshDb();
  const srv = await new ReplayServer().start();
  const staging = await mkdtemp(path.join(os.tmpdir(), 'vi-syncgz-'));
  const egress = createEgress({ allowList: [`127.0.0.1:${srv.port}`] });
  const clock = fixedClock('2026-10-01T00:00:00.000Z');
  // EPSS rows are committed 10 at a time here (5,000 in production), so a file that breaks late would leave rows.
  const deps: SyncDeps = {
    store: db.store,
    egress,
    sink: pipelineSink(db.store.db, { epssBatchSize: 10 }),
    clock,
    log: quiet,
    urls: srv.urls,
    nvdApiKey: null,
    stagingRoot: staging,
    sleep: async (ms) => clock.advance(ms),
    random: () => 0.5,
  };
  const q = async (text: string) => (await db.store.pool.query(text)).rows;
  try {
    const whole = gzipSync(
      await readFile(path.join(root, 'test', 'fixtures', 'sync', 'epss', 'epss_scores-2026-09-29.head.csv')),
    );
    srv.inject((r) => r.path === '/epss_scores-current.csv.gz', 200, {
      headers: { 'content-type': 'application/gzip' },
      body: whole.subarray(0, Math.floor(whole.length * 0.8)),
    });
    const cut = await runSync(deps, ['epss']);
    assert.equal(cut.sources[0].status, 'failed');
    assert.match(
      cut.sources[0].error ?? '',
      /^EPSS: the download is not a complete gzip file \(unexpected end of file after \d+ bytes of content\); nothing was imported, the next sync downloads it again$/,
    );
    assert.deepEqual(await q(`SELECT count(*)::int AS n FROM epss_scores`), [{ n: 0 }]);
    // The pipeline never started: only the source's own failed run is recorded.
    assert.deepEqual(await q(`SELECT stage, source, status FROM ingest_runs ORDER BY id`), [
      { stage: 'ingest', source: 'sync:epss', status: 'failed' },
    ]);
    assert.equal(await q(`SELECT cursor FROM sync_state WHERE source = 'epss'`).then((r) => r.length), 0);
    const next = await runSync(deps, ['epss']);
    assert.equal(next.ok, true);
    assert.deepEqual(await q(`SELECT count(*)::int AS n FROM epss_scores`), [{ n: 49 }]);
  } finally {
    await egress.close();
    await srv.close();
    await rm(staging, { recursive: true, force: true });
    await db.drop();
  }
});

test('vulnintel sync --status: the own last run of each source however many pipeline runs came after it, and a sync running now said so', async () => {
  const db = await freshDb();
  const srv = await new ReplayServer().start();
  const staging = await mkdtemp(path.join(os.tmpdir(), 'vi-syncst-'));
  const egress = createEgress({ allowList: [`127.0.0.1:${srv.port}`] });
  const clock = fixedClock('2026-10-01T00:00:00.000Z');
  // NVD one record per page: 21 pipeline runs (42 ingest_runs rows) after the CWE and CAPEC runs, as a first full
  // sync (about 150 NVD pages, 2,400 CSAF documents in batches, 126 MSRC months) writes hundreds.
  const deps: SyncDeps = {
    store: db.store,
    egress,
    sink: pipelineSink(db.store.db),
    clock,
    log: quiet,
    urls: srv.urls,
    nvdApiKey: null,
    stagingRoot: staging,
    sleep: async (ms) => clock.advance(ms),
    random: () => 0.5,
    nvdPageSize: 1,
  };
  const holder = new pg.Client({ connectionString: db.url });
  try {
    srv.inject((r) => r.path.endsWith('/icsa-24-298-02.json'), 404, { body: 'gone' });
    const report = await runSync(deps, FEEDS);
    assert.deepEqual(
      report.sources.map((s) => [s.source, s.status]),
      [
        ['cwe', 'succeeded'],
        ['capec', 'succeeded'],
        ['nvd', 'succeeded'],
        ['csaf', 'failed'],
        ['kev', 'succeeded'],
        ['epss', 'succeeded'],
      ],
    );
    // A sync is running now (it holds the lock) and has imported a KEV file, but its KEV source has not finished.
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock($1)', [SYNC_LOCK_KEY]);
    const pid = (await holder.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    await pipelineSink(db.store.db).importFiles(
      [
        {
          file: path.join(
            root,
            'test',
            'fixtures',
            'sync',
            'kev',
            'known_exploited_vulnerabilities-2025-08-25.json.gz',
          ),
          format: 'kev',
        },
      ],
      { source: 'kev' },
    );

    const env = { DATABASE_URL: db.url, VULNINTEL_DATA_DIR: staging };
    const json = await runCli(['sync', '--status', '--json'], env);
    assert.equal(json.code, 0, json.stderr);
    const st = JSON.parse(json.stdout);
    assert.deepEqual(st.running, { backend_pid: pid });
    const by = Object.fromEntries(
      st.sources.map(
        (s: { source: string; last_run: { status: string; rows: number; error: string | null } | null }) => [
          s.source,
          s.last_run,
        ],
      ),
    );
    assert.deepEqual([by.cwe.status, by.cwe.rows], ['succeeded', 18]);
    assert.deepEqual([by.capec.status, by.capec.rows], ['succeeded', 40]);
    assert.deepEqual([by.nvd.status, by.nvd.rows], ['succeeded', 21]);
    assert.equal(by.csaf.status, 'failed');
    assert.match(by.csaf.error, /ICSA-24-298-02: .* answered HTTP 404/);
    // The finished KEV source run, not the pipeline run of the sync in progress (1,405 items of the older catalog).
    assert.deepEqual([by.kev.status, by.kev.rows], ['succeeded', 1662]);
    assert.equal(by.cve5, null);

    const text = await runCli(['sync', '--status'], env);
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.trim().split('\n');
    assert.equal(
      lines[0],
      `A sync is running now (database backend pid ${pid}); the runs below are the last finished ones.`,
    );
    assert.match(
      lines.find((l) => l.startsWith('cwe ')) ?? '',
      /^cwe {4}succeeded at \S+, 18 records; checkpoint \S+$/,
    );
    assert.match(lines.find((l) => l.startsWith('cve5 ')) ?? '', /^cve5 {3}never synced$/);
  } finally {
    await holder.end().catch(() => {});
    await egress.close();
    await srv.close();
    await rm(staging, { recursive: true, force: true });
    await db.drop();
  }
});
