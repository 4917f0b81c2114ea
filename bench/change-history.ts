// What recording CVE changes costs the import (issue 13: "must not slow the import by more than 10 %";
// docs/watchlists.md "Change history"). Side by side on one small real corpus, alternating runs:
//   baseline: a bulk load of CWE, CAPEC and every CISA ICS CSAF advisory (about 7k CVEs) into a template database;
//   measured: incremental imports into copies of it, with recording on and off (PipelineOptions.recordChanges):
//     (a) the full KEV catalog and the full EPSS file (360k score rows; the documents of the corpus's CVEs change),
//     (b) the CSAF advisories again (every CVE re-enriched, nothing changes).
// Usage: node --import tsx bench/change-history.ts [rounds=3] [only=kev|csaf]   (PostgreSQL at 127.0.0.1:5432; needs /work/shared/data)
//        BENCH_TEMPLATE_DB=vi_bench … to run on copies of the full imported corpus
import pg from 'pg';
import { openStore } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { importPaths } from '../src/ingest/pipeline.ts';

const DATA = process.env.VULNINTEL_BENCH_DATA ?? '/work/shared/data';
const ADMIN = 'postgres://postgres@127.0.0.1:5432/postgres';
// BENCH_TEMPLATE_DB=vi_bench: measure on copies of that imported database (the 367k corpus) instead of the
// small corpus built here; it is never written to or dropped.
const GIVEN = process.env.BENCH_TEMPLATE_DB;
const TEMPLATE = GIVEN ?? 'vi_bench_changes_tpl';
const rounds = Number(process.argv[2] ?? 3);
const only = process.argv[3];
const quiet = { info() {}, warn() {} };

const catalogs = [`${DATA}/cwe/cwec_v4.15.xml.gz`, `${DATA}/capec/capec-3.9-stix21-objects.jsonl.gz`];
const csaf = [`${DATA}/csaf-ics/cisa-csaf-all.jsonl.gz`];
const kevEpss = [`${DATA}/kev/known_exploited_vulnerabilities.json`, `${DATA}/epss/emba-first-epss-api-2026-08-16.ssv.gz`];

async function admin(q: string) {
  const c = new pg.Client({ connectionString: ADMIN });
  await c.connect();
  try { await c.query(q); } finally { await c.end(); }
}
const urlOf = (db: string) => `postgres://postgres@127.0.0.1:5432/${db}`;

async function build() {
  if (GIVEN) {
    console.log(`baseline: copies of ${GIVEN}`);
    return;
  }
  if (!GIVEN) await admin(`DROP DATABASE IF EXISTS ${TEMPLATE}`);
  await admin(`CREATE DATABASE ${TEMPLATE}`);
  const store = openStore(urlOf(TEMPLATE));
  await migrate(store.pool);
  const t0 = performance.now();
  const s = await importPaths(store.db, [...catalogs, ...csaf], { log: quiet });
  console.log(`baseline: ${s.corpus} CVEs in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await store.close();
}

async function run(label: string, files: string[], record: boolean, i: number) {
  const db = `vi_bench_changes_${i}`;
  await admin(`DROP DATABASE IF EXISTS ${db}`);
  await admin(`CREATE DATABASE ${db} TEMPLATE ${TEMPLATE}`);
  const store = openStore(urlOf(db));
  const t0 = performance.now();
  const s = await importPaths(store.db, files, { log: quiet, recordChanges: record });
  const ms = performance.now() - t0;
  const n = await store.pool.query<{ n: string }>('SELECT count(*) AS n FROM cve_changes');
  await store.close();
  await admin(`DROP DATABASE ${db}`);
  return { label, record, ms, written: s.documents_written, changes: Number(n.rows[0].n) };
}

await build();
const workloads = [['kev', 'KEV + EPSS (full files)', kevEpss], ['csaf', 'CSAF again (no change)', csaf]] as const;
for (const [key, label, files] of workloads) {
  if (only && only !== key) continue;
  const on: number[] = [];
  const off: number[] = [];
  let last = { written: 0, changes: 0 };
  for (let r = 0; r < rounds; r++) {
    // Alternate which goes first, so a warming cache favours neither.
    const order = r % 2 === 0 ? [true, false] : [false, true];
    for (const rec of order) {
      const x = await run(label, [...files], rec, r);
      (rec ? on : off).push(x.ms);
      if (rec) last = x;
      console.log(`${label} record=${rec}: ${(x.ms / 1000).toFixed(2)} s, ${x.written} documents written, ${x.changes} changes`);
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const d = (med(on) / med(off) - 1) * 100;
  console.log(`== ${label}: median with recording ${(med(on) / 1000).toFixed(2)} s, without ${(med(off) / 1000).toFixed(2)} s, ` +
    `${d >= 0 ? '+' : ''}${d.toFixed(1)} %; ${last.written} documents written, ${last.changes} changes recorded`);
}
if (!GIVEN) await admin(`DROP DATABASE IF EXISTS ${TEMPLATE}`);
