// A source record as the store writes it: its JSON text and SHA-256 (store/ingest.ts), with the fields the import
// routes and compares it by. A record read on the feed thread (feed-thread.ts) arrives as such a text, made there
// once, and is parsed only when its CVE is enriched (recordOf): the import thread never holds a batch of parsed
// records across the batch's database round trips, where they would outlive the young generation and be copied by
// every scavenge (scavenges were 12 % of the import thread that way). A record made in line keeps its object.
import { sha256Hex } from '../lib/crypto.ts';
import type { CveSourceName, CveSourceRecord } from './types.ts';

export interface RecordJson {
  json: string;
  hash: string;
}

/**
 * A source record to be stored: its key, its revision (store/ingest.ts replacesSource; null in a record read back
 * from the store, which is not compared again), its text and hash.
 */
export interface SourceText extends RecordJson {
  cve_id: string;
  source: CveSourceName;
  source_key: string;
  modified: string | null;
  document_date: string | null;
  /** The record itself, when it was made in this thread (else it is parsed from `json` by recordOf). */
  record?: CveSourceRecord;
}

function makeRecordJson(r: CveSourceRecord): RecordJson {
  const json = JSON.stringify(r);
  return { json, hash: sha256Hex(json) };
}

/** A record as the store writes it, without the object (what a feed thread sends: the text is the record). */
export function textOf(r: CveSourceRecord): SourceText {
  return {
    cve_id: r.cve_id,
    source: r.source,
    source_key: r.source_key,
    modified: r.modified,
    document_date: r.document_date ?? null,
    ...makeRecordJson(r),
  };
}

/** A record made in this thread, as the store writes it (keeping the object). */
export function sourceText(r: CveSourceRecord): SourceText {
  return { ...textOf(r), record: r };
}

/** The record of a source text: its object when it has one, else parsed from its text. */
export function recordOf(t: SourceText): CveSourceRecord {
  return t.record ?? (JSON.parse(t.json) as CveSourceRecord);
}
