// Read-model upkeep where the database runs no autovacuum (docs/operations.md "Read-model upkeep";
// src/store/maintenance.ts): after a bulk import the read-model tables are all-invisible and some never analyzed;
// the job's check names them and the VACUUM (ANALYZE) analyzes them; the check's 90 % all-visible boundary is tested
// on the statistics it reads. With autovacuum on, nothing is done.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from '../../src/store/kysely.ts';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, feedDir } from '../helpers/ingest.ts';
import { readModelNeedingVacuum, vacuumTables, READ_MODEL_TABLES } from '../../src/store/maintenance.ts';
import { readModelVacuumJob } from '../../src/jobs/registry.ts';
import { loadConfig } from '../../src/config.ts';

let t: TestDb;
before(async () => {
  t = await freshDb();
});
after(async () => {
  await t.drop();
});

const state = async () =>
  (
    await sql<{ relname: string; relpages: number; relallvisible: number; reltuples: number }>`
  SELECT relname, relpages, relallvisible, reltuples FROM pg_class
  WHERE relname = ANY(${[...READ_MODEL_TABLES]}::text[]) AND relkind = 'r' AND relnamespace = current_schema()::regnamespace ORDER BY relname`.execute(
      t.store.db,
    )
  ).rows;

test('after a bulk import with autovacuum off: the unvacuumed tables are named, vacuumed and analyzed; then nothing is left', async () => {
  await importPaths(t.store.db, [feedDir([...CATALOGS, ...NVD_FIXTURES, ...CSAF_FIXTURES])], {
    log: { info() {}, warn() {} },
  });
  const cves = (await state()).find((r) => r.relname === 'cves')!;
  // A fresh bulk load: pages, none all-visible (only ANALYZE ran on cves).
  assert.ok(cves.relpages > 0 && cves.relallvisible === 0, JSON.stringify(cves));
  assert.deepEqual(await readModelNeedingVacuum(t.store.db, true), [], 'autovacuum on: nothing to do here');
  const need = await readModelNeedingVacuum(t.store.db, false);
  assert.ok(need.includes('cves') && need.includes('cve_sources'), need.join(', '));
  assert.deepEqual(
    need,
    READ_MODEL_TABLES.filter((x) => need.includes(x)),
    'in the table order, largest first',
  );
  assert.deepEqual(await vacuumTables(t.store.db, need), need);
  for (const r of await state()) assert.ok(r.reltuples >= 0, `${r.relname} analyzed`);
  // Which pages VACUUM can mark all-visible depends on the sessions running at that moment (on a loaded machine some
  // stayed unmarked whatever was retried), so the check's own rule is tested on the statistics it reads: at 90 % of
  // the pages all-visible a table is not named, one page fewer and it is.
  await sql`UPDATE pg_class SET relallvisible = ceil(relpages * 0.9)::int
    WHERE relnamespace = current_schema()::regnamespace AND relname = ANY(${[...READ_MODEL_TABLES]}::text[]) AND relkind = 'r'`.execute(
    t.store.db,
  );
  assert.deepEqual(await readModelNeedingVacuum(t.store.db, false), []);
  await sql`UPDATE pg_class SET relallvisible = relallvisible - 1
    WHERE relnamespace = current_schema()::regnamespace AND relname = 'cves' AND relkind = 'r'`.execute(t.store.db);
  assert.deepEqual(await readModelNeedingVacuum(t.store.db, false), ['cves']);
  await sql`UPDATE pg_class SET relallvisible = relpages, reltuples = -1
    WHERE relnamespace = current_schema()::regnamespace AND relname = 'cve_ranges' AND relkind = 'r'`.execute(
    t.store.db,
  );
  assert.deepEqual(
    await readModelNeedingVacuum(t.store.db, false),
    ['cves', 'cve_ranges'],
    'never analyzed: named too',
  );
  await sql`UPDATE pg_class SET relallvisible = relpages, reltuples = greatest(reltuples, 0)
    WHERE relnamespace = current_schema()::regnamespace AND relname = ANY(${[...READ_MODEL_TABLES]}::text[]) AND relkind = 'r'`.execute(
    t.store.db,
  );
});

test('the job: at start and hourly, single-flight, never retried; run on a database needing nothing it does nothing', async () => {
  assert.equal(readModelVacuumJob.atStart, true);
  assert.equal(readModelVacuumJob.schedule(loadConfig({})), '30 * * * *');
  assert.deepEqual(readModelVacuumJob.policy, {
    retryLimit: 0,
    retryDelaySeconds: 60,
    expireInSeconds: 3600,
    singleFlight: true,
  });
  // (The statistics the first test left: every table all-visible and analyzed.)
  assert.deepEqual(await readModelNeedingVacuum(t.store.db, false), []);
  const lines: unknown[] = [];
  const log = { info: (o: unknown) => lines.push(o) } as unknown as Parameters<typeof readModelVacuumJob.run>[0]['log'];
  await readModelVacuumJob.run({ config: loadConfig({}), store: t.store, log }, {}, { id: 'x', retryCount: 0 });
  assert.deepEqual(lines, []);
});
