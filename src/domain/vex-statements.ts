// The statements a VEX document is read into (docs/vex.md "Import"), the products each names, and the JSON reading
// the OpenVEX, CycloneDX and CSAF readers share: our own IRIs read back, the due date of an exported action statement,
// the CVE id among a statement's names. Pure.
import type { DecisionStatus, FieldError, Justification } from './triage.ts';
import { isCveId } from './cve-id.ts';
import { isRecord } from './is-record.ts';

/** A product a statement names. */
export interface ProductRef {
  /** Our IRI: the asset id it names, or the environment as a whole. */
  asset_id?: string;
  environment?: boolean;
  cpe?: string;
  vendor?: string | null;
  name?: string;
  version?: string | null;
  /** CycloneDX affects[].versions: the versions (exact, or a vers:generic range) the statement is about. */
  versions?: { version?: string; range?: string }[];
}

export interface ImportStatement {
  cve_id: string;
  status: DecisionStatus;
  justification: Justification | null;
  impact_statement: string | null;
  action_statement: string | null;
  due_date: string | null;
  /** When the statement was last changed (its own timestamp, else the document's); null when neither says. */
  timestamp: string | null;
  products: ProductRef[];
}

export type VexImportFormat = 'openvex' | 'cyclonedx' | 'csaf';
export type ReadVex =
  | {
      ok: true;
      format: VexImportFormat;
      id: string | null;
      statements: ImportStatement[];
      skipped: { index: number; reason: string }[];
    }
  | { ok: false; errors: FieldError[] };

export type Json = Record<string, unknown>;
export const obj = (x: unknown): Json => (isRecord(x) ? x : {});
export const arr = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);
export const str = (x: unknown): string | null => (typeof x === 'string' && x.trim() !== '' ? x.trim() : null);
export const time = (x: unknown): string | null => {
  const s = str(x);
  if (!s) return null;
  const t = Date.parse(s);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
};

const ASSET_IRI = /\/environments\/(\d+)\/assets\/([^/?#]+)$/;
const ENV_IRI = /\/environments\/(\d+)$/;

/** Our IRIs read back: an asset's (its id) or the environment's. */
export function refOfIri(iri: string): ProductRef | null {
  const a = ASSET_IRI.exec(iri);
  if (a) {
    try {
      return { asset_id: decodeURIComponent(a[2]) };
    } catch {
      return null;
    }
  }
  return ENV_IRI.test(iri) ? { environment: true } : null;
}

/** "(due YYYY-MM-DD)" at the end of an exported action statement: the due date, and the statement without it. */
export function splitDue(action: string | null): { action: string | null; due: string | null } {
  if (!action) return { action: null, due: null };
  const m = /^(.*\S)\s+\(due (\d{4}-\d{2}-\d{2})\)$/s.exec(action);
  return m ? { action: m[1], due: m[2] } : { action, due: null };
}

export const cveOf = (...xs: unknown[]): string | null => {
  for (const x of xs) {
    const s = str(x)?.toUpperCase();
    if (!s) continue;
    const m = /CVE-\d{4}-\d{4,}/.exec(s);
    if (m && isCveId(m[0])) return m[0];
  }
  return null;
};
