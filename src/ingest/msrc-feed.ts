// The MSRC reader for the import pipeline: every CVE of an MSRC document (XML or JSON, plain or .gz) as a
// `CveSourceRecord` with source 'msrc', merged into the CVE corpus under the usual precedence. Listed in the
// READERS table of detect.ts.
import { readFile } from 'node:fs/promises';
import { parseMsrcBuffer, parseUpdatesIndex } from './msrc.ts';
import { readText } from './io.ts';
import { msrcCveRecords } from './msrc-cves.ts';
import { prepareMsrcDocument } from './msrc-prepare.ts';
import type { CveSourceRecord, IngestItem } from './types.ts';

export async function* readMsrcCves(file: string): AsyncGenerator<IngestItem> {
  const doc = parseMsrcBuffer(await readFile(file));
  yield { kind: 'meta', meta: { feed: 'msrc-cvrf', version: doc.revisionNumber, date: doc.currentReleaseDate, declared_count: doc.vulnerabilities.length } };
  yield { kind: 'msrc-document', doc: prepareMsrcDocument(doc) };
  for (const record of msrcCveRecords(doc)) yield { kind: 'cve', record: record satisfies CveSourceRecord };
}

/** The MSRC `/updates` index (plain or .gz): each listed document's CvrfUrl. */
export async function* readMsrcIndex(file: string): AsyncGenerator<IngestItem> {
  const entries = parseUpdatesIndex(JSON.parse(await readText(file)));
  yield { kind: 'msrc-index', entries: entries.map((e) => ({ id: e.id, cvrfUrl: e.cvrfUrl })) };
}
