// Recognise a feed file's format from its content (plain or gzip), never from its name, and dispatch to
// the reader (the READERS table below).
import { readHead } from './io.ts';
import { readNvd } from './nvd.ts';
import { readKev } from './kev.ts';
import { readEpss } from './epss.ts';
import { readCwe } from './cwe.ts';
import { readCapec } from './capec.ts';
import { readCsaf } from './csaf.ts';
import { readMsrcCves, readMsrcIndex } from './msrc-feed.ts';
import { readCve5 } from './cve5.ts';
import { isCve5ZipHead, readCve5Zip } from './cve5-zip.ts';
import type { FeedFormat, IngestItem } from './types.ts';
import { FeedFormatError } from './types.ts';
import { CVE_ID_BODY } from '../domain/cve-id.ts';

const EPSS_SSV_LINE = new RegExp(`^${CVE_ID_BODY};[\\d.eE-]+;[\\d.eE-]+\\s`);
const NVD_RECORD_ID = new RegExp(`"id"\\s*:\\s*"${CVE_ID_BODY}"`);

export type Reader = (path: string) => AsyncIterable<IngestItem>;

/** Format of a file from its first bytes; null when it is no feed we know. */
export function detectFromHead(head: string): FeedFormat | null {
  // A cvelistV5 release archive (baseline or delta zip), recognised by the zip signature and its first entry's name.
  if (isCve5ZipHead(head)) return 'cve5-zip';
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('#model_version') || /^cve,epss,percentile\s/i.test(text)) return 'epss-csv';
  if (EPSS_SSV_LINE.test(text)) return 'epss-ssv';
  if (text.startsWith('<')) {
    if (/<Weakness_Catalog\b/.test(text)) return 'cwe-xml';
    if (/<cvrfdoc\b|icasi\.org\/CVRF/.test(text)) return 'msrc-cvrf';
    return null;
  }
  if (!text.startsWith('{')) return null;
  const firstLine = text.slice(0, text.indexOf('\n') === -1 ? text.length : text.indexOf('\n'));
  const oneObjectPerLine = isCompleteJson(firstLine) && /\n\s*\{/.test(text);
  // The MSRC `/updates` index (OData): the list of CVRF documents with their addresses.
  if (/"@odata\.context"\s*:/.test(text) && /"CvrfUrl"\s*:/.test(text)) return 'msrc-index';
  if (/"csaf_version"\s*:\s*"2\.0"/.test(text)) return oneObjectPerLine ? 'csaf-jsonl' : 'csaf';
  // CVE Record Format 5 (cvelistV5, CVE Services, Vulnrichment): dataType CVE_RECORD with cveMetadata.
  if (/"dataType"\s*:\s*"CVE_RECORD"/.test(text) && /"cveMetadata"\s*:/.test(text))
    return oneObjectPerLine ? 'cve5-jsonl' : 'cve5';
  // MSRC CVRF in the JSON form of the MSRC API (strings wrapped as {"Value": …}).
  if (/"DocumentTracking"\s*:/.test(text) && /"DocumentTitle"\s*:\s*\{\s*"Value"/.test(text)) return 'msrc-cvrf';
  // A JSON Schema document describes a feed (CISA ships known_exploited_vulnerabilities_schema.json next to the
  // catalog, with the catalog's field names as its properties): it is no feed.
  if (isJsonSchema(text)) return null;
  // The catalog itself: catalogVersion is a string and vulnerabilities an array (in a schema both are objects).
  if (/"catalogVersion"\s*:\s*"/.test(text) && /"vulnerabilities"\s*:\s*\[/.test(text)) return 'kev';
  if (/"format"\s*:\s*"NVD_CVE"/.test(text) || /"resultsPerPage"\s*:/.test(text)) return 'nvd-page';
  if (/"sourceIdentifier"\s*:/.test(text) && NVD_RECORD_ID.test(text) && /"descriptions"\s*:/.test(text))
    return 'nvd-record';
  if (
    /"type"\s*:\s*"(attack-pattern|bundle|course-of-action|relationship|identity|marking-definition)"/.test(text) &&
    /capec/i.test(text)
  ) {
    return 'capec-stix';
  }
  return null;
}

function isJsonSchema(text: string): boolean {
  return /"\$schema"\s*:\s*"https?:\/\/json-schema\.org\//.test(text.slice(0, 4096));
}

/** Why a file is skipped: what it is when we can tell, or "unrecognised content". */
export function unrecognisedReason(head: string): string {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('{') && isJsonSchema(text)) return 'a JSON Schema document, not a feed';
  return 'unrecognised content';
}

function isCompleteJson(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

/** The head read first for detection, and the most read when a JSON file's first record is longer. */
const HEAD_BYTES = 64 * 1024;
const LONG_HEAD_BYTES = 16 * 1024 * 1024;

/**
 * A file's format from its head, with that head. A JSON file whose first record (its first line, or the whole
 * document) is cut by the 64 kB head is read again up to 16 MB: a record of more than 64 kB (28 of the 44,130
 * Vulnrichment records, 55 of the 2,383 CISA advisories) could otherwise be told neither as one document nor as
 * the first line of a JSON Lines file, and its file was skipped as unrecognised (or read as the wrong one).
 */
export async function detectFile(path: string): Promise<{ format: FeedFormat | null; head: string }> {
  const head = await readHead(path, HEAD_BYTES);
  const text = head.replace(/^\uFEFF/, '').trimStart();
  const cut =
    head.length >= HEAD_BYTES - 4 &&
    text.startsWith('{') &&
    !isCompleteJson(text.slice(0, text.indexOf('\n') === -1 ? text.length : text.indexOf('\n')));
  if (!cut) return { format: detectFromHead(head), head };
  const long = await readHead(path, LONG_HEAD_BYTES);
  return { format: detectFromHead(long), head: long };
}

export async function detectFormat(path: string): Promise<FeedFormat | null> {
  return (await detectFile(path)).format;
}

/**
 * CAPEC in STIX: one bundle per file, or one object per line. A line is one STIX object (the largest CAPEC 3.9
 * attack pattern is 14 kB): the head holds a whole first line.
 */
async function* readCapecFile(path: string): AsyncGenerator<IngestItem> {
  const head = (await readHead(path, 1 << 20)).trimStart();
  const firstLine = head.split('\n', 1)[0];
  yield* readCapec(
    path,
    isCompleteJson(firstLine) && !/"type"\s*:\s*"bundle"/.test(firstLine.slice(0, 200)) ? 'jsonl' : 'bundle',
  );
}

/** The reader of every format `detectFromHead` recognises: one explicit table, nothing registers itself. */
export const READERS: Readonly<Record<FeedFormat, Reader>> = {
  'nvd-record': readNvd,
  'nvd-page': readNvd,
  kev: readKev,
  'epss-csv': readEpss,
  'epss-ssv': readEpss,
  'cwe-xml': readCwe,
  'capec-stix': readCapecFile,
  csaf: (path) => readCsaf(path, 'document'),
  'csaf-jsonl': (path) => readCsaf(path, 'jsonl'),
  'msrc-cvrf': readMsrcCves,
  'msrc-index': readMsrcIndex,
  cve5: (path) => readCve5(path, 'document'),
  'cve5-jsonl': (path) => readCve5(path, 'jsonl'),
  'cve5-zip': (path) => readCve5Zip(path),
};

/** Read any supported feed file; throws FeedFormatError for unknown content. */
export async function* readFeed(path: string, format?: FeedFormat | null): AsyncGenerator<IngestItem> {
  const fmt = format ?? (await detectFormat(path));
  if (!fmt) throw new FeedFormatError(`${path}: unrecognised feed format`);
  yield* READERS[fmt](path);
}
