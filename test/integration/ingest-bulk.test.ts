// The bulk first import (src/store/bulk.ts) must leave exactly what the incremental path leaves: documents,
// list keys, facet and stat counts, indexes and triggers; and a bulk load killed midway is finished by the next run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { beginBulkLoad, bulkLoadPending, endBulkLoad } from '../../src/store/bulk.ts';
import { withTx } from '../../src/store/db.ts';
import { fixture } from '../helpers/feeds.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import type { Db } from '../../src/store/db.ts';

const quiet = { info() {}, warn() {} };
let inc: TestDb;
let bulk: TestDb;
let crash: TestDb;
let killed: TestDb;
let one: TestDb;
let three: TestDb;
let tasks: TestDb;
before(async () => {
  [inc, bulk, crash, killed, one, three, tasks] = await Promise.all([
    freshDb(),
    freshDb(),
    freshDb(),
    freshDb(),
    freshDb(),
    freshDb(),
    freshDb(),
  ]);
});
after(async () => {
  await Promise.all([
    inc?.drop(),
    bulk?.drop(),
    crash?.drop(),
    killed?.drop(),
    one?.drop(),
    three?.drop(),
    tasks?.drop(),
  ]);
});

const dir = () =>
  feedDir([
    ...CATALOGS,
    ...NVD_FIXTURES,
    ...CSAF_FIXTURES,
    fixture('kev', 'kev-cut.json'),
    fixture('epss', 'epss-cut.ssv.gz'),
  ]);

/** Every row of the read model and its side tables (zero count rows are ignored by readers), plus the schema. */
async function readModel(db: Db) {
  const rows = async (text: string) => (await sql<Record<string, unknown>>`${sql.raw(text)}`.execute(db)).rows;
  return {
    docs: await rows(
      `SELECT cve_id, doc_hash, doc #- '{temporal,enriched_at}' #- '{sage,generated_at}' AS doc, search::text AS search, vendor_slugs, protocols, severity FROM cves ORDER BY cve_id`,
    ),
    list_keys: await rows(`SELECT * FROM cve_list_keys ORDER BY kind, key, cve_id`),
    facets: await rows(
      `SELECT scope, key, severity, kev, exploit, patch_status, maturity, ics_relevant, n::int AS n FROM cve_facet_counts WHERE n <> 0 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8`,
    ),
    stats: await rows(`SELECT dim, key, n::int AS n FROM cve_stat_counts WHERE n <> 0 ORDER BY dim, key`),
    vendors: await rows(`SELECT slug, name, cve_count FROM vendors ORDER BY slug`),
    products: await rows(
      `SELECT vendor_slug, product_key, name, cve_count FROM products ORDER BY vendor_slug, product_key`,
    ),
    ranges: await rows(
      `SELECT cve_id, ord, source, source_key, vendor_slug, product_key, cpe_vendor, cpe_product, ranges FROM cve_ranges ORDER BY cve_id, ord`,
    ),
    range_states: await rows(`SELECT cve_id, hash FROM cve_range_state ORDER BY cve_id`),
    product_keys: await rows(`SELECT cve_id, keys FROM cve_product_keys ORDER BY cve_id`),
    indexes: await rows(
      `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE tablename IN ('cves', 'cve_product_keys', 'cve_ranges') ORDER BY tablename, indexname`,
    ),
    triggers: await rows(
      `SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'cves'::regclass AND NOT tgisinternal ORDER BY tgname`,
    ),
  };
}

test('bulk first import leaves the same documents, list keys, facet/stat counts, indexes and triggers as the incremental path', async () => {
  const d = dir();
  await importPaths(inc.store.db, [d], { log: quiet, bulkLoad: false });
  // The bulk run must really drop the indexes and disable the triggers while loading.
  let seen: { indexes: number; range_indexes: string[]; disabled: number } | null = null;
  await importPaths(bulk.store.db, [d], {
    log: quiet,
    afterBatch: async () => {
      if (seen) return;
      const r = await sql<{ indexes: number; range_indexes: string[]; disabled: number }>`SELECT
        (SELECT count(*)::int FROM pg_indexes WHERE tablename = 'cves') AS indexes,
        (SELECT array_agg(indexname::text ORDER BY indexname) FROM pg_indexes WHERE tablename = 'cve_ranges') AS range_indexes,
        (SELECT count(*)::int FROM pg_trigger WHERE tgrelid = 'cves'::regclass AND tgenabled = 'D') AS disabled`.execute(
        bulk.store.db,
      );
      seen = r.rows[0];
    },
  });
  assert.deepEqual(seen, { indexes: 2, range_indexes: ['cve_ranges_pkey'], disabled: 6 });
  const a = await readModel(inc.store.db);
  const b = await readModel(bulk.store.db);
  assert.ok(a.docs.length > 10 && a.list_keys.length > 0 && a.facets.length > 0 && a.stats.length > 0);
  assert.equal(a.indexes.length, 19);
  assert.ok(a.ranges.length > 20 && a.range_states.length > 5 && a.product_keys.length > 5);
  assert.ok(a.triggers.every((t) => t.tgenabled === 'O'));
  assert.ok(a.vendors.length > 5 && a.products.length > 5);
  assert.deepEqual(b, a);
  assert.equal(await bulkLoadPending(bulk.store.db), false);
  // The bulk run took the planner statistics of cves (ANALYZE is one of its end tasks; the incremental run leaves
  // them to autovacuum): pg_stats has rows only once a table was analyzed.
  // Statistics only for the columns queries filter, group or order by (migrations 1120 and 1300): the ten only ever
  // selected, and the document, have none.
  const analyzed = await sql<{
    attname: string;
  }>`SELECT attname::text AS attname FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'cves' ORDER BY attname`.execute(
    bulk.store.db,
  );
  assert.deepEqual(
    analyzed.rows.map((r) => r.attname),
    [
      'bcs_score',
      'cve_id',
      'cvss_score',
      'epss_percentile',
      'epss_score',
      'exploit_maturity',
      'has_public_exploit',
      'ics_relevance',
      'ics_relevant',
      'kev_flagged',
      'patch_status',
      'poc_available',
      'protocols',
      'published_at',
      'search',
      'severity',
      'vendor_count',
      'vendor_slugs',
    ],
  );

  // After the bulk run the corpus is not empty: the next import is incremental (triggers keep the counts).
  await sql`DELETE FROM cves WHERE cve_id = 'CVE-2024-21338'`.execute(bulk.store.db);
  await sql`DELETE FROM cves WHERE cve_id = 'CVE-2024-21338'`.execute(inc.store.db);
  assert.deepEqual(await readModel(bulk.store.db), await readModel(inc.store.db));
  const total = await sql<{ n: number }>`SELECT sum(n)::int AS n FROM cve_facet_counts WHERE scope = 'all'`.execute(
    bulk.store.db,
  );
  assert.equal(total.rows[0].n, a.docs.length - 1);
});

test('a failed bulk run restores the read model; a bulk load left by a killed run is finished by the next run', async () => {
  const d = dir();
  await assert.rejects(
    importPaths(crash.store.db, [d], {
      log: quiet,
      batchSize: 3,
      afterBatch: (n) => {
        if (n === 2) throw new Error('simulated failure');
      },
    }),
    /simulated failure/,
  );
  assert.equal(await bulkLoadPending(crash.store.db), false);
  const partial = await readModel(crash.store.db);
  assert.equal(partial.indexes.length, 19);
  const facetTotal = partial.facets.filter((f) => f.scope === 'all').reduce((s, f) => s + Number(f.n), 0);
  assert.equal(facetTotal, partial.docs.length, 'counts recomputed for the committed batches');

  // A killed run: bulk mode entered (indexes dropped, triggers off) and never left.
  const k = killed.store.db;
  assert.equal(await withTx(k, (tx) => beginBulkLoad(tx)), true);
  assert.equal(await bulkLoadPending(k), true);
  assert.deepEqual(
    (await readModel(k)).indexes.map((x) => x.indexname),
    ['cve_product_keys_pkey', 'cve_ranges_pkey', 'cves_pkey', 'cves_sage_pending'],
  );
  // Killed during the rebuild: one index was already built again; the next run skips it and builds the rest.
  const state = await sql<{ value: string }>`SELECT value FROM ingest_state WHERE key = 'bulk_load'`.execute(k);
  const defs = (JSON.parse(state.rows[0].value) as { indexes: { def: string }[] }).indexes;
  await sql.raw(defs.find((x) => / USING gin \(search\)/.test(x.def))!.def).execute(k);
  assert.equal((await readModel(k)).indexes.length, 5);
  await importPaths(k, [d], { log: quiet });
  assert.equal(await bulkLoadPending(k), false);
  await sql`DELETE FROM cves WHERE cve_id = 'CVE-2024-21338'`.execute(k);
  const got = await readModel(k);
  const want = await readModel(inc.store.db);
  // The re-run rewrote documents (enriched_at differs); compare everything but the volatile document text.
  assert.deepEqual({ ...got, docs: got.docs.map((x) => x.cve_id) }, { ...want, docs: want.docs.map((x) => x.cve_id) });
});

test('concurrent writers leave what one writer leaves: 1 and 3 writers, many small batches, triggers on', async () => {
  const d = dir();
  // batchSize 2: dozens of batches per file, so the writers' transactions overlap, including on the shared count
  // rows the triggers update (incremental path). CVEs named by NVD, CSAF and KEV files keep all their sources.
  await importPaths(one.store.db, [d], { log: quiet, bulkLoad: false, batchSize: 2, writers: 1 });
  await importPaths(three.store.db, [d], { log: quiet, bulkLoad: false, batchSize: 2, writers: 3 });
  const a = await readModel(one.store.db);
  const b = await readModel(three.store.db);
  assert.ok(a.docs.length > 10 && a.facets.length > 0);
  assert.deepEqual(b, a);
  const multi = await sql<{ n: number }>`SELECT count(*)::int AS n FROM (
    SELECT cve_id FROM cve_sources GROUP BY cve_id HAVING count(DISTINCT source) >= 2) x`.execute(three.store.db);
  assert.ok(multi.rows[0].n > 0, 'the fixtures hold CVEs with records from several sources');
  const total = await sql<{ n: number }>`SELECT sum(n)::int AS n FROM cve_facet_counts WHERE scope = 'all'`.execute(
    three.store.db,
  );
  assert.equal(total.rows[0].n, b.docs.length);
});

test("the end of a bulk load runs each task in its own transaction with JIT off, the caller's tasks among them", async () => {
  const db = tasks.store.db;
  assert.equal(
    (await sql<{ jit: string }>`SELECT current_setting('jit') AS jit`.execute(db)).rows[0].jit,
    'on',
    'the server default',
  );
  assert.equal(await withTx(db, (tx) => beginBulkLoad(tx)), true);
  const seen: { jit: string; tx: string }[] = [];
  const probe = {
    weight: 1,
    run: async (tx: Parameters<Parameters<typeof withTx>[1]>[0]) => {
      seen.push(
        (
          await sql<{
            jit: string;
            tx: string;
          }>`SELECT current_setting('jit') AS jit, txid_current()::text AS tx`.execute(tx)
        ).rows[0],
      );
    },
  };
  assert.equal(await endBulkLoad(db, 2, [probe, probe]), true);
  assert.equal(seen.length, 2);
  assert.deepEqual(
    seen.map((x) => x.jit),
    ['off', 'off'],
  );
  assert.notEqual(seen[0].tx, seen[1].tx, 'one transaction per task');
  // Only for its transactions: the pool's sessions keep the server's setting, and bulk mode is left.
  assert.equal((await sql<{ jit: string }>`SELECT current_setting('jit') AS jit`.execute(db)).rows[0].jit, 'on');
  assert.equal(await bulkLoadPending(db), false);
});
