// resolveAffected / namedIn (src/domain/affected.ts): each case pins one rule so that changing it fails a test
// (tests that a change to a rule must break).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { namedIn, resolveAffected } from '../../src/domain/affected.ts';
import type { MergedCve } from '../../src/domain/merge.ts';
import type { AffectedProduct } from '../../src/domain/records.ts';

function merged(affected: AffectedProduct[], over: Partial<MergedCve> = {}): MergedCve {
  return {
    cve_id: 'CVE-2024-0001',
    sources: ['nvd'],
    description: null,
    description_source: null,
    titles: [],
    published: null,
    modified: null,
    cvss: null,
    all_cvss: [],
    cwes: [],
    affected,
    references: [],
    assigner: null,
    kev: null,
    advisories: [],
    msrc: null,
    cve5: null,
    epss: null,
    ...over,
  };
}

describe('namedIn', () => {
  test('whole words, case-insensitive, a trailing parenthetical not required', () => {
    assert.equal(namedIn('A flaw in PAN-OS allows ...', 'pan-os'), true);
    assert.equal(namedIn('A flaw in uIP 1.0 ...', 'uIP (EOL)'), true);
    assert.equal(namedIn('A flaw in picoTCP-NG ...', 'picoTCP'), false);
    assert.equal(namedIn('A flaw in xpicoTCP ...', 'picoTCP'), false);
    assert.equal(namedIn('picoTCP', 'picoTCP'), true);
  });
  test('the literal prefilter never changes an answer: equal to the regex alone on generated names and texts', () => {
    // The regex-only namedIn before the prefilter, verbatim.
    const oracle = (text: string | null, product: string): boolean => {
      if (!text) return false;
      const name = product.replace(/\s*\([^)]*\)\s*$/, '').trim();
      const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      return name.length >= 3 && new RegExp(`(?:^|[^\\w-])${esc}(?:[^\\w-]|$)`, 'i').test(text);
    };
    const names = [
      'PAN-OS',
      'picoTCP',
      'uIP (EOL)',
      'SIMATIC S7-1500',
      'C++ Runtime',
      'Ωmega Suite',
      'kelvin',
      'Sandbox',
    ];
    const piece = fc.oneof(
      fc.constantFrom(
        ...names,
        ' ',
        '-',
        '_',
        '.',
        '\n',
        '(',
        ')',
        'x',
        '1',
        'K',
        '\u212a',
        'ſ',
        'İ',
        'ß',
        'é',
        'Ω',
        'ω',
        '🔥',
      ),
      fc.string({ maxLength: 4 }),
    );
    const recase = (s: string, flips: boolean[]) =>
      [...s].map((c, i) => (flips[i % flips.length] ? c.toUpperCase() : c.toLowerCase())).join('');
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 12 }),
        fc.constantFrom(...names),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
        (parts, name, flips) => {
          const text = recase(parts.join(''), flips);
          assert.equal(namedIn(text, name), oracle(text, name), `${JSON.stringify(text)} / ${name}`);
        },
      ),
      { numRuns: 3000 },
    );
    // The non-unicode i flag never folds the Kelvin sign or the long s into ASCII: lowering them must not match.
    assert.equal(namedIn('a \u212aelvin flaw', 'kelvin'), false);
    assert.equal(namedIn('a ſandbox flaw', 'Sandbox'), false);
    assert.equal(namedIn('a SANDBOX flaw', 'Sandbox'), true);
    // Non-ASCII names go to their regex directly.
    assert.equal(namedIn('in ΩMEGA SUITE 2', 'Ωmega Suite'), oracle('in ΩMEGA SUITE 2', 'Ωmega Suite'));
  });
  test('no text, or a name shorter than three characters after the clean-up, names nothing', () => {
    assert.equal(namedIn(null, 'picoTCP'), false);
    assert.equal(namedIn('', 'picoTCP'), false);
    assert.equal(namedIn('an OS bug', 'OS (all)'), false);
    assert.equal(namedIn('an OS bug', 'OS'), false);
  });
  test('only a trailing parenthetical is dropped; regex characters are literal', () => {
    assert.equal(namedIn('Node (JS) runtime', 'Node (JS) runtime'), true);
    assert.equal(namedIn('Node JS runtime', 'Node (JS) runtime'), false);
    assert.equal(namedIn('the C++ compiler', 'C++'), true);
    assert.equal(namedIn('the Cxx compiler', 'C++'), false);
  });
});

describe('resolveAffected', () => {
  test('a CVE without CNA or CPE entries: a CNA that is a known vendor names itself first', () => {
    const r = resolveAffected(
      merged([{ vendor: 'Some Integrator', product: 'Gateway', origin: 'kev' }], { assigner: 'psirt@moxa.com' }),
    );
    assert.equal(r.primary_vendor?.slug, 'moxa');
    assert.deepEqual(
      r.vendors.map((v) => v.slug),
      ['moxa', 'someintegrator'],
    );
    // The CNA names no product: the primary product is any vendor's.
    assert.equal(r.primary_product, 'Gateway');
  });
  test('with a CNA or a CPE entry, the assigner is not added', () => {
    for (const origin of ['cna', 'cpe'] as const) {
      const r = resolveAffected(
        merged([{ vendor: 'Acme', product: 'Widget', origin }], { assigner: 'psirt@moxa.com' }),
      );
      assert.deepEqual(
        r.vendors.map((v) => v.slug),
        ['acme'],
        origin,
      );
    }
  });
  test('an unknown assigner adds nothing', () => {
    const r = resolveAffected(
      merged([{ vendor: 'Acme', product: 'Widget', origin: 'kev' }], { assigner: 'cve@example.org' }),
    );
    assert.deepEqual(
      r.vendors.map((v) => v.slug),
      ['acme'],
    );
  });
  test('vendor precedence cna > cpe > kev > msrc > csaf, then input order; products in product precedence', () => {
    const r = resolveAffected(
      merged([
        { vendor: 'Csafco', product: 'C Product', origin: 'csaf' },
        { vendor: 'Kevco', product: 'K Product', origin: 'kev' },
        { vendor: 'cpeco', product: 'cpe_product', origin: 'cpe', cpe_part: 'o' },
        { vendor: 'Msrcco', product: 'M Product', origin: 'msrc' },
        { vendor: 'Cnaco', product: 'N Product', origin: 'cna' },
        { vendor: 'Cnaco2', product: 'N2 Product', origin: 'cna' },
      ]),
    );
    assert.deepEqual(
      r.vendors.map((v) => v.slug),
      ['cnaco', 'cnaco2', 'cpeco', 'kevco', 'msrcco', 'csafco'],
    );
    assert.deepEqual(r.products, ['N Product', 'N2 Product', 'K Product', 'M Product', 'C Product', 'cpe product']);
    assert.equal(r.primary_vendor?.slug, 'cnaco');
    assert.equal(r.primary_product, 'N Product');
    assert.deepEqual(r.cpe_parts, ['o']);
  });
  test('CPE tokens become words in products and the primary product; case-insensitive product de-duplication', () => {
    const r = resolveAffected(
      merged([
        { vendor: 'siemens', product: 'simatic_s7-1500_firmware', origin: 'cpe', cpe_part: 'o' },
        { vendor: 'siemens', product: 'simatic_s7-1500', origin: 'cpe', cpe_part: 'h' },
        { vendor: 'siemens', product: 'SIMATIC S7-1500', origin: 'cpe', cpe_part: 'h' },
        { vendor: 'siemens', product: 'simatic_s7-1200', origin: 'cpe', cpe_part: 'a' },
      ]),
    );
    assert.equal(r.primary_product, 'simatic s7-1500 firmware');
    assert.deepEqual(r.products, ['simatic s7-1500 firmware', 'simatic s7-1500', 'simatic s7-1200']);
    assert.deepEqual(r.cpe_parts, ['a', 'h', 'o']);
  });
  test("the primary product is a product of the primary vendor, not another vendor's earlier one", () => {
    const r = resolveAffected(
      merged(
        [
          { vendor: 'Otherco', product: 'Other Product', origin: 'cna' },
          { vendor: 'Acme', product: null, origin: 'cna' },
          { vendor: 'acme', product: 'acme_widget', origin: 'cpe' },
        ].reverse() as AffectedProduct[],
      ),
    );
    // cna entries first in input order after the reverse: Acme (no product), Otherco → primary vendor acme.
    assert.equal(r.primary_vendor?.slug, 'acme');
    assert.equal(r.primary_product, 'acme widget');
  });
  test('among several products of the best source, the one the description names; not for CPE tokens', () => {
    const aff: AffectedProduct[] = [
      { vendor: 'Siemens', product: 'uIP', origin: 'csaf' },
      { vendor: 'Siemens', product: 'FNET', origin: 'csaf' },
      { vendor: 'Siemens', product: 'picoTCP', origin: 'csaf' },
    ];
    assert.equal(
      resolveAffected(merged(aff, { description: 'The FNET stack mishandles ...' })).primary_product,
      'FNET',
    );
    assert.equal(resolveAffected(merged(aff, { description: 'No product named.' })).primary_product, 'uIP');
    const cpe: AffectedProduct[] = [
      { vendor: 'acme', product: 'alpha', origin: 'cpe' },
      { vendor: 'acme', product: 'beta', origin: 'cpe' },
    ];
    assert.equal(resolveAffected(merged(cpe, { description: 'beta is broken' })).primary_product, 'alpha');
  });
  test('the named product must come from the best source', () => {
    const r = resolveAffected(
      merged(
        [
          { vendor: 'Acme', product: 'Alpha', origin: 'cna' },
          { vendor: 'Acme', product: 'Gamma', origin: 'cna' },
          { vendor: 'Acme', product: 'Beta', origin: 'kev' },
        ],
        { description: 'Beta is broken' },
      ),
    );
    assert.equal(r.primary_product, 'Alpha');
  });
  test('entries whose vendor is no vendor keep their products; nothing at all gives nulls', () => {
    const r = resolveAffected(merged([{ vendor: 'multiple open source', product: 'uIP', origin: 'csaf' }]));
    assert.deepEqual(r.vendors, []);
    assert.equal(r.primary_vendor, null);
    assert.deepEqual(r.products, ['uIP']);
    assert.equal(r.primary_product, 'uIP');
    const none = resolveAffected(merged([]));
    assert.deepEqual(none, { vendors: [], products: [], primary_vendor: null, primary_product: null, cpe_parts: [] });
  });
  test('CPE parts only from CPE entries with a part; empty products skipped', () => {
    const r = resolveAffected(
      merged([
        { vendor: 'Acme', product: '  ', origin: 'cna' },
        { vendor: 'acme', product: 'w', origin: 'cpe', cpe_part: null },
        { vendor: 'Acme', product: 'x', origin: 'csaf', cpe_part: 'h' },
      ]),
    );
    assert.deepEqual(r.cpe_parts, []);
    assert.deepEqual(r.products, ['x', 'w']);
  });
});
