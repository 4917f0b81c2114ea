// The MSRC reader for the import pipeline: every CVE of an MSRC document (XML or JSON, plain or .gz) as a
// `CveSourceRecord` with source 'msrc', merged into the CVE corpus under the usual precedence. Listed in the
// READERS table of detect.ts.
import { readFile } from 'node:fs/promises';
import { parseMsrcBuffer, parseUpdatesIndex } from './msrc.ts';
import { readText } from './io.ts';
import { msrcCveRecords } from './msrc-cves.ts';
import { prepareMsrcDocument } from './msrc-prepare.ts';
import type { CveSourceRecord, IngestItem } from './types.ts';
import { FeedFormatError } from './types.ts';
import type { MsrcDocument } from '../domain/windows/msrc-types.ts';
import { errorMessage } from '../lib/errors.ts';

export async function* readMsrcCves(file: string): AsyncGenerator<IngestItem> {
  const buf = await readFile(file); // a missing file keeps its own error (ENOENT)
  let doc: MsrcDocument;
  try {
    doc = parseMsrcBuffer(buf);
  } catch (e) {
    // A cut or damaged document (a partial download) is refused whole, named, before any of it is stored.
    throw new FeedFormatError(`${file}: not a complete MSRC CVRF document (${errorMessage(e)})`);
  }
  const [meta, ...records] = msrcCveItems(doc);
  yield meta;
  yield { kind: 'msrc-document', doc: prepareMsrcDocument(doc) };
  yield* records;
}

/** The feed facts and the CVE records of a parsed document, without its Windows tables (the MSRC sync source stores
 * those itself, from the same parse). */
export function msrcCveItems(doc: MsrcDocument): IngestItem[] {
  const meta: IngestItem = {
    kind: 'meta',
    meta: {
      feed: 'msrc-cvrf',
      version: doc.revisionNumber,
      date: doc.currentReleaseDate,
      declared_count: doc.vulnerabilities.length,
    },
  };
  return [
    meta,
    ...msrcCveRecords(doc).map((record): IngestItem => ({ kind: 'cve', record: record satisfies CveSourceRecord })),
  ];
}

/** The MSRC `/updates` index (plain or .gz): each listed document's CvrfUrl. */
export async function* readMsrcIndex(file: string): AsyncGenerator<IngestItem> {
  const entries = parseUpdatesIndex(JSON.parse(await readText(file)));
  yield { kind: 'msrc-index', entries: entries.map((e) => ({ id: e.id, cvrfUrl: e.cvrfUrl })) };
}
