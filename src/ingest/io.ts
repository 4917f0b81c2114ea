// File access shared by the readers: `.gz` is recognised by its magic bytes (not the name), so a
// gzip file is read as is whatever it is called. Everything is streamed; only whole-document JSON
// formats (a KEV catalog, one CSAF advisory, one NVD page) are held in memory one document at a time.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip, gunzipSync, constants as zlibConstants } from 'node:zlib';
import type { Readable } from 'node:stream';
import { FeedFormatError } from './types.ts';

const GZIP_MAGIC = [0x1f, 0x8b];

export async function isGzip(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(2);
    const { bytesRead } = await fh.read(buf, 0, 2, 0);
    return bytesRead === 2 && buf[0] === GZIP_MAGIC[0] && buf[1] === GZIP_MAGIC[1];
  } finally {
    await fh.close();
  }
}

/** A text stream of the file's (decompressed) content. */
export async function openText(path: string): Promise<Readable> {
  const raw = createReadStream(path, { highWaterMark: 1 << 20 });
  const stream = (await isGzip(path)) ? raw.pipe(createGunzip()) : raw;
  stream.setEncoding('utf8');
  return stream;
}

/** The (decompressed) bytes of the file, in chunks of about `chunkBytes` (gzip output: at least 64 bytes). */
async function openBytes(path: string, chunkBytes: number): Promise<Readable> {
  const raw = createReadStream(path, { highWaterMark: chunkBytes });
  return (await isGzip(path))
    ? raw.pipe(createGunzip({ chunkSize: Math.max(64, Math.min(chunkBytes, 16 * 1024)) }))
    : raw;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * The longest line readLines gives (64 MiB). The CVE Record 5, CAPEC and EPSS lines it reads are at most a few
 * hundred kilobytes in the real feeds; a longer one is refused with the file and line, before it is buffered whole
 * (a hostile or broken file of one endless line would otherwise take memory until the process failed).
 */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * Lines of the file (decompressed), without line terminators: split at LF, CRLF and a lone CR, as Node's readline
 * splits them. The bytes are cut at the terminators and each line is decoded alone (a terminator byte never occurs
 * inside a multi-byte UTF-8 sequence): readline decoded the whole text into strings, matched a regular expression
 * over them and queued each line as an event, 7 % of reading a CVE record file on the feed thread. `chunkBytes`: the
 * size of the chunks read (tests make it small, so that terminators and characters fall on their boundaries). A line
 * longer than `maxLineBytes` stops the file with a FeedFormatError naming it (MAX_LINE_BYTES).
 */
export async function* readLines(
  path: string,
  chunkBytes = 1 << 20,
  maxLineBytes = MAX_LINE_BYTES,
): AsyncGenerator<string> {
  // The pieces of a line that has not ended yet, joined once when it does (a line longer than a chunk is not copied
  // again with every chunk), and their length.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let lineNo = 0;
  const tooLong = () =>
    new FeedFormatError(
      `${path}:${lineNo + 1}: a line longer than ${maxLineBytes} bytes (no feed record is near that long)`,
    );
  // A chunk that ended with a CR: a LF at the start of the next one belongs to it.
  let afterCr = false;
  for await (const buf of await openBytes(path, chunkBytes)) {
    if (!Buffer.isBuffer(buf)) throw new TypeError(`${path}: a byte stream gave text`);
    if (!buf.length) continue;
    let start = afterCr && buf[0] === LF ? 1 : 0;
    afterCr = false;
    // Lone CRs are rare: the chunk is searched for LF alone unless it holds a CR.
    const hasCr = buf.indexOf(CR, start) !== -1;
    for (;;) {
      const lf = buf.indexOf(LF, start);
      const cr = hasCr ? buf.indexOf(CR, start) : -1;
      const end = cr !== -1 && (lf === -1 || cr < lf) ? cr : lf;
      if (end === -1) break;
      if (pendingBytes + end - start > maxLineBytes) throw tooLong();
      lineNo++;
      if (pending.length) {
        pending.push(buf.subarray(start, end));
        yield Buffer.concat(pending).toString('utf8');
        pending = [];
        pendingBytes = 0;
      } else yield buf.toString('utf8', start, end);
      if (end === cr) {
        if (end + 1 < buf.length) start = buf[end + 1] === LF ? end + 2 : end + 1;
        else {
          start = end + 1;
          afterCr = true;
        }
      } else start = end + 1;
    }
    if (start < buf.length) {
      pendingBytes += buf.length - start;
      if (pendingBytes > maxLineBytes) throw tooLong();
      pending.push(buf.subarray(start));
    }
  }
  if (pending.length) yield Buffer.concat(pending).toString('utf8');
}

/** The whole (decompressed) text; for single-document formats only. */
export async function readText(path: string): Promise<string> {
  const chunks: string[] = [];
  for await (const chunk of await openText(path)) {
    if (typeof chunk !== 'string') throw new TypeError(`${path}: a text stream gave bytes`);
    chunks.push(chunk);
  }
  return chunks.join('');
}

/** The first `bytes` of decompressed text (a gzip file may give more), for format detection. */
export async function readHead(path: string, bytes = 64 * 1024): Promise<string> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    let data: Buffer = buf.subarray(0, bytesRead);
    if (data.length >= 2 && data[0] === GZIP_MAGIC[0] && data[1] === GZIP_MAGIC[1]) {
      data = gunzipHead(data, bytes);
    }
    // Cut a possibly split multi-byte character at the end.
    return data.toString('utf8').replace(/\uFFFD+$/, '');
  } finally {
    await fh.close();
  }
}

/**
 * At least the first `bytes` of a gzip stream's content (all of it when shorter), from its head: a truncated stream,
 * which Z_SYNC_FLUSH decompresses as far as it goes. A small prefix is tried first: text compresses well, and the
 * whole 64 kB head of a compressed XML document is a megabyte or more of text, decompressed and scanned for nothing.
 */
function gunzipHead(data: Buffer, bytes: number): Buffer {
  const small = Math.max(1024, bytes >> 3);
  for (const n of small < data.length ? [small, data.length] : [data.length]) {
    let out: Buffer;
    try {
      out = gunzipSync(data.subarray(0, n), { finishFlush: zlibConstants.Z_SYNC_FLUSH });
    } catch {
      continue;
    }
    if (out.length >= bytes || n === data.length) return out;
  }
  return Buffer.alloc(0);
}
