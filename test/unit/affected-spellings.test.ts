// resolveAffected / namedIn (src/domain/affected.ts): the spelling rules left open by affected.test.ts (docs/quality.md
// "Open survivors"): parenthetical clean-up, CPE-only word forms of vendors and products, entries without a vendor
// next to vendor entries, the 20-product cap of the description match, Unicode case folding of the product key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
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

test('namedIn: the trailing parenthetical goes with or without a blank before it and with blanks after it; the name is trimmed', () => {
  assert.equal(namedIn('A flaw in the uIP stack', 'uIP(EOL)'), true);
  assert.equal(namedIn('A flaw in uIP 1.0', 'uIP (EOL) '), true);
  assert.equal(namedIn('A flaw in uIP 1.0', ' uIP '), true);
  assert.equal(namedIn('A flaw in OS code', '  OS  '), false, 'two letters after trimming');
  assert.equal(namedIn('A flaw in Foo', 'Foo'), true, 'three letters are enough');
  assert.equal(namedIn('A flaw in (EOL) stuff', '(EOL)'), false, 'nothing left once the parenthetical is gone');
});

test('CPE vendor tokens are title-cased, other sources keep the vendor as written', () => {
  const cpe = resolveAffected(
    merged([{ vendor: 'zyxtron_industrial', product: 'gate_way', origin: 'cpe', cpe_part: 'h' }]),
  );
  assert.deepEqual(
    cpe.vendors.map((v) => [v.slug, v.name]),
    [['zyxtronindustrial', 'Zyxtron Industrial']],
  );
  assert.equal(cpe.primary_product, 'gate way');
  const kev = resolveAffected(merged([{ vendor: 'zyxtron_industrial', product: 'Gate_Way', origin: 'kev' }]));
  assert.deepEqual(
    kev.vendors.map((v) => [v.slug, v.name]),
    [['zyxtronindustrial', 'zyxtron_industrial']],
  );
  assert.deepEqual(kev.products, ['Gate_Way'], 'underscores stay in a product named by words');
  assert.equal(kev.primary_product, 'Gate_Way');
});

test('the product key folds case as lower case does: STRASSE and Straße stay two products', () => {
  const r = resolveAffected(
    merged([
      { vendor: 'Acme', product: 'Straße', origin: 'cna' },
      { vendor: 'Acme', product: 'STRASSE', origin: 'cna' },
      { vendor: 'Acme', product: 'straße', origin: 'csaf' },
    ]),
  );
  assert.deepEqual(r.products, ['Straße', 'STRASSE']);
});

test("an entry without a vendor next to vendor entries: its product is listed, the primary product is the vendor's", () => {
  const r = resolveAffected(
    merged([
      { vendor: 'multiple open source', product: 'uIP', origin: 'cna' },
      { vendor: 'Acme', product: 'Widget', origin: 'kev' },
    ]),
  );
  assert.deepEqual(
    r.vendors.map((v) => v.slug),
    ['acme'],
  );
  assert.deepEqual(r.products, ['uIP', 'Widget']);
  assert.equal(r.primary_product, 'Widget');
  const noProduct = resolveAffected(
    merged([
      { vendor: 'multiple open source', product: 'uIP', origin: 'cna' },
      { vendor: 'Acme', product: null, origin: 'kev' },
    ]),
  );
  assert.equal(noProduct.primary_vendor?.slug, 'acme');
  assert.equal(noProduct.primary_product, 'uIP', 'the vendor names no product: any product');
});

test('the description is matched against the first 20 products of the best source only', () => {
  const products = Array.from({ length: 21 }, (_, k) => `Module${String.fromCharCode(65 + k)}x`);
  const aff = products.map((product): AffectedProduct => ({ vendor: 'Siemens', product, origin: 'csaf' }));
  assert.equal(
    resolveAffected(merged(aff, { description: `A flaw in ${products[19]}.` })).primary_product,
    products[19],
  );
  assert.equal(
    resolveAffected(merged(aff, { description: `A flaw in ${products[20]}.` })).primary_product,
    products[0],
  );
});

test("the primary product is spelled as products lists it, when the primary vendor's entry spells it otherwise", () => {
  // CVE-2024-49314: the CNA names the product under a vendor spelling no catalog vendor has, the CPE under the
  // vendor; products listed the CNA's spelling and primary_product the CPE token's, so it was not in products.
  const r = resolveAffected(
    merged([
      { vendor: '酱茄', product: 'JiangQie Free Mini Program', origin: 'cna' },
      { vendor: 'zhuige', product: 'jiangqie_free_mini_program', origin: 'cpe', cpe_part: 'a' },
    ]),
  );
  assert.deepEqual(
    r.vendors.map((v) => v.slug),
    ['zhuige'],
  );
  assert.deepEqual(r.products, ['JiangQie Free Mini Program']);
  assert.equal(r.primary_product, 'JiangQie Free Mini Program');
  assert.ok(r.products.includes(r.primary_product));
});
