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
  for await (const l of createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity })) out.push(l);
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
  await fc.assert(fc.asyncProperty(scenario, fc.boolean(), fc.boolean(), async ({ chunkBytes, parts }, lastSep, gz) => {
    let text = parts.map(([p, s]) => p + s).join('');
    if (!lastSep && parts.length) text = text.replace(/[\r\n]+$/, '') + 'tail';
    const file = path.join(dir, `f${n++}${gz ? '.gz' : ''}`);
    const plain = path.join(dir, `p${n++}`);
    writeFileSync(plain, text);
    writeFileSync(file, gz ? gzipSync(Buffer.from(text)) : text);
    assert.deepEqual(await collect(file, chunkBytes), await viaReadline(plain));
  }), { numRuns: 100 });
});

test('readLines: a 2 MB file of JSON lines, CRLF and LF mixed, comes back line for line', async () => {
  const lines = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ i, text: 'ü'.repeat(i % 90) }));
  const file = path.join(dir, 'big.jsonl');
  writeFileSync(file, lines.map((l, i) => l + (i % 3 ? '\n' : '\r\n')).join(''));
  assert.deepEqual(await collect(file), lines);
});
