// Helpers for the ingest integration tests: fixture sets copied into temp directories, and table
// checksums (reliability D2: md5 over every row).
import { mkdtempSync, copyFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from '../../src/store/kysely.ts';
import type { Db } from '../../src/store/db.ts';
import { fixture, snapshotFile } from './feeds.ts';

/** A temp directory holding copies of the given files (names kept, or `dest` names). */
export function feedDir(files: (string | [string, string])[]): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vi-feeds-'));
  for (const f of files) {
    const [src, dest] = Array.isArray(f) ? f : [f, path.basename(f)];
    mkdirSync(path.dirname(path.join(dir, dest)), { recursive: true });
    copyFileSync(src, path.join(dir, dest));
  }
  return dir;
}

export const CATALOGS = [
  snapshotFile('cwe', 'cwec_v4.15.xml.gz'),
  snapshotFile('capec', 'capec-3.9-stix21-objects.jsonl.gz'),
];
export const NVD_FIXTURES = [
  'CVE-2023-0228',
  'CVE-2023-28489',
  'CVE-2022-45793',
  'CVE-2024-21338',
  'CVE-2024-8531',
  'CVE-2024-3506',
  'CVE-2022-31801',
  'CVE-2024-9124',
  'CVE-2023-33235',
  'CVE-2024-49138',
  'CVE-2023-46687',
].map((c) => fixture('nvd', `${c}.json`));
export const CSAF_FIXTURES = [
  'icsa-23-068-03',
  'icsa-23-103-07',
  'icsa-23-262-04',
  'icsa-24-284-01',
  'icsa-24-284-12',
  'icsa-24-289-01',
  'icsa-24-289-02',
].map((c) => fixture('csaf', `${c}.json`));

/** md5 over the full content of each pipeline table, in key order. */
export async function checksums(db: Db): Promise<Record<string, string>> {
  const q = async (text: string) => (await sql<{ h: string | null }>`${sql.raw(text)}`.execute(db)).rows[0].h ?? '';
  return {
    cves: await q(
      `SELECT md5(string_agg(cve_id || doc_hash || enriched_at::text || doc::text, '|' ORDER BY cve_id)) AS h FROM cves`,
    ),
    cve_sources: await q(
      `SELECT md5(string_agg(cve_id || source || source_key || record_hash || updated_at::text, '|' ORDER BY cve_id, source, source_key)) AS h FROM cve_sources`,
    ),
    epss: await q(`SELECT md5(string_agg(cve_id || epss || percentile, '|' ORDER BY cve_id)) AS h FROM epss_scores`),
    vendors: await q(
      `SELECT md5(string_agg(slug || name || cve_count || aliases::text, '|' ORDER BY slug)) AS h FROM vendors`,
    ),
    ranges: await q(
      `SELECT md5((SELECT coalesce(string_agg(cve_id || ord || ranges::text, '|' ORDER BY cve_id, ord), '') FROM cve_ranges) || (SELECT coalesce(string_agg(cve_id || hash, '|' ORDER BY cve_id), '') FROM cve_range_state)) AS h`,
    ),
    catalogs: await q(
      `SELECT md5((SELECT string_agg(id || name, '|' ORDER BY id) FROM cwe_catalog) || (SELECT string_agg(capec_id || name, '|' ORDER BY capec_id) FROM capec_catalog)) AS h`,
    ),
  };
}

export async function docOf(db: Db, cve: string) {
  const r = await sql<{
    doc: import('../../src/domain/cve-document.ts').CveDocument;
  }>`SELECT doc FROM cves WHERE cve_id = ${cve}`.execute(db);
  return r.rows[0]?.doc ?? null;
}

export async function runs(db: Db) {
  return (
    await sql<{
      id: number;
      stage: string;
      source: string | null;
      status: string;
      rows: number;
      error: string | null;
      finished: boolean;
    }>`
    SELECT id, stage, source, status, rows, error, finished_at IS NOT NULL AS finished FROM ingest_runs ORDER BY id`.execute(
      db,
    )
  ).rows;
}
