// The JSON text and SHA-256 of a source record, as the store writes them (store/ingest.ts sourceRow). A record read
// on the feed thread (feed-thread.ts) arrives with its text and hash already made there; they are remembered for
// that record object, so the import's thread serialises and hashes it no second time.
import { sha256Hex } from '../lib/crypto.ts';
import type { CveSourceRecord } from './types.ts';

export interface RecordJson { json: string; hash: string }

const KNOWN = new WeakMap<CveSourceRecord, RecordJson>();

export function makeRecordJson(r: CveSourceRecord): RecordJson {
  const json = JSON.stringify(r);
  return { json, hash: sha256Hex(json) };
}

/** The record's JSON text and hash: remembered ones, else made now. */
export function recordJson(r: CveSourceRecord): RecordJson {
  return KNOWN.get(r) ?? makeRecordJson(r);
}

/** Remembers the text and hash `r` was parsed from (the text must be JSON.stringify's output for `r`). */
export function rememberRecordJson(r: CveSourceRecord, known: RecordJson): void {
  KNOWN.set(r, known);
}
