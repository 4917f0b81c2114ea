// Crash consistency (reliability D3): the import is spawned as a child process and SIGKILLed mid-run. The
// previous corpus must be intact, every committed batch consistent, the run left 'running' marked failed at
// the next start, and a re-run must converge to the same corpus as an uninterrupted import.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from '../../src/store/kysely.ts';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import type { CveDocument } from '../../src/domain/cve-document.ts';
import { snapshotFile } from '../helpers/feeds.ts';
import { CATALOGS, NVD_FIXTURES, feedDir, runs } from '../helpers/ingest.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const quiet = { info() {}, warn() {} };
const KEYS = [
  'affected',
  'bsid',
  'capec',
  'classification',
  'cve_id',
  'description',
  'exploitation',
  'patch',
  'references',
  'sage',
  'scoring',
  'severity',
  'sources',
  'temporal',
  'title',
];
const dbs: TestDb[] = [];
after(async () => {
  for (const d of dbs) await d.drop();
});

async function invariants(db: TestDb['store']['db']) {
  const orphans = (
    await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM cves c WHERE NOT EXISTS (SELECT 1 FROM cve_sources s WHERE s.cve_id = c.cve_id)`.execute(
      db,
    )
  ).rows[0].n;
  const missing = (
    await sql<{
      n: number;
    }>`SELECT count(DISTINCT s.cve_id)::int AS n FROM cve_sources s WHERE s.record->>'description' IS NOT NULL AND NOT EXISTS (SELECT 1 FROM cves c WHERE c.cve_id = s.cve_id)`.execute(
      db,
    )
  ).rows[0].n;
  const docs = (
    await sql<{
      cve_id: string;
      doc: CveDocument;
      bsid: string;
      title: string;
    }>`SELECT cve_id, doc, bsid, title FROM cves`.execute(db)
  ).rows;
  for (const d of docs) {
    // Every stored row is a whole document whose list columns agree with it (no torn write).
    assert.deepEqual(Object.keys(d.doc).sort(), KEYS, d.cve_id);
    assert.deepEqual([d.doc.cve_id, d.doc.bsid, d.doc.title], [d.cve_id, d.bsid, d.title]);
    assert.ok(d.title.length > 0 && d.doc.description.length > 0);
  }
  return { orphans, missing, docs: docs.length };
}

test('SIGKILL mid-import: previous corpus intact, committed batches consistent, run marked failed at next start, re-run converges', async () => {
  const t = await freshDb();
  dbs.push(t);
  // The previous corpus.
  await importPaths(t.store.db, [...CATALOGS, ...NVD_FIXTURES], { log: quiet });
  const baseline = (
    await sql<{ cve_id: string }>`SELECT cve_id FROM cves ORDER BY cve_id`.execute(t.store.db)
  ).rows.map((r) => r.cve_id);
  assert.equal(baseline.length, 10, '11 NVD records, one with only a placeholder description');

  // The full KEV catalog (1,662 entries) in batches of 5: hundreds of transactions to die between.
  const dir = feedDir([snapshotFile('kev', 'known_exploited_vulnerabilities.json')]);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'src', 'cli.ts'), 'import', '--quiet', '--batch-size', '5', dir],
    {
      cwd: root,
      env: { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'silent', VULNINTEL_AUTO_IMPORT: 'false' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  // Wait until some batches of the new import are committed, then kill without warning.
  for (;;) {
    const n = (
      await sql<{ n: number }>`SELECT count(*)::int AS n FROM cve_sources WHERE source = 'kev'`.execute(t.store.db)
    ).rows[0].n;
    if (n >= 300) break;
    const done = await Promise.race([
      exited.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 25)),
    ]);
    assert.equal(done, false, `the import ended before it could be killed: ${stderr}`);
  }
  child.kill('SIGKILL');
  const end = await exited;
  assert.equal(end.signal, 'SIGKILL');

  const r = await runs(t.store.db);
  const killed = r.filter((x) => x.status === 'running');
  assert.deepEqual(killed.map((x) => x.stage).sort(), ['enricher', 'ingest'], 'the killed run is still marked running');
  const kevRows = (
    await sql<{ n: number }>`SELECT count(*)::int AS n FROM cve_sources WHERE source = 'kev'`.execute(t.store.db)
  ).rows[0].n;
  assert.ok(kevRows >= 300 && kevRows < 1662, `killed mid-import (${kevRows} of 1,662 KEV records committed)`);
  const inv = await invariants(t.store.db);
  assert.deepEqual(
    { orphans: inv.orphans, missing: inv.missing },
    { orphans: 0, missing: 0 },
    'sources and documents of each batch commit together',
  );
  const ids = new Set(
    (await sql<{ cve_id: string }>`SELECT cve_id FROM cves`.execute(t.store.db)).rows.map((x) => x.cve_id),
  );
  for (const id of baseline) assert.ok(ids.has(id), `${id} of the previous corpus is still there`);

  // Next start: the stale run is marked failed; the re-run completes.
  const s = await importPaths(t.store.db, [dir], { log: quiet });
  const r2 = await runs(t.store.db);
  for (const k of killed) {
    const row = r2.find((x) => x.id === k.id)!;
    assert.equal(row.status, 'failed');
    assert.match(row.error!, /interrupted/);
  }
  assert.deepEqual(
    r2.slice(-2).map((x) => x.status),
    ['succeeded', 'succeeded'],
  );
  assert.deepEqual(await invariants(t.store.db).then((x) => ({ orphans: x.orphans, missing: x.missing })), {
    orphans: 0,
    missing: 0,
  });

  // Same corpus as an import that was never interrupted.
  const clean = await freshDb();
  dbs.push(clean);
  await importPaths(clean.store.db, [...CATALOGS, ...NVD_FIXTURES], { log: quiet });
  await importPaths(clean.store.db, [dir], { log: quiet });
  const hashes = async (db: TestDb['store']['db']) =>
    (
      await sql<{ h: string }>`SELECT md5(string_agg(cve_id || doc_hash, '|' ORDER BY cve_id)) AS h FROM cves`.execute(
        db,
      )
    ).rows[0].h;
  assert.equal(await hashes(t.store.db), await hashes(clean.store.db));
  assert.equal(
    s.corpus,
    (await sql<{ n: number }>`SELECT count(*)::int AS n FROM cves`.execute(clean.store.db)).rows[0].n,
  );
});
