// The yardstick of the import benchmark: a plain COPY of the same NVD records into an empty database, with no
// enrichment, no read model and no index. It reads the corpus pages (bench/generate-corpus.ts), parses each
// page, and streams one row per record (cve_id, the record as jsonb) into `psql -c "\copy … FROM STDIN"`.
// `vulnintel import` time divided by this time, both measured in the same run, is a figure that holds on
// another machine (docs/benchmarks.md).
// Usage: npx tsx bench/copy-baseline.ts [dir=bench/out/corpus] [database=vi_copy]   (needs psql on PATH)
// The database is dropped and created again on every run.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const dir = path.resolve(process.argv[2] ?? 'bench/out/corpus');
const db = process.argv[3] ?? 'vi_copy';
const conn = [
  '-h',
  process.env.PGHOST ?? '127.0.0.1',
  '-U',
  process.env.PGUSER ?? 'postgres',
  '-v',
  'ON_ERROR_STOP=1',
  '-q',
];
const psql = (database: string, sqlText: string) => {
  const r = spawnSync('psql', [...conn, '-d', database, '-c', sqlText], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`psql failed: ${sqlText}`);
};
psql('postgres', `DROP DATABASE IF EXISTS ${db}`);
psql('postgres', `CREATE DATABASE ${db}`);
psql(db, 'CREATE TABLE nvd_records (cve_id text NOT NULL, record jsonb NOT NULL)');

const t0 = performance.now();
const copy = spawn('psql', [...conn, '-d', db, '-c', '\\copy nvd_records FROM STDIN'], {
  stdio: ['pipe', 'inherit', 'inherit'],
});
const done = new Promise<number>((resolve) => copy.on('exit', (code) => resolve(code ?? 1)));
let n = 0;
for (const f of readdirSync(dir)
  .filter((x) => x.endsWith('.json'))
  .sort()) {
  const page = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as { vulnerabilities: { cve: { id: string } }[] };
  // COPY text format: backslashes doubled; JSON text has no raw tab or newline.
  const chunk = page.vulnerabilities
    .map((v) => `${v.cve.id}\t${JSON.stringify(v.cve).replace(/\\/g, '\\\\')}\n`)
    .join('');
  n += page.vulnerabilities.length;
  if (!copy.stdin.write(chunk)) await new Promise((r) => copy.stdin.once('drain', r));
}
copy.stdin.end();
if ((await done) !== 0) throw new Error('COPY failed');
process.stdout.write(`copied ${n} records in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
