// readLines (ingest/io.ts) splits a file's lines as Node's readline does (LF, CRLF, a lone CR; no empty last line
// after a final terminator), whatever falls on a chunk boundary of the file or of the gzip stream, and decodes
// multi-byte UTF-8 that a boundary cuts. Property test against readline itself on plain and gzip files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { readLines } from '../../src/ingest/io.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'vi-lines-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

async function viaReadline(file: string): Promise<string[]> {
  const out: string[] = [];
  for await (const l of createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity }))
    out.push(l);
  return out;
}
async function collect(file: string, chunkBytes?: number): Promise<string[]> {
  const out: string[] = [];
  for await (const l of readLines(file, chunkBytes)) out.push(l);
  return out;
}

let n = 0;
const short = fc.string({ unit: fc.constantFrom('a', '{', '"', ' ', 'é', '€', '𝄞', '\u0000'), maxLength: 40 });
const piece = fc.oneof(
  short,
  // Long runs put terminators and multi-byte characters on the boundaries of the default 16 kB gzip chunks, and make
  // lines that span many chunks.
  fc.integer({ min: 16_000, max: 70_000 }).map((k) => '€'.repeat(k % 7) + 'x'.repeat(k)),
);
const sep = fc.constantFrom('\n', '\r\n', '\r', '\n\n', '\r\r\n');
// Small chunks (from one byte of a file, 64 of gzip output) over short lines put every kind of terminator, CRLF pairs
// and multi-byte characters across a boundary; the default chunks over long lines too.
const scenario = fc.oneof(
  fc.record({ chunkBytes: fc.integer({ min: 1, max: 97 }), parts: fc.array(fc.tuple(short, sep), { maxLength: 30 }) }),
  fc.record({ chunkBytes: fc.constant(undefined), parts: fc.array(fc.tuple(piece, sep), { maxLength: 12 }) }),
);

test('readLines yields the lines readline yields, plain and gzip, at any chunk boundary (property)', async () => {
  await fc.assert(
    fc.asyncProperty(scenario, fc.boolean(), fc.boolean(), async ({ chunkBytes, parts }, lastSep, gz) => {
      let text = parts.map(([p, s]) => p + s).join('');
      if (!lastSep && parts.length) text = text.replace(/[\r\n]+$/, '') + 'tail';
      const file = path.join(dir, `f${n++}${gz ? '.gz' : ''}`);
      const plain = path.join(dir, `p${n++}`);
      writeFileSync(plain, text);
      writeFileSync(file, gz ? gzipSync(Buffer.from(text)) : text);
      assert.deepEqual(await collect(file, chunkBytes), await viaReadline(plain));
    }),
    { numRuns: 100 },
  );
});

test('readLines: a 2 MB file of JSON lines, CRLF and LF mixed, comes back line for line', async () => {
  const lines = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ i, text: 'ü'.repeat(i % 90) }));
  const file = path.join(dir, 'big.jsonl');
  writeFileSync(file, lines.map((l, i) => l + (i % 3 ? '\n' : '\r\n')).join(''));
  assert.deepEqual(await collect(file), lines);
});

test('a line longer than the cap stops the file with its line number; a line of exactly the cap is read', async () => {
  const lines = async (file: string, chunkBytes: number, max: number) => {
    const out: string[] = [];
    for await (const l of readLines(file, chunkBytes, max)) out.push(l);
    return out;
  };
  const file = path.join(dir, 'cap.txt');
  // Line 2 has 10 bytes ('é' is two); the cap is checked on bytes whether the line ends inside a chunk or spans many,
  // and for a last line without a terminator.
  for (const text of ['ab\nxxxxxxxxé\nc\n', 'ab\r\nxxxxxxxxé\r\nc']) {
    writeFileSync(file, text);
    for (const chunkBytes of [1, 3, 64 * 1024]) {
      assert.deepEqual(await lines(file, chunkBytes, 10), ['ab', 'xxxxxxxxé', 'c'], `cap 10, chunks of ${chunkBytes}`);
      await assert.rejects(
        lines(file, chunkBytes, 9),
        (err: Error) => {
          assert.equal(err.name, 'FeedFormatError');
          assert.equal(err.message, `${file}:2: a line longer than 9 bytes (no feed record is near that long)`);
          return true;
        },
        `cap 9, chunks of ${chunkBytes}`,
      );
    }
    // A fourth line, unterminated, of 11 bytes.
    writeFileSync(file, `${text.replace(/c$/, 'c\n')}ddddddddddd`);
    await assert.rejects(
      lines(file, 2, 10),
      /:4: a line longer than 10 bytes/,
      'the last line, unterminated, over the cap',
    );
  }
});

test('a gzip file of one endless line is refused at the cap, not buffered whole', async () => {
  const file = path.join(dir, 'endless.jsonl.gz');
  // 8 MiB of one line, compressed to a few kilobytes; the cap at 1 MiB.
  writeFileSync(file, gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x61)));
  let got = 0;
  await assert.rejects(async () => {
    for await (const l of readLines(file, 1 << 20, 1 << 20)) got += l.length;
  }, /:1: a line longer than 1048576 bytes/);
  assert.equal(got, 0);
});
