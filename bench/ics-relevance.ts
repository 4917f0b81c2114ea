// The ICS relevance and category of every CVE of a CVE Record 5 file (default the bundled snapshot's records), by
// the literal-prefiltered src/domain/ics.ts and by the regex-only oracle (test/helpers/ics-oracle.ts): asserts both
// give the same results on every real text, then times each over all texts (median of 5 interleaved passes).
// The texts are enrich.ts classificationInputs (what buildCveDocument decides on), with the empty CWE catalog of
// bench/import-stages.ts; the new results are also checked against every document buildCveDocument makes.
// Usage: npx tsx bench/ics-relevance.ts [file=snapshot/cve5/vulnrichment-cve5.jsonl.gz]
import assert from 'node:assert/strict';
import { readCve5 } from '../src/ingest/cve5.ts';
import { mergeSources } from '../src/domain/merge.ts';
import { resolveAffected } from '../src/domain/affected.ts';
import { buildCveDocument, classificationInputs, type Catalogs } from '../src/domain/enrich.ts';
import { buildCapecIndex } from '../src/domain/capec.ts';
import { icsRelevance, classifyCategory, type IcsInput } from '../src/domain/ics.ts';
import * as oracle from '../test/helpers/ics-oracle.ts';
import type { CveSourceRecord } from '../src/domain/records.ts';

const file = process.argv[2] ?? 'snapshot/cve5/vulnrichment-cve5.jsonl.gz';
const byId = new Map<string, CveSourceRecord[]>();
for await (const item of readCve5(file, 'jsonl')) {
  if (item.kind !== 'cve') continue;
  const list = byId.get(item.record.cve_id) ?? [];
  list.push(item.record);
  byId.set(item.record.cve_id, list);
}

const catalogs: Catalogs = { cwe: new Map(), capec: buildCapecIndex([], null) };
const now = new Date().toISOString();
const cases: { ics: IcsInput; cwes: number[]; categoryText: string }[] = [];
for (const [id, records] of byId) {
  const merged = mergeSources(id, records, null);
  // The texts buildCveDocument decides on (its own classificationInputs, with the document's title); the new
  // results must equal what the document holds.
  const doc = buildCveDocument(merged, catalogs, now).doc;
  const { ics, categoryText } = classificationInputs(merged, resolveAffected(merged), doc.title);
  const r = icsRelevance(ics);
  assert.deepEqual(
    [doc.affected.protocols, doc.affected.device_types, doc.affected.ics_relevance_score],
    [r.protocols, r.device_types, r.score],
    id,
  );
  assert.equal(doc.classification.category, classifyCategory(merged.cwes, categoryText), id);
  cases.push({ ics, cwes: merged.cwes, categoryText });
}

// (a) Equality on every real text.
let mismatches = 0;
for (const c of cases) {
  try {
    assert.deepEqual(icsRelevance(c.ics), oracle.icsRelevance(c.ics));
    assert.equal(classifyCategory(c.cwes, c.categoryText), oracle.classifyCategory(c.cwes, c.categoryText));
    // Also the keyword categories alone (most CVEs have a CWE with a category, which returns before them).
    assert.equal(classifyCategory([], c.categoryText), oracle.classifyCategory([], c.categoryText));
  } catch (err) {
    mismatches++;
    if (mismatches <= 5) console.error(err);
  }
}
const relevant = cases.filter((c) => icsRelevance(c.ics).relevant).length;
const chars = cases.reduce((s, c) => s + c.ics.text.length, 0);
console.log(
  `${cases.length} CVEs (${byId.size} ids), ${Math.round(chars / cases.length)} chars of ICS text on average, ${relevant} ICS-relevant; all checked against buildCveDocument`,
);
console.log(
  `equality: ${cases.length} texts compared (relevance, category, keyword category), ${mismatches} mismatches`,
);
if (mismatches > 0) process.exit(1);

// (b) Time: the import's calls (icsRelevance, classifyCategory with the CVE's CWEs), all texts per pass.
let sink = 0;
const passOf = (impl: { icsRelevance: typeof icsRelevance; classifyCategory: typeof classifyCategory }) => {
  const t0 = performance.now();
  for (const c of cases) {
    sink += impl.icsRelevance(c.ics).score;
    sink += impl.classifyCategory(c.cwes, c.categoryText).length;
  }
  return performance.now() - t0;
};
const newImpl = { icsRelevance, classifyCategory };
const oldImpl = { icsRelevance: oracle.icsRelevance, classifyCategory: oracle.classifyCategory };
passOf(oldImpl); // warm-up of both
passOf(newImpl);
const oldMs: number[] = [];
const newMs: number[] = [];
for (let i = 0; i < 5; i++) {
  oldMs.push(passOf(oldImpl));
  newMs.push(passOf(newImpl));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const [o, n] = [median(oldMs), median(newMs)];
console.log(`old (regex only): ${o.toFixed(1)} ms  [${oldMs.map((x) => x.toFixed(0)).join(' ')}]`);
console.log(`new (prefilter):  ${n.toFixed(1)} ms  [${newMs.map((x) => x.toFixed(0)).join(' ')}]`);
console.log(`ratio old/new: ${(o / n).toFixed(2)}x  (sink ${sink.toFixed(0)})`);
