// The feed thread (src/ingest/feed-thread.ts): a large feed file read on a worker thread yields exactly the items of
// the in-line reader, each source record with the JSON text and hash the store would have made; a refused file
// keeps its FeedFormatError; stopping early ends the thread. Real CVE Record 5 records (test/fixtures/cve5).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { readFeed } from '../../src/ingest/detect.ts';
import { readFeedOnThread, readsOnThread } from '../../src/ingest/feed-thread.ts';
import { makeRecordJson, recordJson } from '../../src/ingest/record-json.ts';
import { sourceRow } from '../../src/store/ingest.ts';
import { FeedFormatError, type IngestItem } from '../../src/ingest/types.ts';
import { fixture, snapshotFile } from '../helpers/feeds.ts';

const FIXTURES = () => readdirSync(fixture('cve5')).filter((f) => f.endsWith('.json')).length;

/** The real fixture records as one gzip JSON Lines file (the Vulnrichment corpus's layout), repeated `times`. */
function jsonlOfFixtures(times = 1, extra = ''): string {
  const dir = fixture('cve5');
  const lines = readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.stringify(JSON.parse(readFileSync(path.join(dir, f), 'utf8'))));
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'vi-feed-thread-')), 'records.jsonl.gz');
  writeFileSync(file, gzipSync(`${Array.from({ length: times }, () => lines.join('\n')).join('\n')}\n${extra}`));
  return file;
}

async function all(it: AsyncIterable<IngestItem>): Promise<IngestItem[]> {
  const out: IngestItem[] = [];
  for await (const x of it) out.push(x);
  return out;
}

test('on the thread: the same items in the same order as in line, records with the text and hash the store makes', async () => {
  // 40 copies of the records: several messages of 256 items, more than the thread may post ahead unacknowledged.
  const file = jsonlOfFixtures(40);
  const inline = await all(readFeed(file, 'cve5-jsonl'));
  const threaded = await all(readFeedOnThread(file, 'cve5-jsonl'));
  assert.equal(threaded.length, 40 * FIXTURES());
  assert.ok(threaded.length > 256 * 2);
  assert.deepEqual(threaded, inline);
  const ids = threaded.map((x) => (x.kind === 'cve' ? x.record.cve_id : x.kind));
  assert.deepEqual(ids.slice(0, 3), ['CVE-1999-0006', 'CVE-2016-15040', 'CVE-2017-2680']);
  for (const item of threaded) {
    assert.equal(item.kind, 'cve');
    if (item.kind !== 'cve') continue;
    // The remembered text is JSON.stringify's own, so the stored row and its hash do not depend on the thread.
    assert.deepEqual(recordJson(item.record), makeRecordJson(item.record));
    assert.equal(sourceRow(item.record).record, JSON.stringify(item.record));
  }
});

test('a refused file keeps its FeedFormatError, naming the line; other errors keep their code', async () => {
  const broken = jsonlOfFixtures(1, '{"dataType": "CVE_RECORD", oops\n');
  const items: IngestItem[] = [];
  await assert.rejects(async () => {
    for await (const x of readFeedOnThread(broken, 'cve5-jsonl')) items.push(x);
  }, (err: Error) => err instanceof FeedFormatError && err.message.endsWith(`records.jsonl.gz:${FIXTURES() + 1}: not one CVE record per line`));
  assert.equal(items.length, FIXTURES(), 'the records before the broken line were read');
  await assert.rejects(all(readFeedOnThread('/nonexistent/records.jsonl.gz', 'cve5-jsonl')), (err: Error & { code?: string }) => err.code === 'ENOENT');
});

test('stopping early ends the thread; a later read starts a new one', async () => {
  const file = jsonlOfFixtures(40);
  let n = 0;
  for await (const x of readFeedOnThread(file, 'cve5-jsonl')) {
    assert.equal(x.kind, 'cve');
    if (++n === 3) break;
  }
  assert.equal(n, 3);
  assert.equal((await all(readFeedOnThread(file, 'cve5-jsonl'))).length, 40 * FIXTURES());
});

test('only large files of the many-record formats are read on the thread', async () => {
  // The bundled Vulnrichment corpus (16 MB) is; the same format under 4 MB, or a single-document format, is not.
  assert.equal(await readsOnThread(snapshotFile('cve5', 'vulnrichment-cve5.jsonl.gz'), 'cve5-jsonl'), true);
  assert.equal(await readsOnThread(jsonlOfFixtures(1), 'cve5-jsonl'), false);
  assert.equal(await readsOnThread(snapshotFile('cve5', 'vulnrichment-cve5.jsonl.gz'), 'cve5'), false);
});
