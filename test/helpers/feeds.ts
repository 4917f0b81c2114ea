// Shared helpers for the ingest/enrichment unit tests: read fixture feeds and build catalogs from the
// real (bundled) CWE and CAPEC catalogs.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFeed } from '../../src/ingest/detect.ts';
import type { CapecRecord, CveSourceRecord, EpssRecord, IngestItem } from '../../src/ingest/types.ts';
import { buildCapecIndex } from '../../src/domain/capec.ts';
import type { Catalogs } from '../../src/domain/enrich.ts';
import { mergeSources, type MergedCve } from '../../src/domain/merge.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const fixture = (...p: string[]) => path.join(root, 'test', 'fixtures', ...p);
export const snapshotFile = (...p: string[]) => path.join(root, 'snapshot', ...p);

// In a mutation run (tools/mutation/runner.mjs sets MUTATION_MEMO=1) every mutant reruns the tests in one process:
// the fixture files are parsed once (the feed readers are not mutated) and each caller gets its own deep copy, so
// a mutant that changes a record in place cannot leak into the next test.
const parsed = new Map<string, Promise<IngestItem[]>>();

export async function readAll(file: string): Promise<IngestItem[]> {
  if (process.env.MUTATION_MEMO !== '1') return readFresh(file);
  let p = parsed.get(file);
  if (!p) parsed.set(file, (p = readFresh(file)));
  return structuredClone(await p);
}

async function readFresh(file: string): Promise<IngestItem[]> {
  const out: IngestItem[] = [];
  for await (const it of readFeed(file)) out.push(it);
  return out;
}

export async function cveRecords(...files: string[]): Promise<CveSourceRecord[]> {
  const out: CveSourceRecord[] = [];
  for (const f of files) for (const it of await readAll(f)) if (it.kind === 'cve') out.push(it.record);
  return out;
}

let catalogs: Promise<Catalogs> | null = null;

/** Catalogs from the full bundled CWE 4.15 and CAPEC 3.9 files. */
export function realCatalogs(): Promise<Catalogs> {
  catalogs ??= (async () => {
    const cwe = new Map<number, { name: string }>();
    for (const it of await readAll(snapshotFile('cwe', 'cwec_v4.15.xml.gz')))
      if (it.kind === 'cwe') cwe.set(it.record.id, { name: it.record.name });
    const capec: CapecRecord[] = [];
    let version: string | null = null;
    for (const it of await readAll(snapshotFile('capec', 'capec-3.9-stix21-objects.jsonl.gz'))) {
      if (it.kind === 'capec') capec.push(it.record);
      if (it.kind === 'meta') version = it.meta.version;
    }
    return { cwe, capec: buildCapecIndex(capec, version) };
  })();
  return catalogs;
}

/** Merge every record of `cve` found in the given fixture files. */
export async function mergedFrom(cve: string, files: string[], epss: EpssRecord | null = null): Promise<MergedCve> {
  const recs = (await cveRecords(...files)).filter((r) => r.cve_id === cve);
  return mergeSources(cve, recs, epss);
}
