// What the feed readers yield (one reader per real format, see docs/enrichment.md). The record shapes
// themselves are in src/domain/records.ts (re-exported here). Readers never enrich: they only translate a
// feed's fields into those shapes. Enrichment lives in src/domain/ and works on the per-CVE merge input, so
// any source (including MSRC and the live `sync` fetchers) plugs in by producing `CveSourceRecord`s.
import type { PreparedMsrcDocument } from './msrc-prepare.ts';
import type { SourceText } from './record-json.ts';
import type { CapecRecord, CveSourceRecord, CweRecord, EpssRecord } from '../domain/records.ts';
export type {
  CveSourceName,
  CvssVersion,
  CvssMetric,
  SourceReference,
  AffectedProduct,
  AdvisoryFix,
  CsafAdvisoryFacts,
  CveSourceRecord,
  EpssRecord,
  CweRecord,
  CapecRecord,
} from '../domain/records.ts';

/** Feed-level facts (catalog versions) reported by readers. */
export interface FeedMeta {
  feed: FeedFormat;
  version: string | null;
  date: string | null;
  /** Record count the feed itself states, when it states one (KEV `count`). */
  declared_count: number | null;
}

export const FEED_FORMATS = [
  'nvd-record',
  'nvd-page',
  'kev',
  'epss-csv',
  'epss-ssv',
  'cwe-xml',
  'capec-stix',
  'csaf',
  'csaf-jsonl',
  'msrc-cvrf',
  'msrc-index',
  'cve5',
  'cve5-jsonl',
  // A cvelistV5 release archive: the daily baseline (`.zip.zip`) or an hourly delta (`.zip`).
  'cve5-zip',
] as const;

export type FeedFormat = (typeof FEED_FORMATS)[number];

/** What readers yield. */
export type IngestItem =
  | { kind: 'cve'; record: CveSourceRecord }
  /** A source record as its JSON text (a feed thread's: ingest/record-json.ts), parsed when its CVE is enriched. */
  | { kind: 'cve-text'; text: SourceText }
  | { kind: 'epss'; record: EpssRecord }
  | { kind: 'cwe'; record: CweRecord }
  | { kind: 'capec'; record: CapecRecord }
  | { kind: 'meta'; meta: FeedMeta }
  /** A whole MSRC document, parsed once: its Windows subset (API v2), as the pipeline stores it. */
  | { kind: 'msrc-document'; doc: PreparedMsrcDocument }
  /** The MSRC `/updates` index: each document's CvrfUrl (the address stored with the document). */
  | { kind: 'msrc-index'; entries: { id: string; cvrfUrl: string }[] };

export class FeedFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeedFormatError';
  }
}
