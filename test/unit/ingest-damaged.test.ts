// Damaged and hostile feed files an operator meets: a NUL in a record, XML character
// references no text holds, a cut CVRF document, a cut .gz. Each is read into storable text or refused with the
// file named, never a bare error from deep inside.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readFeed } from '../../src/ingest/detect.ts';
import { CSAF_FALLBACK_MAX_LEAVES, csafRecords } from '../../src/ingest/csaf.ts';
import { parseEpssRow } from '../../src/ingest/epss.ts';
import { parseFeedJson } from '../../src/ingest/json.ts';
import { codePointText, decodeEntities, scanXml } from '../../src/ingest/xml-scan.ts';
import { FeedFormatError, type IngestItem } from '../../src/ingest/types.ts';
import { fixture } from '../helpers/feeds.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'vi-damaged-'));
const all = async (file: string) => {
  const out: IngestItem[] = [];
  for await (const x of readFeed(file)) out.push(x);
  return out;
};

test('parseFeedJson: a \\u0000 escape is read as U+FFFD, an escaped backslash before it is left alone', () => {
  assert.deepEqual(parseFeedJson('{"a":"x\\u0000y","b":"\\\\u0000","c":"\\\\\\u0000"}'), {
    a: 'x\uFFFDy',
    b: '\\u0000',
    c: '\\\uFFFD',
  });
  assert.deepEqual(parseFeedJson('{"a":"plain"}'), { a: 'plain' });
});

test('a NUL in a CVE record is read as U+FFFD: the record is kept, its text storable', async () => {
  // Unread, one such record would stop the whole import at the database ("invalid byte sequence … 0x00"), every run.
  const rec = JSON.parse(readFileSync(fixture('cve5', 'CVE-1999-0006.json'), 'utf8'));
  rec.containers.cna.descriptions[0].value = 'Buffer overflow\u0000 in qpopper';
  const file = path.join(dir, 'nul.json');
  writeFileSync(file, JSON.stringify(rec));
  const items = await all(file);
  const cve = items.find((x) => x.kind === 'cve');
  assert.ok(cve && cve.kind === 'cve');
  assert.ok(!JSON.stringify(cve.record).includes('\\u0000'));
  assert.match(JSON.stringify(cve.record), /Buffer overflow\\ufffd in qpopper|Buffer overflow\uFFFD in qpopper/);
});

test('XML character references: U+0000, surrogates and code points past U+10FFFF become U+FFFD', () => {
  assert.equal(decodeEntities('a&#0;b&#x0;c&#xD800;d&#x110000;e&#65;&#x42;'), 'a\uFFFDb\uFFFDc\uFFFDd\uFFFDeAB');
  assert.deepEqual(
    [codePointText(0), codePointText(0x41), codePointText(0x10ffff), codePointText(0x110000), codePointText(0xdfff)],
    ['\uFFFD', 'A', '\u{10FFFF}', '\uFFFD', '\uFFFD'],
  );
});

test('a CVRF document cut short is refused whole, named (it was imported as complete with half its fixes)', async () => {
  assert.throws(
    () => scanXml('<a><b>x</b>', { open() {}, text() {}, close() {}, wantAttrs: () => false }),
    /truncated XML document \(1 element\(s\) not closed\)/,
  );
  const xml = gunzipSync(readFileSync(fixture('msrc', '2021-Jun.xml.gz')));
  const cut = path.join(dir, '2021-Jun-cut.xml');
  writeFileSync(cut, xml.subarray(0, Math.floor(xml.length * 0.6)));
  await assert.rejects(
    all(cut),
    (e: Error) => e instanceof FeedFormatError && e.message.startsWith(`${cut}: not a complete MSRC CVRF document (`),
  );
  assert.ok((await all(fixture('msrc', '2021-Jun.xml.gz'))).length > 10, 'the whole document reads');
});

test('a .gz of CVE records cut short fails naming the file and the line it reached', async () => {
  const lines = readFileSync(fixture('cve5', 'long-first-record.jsonl'), 'utf8');
  const gz = gzipSync(Buffer.from(lines.repeat(20)));
  const cut = path.join(dir, 'cut.jsonl.gz');
  writeFileSync(cut, gz.subarray(0, Math.floor(gz.length * 0.5)));
  await assert.rejects(
    all(cut),
    (e: Error) =>
      e instanceof FeedFormatError && e.message.startsWith(`${cut}:`) && /unexpected end of file/.test(e.message),
  );
});

test('a KEV entry with a dateAdded that is no date refuses the catalog whole, naming the file and entry, before any item', async () => {
  // Passed by the reader, "yesterday" would stop the import at the database, naming nothing; a bad cveID is refused
  // before the catalog's version is taken.
  const kev = JSON.parse(readFileSync(fixture('kev', 'kev-cut.json'), 'utf8'));
  kev.vulnerabilities[1].dateAdded = 'yesterday';
  const file = path.join(dir, 'kev-bad-date.json');
  writeFileSync(file, JSON.stringify(kev));
  const seen: IngestItem[] = [];
  await assert.rejects(
    (async () => {
      for await (const x of readFeed(file)) seen.push(x);
    })(),
    (e: Error) =>
      e instanceof FeedFormatError &&
      e.message ===
        `${file}: vulnerabilities[1]: KEV entry ${kev.vulnerabilities[1].cveID}: dateAdded is not a YYYY-MM-DD date`,
  );
  assert.deepEqual(seen, []);
});

test('a CVSS base score outside 0 to 10 is no score (1e308 stopped a whole import at the database)', async () => {
  const rec = JSON.parse(readFileSync(fixture('cve5', 'CVE-2024-21762.json'), 'utf8'));
  const metric = rec.containers.cna.metrics.find((m: Record<string, unknown>) => m.cvssV3_1) as {
    cvssV3_1: { baseScore: number };
  };
  metric.cvssV3_1.baseScore = 1e308;
  const file = path.join(dir, 'score.json');
  writeFileSync(file, JSON.stringify(rec));
  const items = await all(file);
  const cve = items.find((x) => x.kind === 'cve');
  assert.ok(cve && cve.kind === 'cve');
  const scores = (
    cve.record as unknown as { cvss: { version: string; score: number | null; type: string | null }[] }
  ).cvss
    .filter((c) => c.type === 'CNA' && c.version === '3.1')
    .map((c) => c.score);
  assert.deepEqual(scores, [null]);
});

test('a CSAF vulnerability naming no product of its tree takes the whole tree only when the tree is small', () => {
  // Giving any tree whole to every such vulnerability, one crafted advisory would take 1.8 GB and 77 s.
  const advisory = (leaves: number) => ({
    document: {
      csaf_version: '2.0',
      tracking: { id: 'ICSA-00-000-00', initial_release_date: '2024-01-01T00:00:00Z' },
      references: [],
    },
    product_tree: {
      branches: [
        {
          category: 'vendor',
          name: 'Acme',
          branches: Array.from({ length: leaves }, (_, i) => ({
            category: 'product_name',
            name: `Unit ${i}`,
            branches: [
              {
                category: 'product_version',
                name: '1.0',
                product: { product_id: `P${i}`, name: `Acme Unit ${i} 1.0` },
              },
            ],
          })),
        },
      ],
    },
    vulnerabilities: [{ cve: 'CVE-2024-0001', product_status: { known_affected: ['MISSING'] } }],
  });
  const affected = (n: number) => (csafRecords(advisory(n))[0] as unknown as { affected: unknown[] }).affected.length;
  assert.equal(affected(CSAF_FALLBACK_MAX_LEAVES), CSAF_FALLBACK_MAX_LEAVES);
  assert.equal(affected(CSAF_FALLBACK_MAX_LEAVES + 1), 0);
});

test('EPSS rows: the two numbers must be decimals as FIRST writes them; a score_date that is no date is none', async () => {
  // Not "0x1" read as 1 and an empty field as 0, nor a score_date of "not-a-date" stored as given.
  assert.deepEqual(parseEpssRow('CVE-2024-0001,0.00043,0.1', ','), {
    cve_id: 'CVE-2024-0001',
    epss: 0.00043,
    percentile: 0.1,
  });
  assert.deepEqual(parseEpssRow('CVE-2024-0001;4.3e-04;.5', ';'), {
    cve_id: 'CVE-2024-0001',
    epss: 0.00043,
    percentile: 0.5,
  });
  for (const line of [
    'CVE-2024-0001,0x1,0.5',
    'CVE-2024-0001,,0.5',
    'CVE-2024-0001,0.5,',
    'CVE-2024-0001,1_0,0.5',
    'CVE-2024-0001,Infinity,0.5',
    'CVE-2024-0001,-0.1,0.5',
  ]) {
    assert.equal(parseEpssRow(line, ','), null, line);
  }
  const file = path.join(dir, 'epss-bad-date.csv');
  writeFileSync(file, '#model_version:v1,score_date:not-a-date\ncve,epss,percentile\nCVE-1999-0001,0.03351,0.88255\n');
  const items = await all(file);
  assert.deepEqual(items[0], {
    kind: 'meta',
    meta: { feed: 'epss-csv', version: 'v1', date: null, declared_count: null },
  });
  assert.equal(items.length, 2);
});
