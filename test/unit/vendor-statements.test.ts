// Vendor statements (docs/triage.md): what the CSAF reader takes from an advisory's fixed and known_not_affected
// product statuses (real CISA advisories), which assets a statement names, and the decision adopting one makes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { csafRecords } from '../../src/ingest/csaf.ts';
import { adoptedDecision, statementCovers, type VendorStatementView } from '../../src/domain/vendor-statements.ts';

const advisory = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/csaf/${name}.json`, import.meta.url), 'utf8'));

test('the CSAF reader keeps known_not_affected and fixed products as the vendor states them; none when the advisory states none', () => {
  const digi = csafRecords(advisory('icsa-23-243-04'));
  assert.deepEqual(
    digi.map((r) => r.vendor_statements?.map((s) => [s.status, s.vendor, s.product, s.version, s.justification])),
    [
      [
        ['not_affected', 'Digi International, Inc.', 'Digi 6350-SR', 'vers:all/*', null],
        ['not_affected', 'Digi International, Inc.', 'Digi ConnectCore 8X products', 'vers:all/*', null],
      ],
    ],
  );
  const schneider = csafRecords(advisory('icsa-24-289-02'));
  assert.deepEqual(
    schneider.map((r) => [r.cve_id, r.vendor_statements?.map((s) => `${s.status} ${s.product_name}`)]),
    [
      ['CVE-2024-8531', ['fixed Schneider Electric Data Center Expert 8.2']],
      ['CVE-2024-8530', ['fixed Schneider Electric Data Center Expert 8.2']],
    ],
  );
  const none = csafRecords(advisory('icsa-23-068-03'));
  assert.ok(none.length > 0);
  assert.ok(
    none.every((r) => r.vendor_statements === undefined),
    'an advisory with only known_affected states nothing',
  );
});

const st = { vendor: 'Schneider Electric', product: 'Data Center Expert', version: '8.2' };
const asset = (vendor: string | null, product: string | null, version: string | null) => ({
  asset_id: 'a',
  vendor,
  product,
  version,
});

test('a statement names an asset by vendor and product, one name within the other, and by an exact version when both state one', () => {
  assert.equal(statementCovers(st, asset('Schneider', 'Data Center Expert', '8.2')), true);
  assert.equal(statementCovers(st, asset('schneider electric', 'data-center expert', 'V8.2')), true);
  assert.equal(
    statementCovers(st, asset('Schneider Electric', 'Data Center Expert', '8.1.1.3')),
    false,
    'another version',
  );
  assert.equal(
    statementCovers(st, asset('Schneider Electric', 'Data Center Expert', null)),
    true,
    'no version on the asset: not compared',
  );
  assert.equal(statementCovers(st, asset('Siemens', 'Data Center Expert', '8.2')), false, 'another vendor');
  assert.equal(statementCovers(st, asset('Schneider Electric', 'EcoStruxure', '8.2')), false, 'another product');
  assert.equal(
    statementCovers({ ...st, version: '<= 8.1.1.3' }, asset('Schneider Electric', 'Data Center Expert', '9.0')),
    true,
    'a range is not compared',
  );
  assert.equal(
    statementCovers({ ...st, version: 'vers:all/*' }, asset('Schneider Electric', 'Data Center Expert', '1.0')),
    true,
  );
  assert.equal(
    statementCovers({ ...st, product: 'DC' }, asset('Schneider Electric', 'DC', '8.2')),
    false,
    'names of fewer than 3 letters or digits never match',
  );
});

const view = (o: Partial<VendorStatementView>): VendorStatementView => ({
  id: 'ICSA-1#1',
  by: 'vendor',
  advisory_id: 'ICSA-1',
  advisory_title: 't',
  advisory_url: null,
  status: 'not_affected',
  vendor: 'Digi',
  product: 'X',
  version: null,
  product_name: 'Digi X',
  justification: null,
  impact_statement: null,
  action_statement: null,
  asset_ids: ['a'],
  ...o,
});

test("adopting takes the vendor's justification over the team's, the team's when the vendor gives none, and never one for fixed", () => {
  assert.equal(
    adoptedDecision(view({ justification: 'vulnerable_code_not_present' }), 'component_not_present').justification,
    'vulnerable_code_not_present',
  );
  assert.equal(adoptedDecision(view({}), 'component_not_present').justification, 'component_not_present');
  assert.equal(adoptedDecision(view({}), null).justification, null);
  const fixed = adoptedDecision(view({ status: 'fixed', action_statement: 'Update to 8.2' }), 'component_not_present');
  assert.deepEqual(fixed, {
    status: 'fixed',
    justification: null,
    impact_statement: 'ICSA-1: Digi states Digi X fixed.',
    action_statement: 'Update to 8.2',
    asset_ids: ['a'],
  });
  assert.equal(
    adoptedDecision(view({ impact_statement: 'No web server.' }), null).impact_statement,
    'ICSA-1: Digi states Digi X not affected. No web server.',
  );
  assert.equal(adoptedDecision(view({ impact_statement: 'x'.repeat(5000) }), null).impact_statement?.length, 4000);
});
