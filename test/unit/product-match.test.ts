import { test } from 'node:test';
import assert from 'node:assert/strict';
import { familyKeys, matchProduct, parseCpe, productKey, vendorSlug } from '../../src/domain/product-match.ts';

test('vendor aliases, case and CPE tokens resolve to one canonical vendor', () => {
  for (const v of ['Siemens', 'Siemens AG', 'SIEMENS', 'siemens_ag']) assert.equal(vendorSlug(v), 'siemens', v);
  for (const v of ['Schneider Electric SE', 'schneider electric', 'Schneider-Electric']) assert.equal(vendorSlug(v), 'schneider-electric', v);
  assert.equal(vendorSlug('schneider-electric', true), 'schneider-electric');
  assert.equal(vendorSlug('Allen-Bradley'), 'rockwell-automation');
  assert.equal(vendorSlug('multiple vendors'), null);
});

test('product keys: punctuation, CPE underscores, vendor prefix and family/firmware words', () => {
  assert.equal(productKey('simatic_s7-1500_firmware'), 'simatic s7 1500');
  assert.equal(productKey('SIMATIC S7-1500'), 'simatic s7 1500');
  assert.equal(productKey('Siemens SIMATIC S7-1500', 'Siemens AG'), 'simatic s7 1500');
  assert.equal(productKey('SCALANCE X-200 family'), 'scalance x 200');
  assert.equal(productKey('Firmware'), 'firmware');
  assert.deepEqual(familyKeys('simatic s7 1500 cpu'), ['simatic s7 1500 cpu', 'simatic s7 1500', 'simatic s7', 'simatic']);
});

test('CPE 2.3 parsing, escapes included', () => {
  assert.deepEqual(parseCpe('cpe:2.3:o:siemens:simatic_s7-1500_firmware:*:*:*:*:*:*:*:*'), { part: 'o', vendor: 'siemens', product: 'simatic_s7-1500_firmware', version: null, update: null });
  assert.deepEqual(parseCpe('cpe:2.3:a:schneider-electric:ecostruxure\\:_power:2.1:*:*:*:*:*:*:*'), { part: 'a', vendor: 'schneider-electric', product: 'ecostruxure:_power', version: '2.1', update: null });
  assert.equal(parseCpe('cpe:/a:siemens:x'), null);
  assert.equal(parseCpe('not a cpe'), null);
});

test('matchProduct: exact, normalised, family, each with its basis; never the other way round', () => {
  const range = { vendor: 'siemens', product: 'simatic_s7-1500_firmware', cpe: 'cpe:2.3:o:siemens:simatic_s7-1500_firmware:*:*:*:*:*:*:*:*' };
  const exactCpe = matchProduct({ vendor: 'whatever', product: 'x', cpe: 'cpe:2.3:o:siemens:simatic_s7-1500_firmware:2.9:*:*:*:*:*:*:*' }, range);
  assert.equal(exactCpe?.confidence, 'exact');
  assert.match(exactCpe!.basis, /CPE vendor and product siemens:simatic_s7-1500_firmware/);
  const norm = matchProduct({ vendor: 'Siemens AG', product: 'SIMATIC S7-1500' }, range);
  assert.equal(norm?.confidence, 'normalised');
  assert.match(norm!.basis, /simatic s7 1500/);
  const exact = matchProduct({ vendor: 'SIEMENS', product: 'SIMATIC_S7-1500_FIRMWARE ' }, range);
  assert.equal(exact?.confidence, 'exact');
  const fam = matchProduct({ vendor: 'Siemens', product: 'SIMATIC S7-1500 CPU 1518-4 PN/DP' }, { vendor: 'Siemens', product: 'SIMATIC S7-1500 family', cpe: null });
  assert.equal(fam?.confidence, 'family');
  // Less specific than the source's product: no match.
  assert.equal(matchProduct({ vendor: 'Siemens', product: 'SIMATIC' }, { vendor: 'Siemens', product: 'SIMATIC S7-1500', cpe: null }), null);
  // Same product, another vendor: no match.
  assert.equal(matchProduct({ vendor: 'Schneider Electric', product: 'SIMATIC S7-1500' }, range), null);
  // Word prefix only: "S7-15" is not in "S7-1500".
  assert.equal(matchProduct({ vendor: 'Siemens', product: 'SIMATIC S7-1500' }, { vendor: 'Siemens', product: 'SIMATIC S7-15', cpe: null }), null);
});

test('CSAF version ranges: vers: and the free text CISA writes, parsed only where certain', async () => {
  const { parseCsafRange } = await import('../../src/domain/csaf-ranges.ts');
  const b = (v: string, inclusive: boolean) => ({ version: v, inclusive });
  assert.deepEqual(parseCsafRange('vers:all/*'), { kind: 'all' });
  assert.deepEqual(parseCsafRange('vers:all/<V3.1.4'), { kind: 'bounds', start: null, end: b('V3.1.4', false) });
  assert.deepEqual(parseCsafRange('vers:all/<CPCI85 V05'), { kind: 'bounds', start: null, end: b('CPCI85 V05', false) });
  assert.deepEqual(parseCsafRange('vers:generic/>=2.0|<2.9.2'), { kind: 'bounds', start: b('2.0', true), end: b('2.9.2', false) });
  assert.deepEqual(parseCsafRange('vers:generic/>=2.0|<2.9.2|>=3.0'), { kind: 'text' });
  assert.deepEqual(parseCsafRange('vers:generic/!=2.0'), { kind: 'text' });
  assert.deepEqual(parseCsafRange('<= 1.0'), { kind: 'bounds', start: null, end: b('1.0', true) });
  assert.deepEqual(parseCsafRange('< 2.1 SP2'), { kind: 'bounds', start: null, end: b('2.1 SP2', false) });
  assert.deepEqual(parseCsafRange('2.1.1.1'), { kind: 'exact', version: '2.1.1.1' });
  assert.deepEqual(parseCsafRange('prior to V2.9.2'), { kind: 'bounds', start: null, end: b('V2.9.2', false) });
  assert.deepEqual(parseCsafRange('V4.3 and earlier'), { kind: 'bounds', start: null, end: b('V4.3', true) });
  assert.deepEqual(parseCsafRange('All versions'), { kind: 'all' });
  // Not certain: stays text.
  assert.deepEqual(parseCsafRange('< 3.3 SP1 3.x'), { kind: 'text' });
  assert.deepEqual(parseCsafRange('3.3 SP2 (part of SPR1 2023.0)'), { kind: 'text' });
  assert.deepEqual(parseCsafRange('V2.0 and later, prior to V2.9.2'), { kind: 'text' });
  // "<" contradicted by the product's own name ("2.1 SP2 and earlier"): text.
  assert.deepEqual(parseCsafRange('< 2.1 SP2', 'S+ Operations: 2.1 SP2 and earlier 2.x versions'), { kind: 'text' });
});
