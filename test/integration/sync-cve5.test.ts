// The `cve5` sync source (src/services/sync/sync-cve5.ts, docs/sync.md "cve5") against a loopback server replaying the
// GitHub releases list of CVEProject/cvelistV5 and its baseline and delta archives, through the real import
// pipeline into PostgreSQL. The archives are built here (test/helpers/zip-writer.ts) from real CVE records
// (test/fixtures/cve5, PROVENANCE.md). Two copies are changed by the test to stand for a record updated in a
// later hour: their `dateUpdated` and their CNA description (marked "[updated …]"); nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { zipBuffer } from '../helpers/zip-writer.ts';
import { DEFAULT_FEED_URLS } from '../../src/config.ts';
import { fixedClock } from '../../src/lib/clock.ts';
import { createEgress, type Egress } from '../../src/lib/egress.ts';
import { runSync, type SyncDeps } from '../../src/services/sync/sync.ts';
import { pipelineSink } from '../../src/services/sync/sync-sink.ts';
import { getCursor } from '../../src/store/sync-state.ts';
import type { Cve5Cursor } from '../../src/services/sync/sync-cve5.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { runCli } from '../helpers/cli.ts';

const FIX = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'fixtures', 'cve5');
const quiet = { info() {}, warn() {} };

type Json = any;
const record = (id: string): Json => JSON.parse(readFileSync(path.join(FIX, `${id}.json`), 'utf8'));

/** A real record changed as a later hour's version of it: new dateUpdated and a marked description. */
function updated(id: string, at: string): Json {
  const r = record(id);
  r.cveMetadata.dateUpdated = at;
  r.containers.cna.descriptions[0].value = `[updated ${at}] ${r.containers.cna.descriptions[0].value}`;
  return r;
}

const recordPath = (r: Json) => {
  const id: string = r.cveMetadata.cveId;
  const [, year, n] = /^CVE-(\d{4})-(\d+)$/.exec(id)!;
  return `cves/${year}/${n.slice(0, -3)}xxx/${id}.json`;
};
const pretty = (r: Json) => JSON.stringify(r, null, 2);

/** `YYYY-MM-DD_all_CVEs_at_midnight.zip.zip`: a zip holding `cves.zip`, a zip of the record files (and delta.json). */
function baselineZip(records: Json[]): Buffer {
  const inner = zipBuffer([
    ...records.map((r) => ({ name: recordPath(r), data: pretty(r) })),
    {
      name: 'cves/delta.json',
      data: JSON.stringify({ fetchTime: '2024-10-24T00:00:00Z', numberOfChanges: 0, new: [], updated: [] }),
    },
  ]);
  return zipBuffer([{ name: 'cves.zip', data: inner, method: 'store' }]);
}

/** `YYYY-MM-DD_delta_CVEs_at_HHMMZ.zip`: a zip of `deltaCves/CVE-….json`. */
function deltaZip(records: Json[]): Buffer {
  return zipBuffer(records.map((r) => ({ name: `deltaCves/${r.cveMetadata.cveId}.json`, data: pretty(r) })));
}

interface Release {
  tag: string;
  published_at: string;
  assets: string[];
}

/** The GitHub releases API and asset downloads (302 to a storage path, as github.com does), on loopback. */
class CvelistServer {
  releases: Release[] = [];
  files = new Map<string, { body: Buffer; type: string }>();
  requests: { path: string; headers: http.IncomingHttpHeaders }[] = [];
  private server = http.createServer((req, res) => this.handle(req, res));
  port = 0;

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get listUrl(): string {
    return `${this.base}/repos/CVEProject/cvelistV5/releases`;
  }

  /** Publishes an hourly release: the day's baseline and the hour's delta (newest first in the list). */
  publish(tag: string, published: string, assets: Record<string, Buffer>): void {
    for (const [name, body] of Object.entries(assets)) this.files.set(name, { body, type: 'application/zip' });
    this.releases.unshift({ tag, published_at: published, assets: Object.keys(assets) });
  }

  archiveRequests(): string[] {
    return this.requests
      .filter((r) => r.path.startsWith('/storage/'))
      .map((r) => decodeURIComponent(r.path.slice('/storage/'.length)));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.base);
    this.requests.push({ path: url.pathname + url.search, headers: req.headers });
    if (url.pathname === '/repos/CVEProject/cvelistV5/releases') {
      const n = Number(url.searchParams.get('per_page') ?? 30);
      const body = Buffer.from(
        JSON.stringify(
          this.releases
            .slice(0, n)
            .map((r, i) => ({
              id: 1000 - i,
              tag_name: r.tag,
              name: r.tag,
              published_at: r.published_at,
              assets: r.assets.map((name) => ({
                name,
                size: this.files.get(name)!.body.length,
                updated_at: r.published_at,
                browser_download_url: `${this.base}/download/${r.tag}/${encodeURIComponent(name)}`,
              })),
            })),
        ),
      );
      const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, { etag });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', etag });
      res.end(body);
      return;
    }
    const dl = /^\/download\/[^/]+\/([^/]+)$/.exec(url.pathname);
    if (dl) {
      res.writeHead(302, { location: `/storage/${dl[1]}` });
      res.end();
      return;
    }
    const file = url.pathname.startsWith('/storage/')
      ? this.files.get(decodeURIComponent(url.pathname.slice('/storage/'.length)))
      : undefined;
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': file.type, 'content-length': String(file.body.length) });
    res.end(file.body);
  }
}

interface Harness {
  db: TestDb;
  srv: CvelistServer;
  deps: SyncDeps;
  q(text: string, params?: unknown[]): Promise<Json[]>;
  cursor(): Promise<Cve5Cursor | null>;
  close(): Promise<void>;
}

async function harness(): Promise<Harness> {
  const db = await freshDb();
  const srv = await new CvelistServer().start();
  const staging = await mkdtemp(path.join(os.tmpdir(), 'vi-sync-cve5-'));
  const egress: Egress = createEgress({ allowList: [`127.0.0.1:${srv.port}`] });
  const clock = fixedClock('2024-10-24T02:10:00.000Z');
  const deps: SyncDeps = {
    store: db.store,
    egress,
    sink: pipelineSink(db.store.db),
    clock,
    log: quiet,
    urls: { ...DEFAULT_FEED_URLS, cve5: srv.listUrl },
    nvdApiKey: null,
    stagingRoot: staging,
    sleep: async (ms) => clock.advance(ms),
    random: () => 0.5,
    retry: { maxAttempts: 1 },
  };
  return {
    db,
    srv,
    deps,
    q: async (text, params = []) => (await db.store.pool.query(text, params)).rows,
    cursor: () => getCursor<Cve5Cursor>(db.store.db, 'cve5'),
    async close() {
      await egress.close();
      await srv.close();
      await rm(staging, { recursive: true, force: true });
      await db.drop();
    },
  };
}

const BASE_24 = '2024-10-24_all_CVEs_at_midnight.zip.zip';
const DELTA_24_01 = '2024-10-24_delta_CVEs_at_0100Z.zip';
const DELTA_24_02 = '2024-10-24_delta_CVEs_at_0200Z.zip';
const DELTA_24_23 = '2024-10-24_delta_CVEs_at_2300Z.zip';
const BASE_25 = '2024-10-25_all_CVEs_at_midnight.zip.zip';
const DELTA_25_01 = '2024-10-25_delta_CVEs_at_0100Z.zip';
const EOD_24 = '2024-10-24_delta_CVEs_at_end_of_day.zip';

const BASELINE_RECORDS = ['CVE-2024-32931', 'CVE-2024-32932', 'CVE-2024-32936', 'CVE-2019-25161'];
const T1 = '2024-10-24T00:41:12.000Z';
const T2 = '2024-10-24T01:30:05.000Z';

/** The day of 2024-10-24 as published up to 01:00: yesterday's last hour, then today's baseline and 0100Z delta. */
function publishDay24(srv: CvelistServer): void {
  srv.publish('cve_2024-10-23_2300Z', '2024-10-23T23:00:40Z', {
    '2024-10-23_all_CVEs_at_midnight.zip.zip': baselineZip([record('CVE-2024-32936')]),
    '2024-10-23_delta_CVEs_at_2300Z.zip': deltaZip([record('CVE-2024-32936')]),
  });
  srv.publish('cve_2024-10-24_0000Z', '2024-10-24T00:00:41Z', { [BASE_24]: baselineZip(BASELINE_RECORDS.map(record)) });
  srv.publish('cve_2024-10-24_0100Z', '2024-10-24T01:00:39Z', {
    [BASE_24]: srv.files.get(BASE_24)!.body,
    [DELTA_24_01]: deltaZip([updated('CVE-2024-32931', T1), record('CVE-2024-4493')]),
  });
}

async function description(h: Harness, id: string): Promise<string | null> {
  const rows = await h.q(`SELECT record->>'description' AS d FROM cve_sources WHERE cve_id = $1 AND source = 'cve5'`, [
    id,
  ]);
  return rows[0]?.d ?? null;
}

test("cve5 sync: the first run imports the newest baseline and then the day's newest delta; the checkpoint names both", async () => {
  const h = await harness();
  try {
    publishDay24(h.srv);
    const report = await runSync(h.deps, ['cve5']);
    assert.equal(report.ok, true, JSON.stringify(report.sources));
    const [s] = report.sources;
    assert.equal(s.files, 2);
    // 4 baseline records + 2 delta records (the delta's CVE-2024-32931 replaces the baseline's).
    assert.equal(s.records, 6);
    assert.match(s.summary ?? '', new RegExp(`6 records from ${BASE_24}, ${DELTA_24_01}`));
    // Yesterday's archives were not fetched; each archive was fetched once through the 302 to storage.
    assert.deepEqual(h.srv.archiveRequests(), [BASE_24, DELTA_24_01]);
    const list = h.srv.requests.find((r) => r.path.startsWith('/repos/'))!;
    assert.equal(list.path, '/repos/CVEProject/cvelistV5/releases?per_page=50');
    assert.equal(list.headers.accept, 'application/vnd.github+json');
    assert.match(String(list.headers['user-agent']), /^Vulnintel\//);

    const sources = await h.q(
      `SELECT cve_id, record->>'status' AS status FROM cve_sources WHERE source = 'cve5' ORDER BY cve_id`,
    );
    assert.deepEqual(
      sources.map((r) => [r.cve_id, r.status]),
      [
        ['CVE-2019-25161', 'Rejected'],
        ['CVE-2024-32931', 'PUBLISHED'],
        ['CVE-2024-32932', 'PUBLISHED'],
        ['CVE-2024-32936', 'PUBLISHED'],
        ['CVE-2024-4493', 'PUBLISHED'],
      ],
    );
    // The delta's version of CVE-2024-32931 won over the baseline's.
    assert.match(
      (await description(h, 'CVE-2024-32931')) ?? '',
      /^\[updated 2024-10-24T00:41:12\.000Z\] Under certain circumstances the exacqVision Web Service/,
    );
    const cves = await h.q(`SELECT cve_id, modified_at, cvss_score FROM cves ORDER BY cve_id`);
    // The rejected record gives no CVE (no other source describes it).
    assert.deepEqual(
      cves.map((r) => r.cve_id),
      ['CVE-2024-32931', 'CVE-2024-32932', 'CVE-2024-32936', 'CVE-2024-4493'],
    );
    assert.equal(new Date(cves[0].modified_at).toISOString(), T1);
    assert.equal(cves.find((r) => r.cve_id === 'CVE-2024-4493').cvss_score, 8.8);

    const cursor = await h.cursor();
    assert.equal(cursor?.baseline, BASE_24);
    assert.equal(cursor?.delta, DELTA_24_01);
    assert.equal(cursor?.published_at, '2024-10-24T01:00:39Z');
    const [run] = await h.q(
      `SELECT status, rows FROM ingest_runs WHERE source = 'sync:cve5' AND stage = 'ingest' ORDER BY id DESC LIMIT 1`,
    );
    assert.deepEqual([run.status, run.rows], ['succeeded', 6]);
  } finally {
    await h.close();
  }
});

test('cve5 sync: nothing new is "unchanged" without fetching an archive; a new delta, the day\'s end-of-day archive, then the next day\'s deltas', async () => {
  const h = await harness();
  try {
    publishDay24(h.srv);
    assert.equal((await runSync(h.deps, ['cve5'])).ok, true);
    h.srv.requests = [];

    // Same list: the conditional GET is answered 304, no archive is fetched.
    const same = await runSync(h.deps, ['cve5']);
    assert.equal(same.ok, true);
    assert.match(
      same.sources[0].summary ?? '',
      /^unchanged \(releases list 304 Not Modified; at 2024-10-24_delta_CVEs_at_0100Z\.zip\)$/,
    );
    assert.deepEqual(h.srv.archiveRequests(), []);
    assert.equal(h.srv.requests.length, 1);
    assert.ok(h.srv.requests[0].headers['if-none-match']);

    // The 0200Z delta (cumulative: it holds the 0100Z changes again, plus CVE-2024-32932 updated at 01:30).
    h.srv.publish('cve_2024-10-24_0200Z', '2024-10-24T02:00:44Z', {
      [BASE_24]: h.srv.files.get(BASE_24)!.body,
      [DELTA_24_02]: deltaZip([updated('CVE-2024-32931', T1), record('CVE-2024-4493'), updated('CVE-2024-32932', T2)]),
    });
    h.srv.requests = [];
    const next = await runSync(h.deps, ['cve5']);
    assert.equal(next.ok, true, JSON.stringify(next.sources));
    assert.equal(next.sources[0].records, 3);
    assert.deepEqual(h.srv.archiveRequests(), [DELTA_24_02]);
    assert.match((await description(h, 'CVE-2024-32932')) ?? '', /^\[updated 2024-10-24T01:30:05\.000Z\] /);
    const [c32] = await h.q(`SELECT modified_at FROM cves WHERE cve_id = 'CVE-2024-32932'`);
    assert.equal(new Date(c32.modified_at).toISOString(), T2);
    assert.equal((await h.cursor())?.delta, DELTA_24_02);

    // The next day, before the 24th's end-of-day archive is listed: the 24th's last hourly delta (2300Z) only; the
    // 25th's deltas wait, since they start at its midnight and the last hour of the 24th is in neither.
    h.srv.publish('cve_2024-10-24_2300Z', '2024-10-24T23:00:40Z', {
      [BASE_24]: h.srv.files.get(BASE_24)!.body,
      [DELTA_24_23]: deltaZip([
        updated('CVE-2024-32931', T1),
        record('CVE-2024-4493'),
        updated('CVE-2024-32932', '2024-10-24T22:10:00.000Z'),
      ]),
    });
    h.srv.publish('cve_2024-10-25_0000Z', '2024-10-25T00:00:41Z', {
      [BASE_25]: baselineZip([...BASELINE_RECORDS.map(record), record('CVE-2024-4493')]),
    });
    h.srv.publish('cve_2024-10-25_0100Z', '2024-10-25T01:00:39Z', {
      [BASE_25]: h.srv.files.get(BASE_25)!.body,
      [DELTA_25_01]: deltaZip([updated('CVE-2024-32936', '2024-10-25T00:20:00.000Z')]),
    });
    h.srv.requests = [];
    const waiting = await runSync(h.deps, ['cve5']);
    assert.equal(waiting.ok, true, JSON.stringify(waiting.sources));
    assert.deepEqual(h.srv.archiveRequests(), [DELTA_24_23]);
    assert.match((await description(h, 'CVE-2024-32932')) ?? '', /^\[updated 2024-10-24T22:10:00\.000Z\] /);
    assert.doesNotMatch((await description(h, 'CVE-2024-32936')) ?? '', /^\[updated/);

    // The end-of-day archive of the 24th (every change of the day, the one at 23:40 included), then the 25th's
    // newest delta; the new baseline is not fetched.
    h.srv.publish('cve_2024-10-24_at_end_of_day', '2024-10-25T00:02:10Z', {
      [EOD_24]: deltaZip([
        updated('CVE-2024-32931', T1),
        record('CVE-2024-4493'),
        updated('CVE-2024-32932', '2024-10-24T23:40:00.000Z'),
      ]),
    });
    h.srv.requests = [];
    const rolled = await runSync(h.deps, ['cve5']);
    assert.equal(rolled.ok, true, JSON.stringify(rolled.sources));
    assert.deepEqual(h.srv.archiveRequests(), [EOD_24, DELTA_25_01]);
    assert.equal(rolled.sources[0].records, 4);
    assert.match((await description(h, 'CVE-2024-32932')) ?? '', /^\[updated 2024-10-24T23:40:00\.000Z\] /);
    assert.match(
      (await description(h, 'CVE-2024-32936')) ?? '',
      /^\[updated 2024-10-25T00:20:00\.000Z\] In the Linux kernel/,
    );
    const cursor = await h.cursor();
    assert.deepEqual(
      [cursor?.baseline, cursor?.delta, cursor?.published_at],
      [BASE_24, DELTA_25_01, '2024-10-25T01:00:39Z'],
    );
  } finally {
    await h.close();
  }
});

test('cve5 sync: an archive whose import fails does not advance the checkpoint; the next run applies it', async () => {
  const h = await harness();
  try {
    publishDay24(h.srv);
    assert.equal((await runSync(h.deps, ['cve5'])).ok, true);
    const before = await h.cursor();
    // A zip whose directory is intact but whose first record's deflated data is damaged.
    const good = deltaZip([updated('CVE-2024-32931', T1), record('CVE-2024-4493'), updated('CVE-2024-32932', T2)]);
    const corrupt = Buffer.from(good);
    for (let i = 60; i < 120; i++) corrupt[i] ^= 0x5a;
    h.srv.publish('cve_2024-10-24_0200Z', '2024-10-24T02:00:44Z', {
      [BASE_24]: h.srv.files.get(BASE_24)!.body,
      [DELTA_24_02]: corrupt,
    });
    const failed = await runSync(h.deps, ['cve5']);
    assert.equal(failed.ok, false);
    assert.equal(failed.sources[0].status, 'failed');
    assert.match(failed.sources[0].error ?? '', /2024-10-24_delta_CVEs_at_0200Z\.zip!deltaCves\/CVE-2024-32931\.json/);
    assert.deepEqual(await h.cursor(), before);
    // CVE-2024-32932 still has the baseline's description.
    assert.doesNotMatch((await description(h, 'CVE-2024-32932')) ?? '', /^\[updated/);
    const [run] = await h.q(
      `SELECT status, error FROM ingest_runs WHERE source = 'sync:cve5' AND stage = 'ingest' ORDER BY id DESC LIMIT 1`,
    );
    assert.equal(run.status, 'failed');

    // The same asset name, now whole: it is fetched again and applied.
    h.srv.files.set(DELTA_24_02, { body: good, type: 'application/zip' });
    h.srv.requests = [];
    const retried = await runSync(h.deps, ['cve5']);
    assert.equal(retried.ok, true, JSON.stringify(retried.sources));
    assert.deepEqual(h.srv.archiveRequests(), [DELTA_24_02]);
    assert.match((await description(h, 'CVE-2024-32932')) ?? '', /^\[updated 2024-10-24T01:30:05\.000Z\] /);
    assert.equal((await h.cursor())?.delta, DELTA_24_02);
  } finally {
    await h.close();
  }
});

test('cve5 sync: a download that is not a zip is refused with a clear message and nothing is imported', async () => {
  const h = await harness();
  try {
    publishDay24(h.srv);
    h.srv.files.set(BASE_24, {
      body: Buffer.from('<!DOCTYPE html><html><body>Rate limited</body></html>'),
      type: 'text/html',
    });
    const report = await runSync(h.deps, ['cve5']);
    assert.equal(report.ok, false);
    assert.equal(
      report.sources[0].error,
      'CVE5: 2024-10-24_all_CVEs_at_midnight.zip.zip: not a zip archive (53 bytes, starting with "<!DOCTYPE html><html><body>Rate limited<")',
    );
    assert.equal(await h.cursor(), null);
    assert.deepEqual(await h.q(`SELECT cve_id FROM cve_sources`), []);
    // The delta was not fetched: the plan stops at the first failure.
    assert.deepEqual(h.srv.archiveRequests(), [BASE_24]);
  } finally {
    await h.close();
  }
});

test('sync --from DIR (importPaths): a baseline .zip.zip and a delta .zip are recognised by content and imported in order', async () => {
  const db = await freshDb();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vi-cve5-from-'));
  try {
    // Names that do not say what the files are: detection is by content, the order by name (baseline before delta).
    await writeFile(path.join(dir, BASE_24), baselineZip(BASELINE_RECORDS.map(record)));
    await writeFile(path.join(dir, DELTA_24_01), deltaZip([updated('CVE-2024-32931', T1), record('CVE-2024-4493')]));
    await writeFile(path.join(dir, 'other.zip'), zipBuffer([{ name: 'readme.txt', data: 'not a feed' }]));
    const summary = await importPaths(db.store.db, [dir], { source: 'sync:offline' });
    assert.deepEqual(
      summary.inputs.map((i) => [path.basename(i.label), i.format, i.items]),
      [
        [BASE_24, 'cve5-zip', 4],
        [DELTA_24_01, 'cve5-zip', 2],
      ],
    );
    assert.deepEqual(
      summary.skipped.map((s) => [path.basename(s.label), s.reason]),
      [['other.zip', 'unrecognised content']],
    );
    const rows = (
      await db.store.pool.query(
        `SELECT cve_id, record->>'description' AS d FROM cve_sources WHERE source = 'cve5' ORDER BY cve_id`,
      )
    ).rows;
    assert.deepEqual(
      rows.map((r) => r.cve_id),
      ['CVE-2019-25161', 'CVE-2024-32931', 'CVE-2024-32932', 'CVE-2024-32936', 'CVE-2024-4493'],
    );
    assert.match(rows[1].d, /^\[updated 2024-10-24T00:41:12\.000Z\] /);
    assert.equal(summary.corpus, 4);
  } finally {
    await rm(dir, { recursive: true, force: true });
    await db.drop();
  }
});

test('vulnintel sync (CLI): --source cve5 reads VULNINTEL_FEED_URL_CVE5; --from DIR imports a downloaded delta zip', async () => {
  const db = await freshDb();
  const srv = await new CvelistServer().start();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'vi-cve5-cli-'));
  const from = await mkdtemp(path.join(os.tmpdir(), 'vi-cve5-cli-from-'));
  const env = {
    DATABASE_URL: db.url,
    VULNINTEL_DATA_DIR: dataDir,
    VULNINTEL_FEED_URL_CVE5: srv.listUrl,
    VULNINTEL_EGRESS_ALLOW: `127.0.0.1:${srv.port}`,
  };
  try {
    publishDay24(srv);
    const r = await runCli(['sync', '--source', 'cve5', '--json'], env);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.deepEqual(
      report.sources.map((s: { source: string; status: string; records: number }) => [s.source, s.status, s.records]),
      [['cve5', 'succeeded', 6]],
    );
    assert.deepEqual(srv.archiveRequests(), [BASE_24, DELTA_24_01]);
    const status = JSON.parse((await runCli(['sync', '--status', '--json'], env)).stdout).sources.find(
      (s: { source: string }) => s.source === 'cve5',
    );
    assert.equal(status.checkpoint.delta, DELTA_24_01);

    // Offline: the 0200Z delta as downloaded, under its own name, next to nothing else.
    await writeFile(
      path.join(from, DELTA_24_02),
      deltaZip([updated('CVE-2024-32931', T1), record('CVE-2024-4493'), updated('CVE-2024-32932', T2)]),
    );
    const off = await runCli(['sync', '--from', from, '--json'], { DATABASE_URL: db.url, VULNINTEL_DATA_DIR: dataDir });
    assert.equal(off.code, 0, off.stderr);
    const summary = JSON.parse(off.stdout);
    assert.deepEqual(
      summary.inputs.map((i: { label: string; format: string; items: number }) => [
        path.basename(i.label),
        i.format,
        i.items,
      ]),
      [[DELTA_24_02, 'cve5-zip', 3]],
    );
    const [row] = (
      await db.store.pool.query(
        `SELECT record->>'description' AS d FROM cve_sources WHERE cve_id = 'CVE-2024-32932' AND source = 'cve5'`,
      )
    ).rows;
    assert.match(row.d, /^\[updated 2024-10-24T01:30:05\.000Z\] /);
  } finally {
    await srv.close();
    await rm(dataDir, { recursive: true, force: true });
    await rm(from, { recursive: true, force: true });
    await db.drop();
  }
});
