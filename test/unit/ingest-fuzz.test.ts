// Unsafe consumption (reliability API10): whatever JSON a feed serves, a reader either yields records of the
// documented shape or throws FeedFormatError; it never crashes with a TypeError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { nvdItemsFromJson } from '../../src/ingest/nvd.ts';
import { kevItemsFromJson } from '../../src/ingest/kev.ts';
import { csafRecords } from '../../src/ingest/csaf.ts';
import { capecFromStix } from '../../src/ingest/capec.ts';
import { parseEpssRow } from '../../src/ingest/epss.ts';
import { FeedFormatError } from '../../src/ingest/types.ts';
import { fixture } from '../helpers/feeds.ts';
import { isCveId } from '../../src/domain/cve-id.ts';

function safely(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof FeedFormatError)) throw e;
  }
}

/** Real documents with random subtrees replaced by arbitrary JSON values. */
function mutated(doc: unknown): fc.Arbitrary<unknown> {
  const paths: (string | number)[][] = [];
  const walk = (v: unknown, p: (string | number)[]) => {
    if (p.length > 6) return;
    paths.push(p);
    if (Array.isArray(v)) v.slice(0, 3).forEach((x, i) => walk(x, [...p, i]));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...p, k]);
  };
  walk(doc, []);
  return fc.tuple(fc.constantFrom(...paths.filter((p) => p.length > 0)), fc.jsonValue()).map(([p, value]) => {
    const copy = structuredClone(doc) as Record<string | number, unknown>;
    let cur = copy;
    for (const k of p.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
    cur[p[p.length - 1]] = value;
    return copy;
  });
}

const json = (f: string) => JSON.parse(readFileSync(f, 'utf8'));

test('NVD reader: arbitrary JSON and mutated real records never crash', () => {
  const rec = json(fixture('nvd', 'CVE-2024-21338.json'));
  fc.assert(
    fc.property(
      fc.oneof(
        fc.jsonValue(),
        mutated(rec),
        mutated({ resultsPerPage: 1, format: 'NVD_CVE', vulnerabilities: [{ cve: rec }] }),
      ),
      (doc) => {
        safely(() => [...nvdItemsFromJson(doc)]);
      },
    ),
    { numRuns: 400 },
  );
});

test('KEV reader: arbitrary JSON and mutated real catalogs never crash', () => {
  const kev = json(fixture('kev', 'kev-cut.json'));
  fc.assert(
    fc.property(fc.oneof(fc.jsonValue(), mutated(kev)), (doc) => {
      safely(() => [...kevItemsFromJson(doc)]);
    }),
    { numRuns: 300 },
  );
});

test('CSAF reader: arbitrary JSON and mutated real advisories never crash', () => {
  const adv = json(fixture('csaf', 'icsa-24-289-02.json'));
  fc.assert(
    fc.property(fc.oneof(fc.jsonValue(), mutated(adv)), (doc) => {
      safely(() => csafRecords(doc));
    }),
    { numRuns: 400 },
  );
});

test('CAPEC and EPSS row readers never crash', () => {
  const ap = json(fixture('capec', 'capec-114-bundle.json')).objects.find(
    (o: { type: string }) => o.type === 'attack-pattern',
  );
  fc.assert(
    fc.property(fc.oneof(fc.jsonValue(), mutated(ap)), (obj) => {
      safely(() => capecFromStix(obj));
    }),
    { numRuns: 300 },
  );
  fc.assert(
    fc.property(fc.string(), fc.constantFrom(',' as const, ';' as const), (line, sep) => {
      const r = parseEpssRow(line, sep);
      if (r) assert.ok(r.epss >= 0 && r.epss <= 1 && r.percentile >= 0 && r.percentile <= 1 && isCveId(r.cve_id));
    }),
  );
});

test('NVD reader: a reference tag that is not a string is dropped, the record kept (fuzz counterexample)', () => {
  const rec = json(fixture('nvd', 'CVE-2024-21338.json'));
  const copy = structuredClone(rec);
  copy.references[2].tags = ['Patch', { toString: 0 }];
  const items = [...nvdItemsFromJson(copy)] as { record?: { references?: { url: string; tags: string[] }[] } }[];
  const refs = items.flatMap((i) => i.record?.references ?? []);
  assert.ok(refs.length > 0, 'references read');
  assert.ok(
    refs.some((r) => r.tags.length === 1 && r.tags[0] === 'Patch'),
    JSON.stringify(refs),
  );
  for (const r of refs) for (const t of r.tags) assert.equal(typeof t, 'string');
});
