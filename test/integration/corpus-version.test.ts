// The corpus version (cve_corpus_state, NOTIFY cve_corpus_changed) moves when the corpus or the vendor catalog
// changes and only then: API processes empty their caches at each move, so an import or sync that changes nothing
// must leave it (migration 1140: the vendor catalog's trigger fired for every statement of its refresh).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { CATALOGS, NVD_FIXTURES, CSAF_FIXTURES, feedDir } from '../helpers/ingest.ts';

const quiet = { log: { info() {}, warn() {} } };
let t: TestDb;
before(async () => {
  t = await freshDb();
});
after(async () => {
  await t.drop();
});

const version = async () =>
  (await sql<{ v: number }>`SELECT version::int AS v FROM cve_corpus_state WHERE id = 1`.execute(t.store.db)).rows[0].v;

test('an import that changes nothing leaves the corpus version; one that adds CVEs moves it', async () => {
  const nvd = feedDir([...CATALOGS, ...NVD_FIXTURES]);
  await importPaths(t.store.db, [nvd], quiet);
  const v1 = await version();
  assert.ok(v1 > 0, 'the first import moved it');
  await importPaths(t.store.db, [nvd], quiet);
  assert.equal(await version(), v1, 'the same files again: nothing changed');
  await importPaths(t.store.db, [feedDir(CSAF_FIXTURES)], quiet);
  const v2 = await version();
  assert.ok(v2 > v1, `new advisories: ${v1} → ${v2}`);
  await importPaths(t.store.db, [feedDir(CSAF_FIXTURES)], quiet);
  assert.equal(await version(), v2);
});

test('the vendor catalog moves the version per statement that changed rows, and only then', async () => {
  const db = t.store.db;
  const slug = (await sql<{ slug: string }>`SELECT slug FROM vendors ORDER BY slug LIMIT 1`.execute(db)).rows[0].slug;
  const v0 = await version();
  await sql`UPDATE vendors SET name = name WHERE false`.execute(db);
  await sql`DELETE FROM vendors WHERE slug = 'no-such-vendor'`.execute(db);
  await sql`INSERT INTO vendors (slug, name, aliases, cve_count) SELECT slug, name, aliases, cve_count FROM vendors WHERE false`.execute(
    db,
  );
  assert.equal(await version(), v0, 'statements that changed no row');
  await sql`UPDATE vendors SET cve_count = cve_count + 1 WHERE slug = ${slug}`.execute(db);
  assert.equal(await version(), v0 + 1, 'an update');
  await sql`INSERT INTO vendors (slug, name, aliases, cve_count) VALUES ('zz-test-vendor', 'ZZ Test Vendor', '{}', 0)`.execute(
    db,
  );
  assert.equal(await version(), v0 + 2, 'an insert');
  await sql`DELETE FROM vendors WHERE slug = 'zz-test-vendor'`.execute(db);
  assert.equal(await version(), v0 + 3, 'a delete');
});
