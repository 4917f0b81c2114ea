// The CVE Program's cvelistV5 release archives (docs/sync.md "cve5"), read without unpacking them to disk:
// - the daily baseline `YYYY-MM-DD_all_CVEs_at_midnight.zip.zip`: a zip holding one entry `cves.zip`, itself a zip of
//   `cves/<year>/<nnxxx>/CVE-<year>-<n>.json`;
// - the hourly delta `YYYY-MM-DD_delta_CVEs_at_HHMMZ.zip`: a zip of `deltaCves/CVE-<year>-<n>.json`.
// Only CVE record files are read (`cves/delta.json`, `cves/deltaLog.json` and anything else are skipped). Entries are
// extracted with yauzl, which checks each entry's declared sizes against its data; the number of entries, the size of
// one record and the size of the inner `cves.zip` are capped. Each record goes through the CVE Record 5 reader.
import { createWriteStream } from 'node:fs';
import { parseFeedJson } from './json.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import { cve5Items } from './cve5.ts';
import { FeedFormatError, type IngestItem } from './types.ts';
import { errorMessage } from '../lib/errors.ts';

const MiB = 1024 * 1024;

export interface Cve5ZipLimits {
  /** Entries in one zip (the whole list held about 300,000 records in 2026). */
  maxEntries: number;
  /** One record file (the largest real records are a few MB). */
  maxRecordBytes: number;
  /** The `cves.zip` inside a baseline (about 0.5 GB in 2026). */
  maxInnerZipBytes: number;
}

export const CVE5_ZIP_LIMITS: Cve5ZipLimits = {
  maxEntries: 2_000_000,
  maxRecordBytes: 16 * MiB,
  maxInnerZipBytes: 4096 * MiB,
};

/** A record file of the list: `CVE-<year>-<n>.json`, in any folder (`cves/2024/32xxx/`, `deltaCves/`). */
export const CVE5_RECORD_ENTRY = /(?:^|\/)CVE-\d{4}-\d{4,}\.json$/;
/** The inner zip of a daily baseline. */
export const CVE5_INNER_ZIP_ENTRY = /^(?:[^/]*\/)?cves\.zip$/;

/**
 * A cvelistV5 archive recognised from the first bytes of the file: the zip local-file signature followed (after
 * the 26 bytes of the local header) by the first entry's name — `cves.zip` (a baseline), `cves/…` (its inner zip),
 * `deltaCves/…` (a delta) or a CVE record file. Other zips are not ours.
 */
export function isCve5ZipHead(head: string): boolean {
  if (!head.startsWith('PK\u0003\u0004')) return false;
  // The header's binary fields may decode to replacement characters; the ASCII name follows within a few dozen.
  return /^[\s\S]{0,40}?(?:cves\.zip|cves\/|deltaCves\/|CVE-\d{4}-\d{4,}\.json)/.test(head.slice(4, 200));
}

export class Cve5ZipError extends FeedFormatError {}

async function openZip(file: string, label: string): Promise<yauzl.ZipFile> {
  try {
    return await yauzl.openPromise(file, { lazyEntries: true, autoClose: false });
  } catch (e) {
    throw new Cve5ZipError(`${label}: not a zip archive (${errorMessage(e)})`);
  }
}

/** Copies `stream` to `dest`, failing once more than `max` bytes went through. */
async function saveCapped(stream: NodeJS.ReadableStream, dest: string, max: number, what: string): Promise<void> {
  let seen = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _e, cb) {
      seen += chunk.length;
      cb(seen > max ? new Cve5ZipError(`${what}: larger than the ${max}-byte cap`) : null, chunk);
    },
  });
  await pipeline(stream, cap, createWriteStream(dest));
}

async function readCapped(stream: NodeJS.ReadableStream, max: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let seen = 0;
  for await (const chunk of stream) {
    if (!Buffer.isBuffer(chunk)) throw new TypeError(`${what}: a byte stream gave text`);
    seen += chunk.length;
    if (seen > max) throw new Cve5ZipError(`${what}: larger than the ${max}-byte cap`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export interface Cve5ZipContents {
  /** Record files directly in the zip. */
  records: number;
  /** The name of the inner zip entry (a baseline), or null. */
  innerZip: string | null;
}

/** Lists what an archive holds (checks that it is a zip of ours) without reading any entry's data. */
export async function inspectCve5Zip(
  file: string,
  label: string,
  limits: Cve5ZipLimits = CVE5_ZIP_LIMITS,
): Promise<Cve5ZipContents> {
  const zip = await openZip(file, label);
  try {
    if (zip.entryCount > limits.maxEntries)
      throw new Cve5ZipError(`${label}: ${zip.entryCount} entries, over the cap of ${limits.maxEntries}`);
    let records = 0;
    let innerZip: string | null = null;
    for await (const entry of zip.eachEntry()) {
      if (CVE5_RECORD_ENTRY.test(entry.fileName)) records++;
      else if (CVE5_INNER_ZIP_ENTRY.test(entry.fileName)) innerZip ??= entry.fileName;
    }
    return { records, innerZip };
  } finally {
    zip.close();
  }
}

/** Extracts the baseline's inner `cves.zip` to `dest` (size-capped). */
export async function extractInnerZip(
  file: string,
  dest: string,
  label: string,
  limits: Cve5ZipLimits = CVE5_ZIP_LIMITS,
): Promise<string> {
  const zip = await openZip(file, label);
  try {
    for await (const entry of zip.eachEntry()) {
      if (!CVE5_INNER_ZIP_ENTRY.test(entry.fileName)) continue;
      if (entry.uncompressedSize > limits.maxInnerZipBytes) {
        throw new Cve5ZipError(
          `${label}: ${entry.fileName} is ${entry.uncompressedSize} bytes, over the ${limits.maxInnerZipBytes}-byte cap`,
        );
      }
      await saveCapped(
        await zip.openReadStreamPromise(entry),
        dest,
        limits.maxInnerZipBytes,
        `${label}!${entry.fileName}`,
      );
      return dest;
    }
  } finally {
    zip.close();
  }
  throw new Cve5ZipError(`${label}: no cves.zip entry`);
}

/**
 * The record files of a cvelistV5 archive as parsed JSON, in archive order. A baseline's inner `cves.zip` is
 * extracted to a temporary directory (`tmpRoot`, default the system's) and read in turn, then removed.
 */
export async function* cve5ZipDocuments(
  file: string,
  opts: { label?: string; limits?: Cve5ZipLimits; tmpRoot?: string; nested?: boolean } = {},
): AsyncGenerator<{ doc: unknown; where: string }> {
  const label = opts.label ?? file;
  const limits = opts.limits ?? CVE5_ZIP_LIMITS;
  const inner: string[] = [];
  const zip = await openZip(file, label);
  try {
    if (zip.entryCount > limits.maxEntries)
      throw new Cve5ZipError(`${label}: ${zip.entryCount} entries, over the cap of ${limits.maxEntries}`);
    for await (const entry of zip.eachEntry()) {
      if (CVE5_INNER_ZIP_ENTRY.test(entry.fileName)) {
        // One level only: a `cves.zip` inside the inner zip is not read.
        if (!opts.nested) inner.push(entry.fileName);
        continue;
      }
      if (!CVE5_RECORD_ENTRY.test(entry.fileName)) continue;
      const where = `${label}!${entry.fileName}`;
      if (entry.uncompressedSize > limits.maxRecordBytes)
        throw new Cve5ZipError(`${where}: ${entry.uncompressedSize} bytes, over the ${limits.maxRecordBytes}-byte cap`);
      let data: Buffer;
      try {
        data = await readCapped(await zip.openReadStreamPromise(entry), limits.maxRecordBytes, where);
      } catch (e) {
        if (e instanceof FeedFormatError) throw e;
        throw new Cve5ZipError(`${where}: cannot be read from the archive (${errorMessage(e)})`);
      }
      let doc: unknown;
      try {
        doc = parseFeedJson(data.toString('utf8'));
      } catch (e) {
        throw new Cve5ZipError(`${where}: not valid CVE Record JSON (${errorMessage(e)})`);
      }
      yield { doc, where };
    }
  } finally {
    zip.close();
  }
  for (const name of inner) {
    const dir = await mkdtemp(path.join(opts.tmpRoot ?? os.tmpdir(), 'vi-cve5-'));
    try {
      const innerFile = await extractInnerZip(file, path.join(dir, 'cves.zip'), label, limits);
      yield* cve5ZipDocuments(innerFile, { label: `${label}!${name}`, limits, nested: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** The `cve5-zip` format: every CVE record of a baseline or delta archive. */
export async function* readCve5Zip(
  file: string,
  opts: { tmpRoot?: string; limits?: Cve5ZipLimits } = {},
): AsyncGenerator<IngestItem> {
  for await (const { doc, where } of cve5ZipDocuments(file, opts)) yield* cve5Items(doc, where);
}
