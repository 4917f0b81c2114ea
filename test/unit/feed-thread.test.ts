// The feed thread (src/ingest/feed-thread.ts): a large feed file read on a worker thread yields exactly the items of
// the in-line reader, each source record with the JSON text and hash the store would have made; a refused file
// keeps its FeedFormatError; stopping early ends the thread. Real CVE Record 5 records (test/fixtures/cve5). A run
// of files on one thread (real MSRC months, test/fixtures/msrc): the same per file, errors in their place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { readFeed } from '../../src/ingest/detect.ts';
import { FeedThreadReader, readsOnThread, readsRunOnThread } from '../../src/ingest/feed-thread.ts';
import { FEED_THREAD_AHEAD_BYTES } from '../../src/ingest/feed-thread-types.ts';
import { collectInputs, primeAhead, PRIME_AHEAD_BYTES, type PipelineInput } from '../../src/ingest/inputs.ts';
import { recordOf, textOf } from '../../src/ingest/record-json.ts';
import { FeedFormatError, type FeedFormat, type IngestItem } from '../../src/ingest/types.ts';
import { fixture, snapshotFile } from '../helpers/feeds.ts';

const FIXTURES = () => readdirSync(fixture('cve5')).filter((f) => f.endsWith('.json')).length;

/** The real fixture records as one gzip JSON Lines file (the Vulnrichment corpus's layout), repeated `times`. */
function jsonlOfFixtures(times = 1, extra = ''): string {
  const dir = fixture('cve5');
  const lines = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.stringify(JSON.parse(readFileSync(path.join(dir, f), 'utf8'))));
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'vi-feed-thread-')), 'records.jsonl.gz');
  writeFileSync(file, gzipSync(`${Array.from({ length: times }, () => lines.join('\n')).join('\n')}\n${extra}`));
  return file;
}

/** One file on its own thread, as the import reads a large file (the thread ends with the iteration). */
const readFeedOnThread = (path: string, format: FeedFormat) => new FeedThreadReader([{ path, format }]).items(0);

/**
 * The items, with each source record that came as its text (`cve-text`, the thread's form) checked against the text
 * the store would make of its record and replaced by that record, as the in-line reader yields it.
 */
async function all(it: AsyncIterable<IngestItem>): Promise<IngestItem[]> {
  const out: IngestItem[] = [];
  for await (const x of it) {
    if (x.kind !== 'cve-text') {
      out.push(x);
      continue;
    }
    const record = recordOf(x.text);
    assert.deepEqual(x.text, textOf(record), 'the text, hash and fields the store would make');
    out.push({ kind: 'cve', record });
  }
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
  // Every record came as its text (checked in all()), never as a parsed record.
  let texts = 0;
  for await (const item of readFeedOnThread(file, 'cve5-jsonl')) {
    assert.equal(item.kind, 'cve-text');
    if (item.kind === 'cve-text') texts++;
  }
  assert.equal(texts, threaded.length);
});

test('a refused file keeps its FeedFormatError, naming the line; other errors keep their code', async () => {
  const broken = jsonlOfFixtures(1, '{"dataType": "CVE_RECORD", oops\n');
  const items: IngestItem[] = [];
  await assert.rejects(
    async () => {
      for await (const x of readFeedOnThread(broken, 'cve5-jsonl')) items.push(x);
    },
    (err: Error) =>
      err instanceof FeedFormatError &&
      err.message.endsWith(`records.jsonl.gz:${FIXTURES() + 1}: not one CVE record per line`),
  );
  assert.equal(items.length, FIXTURES(), 'the records before the broken line were read');
  await assert.rejects(
    all(readFeedOnThread('/nonexistent/records.jsonl.gz', 'cve5-jsonl')),
    (err: Error & { code?: string }) => err.code === 'ENOENT',
  );
});

test('stopping early ends the thread; a later read starts a new one', async () => {
  const file = jsonlOfFixtures(40);
  let n = 0;
  for await (const x of readFeedOnThread(file, 'cve5-jsonl')) {
    assert.equal(x.kind, 'cve-text');
    if (++n === 3) break;
  }
  assert.equal(n, 3);
  assert.equal((await all(readFeedOnThread(file, 'cve5-jsonl'))).length, 40 * FIXTURES());
});

test('a primed thread starts before the items are asked for, reads ahead, and is the thread the items come from', async () => {
  const file = jsonlOfFixtures(40);
  const inline = await all(readFeed(file, 'cve5-jsonl'));
  const reader = new FeedThreadReader([{ path: file, format: 'cve5-jsonl' }]);
  assert.equal(reader.reading, false, 'no thread before it is primed or read');
  reader.prime();
  assert.equal(reader.reading, true);
  reader.prime(); // a second prime starts no second thread
  // Read ahead while nothing asks: the thread's first batches wait for the import.
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(await all(reader.items(0)), inline);
  assert.equal(reader.reading, false, 'the last file read: the thread has ended');
  reader.prime(); // the import primes inputs again as it comes to them: a reader read to the end is not restarted
  assert.equal(reader.reading, false, 'prime() after the thread ended starts none');
  // A primed thread that is never read ends at close().
  const unread = new FeedThreadReader([{ path: file, format: 'cve5-jsonl' }]);
  unread.prime();
  await unread.close();
  assert.equal(unread.reading, false);
});

test('read-ahead is bounded by bytes: a primed thread posts what fits its budget and goes on as the import takes', async () => {
  // About 35 MB of record texts (more than the default budget) in messages of about 2 MB.
  const file = jsonlOfFixtures(200);
  const inline = await all(readFeed(file, 'cve5-jsonl'));
  // The weight of one message: its 256 records' texts.
  const perMessage = inline
    .slice(0, 256)
    .reduce((n, x) => n + (x.kind === 'cve' ? JSON.stringify(x.record).length : 1024), 0);
  // Until the thread stops posting: at least `atLeast` bytes ahead (what it must reach), then unchanged for 500 ms;
  // at most 60 s in all. On a loaded machine the thread may pause longer than the quiet spell between two messages,
  // and the bound was then asserted too early (a CI run saw one message ahead of two); the lower bound is now waited
  // for, and a thread that never reaches it still fails the assertion after the 60 s.
  const settle = async (r: FeedThreadReader, atLeast: number) => {
    let last = -1;
    for (let same = 0, t = 0; same < 10 && t < 1200; t++) {
      await new Promise((ok) => setTimeout(ok, 50));
      same = r.aheadNow === last && last >= atLeast ? same + 1 : 0;
      last = r.aheadNow;
    }
  };
  const small = new FeedThreadReader([{ path: file, format: 'cve5-jsonl' }], Math.floor(perMessage * 2.5));
  try {
    small.prime();
    await settle(small, perMessage * 1.5);
    // Two messages fit the budget, a third would not.
    assert.ok(
      small.aheadNow >= perMessage * 1.5 && small.aheadNow <= perMessage * 2.5,
      `${small.aheadNow} bytes ahead of ${perMessage} per message`,
    );
    // Taken to the end, the items are all there.
    assert.deepEqual(await all(small.items(0)), inline);
  } finally {
    await small.close();
  }
  // The default budget (16 MB) holds part of this file, far more than the four messages of before: the thread reads
  // up to the budget while the import is not asking yet, and no further.
  const whole = inline.reduce((n, x) => n + (x.kind === 'cve' ? JSON.stringify(x.record).length : 1024), 0);
  assert.ok(whole > FEED_THREAD_AHEAD_BYTES);
  const big = new FeedThreadReader([{ path: file, format: 'cve5-jsonl' }]);
  try {
    big.prime();
    await settle(big, FEED_THREAD_AHEAD_BYTES - perMessage + 1);
    assert.ok(
      big.aheadNow <= FEED_THREAD_AHEAD_BYTES && big.aheadNow > FEED_THREAD_AHEAD_BYTES - perMessage,
      `${big.aheadNow} bytes ahead`,
    );
  } finally {
    await big.close();
  }
});

test('only large files of the many-record formats are read on the thread', async () => {
  // From 4 MB as stored; a single-document format never alone.
  assert.equal(readsOnThread('cve5-jsonl', 4 * 1024 * 1024), true);
  assert.equal(readsOnThread('cve5-jsonl', 4 * 1024 * 1024 - 1), false);
  assert.equal(readsOnThread('cve5', 64 * 1024 * 1024), false);
  // The bundled Vulnrichment corpus (16 MB) gets its own reader in the import; a small file of the format does not.
  const big = (await collectInputs([snapshotFile('cve5', 'vulnrichment-cve5.jsonl.gz')])).inputs;
  assert.equal(big.length, 1);
  assert.ok(big[0].close);
  const small = (await collectInputs([jsonlOfFixtures(1)])).inputs;
  assert.equal(small.length, 1);
  assert.equal(small[0].close, undefined);
});

// A run of files on one thread (FeedThreadReader): the real MSRC months of test/fixtures/msrc.
const msrcRun = () =>
  readdirSync(fixture('msrc'))
    .filter((f) => f.endsWith('.xml.gz'))
    .sort()
    .map((f) => ({ path: path.join(fixture('msrc'), f), format: 'msrc-cvrf' as const }));

test('a run of files on one thread: each file gives the in-line items, its Windows document with a Buffer payload', async () => {
  const files = msrcRun();
  assert.ok(files.length >= 5);
  const reader = new FeedThreadReader(files);
  try {
    for (let i = 0; i < files.length; i++) {
      const inline = await all(readFeed(files[i].path, 'msrc-cvrf'));
      const threaded = await all(reader.items(i));
      assert.deepEqual(threaded, inline, files[i].path);
      const doc = threaded.find((x) => x.kind === 'msrc-document');
      assert.ok(doc?.kind === 'msrc-document' && Buffer.isBuffer(doc.doc.payload) && doc.doc.fixes.length > 0);
      assert.ok(threaded.filter((x) => x.kind === 'cve').length > 10);
    }
  } finally {
    await reader.close();
  }
});

test('a run of files: a failing file throws in its place and the next file still reads; skipped and repeated files', async () => {
  const good = msrcRun().slice(0, 3);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vi-feed-run-'));
  const truncated = path.join(dir, 'broken.xml');
  writeFileSync(
    truncated,
    '<?xml version="1.0"?><cvrfdoc xmlns="http://www.icasi.org/CVRF/schema/cvrf/1.1"><DocumentTitle>x',
  );
  const files = [
    good[0],
    { path: truncated, format: 'msrc-cvrf' as const },
    { path: '/nonexistent/2020-Jan.xml.gz', format: 'msrc-cvrf' as const },
    good[1],
    good[2],
  ];
  const reader = new FeedThreadReader(files);
  try {
    const first = await all(reader.items(0));
    assert.deepEqual(first, await all(readFeed(good[0].path, 'msrc-cvrf')));
    let inlineError: Error | null = null;
    await all(readFeed(truncated, 'msrc-cvrf')).catch((e: Error) => (inlineError = e));
    assert.ok(inlineError);
    await assert.rejects(
      all(reader.items(1)),
      (e: Error) => e.constructor === inlineError!.constructor && e.message === inlineError!.message,
    );
    await assert.rejects(all(reader.items(2)), (e: Error & { code?: string }) => e.code === 'ENOENT');
    // File 3 is not taken: file 4 still comes whole, and file 0 again (behind the thread) starts a new thread.
    assert.deepEqual(await all(reader.items(4)), await all(readFeed(good[2].path, 'msrc-cvrf')));
    assert.deepEqual(await all(reader.items(0)), first);
  } finally {
    await reader.close();
  }
});

test('a run of files: leaving a file early stops the thread, and the next file starts a new one', async () => {
  const files = msrcRun();
  const reader = new FeedThreadReader(files);
  try {
    let n = 0;
    for await (const x of reader.items(0)) {
      assert.ok(x.kind === 'meta' || x.kind === 'msrc-document' || x.kind === 'cve-text');
      if (++n === 3) break;
    }
    assert.equal(n, 3);
    assert.deepEqual(await all(reader.items(1)), await all(readFeed(files[1].path, 'msrc-cvrf')));
  } finally {
    await reader.close();
  }
});

test('runs of MSRC months from 1 MB are read on one thread; other formats and single files in line', async () => {
  assert.equal(readsRunOnThread('msrc-cvrf', 2, 1024 * 1024), true);
  assert.equal(readsRunOnThread('msrc-cvrf', 2, 1024 * 1024 - 1), false);
  assert.equal(readsRunOnThread('msrc-cvrf', 1, 64 * 1024 * 1024), false);
  assert.equal(readsRunOnThread('csaf', 100, 64 * 1024 * 1024), false);
  // The fixture months (1.5 MB) are one run: every input shares the reader's close.
  const { inputs } = await collectInputs([fixture('msrc')]);
  const months = inputs.filter((i) => i.format === 'msrc-cvrf');
  assert.equal(months.length, msrcRun().length);
  assert.ok(months.every((i) => i.close && i.close === months[0].close));
  assert.ok(inputs.filter((i) => i.format !== 'msrc-cvrf').every((i) => i.close === undefined));
});

test('threads start when the run comes within PRIME_AHEAD_BYTES of their first file, not all at the start', () => {
  const primed: string[] = [];
  const input = (label: string, bytes: number | undefined, threaded: boolean): PipelineInput => ({
    label,
    format: 'nvd-page',
    bytes,
    items: () => (async function* () {})(),
    ...(threaded ? { prime: () => void primed.push(label) } : {}),
  });
  const MB = 1 << 20;
  // a (10 MB) b (50 MB) c (4 MB, threaded: 60 MB before it, inside) d (threaded: 64 MB before it, at the bound)
  // e (threaded: 65 MB before it, past the bound)
  const inputs = [
    input('a', 10 * MB, false),
    input('b', 50 * MB, false),
    input('c', 4 * MB, true),
    input('d', MB, true),
    input('e', 10 * MB, true),
  ];
  assert.equal(PRIME_AHEAD_BYTES, 64 * MB);
  primeAhead(inputs, 0);
  assert.deepEqual(primed, ['c', 'd']);
  // At b, e is 55 MB ahead: started; the others are primed again (prime() itself is idempotent).
  primeAhead(inputs, 1);
  assert.deepEqual(primed, ['c', 'd', 'c', 'd', 'e']);
  // An input of unknown size (a live feed) counts as nothing between the run and what follows it.
  primed.length = 0;
  primeAhead([input('x', undefined, false), input('y', undefined, true)], 0, 0);
  assert.deepEqual(primed, ['y']);
  // A smaller window: only what is within it.
  primed.length = 0;
  primeAhead(inputs, 0, 60 * MB - 1);
  assert.deepEqual(primed, []);
});
