// File access shared by the readers: `.gz` is recognised by its magic bytes (not the name), so a
// gzip file is read as is whatever it is called. Everything is streamed; only whole-document JSON
// formats (a KEV catalog, one CSAF advisory, one NVD page) are held in memory one document at a time.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip, gunzipSync, constants as zlibConstants } from 'node:zlib';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

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

/** Lines of the file (decompressed), without line terminators. */
export async function* readLines(path: string): AsyncGenerator<string> {
  const rl = createInterface({ input: await openText(path), crlfDelay: Infinity });
  for await (const line of rl) yield line;
}

/** The whole (decompressed) text; for single-document formats only. */
export async function readText(path: string): Promise<string> {
  const chunks: string[] = [];
  for await (const chunk of await openText(path)) chunks.push(chunk as string);
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
