// Which products an asset's answer names (services/asset-correlation.ts matchedProducts): one per stored vendor
// slug and product key, with the strongest match of its groups; among groups of that strength the first spelling in
// code-unit order names it, whatever order the rows came in; products whose CVEs are not in the corpus are left out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { matchedProducts, type MatchedGroup } from '../../src/services/correlation-products.ts';
import type { StoredRange } from '../../src/store/ranges.ts';
import type { ProductMatch } from '../../src/domain/product-match.ts';

function group(
  vendor: string,
  product: string,
  slug: string,
  key: string,
  cves: string[],
  match: ProductMatch,
): MatchedGroup {
  const rows = cves.map(
    (cve_id, ord) =>
      ({
        cve_id,
        ord,
        source: 'nvd',
        source_key: '',
        vendor_slug: slug,
        product_key: key,
        cpe_vendor: null,
        cpe_product: null,
        base_key: null,
        range: {
          source: 'nvd',
          vendor,
          product,
          cpe: null,
          status: 'affected',
          version: null,
          start: null,
          end: null,
          versionType: null,
          changes: [],
          defaultStatus: null,
          fixedIn: null,
          runningOn: null,
          text: null,
        },
      }) as StoredRange,
  );
  return { group: { key: `${vendor}/${product}`, rows }, match };
}
const exact = (basis: string): ProductMatch => ({ confidence: 'exact', basis });
const family = (basis: string): ProductMatch => ({ confidence: 'family', basis });
const cards = new Map([
  ['CVE-2024-0001', {}],
  ['CVE-2024-0002', {}],
]);

test('two spellings of one stored product: the first in code-unit order names it, in either order of the groups', () => {
  const token = group('mitsubishi_electric', 'fx3u', 'mitsubishielectric', 'fx3u', ['CVE-2024-0001'], exact('token'));
  const human = group('Mitsubishi Electric', 'FX3U', 'mitsubishielectric', 'fx3u', ['CVE-2024-0002'], exact('human'));
  const want = [{ vendor: 'Mitsubishi Electric', product: 'FX3U', confidence: 'exact', basis: 'human' }];
  assert.deepEqual(matchedProducts([token, human], cards), want);
  assert.deepEqual(matchedProducts([human, token], cards), want);
});

test('a stronger match wins over the name order; different products are listed apart, by vendor and product', () => {
  const weak = group('Acme', 'PLC', 'acme', 'plc', ['CVE-2024-0001'], family('family'));
  const strong = group('acme', 'plc', 'acme', 'plc', ['CVE-2024-0002'], exact('exact'));
  const other = group('Acme', 'HMI', 'acme', 'hmi', ['CVE-2024-0002'], exact('hmi'));
  assert.deepEqual(
    matchedProducts([weak, other, strong], cards).map((p) => `${p.vendor}/${p.product}/${p.confidence}`),
    ['Acme/HMI/exact', 'acme/plc/exact'],
  );
});

test('a product whose CVEs are not in the corpus is not listed', () => {
  const gone = group('Acme', 'RTU', 'acme', 'rtu', ['CVE-1999-0001'], exact('gone'));
  const kept = group('Acme', 'RTU2', 'acme', 'rtu2', ['CVE-1999-0001', 'CVE-2024-0001'], exact('kept'));
  assert.deepEqual(
    matchedProducts([gone, kept], cards).map((p) => p.product),
    ['RTU2'],
  );
});
