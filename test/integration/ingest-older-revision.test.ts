// An older NVD revision that arrives in the same batch as another source's new record for the same CVE: the
// source upsert keeps the newer stored revision (an NVD record never replaces a newer one), and the CVE's document
// is then built from what is stored, not from the refused older record the batch carried (store/ingest.ts
// upsertSourceRecords returns the records it wrote; only those stand in for stored rows).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from '../../src/store/kysely.ts';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { importPaths } from '../../src/ingest/pipeline.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';

const quiet = { log: { info() {}, warn() {} } };
const ID = 'CVE-2024-8531';
let t: TestDb;
before(async () => { t = await freshDb(); });
after(async () => { await t.drop(); });

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
  const described = async () => (await sql<{ d: string; sources: string[]; modified: string }>`
    SELECT c.doc->>'description' AS d, ARRAY(SELECT jsonb_array_elements_text(c.doc->'sources')) AS sources,
      (SELECT s.record->>'modified' FROM cve_sources s WHERE s.cve_id = c.cve_id AND s.source = 'nvd') AS modified
    FROM cves c WHERE c.cve_id = ${ID}`.execute(t.store.db)).rows[0];
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
