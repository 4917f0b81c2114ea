// CWE → CAPEC (src/domain/capec.ts) on entries as the CAPEC 3.9 catalog states them (CAPEC-66 SQL Injection and
// CAPEC-7 Blind SQL Injection relate to CWE-89; CAPEC-7 also to CWE-209): deprecated patterns left out, one entry
// per pattern with every bridging CWE, ordered by id, and the source block with its version.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildCapecIndex, capecForCwes, capecSourceFor, CAPEC_CATALOG, CAPEC_MAPPING } from '../../src/domain/capec.ts';
import type { CapecRecord } from '../../src/domain/records.ts';

const rec = (capec_id: number, name: string, cwes: number[], o: Partial<CapecRecord> = {}): CapecRecord => ({
  capec_id,
  name,
  typical_severity: 'High',
  status: 'Draft',
  cwes,
  deprecated: false,
  ...o,
});
const CATALOG = [
  rec(66, 'SQL Injection', [89, 1286]),
  rec(7, 'Blind SQL Injection', [209, 89]),
  rec(7, 'Blind SQL Injection', [89]), // the same pattern listed twice: one entry
  rec(3, "Using Leading 'Ghost' Character Sequences to Bypass Input Filters", [20]),
  rec(470, 'Expanding Control over the Operating System from the Database', [89], {
    deprecated: true,
    status: 'Deprecated',
  }),
];

test('one entry per pattern, every bridging CWE in ascending order, patterns by id; deprecated ones left out', () => {
  const ix = buildCapecIndex(CATALOG, '3.9');
  assert.deepEqual(
    ix.byCwe.get(89)!.map((r) => r.capec_id),
    [66, 7],
  );
  assert.equal(ix.byCwe.has(470), false);
  const got = capecForCwes([209, 89, 89], ix);
  assert.deepEqual(got, [
    { capec_id: 7, name: 'Blind SQL Injection', slug: 'capec-7', typical_severity: 'High', via_cwe: [89, 209] },
    { capec_id: 66, name: 'SQL Injection', slug: 'capec-66', typical_severity: 'High', via_cwe: [89] },
  ]);
  assert.deepEqual(
    capecForCwes([20], ix).map((e) => [e.capec_id, e.via_cwe]),
    [[3, [20]]],
  );
  assert.deepEqual(capecForCwes([79], ix), []);
  assert.deepEqual(capecForCwes([], ix), []);
});

test('the source block names the catalog, its version (or unknown) and the mapping', () => {
  assert.deepEqual(buildCapecIndex([], '3.9').source, {
    catalog: CAPEC_CATALOG,
    version: '3.9',
    mapping: CAPEC_MAPPING,
  });
  assert.deepEqual(capecSourceFor(null), {
    catalog: 'MITRE CAPEC (STIX 2.1)',
    version: 'unknown',
    mapping: CAPEC_MAPPING,
  });
  assert.match(CAPEC_MAPPING, /deprecated\/obsolete patterns excluded/);
});
