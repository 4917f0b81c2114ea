// An older NVD revision that arrives in the same batch as another source's new record for the same CVE: the
// source upsert keeps the newer stored revision (an NVD record never replaces a newer one), and the CVE's document
// is then built from what is stored, not from the refused older record the batch carried (store/ingest.ts
// upsertSourceRecords returns the records it wrote; only those stand in for stored rows). CVE Record 5 records
// follow the same rule on `dateUpdated`: a cvelistV5 baseline read after one of its later deltas changes nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from '../../src/store/kysely.ts';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import { fixture } from '../helpers/feeds.ts';

const quiet = { log: { info() {}, warn() {} } };
const ID = 'CVE-2024-8531';
let t: TestDb;
before(async () => {
  t = await freshDb();
});
after(async () => {
  await t.drop();
});

test('a refused older NVD revision does not reach the document built in its batch', async () => {
  const original = NVD_FIXTURES.find((f) => f.endsWith(`${ID}.json`))!;
  const advisory = CSAF_FIXTURES.find((f) => f.endsWith('icsa-24-289-02.json'))!;
  // A later NVD revision, stored first, with its own description.
  const newer = JSON.parse(readFileSync(original, 'utf8'));
  newer.lastModified = '2099-01-01T00:00:00.000';
  for (const d of newer.descriptions) if (d.lang === 'en') d.value = `Newer NVD revision. ${d.value}`;
  const first = feedDir([...CATALOGS]);
  writeFileSync(path.join(first, `${ID}.json`), JSON.stringify(newer));
  await importPaths(t.store.db, [first], { ...quiet, bulkLoad: false });
  const described = async () =>
    (
      await sql<{ d: string; sources: string[]; modified: string }>`
    SELECT c.doc->>'description' AS d, ARRAY(SELECT jsonb_array_elements_text(c.doc->'sources')) AS sources,
      (SELECT s.record->>'modified' FROM cve_sources s WHERE s.cve_id = c.cve_id AND s.source = 'nvd') AS modified
    FROM cves c WHERE c.cve_id = ${ID}`.execute(t.store.db)
    ).rows[0];
  const before = await described();
  assert.match(before.d, /^Newer NVD revision\. /);
  assert.deepEqual(before.sources, ['nvd']);

  // The original (older) NVD record and the CISA advisory naming the CVE, in one batch.
  await importPaths(t.store.db, [feedDir([original, advisory])], quiet);
  const after = await described();
  assert.equal(after.modified, before.modified, 'the newer NVD revision is still the stored one');
  assert.ok(after.sources.includes('csaf'), `the advisory was merged: ${after.sources.join(', ')}`);
  assert.match(after.d, /^Newer NVD revision\. /, 'the document reads the stored NVD revision');
});

test('an older CVE record never replaces a newer stored one (another file or the same batch); the same revision does', async () => {
  const CVE = 'CVE-2024-23897';
  const original = fixture('cve5', `${CVE}.json`);
  const record = JSON.parse(readFileSync(original, 'utf8'));
  const revised = (dateUpdated: string, lead: string) => {
    const r = structuredClone(record);
    r.cveMetadata.dateUpdated = dateUpdated;
    for (const d of r.containers.cna.descriptions) d.value = `${lead} ${d.value}`;
    return JSON.stringify(r);
  };
  const dirOf = (...texts: string[]) => {
    const dir = feedDir([]);
    texts.forEach((text, i) => writeFileSync(path.join(dir, `${i}-${CVE}.json`), text));
    return dir;
  };
  const stored = async () =>
    (
      await sql<{ d: string; modified: string }>`
    SELECT c.doc->>'description' AS d,
      (SELECT s.record->>'modified' FROM cve_sources s WHERE s.cve_id = c.cve_id AND s.source = 'cve5') AS modified
    FROM cves c WHERE c.cve_id = ${CVE}`.execute(t.store.db)
    ).rows[0];

  // The delta's newer revision first, then the baseline's (the original, dateUpdated 2024-08-19).
  await importPaths(t.store.db, [dirOf(revised('2025-03-01T10:00:00.000Z', 'Delta revision.'))], quiet);
  assert.equal((await stored()).modified, '2025-03-01T10:00:00.000Z');
  assert.match((await stored()).d, /^Delta revision\. Jenkins 2\.441/);
  await importPaths(t.store.db, [feedDir([original])], quiet);
  assert.equal((await stored()).modified, '2025-03-01T10:00:00.000Z', 'the older record was refused');
  assert.match((await stored()).d, /^Delta revision\. /);

  // Two revisions in one batch, the newer read first: the newer is kept.
  await importPaths(
    t.store.db,
    [dirOf(revised('2026-01-01T00:00:00.000Z', 'Newest.'), revised('2025-06-01T00:00:00.000Z', 'Older.'))],
    quiet,
  );
  assert.equal((await stored()).modified, '2026-01-01T00:00:00.000Z');
  assert.match((await stored()).d, /^Newest\. /);

  // The same revision with other content replaces (a reader that extracts more still updates the stored record).
  await importPaths(t.store.db, [dirOf(revised('2026-01-01T00:00:00.000Z', 'Same revision, re-read.'))], quiet);
  assert.match((await stored()).d, /^Same revision, re-read\. /);
});

test('an older revision of a CISA advisory (a stale mirror) never replaces the newer stored one; a newer one does', async () => {
  const ADV = CSAF_FIXTURES.find((f) => f.endsWith('icsa-24-289-02.json'))!;
  const doc = JSON.parse(readFileSync(ADV, 'utf8'));
  const revised = (date: string, lead: string) => {
    const d = structuredClone(doc);
    d.document.tracking.current_release_date = date;
    for (const v of d.vulnerabilities) for (const n of v.notes ?? []) n.text = `${lead} ${n.text}`;
    return JSON.stringify(d);
  };
  const dirOf = (text: string) => {
    const dir = feedDir([]);
    writeFileSync(path.join(dir, 'icsa-24-289-02.json'), text);
    return dir;
  };
  const stored = async () =>
    (
      await sql<{ modified: string; text: string }>`
    SELECT record->>'modified' AS modified, record->>'description' AS text FROM cve_sources
    WHERE cve_id = 'CVE-2024-8531' AND source = 'csaf' AND source_key = 'ICSA-24-289-02'`.execute(t.store.db)
    ).rows[0];
  await importPaths(t.store.db, [dirOf(revised('2024-11-20T00:00:00Z', 'Revision 2.'))], quiet);
  assert.equal((await stored()).modified, '2024-11-20T00:00:00.000Z');
  assert.match((await stored()).text, /^Revision 2\. /);
  // The original (2024-10-08) read afterwards: refused.
  await importPaths(t.store.db, [feedDir([ADV])], quiet);
  assert.equal((await stored()).modified, '2024-11-20T00:00:00.000Z');
  assert.match((await stored()).text, /^Revision 2\. /);
  await importPaths(t.store.db, [dirOf(revised('2025-01-15T00:00:00Z', 'Revision 3.'))], quiet);
  assert.equal((await stored()).modified, '2025-01-15T00:00:00.000Z');
  assert.match((await stored()).text, /^Revision 3\. /);
});
