// Where the CPU of a bulk import goes, stage by stage: the records of one CVE Record 5 file (default the bundled
// snapshot's 44,130 records) go through the import's own steps in batches on ONE connection, and each step is
// charged its Node CPU (process.cpuUsage) and its PostgreSQL backend CPU (/proc/<backend pid>/stat, Linux, local
// server). Nothing overlaps, so the sums are the work per record, whatever the machine's load does to wall time.
// Usage: npx tsx bench/import-stages.ts [file=snapshot/cve5/vulnrichment-cve5.jsonl.gz] [batch=1000]
// Needs a local PostgreSQL at 127.0.0.1:5432 (database vi_import_stages is dropped and created).
import { readFileSync } from 'node:fs';
import { freshDatabase } from './harness.ts';
import { sql } from '../src/store/kysely.ts';
import { openStore, withTx } from '../src/store/db.ts';
import { migrate } from '../src/store/migrate.ts';
import { beginBulkLoad } from '../src/store/bulk.ts';
import { batchSettings, loadSources, upsertSourceRecords } from '../src/store/ingest.ts';
import { recordOf, sourceText } from '../src/ingest/record-json.ts';
import { rebuildRanges } from '../src/store/ranges.ts';
import { upsertCves } from '../src/store/cves.ts';
import { readCve5 } from '../src/ingest/cve5.ts';
import { mergeSources } from '../src/domain/merge.ts';
import { buildCveDocument, type Catalogs } from '../src/domain/enrich.ts';
import { buildCapecIndex } from '../src/domain/capec.ts';
import type { CveSourceRecord } from '../src/domain/records.ts';
import type { CveDocument } from '../src/domain/cve-document.ts';

const file = process.argv[2] ?? 'snapshot/cve5/vulnrichment-cve5.jsonl.gz';
const batchSize = Number(process.argv[3] ?? 1000);
const DB = process.env.STAGES_DB ?? 'vi_import_stages';
const url = await freshDatabase(DB);
const store = openStore(url, { max: 1, statementTimeoutMs: 0 });
await migrate(store.pool);
const pid = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(store.db)).rows[0].pid;
const pgCpu = () => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, clock ticks of 10 ms
};
const nodeCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const totals = new Map<string, { node: number; pg: number }>();
async function stage<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
  const [n0, p0] = [nodeCpu(), pgCpu()];
  const r = await fn();
  const t = totals.get(name) ?? { node: 0, pg: 0 };
  t.node += nodeCpu() - n0;
  t.pg += pgCpu() - p0;
  totals.set(name, t);
  return r;
}

await withTx(store.db, (tx) => beginBulkLoad(tx));
const catalogs: Catalogs = { cwe: new Map(), capec: buildCapecIndex([], null) };
const now = new Date().toISOString();
let records = 0;
const write = async (batch: CveSourceRecord[]) => {
  await withTx(store.db, async (tx) => {
    await batchSettings(tx);
    const up = await stage('upsert sources', () => upsertSourceRecords(tx, batch.map(sourceText)));
    const ids = up.ids.sort();
    const loaded = await stage('load sources', () => loadSources(tx, ids, up.written));
    const records = new Map(ids.map((id) => [id, (loaded.records.get(id) ?? []).map(recordOf)]));
    await stage('ranges', () => rebuildRanges(tx, ids, records, false));
    const docs = await stage('merge + build', () => {
      const out: CveDocument[] = [];
      for (const id of ids) {
        const m = mergeSources(id, records.get(id) ?? [], null);
        if (m.description) out.push(buildCveDocument(m, catalogs, now).doc);
      }
      return out;
    });
    await stage('upsert cves', () => upsertCves(tx, docs));
  });
};
let batch: CveSourceRecord[] = [];
const t0 = performance.now();
const it = readCve5(file, 'jsonl')[Symbol.asyncIterator]();
for (;;) {
  const next = await stage('read + parse', () => it.next());
  if (next.done) break;
  if (next.value.kind !== 'cve') continue;
  records++;
  batch.push(next.value.record);
  if (batch.length >= batchSize) {
    await write(batch);
    batch = [];
  }
}
if (batch.length) await write(batch);
const wall = performance.now() - t0;
let sumNode = 0;
let sumPg = 0;
console.log(
  `${records} records from ${file}, batches of ${batchSize}, wall ${(wall / 1000).toFixed(1)} s (one connection, no overlap)`,
);
console.log('stage             node CPU s   PG CPU s   µs/record (node+PG)');
for (const [name, t] of totals) {
  sumNode += t.node;
  sumPg += t.pg;
  console.log(
    `${name.padEnd(16)} ${(t.node / 1000).toFixed(2).padStart(10)} ${(t.pg / 1000).toFixed(2).padStart(10)}   ${(((t.node + t.pg) * 1000) / records).toFixed(0).padStart(6)}`,
  );
}
console.log(
  `${'total'.padEnd(16)} ${(sumNode / 1000).toFixed(2).padStart(10)} ${(sumPg / 1000).toFixed(2).padStart(10)}   ${(((sumNode + sumPg) * 1000) / records).toFixed(0).padStart(6)}`,
);
await store.close();
