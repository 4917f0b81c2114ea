// `vulnintel sync` for MSRC against a loopback server replaying the real CVRF documents of test/fixtures/msrc
// (the /updates index with CvrfUrl pointing at the loopback server, and each document as XML).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { RecordingSink } from '../helpers/recording-sink.ts';
import { sql } from '../../src/store/kysely.ts';
import { pipelineSink } from '../../src/services/sync/sync-sink.ts';
import { readFeed } from '../../src/ingest/detect.ts';
import { fixedClock } from '../../src/lib/clock.ts';
import { createEgress } from '../../src/lib/egress.ts';
import { runSync, type SyncDeps } from '../../src/services/sync/sync.ts';
import { DEFAULT_FEED_URLS } from '../../src/config.ts';
import { FIXTURE_DIR } from '../unit/windows/fixture-index.ts';

const IDS = ['2022-Nov', '2024-Aug', '2026-Feb'];

class MsrcReplay {
  docs = new Map(IDS.map((id) => [id, gunzipSync(readFileSync(`${FIXTURE_DIR}/${id}.xml.gz`)).toString('utf8')]));
  index = (
    JSON.parse(readFileSync(`${FIXTURE_DIR}/updates-index.json`, 'utf8')).value as Record<string, string>[]
  ).filter((e) => IDS.includes(e.ID));
  requests: string[] = [];
  failDoc: string | null = null;
  server!: http.Server;
  base = '';
  async start() {
    this.server = http.createServer((req, res) => {
      const url = req.url ?? '';
      this.requests.push(url);
      if (url === '/cvrf/v3.0/updates') {
        const value = this.index.map((e) => ({ ...e, CvrfUrl: `${this.base}/cvrf/v3.0/cvrf/${e.ID}` }));
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ '@odata.context': 'https://api.msrc.microsoft.com/$metadata#Updates', value }));
        return;
      }
      const m = /^\/cvrf\/v3\.0\/cvrf\/([\w-]+)$/.exec(url);
      if (m && this.docs.has(m[1])) {
        if (this.failDoc === m[1]) {
          res.writeHead(500).end('boom');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/xml' }).end(this.docs.get(m[1]));
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }
  /** Microsoft regenerates a month: new CurrentReleaseDate in the index and the document, and a changed row. */
  revise(id: string, date: string, from: string, to: string) {
    const e = this.index.find((x) => x.ID === id)!;
    const old = e.CurrentReleaseDate.replace('Z', '');
    e.CurrentReleaseDate = `${date}Z`;
    this.docs.set(
      id,
      this.docs
        .get(id)!
        .replace(
          `<cvrf:CurrentReleaseDate>${old}</cvrf:CurrentReleaseDate>`,
          `<cvrf:CurrentReleaseDate>${date}</cvrf:CurrentReleaseDate>`,
        )
        .replace(from, to),
    );
  }
  close() {
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}

let db: TestDb;
let srv: MsrcReplay;
let staging: string;
let deps: SyncDeps;
let sink: RecordingSink;
let egress: ReturnType<typeof createEgress>;

before(async () => {
  db = await freshDb();
  srv = await new MsrcReplay().start();
  staging = await mkdtemp(path.join(os.tmpdir(), 'vi-msrc-sync-'));
  sink = new RecordingSink();
  egress = createEgress({ allowList: [srv.base.replace('http://', '')] });
  deps = {
    store: db.store,
    egress,
    sink,
    clock: fixedClock('2026-07-10T00:00:00Z'),
    log: { info() {}, warn() {} },
    urls: { ...DEFAULT_FEED_URLS, msrc: `${srv.base}/cvrf/v3.0/updates` },
    nvdApiKey: null,
    stagingRoot: staging,
    sleep: async () => {},
    random: () => 0.5,
    retry: { maxAttempts: 2 },
  };
});
after(async () => {
  await egress.close();
  await srv.close();
  await rm(staging, { recursive: true, force: true });
  await db.drop();
});

const stored = async () =>
  (await db.store.db.selectFrom('msrc_documents').select(['id', 'revision_date']).orderBy('id').execute()).map((r) => [
    r.id,
    r.revision_date?.toISOString(),
  ]);

test('first sync fetches every listed document; the next fetches nothing; a revised month is fetched again', async () => {
  const r1 = await runSync(deps, ['msrc']);
  assert.equal(r1.ok, true, JSON.stringify(r1));
  assert.equal(r1.sources[0].files, 3);
  assert.deepEqual(await stored(), [
    ['2022-Nov', srv.index.find((e) => e.ID === '2022-Nov')!.CurrentReleaseDate.replace('Z', '.000Z')],
    ['2024-Aug', '2026-06-28T01:56:08.000Z'],
    ['2026-Feb', srv.index.find((e) => e.ID === '2026-Feb')!.CurrentReleaseDate.replace('Z', '.000Z')],
  ]);
  assert.deepEqual(
    sink.imports.map((i) => i.format),
    ['msrc-cvrf', 'msrc-cvrf', 'msrc-cvrf'],
  );
  assert.ok(sink.imports.find((i) => i.ids.includes('CVE-2024-38063')));

  srv.requests.length = 0;
  const r2 = await runSync(deps, ['msrc']);
  assert.equal(r2.sources[0].files, 0);
  assert.deepEqual(srv.requests, ['/cvrf/v3.0/updates']);

  srv.revise(
    '2024-Aug',
    '2026-07-20T10:00:00',
    '<vuln:FixedBuild>10.0.17763.6293</vuln:FixedBuild>',
    '<vuln:FixedBuild>10.0.17763.6294</vuln:FixedBuild>',
  );
  srv.requests.length = 0;
  const r3 = await runSync(deps, ['msrc']);
  assert.equal(r3.sources[0].files, 1);
  assert.deepEqual(srv.requests, ['/cvrf/v3.0/updates', '/cvrf/v3.0/cvrf/2024-Aug']);
  const fb = await db.store.db
    .selectFrom('msrc_fixes')
    .select('fixed_build')
    .where('cve_id', '=', 'CVE-2024-38063')
    .where('product_id', '=', '11571')
    .executeTakeFirstOrThrow();
  assert.equal(fb.fixed_build, '10.0.17763.6294');
});

test('a document that fails is reported and fetched again by the next sync', async () => {
  srv.revise('2026-Feb', '2026-07-21T10:00:00', 'x-no-change', 'x-no-change');
  srv.failDoc = '2026-Feb';
  const r = await runSync(deps, ['msrc']);
  assert.equal(r.ok, false);
  assert.match(r.sources[0].error ?? '', /1 of 1 new or revised documents failed/);
  srv.failDoc = null;
  const again = await runSync(deps, ['msrc']);
  assert.equal(again.ok, true);
  assert.equal(again.sources[0].files, 1);
  assert.deepEqual(
    (await stored()).find((s) => s[0] === '2026-Feb'),
    ['2026-Feb', '2026-07-21T10:00:00.000Z'],
  );
});

test('through the real import pipeline: each document parsed once gives the corpus the records its file gives, and its Windows tables', async () => {
  const fresh = await freshDb();
  const replay = await new MsrcReplay().start();
  const eg = createEgress({ allowList: [replay.base.replace('http://', '')] });
  try {
    const r = await runSync(
      {
        ...deps,
        store: fresh.store,
        egress: eg,
        sink: pipelineSink(fresh.store.db),
        urls: { ...DEFAULT_FEED_URLS, msrc: `${replay.base}/cvrf/v3.0/updates` },
      },
      ['msrc'],
    );
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.equal(r.sources[0].files, 3);
    // The records the pipeline got from the sync's own parse are those the file reader gives for the same documents.
    const fromFiles = new Set<string>();
    let items = 0;
    for (const id of IDS) {
      for await (const item of readFeed(`${FIXTURE_DIR}/${id}.xml.gz`, 'msrc-cvrf'))
        if (item.kind === 'cve') {
          fromFiles.add(item.record.cve_id);
          items++;
        }
    }
    const stored = await sql<{
      cve_id: string;
    }>`SELECT DISTINCT cve_id FROM cve_sources WHERE source = 'msrc' ORDER BY cve_id`.execute(fresh.store.db);
    assert.deepEqual(
      stored.rows.map((x) => x.cve_id),
      [...fromFiles].sort(),
    );
    assert.equal(r.sources[0].records, items);
    const doc = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM cves WHERE cve_id = 'CVE-2024-38063' AND 'msrc' = ANY(ARRAY(SELECT jsonb_array_elements_text(doc->'sources')))`.execute(
      fresh.store.db,
    );
    assert.equal(doc.rows[0].n, 1);
    const docs = await fresh.store.db.selectFrom('msrc_documents').select('id').orderBy('id').execute();
    assert.deepEqual(
      docs.map((d) => d.id),
      IDS,
    );
    const fb = await fresh.store.db
      .selectFrom('msrc_fixes')
      .select('fixed_build')
      .where('cve_id', '=', 'CVE-2024-38063')
      .where('product_id', '=', '11571')
      .executeTakeFirstOrThrow();
    assert.equal(fb.fixed_build, '10.0.17763.6293');
  } finally {
    await eg.close();
    await replay.close();
    await fresh.drop();
  }
});
