// Recognise a feed file's format from its content (plain or gzip), never from its name, and dispatch to
// the reader. Readers for formats owned elsewhere (MSRC CVRF, on the `windows` branch) register here.
import { readHead } from './io.ts';
import { readNvd } from './nvd.ts';
import { readKev } from './kev.ts';
import { readEpss } from './epss.ts';
import { readCwe } from './cwe.ts';
import { readCapec } from './capec.ts';
import { readCsaf } from './csaf.ts';
import type { FeedFormat, IngestItem } from './types.ts';
import { FeedFormatError } from './types.ts';

export type Reader = (path: string) => AsyncIterable<IngestItem>;

const extraReaders = new Map<FeedFormat, Reader>();

/** Plug in a reader for a format recognised here but implemented elsewhere (e.g. 'msrc-cvrf'). */
export function registerReader(format: FeedFormat, reader: Reader): void {
  extraReaders.set(format, reader);
}

/** Format of a file from its first bytes; null when it is no feed we know. */
export function detectFromHead(head: string): FeedFormat | null {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('#model_version') || /^cve,epss,percentile\s/i.test(text)) return 'epss-csv';
  if (/^CVE-\d{4}-\d{4,};[\d.eE-]+;[\d.eE-]+\s/.test(text)) return 'epss-ssv';
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
  // MSRC CVRF in the JSON form of the MSRC API (strings wrapped as {"Value": …}).
  if (/"DocumentTracking"\s*:/.test(text) && /"DocumentTitle"\s*:\s*\{\s*"Value"/.test(text)) return 'msrc-cvrf';
  // A JSON Schema document describes a feed (CISA ships known_exploited_vulnerabilities_schema.json next to the
  // catalog, with the catalog's field names as its properties): it is no feed.
  if (isJsonSchema(text)) return null;
  // The catalog itself: catalogVersion is a string and vulnerabilities an array (in a schema both are objects).
  if (/"catalogVersion"\s*:\s*"/.test(text) && /"vulnerabilities"\s*:\s*\[/.test(text)) return 'kev';
  if (/"format"\s*:\s*"NVD_CVE"/.test(text) || /"resultsPerPage"\s*:/.test(text)) return 'nvd-page';
  if (/"sourceIdentifier"\s*:/.test(text) && /"id"\s*:\s*"CVE-\d{4}-\d+"/.test(text) && /"descriptions"\s*:/.test(text)) return 'nvd-record';
  if (/"type"\s*:\s*"(attack-pattern|bundle|course-of-action|relationship|identity|marking-definition)"/.test(text) && /capec/i.test(text)) {
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

export async function detectFormat(path: string): Promise<FeedFormat | null> {
  return detectFromHead(await readHead(path));
}

/** Read any supported feed file; throws FeedFormatError for unknown content. */
export async function* readFeed(path: string, format?: FeedFormat | null): AsyncGenerator<IngestItem> {
  const fmt = format ?? (await detectFormat(path));
  switch (fmt) {
    case 'nvd-record':
    case 'nvd-page':
      yield* readNvd(path);
      return;
    case 'kev':
      yield* readKev(path);
      return;
    case 'epss-csv':
    case 'epss-ssv':
      yield* readEpss(path);
      return;
    case 'cwe-xml':
      yield* readCwe(path);
      return;
    case 'capec-stix': {
      const head = (await readHead(path, 4096)).trimStart();
      const firstLine = head.split('\n', 1)[0];
      yield* readCapec(path, isCompleteJson(firstLine) && !/"type"\s*:\s*"bundle"/.test(firstLine.slice(0, 200)) ? 'jsonl' : 'bundle');
      return;
    }
    case 'csaf':
      yield* readCsaf(path, 'document');
      return;
    case 'csaf-jsonl':
      yield* readCsaf(path, 'jsonl');
      return;
    default: {
      const extra = fmt ? extraReaders.get(fmt) : undefined;
      if (extra) {
        yield* extra(path);
        return;
      }
      throw new FeedFormatError(fmt ? `${path}: no reader registered for ${fmt}` : `${path}: unrecognised feed format`);
    }
  }
}
