// The title rule's text functions (src/domain/title.ts; docs/enrichment.md "Title"), value by value. The
// source-title order and the MSRC description-as-title case are in enrichment.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { composeTitle, shortenTitle, TITLE_MAX } from '../../src/domain/title.ts';

test('composeTitle: "<weakness> in <vendor> <product>", the vendor once, trimmed; the CVE id when there is no target', () => {
  const cve = 'CVE-2023-28489';
  assert.equal(composeTitle(cve, { weakness: 'Missing Authentication for Critical Function', vendor: 'Siemens', product: 'CP-8031 MASTER MODULE' }),
    'Missing Authentication for Critical Function in Siemens CP-8031 MASTER MODULE');
  assert.equal(composeTitle(cve, { weakness: 'Out-of-bounds Write', vendor: 'siemens', product: 'SIEMENS SICAM A8000' }), 'Out-of-bounds Write in SIEMENS SICAM A8000');
  assert.equal(composeTitle(cve, { weakness: ' Out-of-bounds Write ', vendor: 'Moxa', product: null }), 'Out-of-bounds Write in Moxa');
  assert.equal(composeTitle(cve, { weakness: null, vendor: null, product: 'NPort 5110 ' }), 'Vulnerability in NPort 5110');
  assert.equal(composeTitle(cve, { weakness: '   ', vendor: null, product: null }), `Vulnerability (${cve})`);
  assert.equal(composeTitle(cve, { weakness: 'Improper Input Validation', vendor: null, product: null }), `Improper Input Validation (${cve})`);
});

test('shortenTitle: whitespace collapsed; kept up to the limit; else the first sentence; else cut at a word past half the limit', () => {
  assert.equal(TITLE_MAX, 120);
  assert.equal(shortenTitle('  Remote   code\n execution  '), 'Remote code execution');
  assert.equal(shortenTitle('x'.repeat(20), 20), 'x'.repeat(20));
  assert.equal(shortenTitle('x'.repeat(21), 20), `${'x'.repeat(19)}…`);
  assert.equal(shortenTitle('Short one. Then a much longer tail of text', 20), 'Short one');
  assert.equal(shortenTitle('Wow! Then a much longer tail of text', 20), 'Wow!');
  assert.equal(shortenTitle('Version 1.2 of the product is affected', 20), 'Version 1.2 of the…');
  assert.equal(shortenTitle('This first sentence is long. Then more', 20), 'This first sentence…');
  assert.equal(shortenTitle('Alpha beta gamma delta epsilon', 20), 'Alpha beta gamma…');
  assert.equal(shortenTitle('Alpha beta gamma, delta epsilon', 20), 'Alpha beta gamma…');
  assert.equal(shortenTitle('Alpha beta gamma (delta epsilon', 20), 'Alpha beta gamma…');
  assert.equal(shortenTitle('abcdefghij klmnopqrstuvwxyz', 20), 'abcdefghij klmnopqr…');
  assert.equal(shortenTitle('abcdefghi jklmnopqrstuvwxyz', 20), 'abcdefghi jklmnopqr…');
  assert.equal(shortenTitle('abcdefghijk lmnopqrstuvwxyz', 20), 'abcdefghijk…');
  assert.equal(shortenTitle('Supercalifragilistic expialidocious', 20), 'Supercalifragilisti…');
});
