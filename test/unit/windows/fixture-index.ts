// Builds the evaluation index once from the real MSRC documents copied into test/fixtures/msrc.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseUpdatesIndex, readMsrcDirectory } from '../../../src/ingest/msrc.ts';
import { IndexBuilder, type EvaluationIndex } from '../../../src/domain/windows/evaluation-index.ts';
import { EvaluationRun, type CveSignals } from '../../../src/domain/windows/evaluate.ts';
import { validateHost } from '../../../src/domain/windows/validate.ts';

export const FIXTURE_DIR = fileURLToPath(new URL('../../fixtures/msrc', import.meta.url));

let cached: EvaluationIndex | null = null;
export function fixtureIndex(): EvaluationIndex {
  if (cached) return cached;
  const updates = parseUpdatesIndex(JSON.parse(readFileSync(`${FIXTURE_DIR}/updates-index.json`, 'utf8')));
  const b = new IndexBuilder(new Map(updates.map((u) => [u.id, u.cvrfUrl])));
  for (const { doc } of readMsrcDirectory(FIXTURE_DIR)) b.add(doc);
  cached = b.finish();
  return cached;
}

export const BASE_HOST = { display_version: '', collected_at: '2026-07-01T08:00:00Z' };

/** Validate and evaluate one host record at `today` (default 2026-07-10) with optional corpus signals. */
export function evalHost(rec: Record<string, unknown>, today = '2026-07-10', signals: Record<string, CveSignals> = {}) {
  const v = validateHost({ ...BASE_HOST, ...rec });
  if (!v.ok) throw new Error(`host refused: ${JSON.stringify(v.errors)}`);
  return new EvaluationRun(fixtureIndex(), (c) => signals[c], today).evaluate(v.host, v.warnings);
}

export function cveOf(e: ReturnType<typeof evalHost>, cve: string) {
  const it = e.items.find((i) => i.cve_id === cve);
  if (!it) throw new Error(`${cve} not in results`);
  return it;
}
