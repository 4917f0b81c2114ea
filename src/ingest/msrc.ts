// MSRC CVRF reader: monthly documents as files or buffers (plain or .gz), each in the XML form (msrc-xml.ts) or the
// JSON form (msrc-json.ts) told apart by its first bytes, the `/cvrf/v3.0/updates` index, and the stored form.
// Format reference: shared/docs/windows-engine.md §1 (XML layout §1.2–1.4, JSON enum numbers §1.5).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { parseFeedJson, record, str, strOrNull } from './json.ts';
import { msrcDateToIso } from './msrc-text.ts';
import { parseCvrfXml } from './msrc-xml.ts';
import { parseCvrfJson } from './msrc-json.ts';
import type { MsrcDocument, MsrcUpdateEntry } from '../domain/windows/msrc-types.ts';

// ---- /updates index ----------------------------------------------------------------------------------

export function parseUpdatesIndex(input: unknown): MsrcUpdateEntry[] {
  const root = record(input);
  if (!Array.isArray(root.value)) throw new Error('not an MSRC /updates index: no value[]');
  return root.value
    .map((x: unknown) => record(x))
    .map((e) => ({
      id: String(e.ID),
      alias: String(e.Alias ?? e.ID),
      title: str(e.DocumentTitle),
      severity: strOrNull(e.Severity),
      initialReleaseDate: msrcDateToIso(String(e.InitialReleaseDate)) ?? '',
      currentReleaseDate: msrcDateToIso(String(e.CurrentReleaseDate)) ?? '',
      cvrfUrl: str(e.CvrfUrl),
    }));
}

// ---- files -----------------------------------------------------------------------------------------

/** Decide the form of a buffer (gzip or not, XML or JSON) by its bytes, not its name. */
export function parseMsrcBuffer(buf: Buffer): MsrcDocument {
  const raw = buf[0] === 0x1f && buf[1] === 0x8b ? gunzipSync(buf) : buf;
  const text = raw.toString('utf8');
  let k = 0;
  while (k < text.length && /[\s\ufeff]/.test(text[k])) k++;
  if (text[k] === '{') return parseCvrfJson(parseFeedJson(text));
  if (text[k] === '<') return parseCvrfXml(text);
  throw new Error('neither XML nor JSON');
}

export function readMsrcFile(path: string): MsrcDocument {
  return parseMsrcBuffer(readFileSync(path));
}

const MSRC_FILE_RE = /\.(xml|json)(\.gz)?$/i;

/** True when a file looks like an MSRC CVRF document (cheap sniff of the first bytes). */
export function looksLikeMsrc(buf: Buffer): boolean {
  const raw = buf[0] === 0x1f && buf[1] === 0x8b ? gunzipSync(buf) : buf;
  const head = raw.subarray(0, 4096).toString('utf8');
  return (
    head.includes('cvrfdoc') ||
    head.includes('"DocumentTracking"') ||
    (head.includes('"DocumentTitle"') && head.includes('"Value"'))
  );
}

/** Read every MSRC document of a directory (not recursive), one at a time (bounded memory). */
export function* readMsrcDirectory(dir: string): Generator<{ file: string; doc: MsrcDocument }> {
  const names = readdirSync(dir)
    .filter((n) => MSRC_FILE_RE.test(n))
    .sort();
  for (const name of names) {
    const buf = readFileSync(join(dir, name));
    if (!looksLikeMsrc(buf)) continue;
    yield { file: name, doc: parseMsrcBuffer(buf) };
  }
}

// ---- stored form --------------------------------------------------------------------------------------

/** Serialise a (subset) document for storage: JSON with the maps as pairs, gzip. */
export function encodeMsrcPayload(doc: MsrcDocument): Buffer {
  return gzipSync(
    JSON.stringify({
      ...doc,
      products: [...doc.products],
      advisoryUrls: [...doc.advisoryUrls],
      families: doc.families ? [...doc.families] : undefined,
    }),
  );
}

export function decodeMsrcPayload(buf: Buffer): MsrcDocument {
  type Entries = [string, string][];
  const o = JSON.parse(gunzipSync(buf).toString('utf8')) as Omit<
    MsrcDocument,
    'products' | 'advisoryUrls' | 'families'
  > & { products: Entries; advisoryUrls: Entries; families?: Entries };
  return {
    ...o,
    products: new Map(o.products),
    advisoryUrls: new Map(o.advisoryUrls),
    families: o.families ? new Map(o.families) : undefined,
  };
}
