// What recording CVE changes costs the import (target: it must not slow the import by more than 10 %;
// docs/watchlists.md "Change history"). Side by side on one small real corpus, alternating runs:
//   baseline: a bulk load of CWE, CAPEC and every CISA ICS CSAF advisory (about 7k CVEs) into a template database;
//   measured: incremental imports into copies of it, with recording on and off (PipelineOptions.recordChanges):
//     (a) the full KEV catalog and the full EPSS file (360k score rows; the documents of the corpus's CVEs change),
//     (b) the CSAF advisories again (every CVE re-enriched, nothing changes),
//     (c) `nvd`, with BENCH_TEMPLATE_DB only: the next "release" of three pages of the generated NVD corpus
//         (bench/out/corpus, 6,000 records, the NVD API page format unchanged): every second record rescored
//         (CVSS base score +1.5, its severity band recomputed) and every third given a new patch reference, both
//         with a later lastModified; a day of NVD modifications into the full corpus.
// Usage: node --import tsx bench/change-history.ts [rounds=3] [only=kev|csaf]   (PostgreSQL at 127.0.0.1:5432; needs /work/shared/data)
//        BENCH_TEMPLATE_DB=vi_bench … to run on copies of the full imported corpus
import pg from 'pg';
import { openStore } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { importPaths } from '../src/services/import/pipeline.ts';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

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
const kevEpss = [
  `${DATA}/kev/known_exploited_vulnerabilities.json`,
  `${DATA}/epss/emba-first-epss-api-2026-08-16.ssv.gz`,
];

async function admin(q: string) {
  const c = new pg.Client({ connectionString: ADMIN });
  await c.connect();
  try {
    await c.query(q);
  } finally {
    await c.end();
  }
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

/** Three generated NVD pages, changed as a later release would change them (see the header, workload c). */
function nvdDelta(): string[] {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vi-nvd-delta-'));
  const band = (s: number) => (s >= 9 ? 'CRITICAL' : s >= 7 ? 'HIGH' : s >= 4 ? 'MEDIUM' : s > 0 ? 'LOW' : 'NONE');
  return ['0001', '0002', '0003'].map((n) => {
    const page = JSON.parse(readFileSync(`bench/out/corpus/nvd-page-${n}.json`, 'utf8'));
    page.vulnerabilities.forEach(({ cve }: { cve: Record<string, any> }, i: number) => {
      let changed = false;
      for (const m of cve.metrics?.cvssMetricV31 ?? []) {
        if (i % 2) continue;
        m.cvssData.baseScore = Math.min(10, Math.round((m.cvssData.baseScore + 1.5) * 10) / 10);
        m.cvssData.baseSeverity = band(m.cvssData.baseScore);
        changed = true;
      }
      if (i % 3 === 0) {
        (cve.references ??= []).push({
          url: `https://vendor.example/security/${cve.id}-fix`,
          source: 'cna@example.org',
          tags: ['Patch', 'Vendor Advisory'],
        });
        changed = true;
      }
      if (changed) cve.lastModified = '2026-11-26T00:00:00.000';
    });
    const f = path.join(dir, `nvd-page-${n}.json`);
    writeFileSync(f, JSON.stringify(page));
    return f;
  });
}

await build();
const workloads: (readonly [string, string, readonly string[]])[] = [
  ['kev', 'KEV + EPSS (full files)', kevEpss],
  ['csaf', 'CSAF again (no change)', csaf],
];
if (GIVEN) workloads.push(['nvd', 'NVD next release, 6,000 records of 367k', nvdDelta()]);
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
      console.log(
        `${label} record=${rec}: ${(x.ms / 1000).toFixed(2)} s, ${x.written} documents written, ${x.changes} changes`,
      );
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const d = (med(on) / med(off) - 1) * 100;
  console.log(
    `== ${label}: median with recording ${(med(on) / 1000).toFixed(2)} s, without ${(med(off) / 1000).toFixed(2)} s, ` +
      `${d >= 0 ? '+' : ''}${d.toFixed(1)} %; ${last.written} documents written, ${last.changes} changes recorded`,
  );
}
if (!GIVEN) await admin(`DROP DATABASE IF EXISTS ${TEMPLATE}`);
