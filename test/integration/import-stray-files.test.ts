// `vulnintel import` of a folder that holds more than feeds: CISA ships
// known_exploited_vulnerabilities_schema.json next to the KEV catalog, and the import stopped on it with "not a
// KEV catalog". A file that is no feed is skipped with a warning; the rest imports.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { sql } from '../../src/store/kysely.ts';
import { freshDb, type TestDb } from '../helpers/db.ts';
import { fixture } from '../helpers/feeds.ts';
import { feedDir } from '../helpers/ingest.ts';
import { runCli } from '../../src/cli.ts';
import { detectFormat, detectFromHead } from '../../src/ingest/detect.ts';

let t: TestDb;
before(async () => {
  t = await freshDb();
  process.env.DATABASE_URL = t.url;
  process.env.LOG_LEVEL = 'silent';
});
after(async () => {
  await t?.drop();
});

const SCHEMA = fixture('kev', 'known_exploited_vulnerabilities_schema.json');

test('the KEV JSON Schema is recognised as no feed (it names catalogVersion and vulnerabilities as properties)', () => {
  assert.equal(detectFromHead(readFileSync(SCHEMA, 'utf8')), null);
  assert.equal(detectFromHead(readFileSync(fixture('kev', 'kev-cut.json'), 'utf8')), 'kev');
});

test('vulnintel import: the schema file and a truncated catalog are skipped with a reason; the catalog imports', async () => {
  const dir = feedDir([fixture('kev', 'kev-cut.json'), SCHEMA]);
  // Looks like a KEV catalog from its first bytes, but its reader refuses it before any record.
  writeFileSync(
    path.join(dir, 'kev-partial-download.json'),
    '{"title":"CISA Catalog","catalogVersion":"2026.08.07","vulnerabilities":[{"cveID":"CVE-2024-',
  );
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['import', '--quiet', dir], { out: (s) => out.push(s), err: (s) => err.push(s) });
  assert.equal(code, 0, err.join('\n'));
  const stdout = out.join('\n');
  assert.match(
    stdout,
    new RegExp(
      `^skipped ${dir}/known_exploited_vulnerabilities_schema\\.json: a JSON Schema document, not a feed$`,
      'm',
    ),
  );
  assert.match(stdout, new RegExp(`^skipped ${dir}/kev-partial-download\\.json: .*not valid KEV JSON`, 'm'));
  assert.match(stdout, /^Imported 1 file\(s\), 6 records; /m, stdout); // the catalog's meta item and its 5 entries
  const kev = (
    await sql<{ cve_id: string }>`SELECT cve_id FROM cve_sources WHERE source = 'kev' ORDER BY cve_id`.execute(
      t.store.db,
    )
  ).rows.map((r) => r.cve_id);
  assert.equal(kev.length, 5);
  assert.ok(kev.includes('CVE-2024-21338') && kev.includes('CVE-2024-49138'));
});

test('a first record over the 64 kB head (CVE-2022-33271, 69 kB, cveMetadata after its containers) is recognised, as a JSON Lines file and as one document', async () => {
  // Skipped as unrecognised, such a file would lose every record of a JSON Lines file starting with one.
  const lines = readFileSync(fixture('cve5', 'long-first-record.jsonl'), 'utf8').trim().split('\n');
  assert.ok(lines[0].length > 65_536);
  const dir = feedDir([fixture('cve5', 'long-first-record.jsonl')]);
  writeFileSync(path.join(dir, 'CVE-2022-33271.json'), lines[0]);
  assert.equal(await detectFormat(path.join(dir, 'long-first-record.jsonl')), 'cve5-jsonl');
  assert.equal(await detectFormat(path.join(dir, 'CVE-2022-33271.json')), 'cve5');
  // A dangling link inside the folder is skipped with its reason; the rest imports.
  symlinkSync(path.join(dir, 'gone.json'), path.join(dir, 'dangling.json'));
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['import', '--quiet', dir], { out: (x) => out.push(x), err: (x) => err.push(x) });
  assert.equal(code, 0, err.join('\n'));
  assert.match(out.join('\n'), new RegExp(`^skipped ${dir}/dangling\\.json: cannot be read \\(ENOENT\\)$`, 'm'));
  const ids = (
    await sql<{
      cve_id: string;
    }>`SELECT DISTINCT cve_id FROM cve_sources WHERE source = 'cve5' AND cve_id IN ('CVE-2022-33271', 'CVE-1999-0006') ORDER BY cve_id`.execute(
      t.store.db,
    )
  ).rows.map((r) => r.cve_id);
  assert.deepEqual(ids, ['CVE-1999-0006', 'CVE-2022-33271']);
});

test('the sync stays strict: a feed its reader refuses still fails (skipRefused is off outside importPaths)', async () => {
  const { runPipeline } = await import('../../src/services/import/pipeline.ts');
  const { readFeed } = await import('../../src/ingest/detect.ts');
  const dir = feedDir([]);
  const file = path.join(dir, 'kev.json');
  writeFileSync(file, '{"catalogVersion":"x","vulnerabilities":[');
  await assert.rejects(
    runPipeline(t.store.db, [{ label: file, format: 'kev', items: () => readFeed(file, 'kev') }], {
      source: 'sync:kev',
    }),
    /not valid KEV JSON/,
  );
});

test('a JSON Lines file with a line over the 64 MiB cap stops the import naming the line; it is not read into memory whole', async () => {
  const first = readFileSync(fixture('cve5', 'CVE-1999-0006.json'), 'utf8').replace(/\s*\n\s*/g, '');
  const huge = JSON.parse(first);
  huge.cveMetadata.cveId = 'CVE-1999-9999';
  huge.containers.cna.descriptions[0].value = 'x'.repeat(65 * 1024 * 1024);
  const dir = feedDir([]);
  const file = path.join(dir, 'endless.jsonl.gz');
  writeFileSync(file, gzipSync(`${first}\n${JSON.stringify(huge)}\n`));
  const out: string[] = [];
  const err: string[] = [];
  // A file refused after its first record fails the run (only a file refused before any record is skipped).
  const code = await runCli(['import', '--quiet', dir], { out: (x) => out.push(x), err: (x) => err.push(x) });
  assert.equal(code, 1);
  assert.match(
    err.join('\n'),
    new RegExp(
      `${file.replace(/[.]/g, '\\.')}:2: a line longer than 67108864 bytes \\(no feed record is near that long\\)`,
    ),
  );
  const ids = (
    await sql<{ cve_id: string }>`SELECT cve_id FROM cve_sources WHERE cve_id = 'CVE-1999-9999'`.execute(t.store.db)
  ).rows;
  assert.deepEqual(ids, []);
});
