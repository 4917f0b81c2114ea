// The title rule's text functions (src/domain/title.ts; docs/enrichment.md "Title"), value by value. The
// source-title order and the MSRC description-as-title case are in enrichment.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseTitle, composeTitle, shortenTitle, TITLE_MAX } from '../../src/domain/title.ts';
import type { MergedCve } from '../../src/domain/merge.ts';

test('composeTitle: "<weakness> in <vendor> <product>", the vendor once, trimmed; the CVE id when there is no target', () => {
  const cve = 'CVE-2023-28489';
  assert.equal(
    composeTitle(cve, {
      weakness: 'Missing Authentication for Critical Function',
      vendor: 'Siemens',
      product: 'CP-8031 MASTER MODULE',
    }),
    'Missing Authentication for Critical Function in Siemens CP-8031 MASTER MODULE',
  );
  assert.equal(
    composeTitle(cve, { weakness: 'Out-of-bounds Write', vendor: 'siemens', product: 'SIEMENS SICAM A8000' }),
    'Out-of-bounds Write in SIEMENS SICAM A8000',
  );
  assert.equal(
    composeTitle(cve, { weakness: ' Out-of-bounds Write ', vendor: 'Moxa', product: null }),
    'Out-of-bounds Write in Moxa',
  );
  assert.equal(
    composeTitle(cve, { weakness: null, vendor: null, product: 'NPort 5110 ' }),
    'Vulnerability in NPort 5110',
  );
  assert.equal(composeTitle(cve, { weakness: '   ', vendor: null, product: null }), `Vulnerability (${cve})`);
  assert.equal(
    composeTitle(cve, { weakness: 'Improper Input Validation', vendor: null, product: null }),
    `Improper Input Validation (${cve})`,
  );
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

test('shortenTitle: a sentence of exactly the limit is kept; only its final full stop is dropped; trailing punctuation of a cut goes', () => {
  assert.equal(shortenTitle('Short one. Then a much longer tail of text', 10), 'Short one');
  assert.equal(shortenTitle('Short one. Then a much longer tail of text', 9), 'Short…');
  assert.equal(shortenTitle('v1.2 is out. Then a much longer tail of text', 20), 'v1.2 is out');
  assert.equal(shortenTitle('Alpha beta gamma,; delta epsilon', 20), 'Alpha beta gamma…');
  assert.equal(shortenTitle('A sentence that is far too long for it.', 20), 'A sentence that is…');
});

test('chooseTitle: the first source title within the limit (whitespace collapsed, blanks skipped), else the first shortened, else composed', () => {
  const merged = (titles: string[]) =>
    ({ cve_id: 'CVE-2023-28489', titles: titles.map((title) => ({ source: 'csaf', title })) }) as unknown as MergedCve;
  const facts = {
    weakness: 'Missing Authentication for Critical Function',
    vendor: 'Siemens',
    product: 'CP-8031 MASTER MODULE',
  };
  const exact = `${'x'.repeat(TITLE_MAX - 1)}.`;
  assert.equal(
    chooseTitle(merged(['   ', 'a'.repeat(TITLE_MAX + 1), '  Siemens\n CPCI85   Firmware  ']), facts),
    'Siemens CPCI85 Firmware',
  );
  assert.equal(chooseTitle(merged([exact, 'Later title']), facts), exact);
  assert.equal(chooseTitle(merged([`${exact}x`, 'Later title']), facts), 'Later title');
  assert.equal(chooseTitle(merged(['First long sentence. ' + 'y '.repeat(70)]), facts), 'First long sentence');
  assert.equal(
    chooseTitle(merged(['  ', '\t']), facts),
    'Missing Authentication for Critical Function in Siemens CP-8031 MASTER MODULE',
  );
});

test("chooseTitle: the CNA's title (cve5) wins over every other source, within the limit or shortened; a blank one does not count", () => {
  const m = (titles: [string, string][]) =>
    ({
      cve_id: 'CVE-2024-21338',
      titles: titles.map(([source, title]) => ({ source, title })),
    }) as unknown as MergedCve;
  const facts = { weakness: null, vendor: null, product: null };
  assert.equal(
    chooseTitle(
      m([
        ['cve5', 'Windows Kernel Elevation of Privilege Vulnerability'],
        ['kev', 'Microsoft Windows Kernel Exposed IOCTL'],
      ]),
      facts,
    ),
    'Windows Kernel Elevation of Privilege Vulnerability',
  );
  const long = `CNA sentence. ${'z '.repeat(70)}`;
  assert.equal(
    chooseTitle(
      m([
        ['cve5', long],
        ['kev', 'Short KEV name'],
      ]),
      facts,
    ),
    'CNA sentence',
  );
  assert.equal(
    chooseTitle(
      m([
        ['cve5', '   '],
        ['kev', 'Short KEV name'],
      ]),
      facts,
    ),
    'Short KEV name',
  );
});
