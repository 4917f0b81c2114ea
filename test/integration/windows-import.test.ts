// MSRC documents through `vulnintel import` paths: the CVE corpus (source msrc) and the Windows tables.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, copyFileSync, mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { sql } from '../../src/store/kysely.ts';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { ensureMsrcSnapshot, importMsrcDocuments } from '../../src/services/import/msrc-documents.ts';
import { FIXTURE_DIR } from '../unit/windows/fixture-index.ts';

let db: TestDb;
const quiet = { info() {}, warn() {} };

function dirWith(files: [string, string][]): string {
  const d = mkdtempSync(path.join(tmpdir(), 'vi-msrc-'));
  for (const [src, name] of files) {
    mkdirSync(path.dirname(path.join(d, name)), { recursive: true });
    copyFileSync(src, path.join(d, name));
  }
  return d;
}

before(async () => {
  db = await freshDb();
});
after(async () => {
  await db.drop();
});

test('import: MSRC CVEs join the corpus (source msrc) and the documents fill msrc_documents / msrc_fixes', async () => {
  const dir = dirWith([
    [`${FIXTURE_DIR}/2024-Aug.xml.gz`, '2024-Aug.xml.gz'],
    [`${FIXTURE_DIR}/updates-index.json`, 'updates-index.json'],
  ]);
  const sum = await importPaths(db.store.db, [dir], { log: quiet });
  // The /updates index is an input of its own (the documents' addresses), read before the documents.
  assert.deepEqual(
    sum.inputs.map((i) => i.format),
    ['msrc-index', 'msrc-cvrf'],
  );
  assert.deepEqual(sum.skipped, []);
  // The document is parsed once: the same pass stores its Windows subset (API v2 tables).
  assert.deepEqual(
    [sum.msrc.documents, sum.msrc.added, sum.msrc.revised, sum.msrc.unchanged],
    [1, ['2024-Aug'], [], 0],
  );
  const cve = await db.store.db
    .selectFrom('cves')
    .select(['cve_id', 'title', 'cvss_score', 'doc'])
    .where('cve_id', '=', 'CVE-2024-38063')
    .executeTakeFirst();
  assert.ok(cve, 'CVE-2024-38063 is in the corpus from MSRC alone');
  assert.equal(cve.title, 'Windows TCP/IP Remote Code Execution Vulnerability');
  assert.equal(cve.cvss_score, 9.8);
  assert.ok((cve.doc as { sources: string[] }).sources.includes('msrc'));
  assert.ok((cve.doc as { affected: { vendors: string[] } }).affected.vendors.some((v) => /microsoft/i.test(v)));

  // The standalone MSRC import (ensureMsrcSnapshot) sees the same content: unchanged.
  const m = await importMsrcDocuments(db.store.db, [dir]);
  assert.deepEqual([m.added, m.unchanged], [[], 1]);
  const d = await db.store.db
    .selectFrom('msrc_documents')
    .select(['id', 'revision_date', 'cvrf_url', 'title'])
    .executeTakeFirstOrThrow();
  assert.equal(d.cvrf_url, 'https://api.msrc.microsoft.com/cvrf/v3.0/cvrf/2024-Aug');
  assert.equal(d.revision_date?.toISOString(), '2026-06-28T01:56:08.000Z');
  const f = await db.store.db
    .selectFrom('msrc_fixes')
    .selectAll()
    .where('cve_id', '=', 'CVE-2024-38063')
    .where('product_id', '=', '11571')
    .execute();
  assert.deepEqual(
    f.map((r) => [r.kb, r.fixed_build, r.subtype, r.supercedence, r.severity, r.exploited, r.release_month]),
    [['KB5043050', '10.0.17763.6293', 'Security Update', '5041578', 'Critical', false, '2024-08']],
  );

  // Same content again: unchanged. The JSON form of the same document: unchanged too (same Windows content).
  assert.equal((await importMsrcDocuments(db.store.db, [dir])).unchanged, 1);
  const jdir = dirWith([
    [new URL('../fixtures/msrc-json/2024-Aug.json.gz', import.meta.url).pathname, '2024-Aug.json.gz'],
  ]);
  const j = await importMsrcDocuments(db.store.db, [jdir]);
  assert.deepEqual([j.documents, j.unchanged], [1, 1]);
  const jsum = await importPaths(db.store.db, [jdir], { log: quiet });
  assert.deepEqual(
    jsum.inputs.map((i) => i.format),
    ['msrc-cvrf'],
  );

  // A revised document (new revision date, a FixedBuild changed) replaces the stored one.
  const xml = gunzipSync(readFileSync(`${dir}/2024-Aug.xml.gz`))
    .toString('utf8')
    .replace(
      '<cvrf:CurrentReleaseDate>2026-06-28T01:56:08</cvrf:CurrentReleaseDate>',
      '<cvrf:CurrentReleaseDate>2026-07-20T10:00:00</cvrf:CurrentReleaseDate>',
    )
    .replace(
      '<vuln:FixedBuild>10.0.17763.6293</vuln:FixedBuild>',
      '<vuln:FixedBuild>10.0.17763.6294</vuln:FixedBuild>',
    );
  const rdir = mkdtempSync(path.join(tmpdir(), 'vi-msrc-'));
  writeFileSync(`${rdir}/2024-Aug.xml.gz`, gzipSync(xml));
  assert.deepEqual((await importMsrcDocuments(db.store.db, [rdir])).revised, ['2024-Aug']);
  const f2 = await db.store.db
    .selectFrom('msrc_fixes')
    .select('fixed_build')
    .where('cve_id', '=', 'CVE-2024-38063')
    .where('product_id', '=', '11571')
    .executeTakeFirstOrThrow();
  assert.equal(f2.fixed_build, '10.0.17763.6294');
});

test('ensureMsrcSnapshot imports snapshot/msrc once when no document is stored', async () => {
  const db2 = await freshDb();
  try {
    const snap = dirWith([[`${FIXTURE_DIR}/2026-Feb.xml.gz`, 'msrc/2026-Feb.xml.gz']]);
    const s = await ensureMsrcSnapshot(db2.store.db, { snapshotDir: snap, autoImportSnapshot: true }, quiet);
    assert.deepEqual(s?.added, ['2026-Feb']);
    assert.equal(await ensureMsrcSnapshot(db2.store.db, { snapshotDir: snap, autoImportSnapshot: true }, quiet), null);
    assert.equal(await ensureMsrcSnapshot(db2.store.db, { snapshotDir: snap, autoImportSnapshot: false }, quiet), null);
  } finally {
    await db2.drop();
  }
});

test('a CVE listed by several MSRC documents keeps its newest revision whatever the order; re-importing changes nothing', async () => {
  // CVE-2021-32715 is in 2021-Jul (revised 2026-02-18 15:11:39) and in 2024-Sep (revision of 2024-09-11).
  const jul = `${FIXTURE_DIR}/2021-Jul.xml.gz`;
  const sep = `${FIXTURE_DIR}/2024-Sep.xml.gz`;
  const stored = async (d: TestDb) => {
    const r = (
      await sql<{ record: unknown; record_hash: string }>`SELECT record, record_hash FROM cve_sources
      WHERE cve_id = 'CVE-2021-32715' AND source = 'msrc'`.execute(d.store.db)
    ).rows;
    assert.equal(r.length, 1);
    return { modified: (r[0].record as { modified: string }).modified, hash: r[0].record_hash };
  };
  const a = await freshDb();
  const b = await freshDb();
  try {
    // Older revision read last (a), or first (b).
    await importPaths(a.store.db, [dirWith([[jul, 'a.xml.gz']])], { log: quiet });
    await importPaths(a.store.db, [dirWith([[sep, 'b.xml.gz']])], { log: quiet });
    await importPaths(b.store.db, [dirWith([[sep, 'a.xml.gz']])], { log: quiet });
    const older = await stored(b);
    assert.equal(older.modified, '2024-09-11T00:00:00.000Z');
    await importPaths(b.store.db, [dirWith([[jul, 'b.xml.gz']])], { log: quiet });
    const [sa, sb] = [await stored(a), await stored(b)];
    assert.equal(sa.modified, '2026-02-18T15:11:39.000Z');
    assert.deepEqual(sb, sa);

    // Every fixture document at once, twice: the second run changes no source and writes no document.
    const all = dirWith(
      ['2020-Jan', '2021-Jul', '2021-Jun', '2022-Nov', '2024-Aug', '2024-Sep', '2026-Feb', '2026-Jun', '2026-May'].map(
        (m): [string, string] => [`${FIXTURE_DIR}/${m}.xml.gz`, `${m}.xml.gz`],
      ),
    );
    const first = await importPaths(a.store.db, [all], { log: quiet });
    assert.ok(first.documents_written > 1000);
    const again = await importPaths(a.store.db, [all], { log: quiet });
    assert.deepEqual([again.changed_sources, again.documents_written, again.documents_removed], [0, 0, 0]);
    assert.deepEqual(await stored(a), sa);
  } finally {
    await Promise.all([a.drop(), b.drop()]);
  }
});
