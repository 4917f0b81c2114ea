// Watch entities (src/domain/watchlist.ts; docs/watchlists.md): the product key, the id forms per entity type and
// the match of a watch entry against a CVE's facts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  catalogProductKey,
  cveNamesProduct,
  cveProductKeys,
  entityKey,
  productKey,
  protocolName,
  PRODUCT_PAIRS_MAX,
  WATCH_ENTITY_TYPES,
} from '../../src/domain/watchlist.ts';
import { ICS_PROTOCOLS } from '../../src/domain/cve-document.ts';

test('productKey: lowercase ASCII letters and digits, one "-" per run of anything else, none at the ends', () => {
  assert.equal(productKey('SICAM A8000'), 'sicam-a8000');
  assert.equal(productKey('SIMATIC S7-1200'), 'simatic-s7-1200');
  assert.equal(productKey('ASP.NET Core'), 'asp-net-core');
  assert.equal(productKey('SCALANCE  X-200  (all versions)'), 'scalance-x-200-all-versions');
  assert.equal(productKey(' -Node.js- '), 'node-js');
  assert.equal(productKey('(TN-5900)'), 'tn-5900');
  assert.equal(productKey('Ünïcode Bäse'), 'n-code-b-se');
  assert.equal(productKey('日本語'), '');
  assert.equal(productKey('---'), '');
  assert.equal(productKey(''), '');
  assert.equal(productKey('a'), 'a');
});

test('protocolName: the display name of each ICS protocol, the key itself otherwise', () => {
  assert.equal(protocolName('opc-ua'), 'OPC UA');
  assert.equal(protocolName('ethernet-ip'), 'EtherNet/IP');
  assert.equal(protocolName('iec-61850'), 'IEC 61850');
  assert.equal(protocolName('modbus'), 'Modbus');
  assert.equal(protocolName('zigbee'), 'zigbee');
  assert.equal(protocolName('Modbus'), 'Modbus');
});

const VENDOR_MSG = "must be a vendor slug from GET /api/v1/catalog/vendors, or the vendor's name";
const PRODUCT_MSG = 'must be a product id (<vendor-slug>/<product-key>) from GET /api/v1/catalog/products';

test('entityKey vendor: a catalog slug as it is; any other spelling read as the catalog reads a vendor name', () => {
  for (const id of ['siemens', 'schneider-electric', '3s-smart', 'a', 'abb-'])
    assert.deepEqual(entityKey('vendor', id), { ok: true, key: id }, id);
  const spellings: [string, string][] = [
    ['Siemens', 'siemens'],
    ['SIEMENS', 'siemens'],
    ['sieMens', 'siemens'],
    ['  siemens ', 'siemens'],
    ['Siemens AG', 'siemens'],
    ['siemens_ag', 'siemens'],
    ['Schneider Electric', 'schneider-electric'],
    ['SCHNEIDER_ELECTRIC', 'schneider-electric'],
    ['Rockwell', 'rockwell-automation'],
    // A vendor outside the alias table: its name's letters and digits, as the catalog derives its slug.
    ['Acme Widgets Inc.', 'acmewidgets'],
    ['abb_x', 'abbx'],
    ['-abb', 'abb'],
  ];
  for (const [id, key] of spellings) assert.deepEqual(entityKey('vendor', id), { ok: true, key }, id);
  for (const id of ['', '   ', '!', '!?', 'é', 'n/a', 'Multiple vendors']) {
    assert.deepEqual(entityKey('vendor', id), { ok: false, message: VENDOR_MSG }, id);
  }
});

test('entityKey product: <vendor>/<product>, the vendor as entityKey vendor reads it, the product as its product key', () => {
  for (const id of ['siemens/sicam-a8000', 'moxa/tn-5900', 'abb-/x', '3s/1', 'siemens/simatic-s7-1200']) {
    assert.deepEqual(entityKey('product', id), { ok: true, key: id }, id);
  }
  const spellings: [string, string][] = [
    ['Siemens/SICAM A8000', 'siemens/sicam-a8000'],
    ['siemens/SICAM', 'siemens/sicam'],
    ['siemens/sicam_a8000', 'siemens/sicam-a8000'],
    ['siemens/sicam--a8000', 'siemens/sicam-a8000'],
    ['siemens/-sicam', 'siemens/sicam'],
    ['Siemens AG / SICAM A8000 ', 'siemens/sicam-a8000'],
    // The first "/" ends the vendor; a product name may hold one.
    ['siemens/SIMATIC S7-1500/ET 200SP', 'siemens/simatic-s7-1500-et-200sp'],
    ['Schneider Electric/Modicon M340', 'schneider-electric/modicon-m340'],
  ];
  for (const [id, key] of spellings) assert.deepEqual(entityKey('product', id), { ok: true, key }, id);
  for (const id of ['siemens', 'siemens/', '/sicam', 'siemens/---', '!!/sicam', 'siemens/日本語', '']) {
    assert.deepEqual(entityKey('product', id), { ok: false, message: PRODUCT_MSG }, id);
  }
});

test('entityKey protocol: one of the ten, in any case and punctuation', () => {
  const spellings: [string, string][] = [
    ['modbus', 'modbus'],
    ['Modbus', 'modbus'],
    ['MODBUS', 'modbus'],
    ['modbus ', 'modbus'],
    ['ethernet-ip', 'ethernet-ip'],
    ['EtherNet/IP', 'ethernet-ip'],
    ['ethernet_ip', 'ethernet-ip'],
    ['OPC UA', 'opc-ua'],
    ['opcua', 'opc-ua'],
    ['IEC 61850', 'iec-61850'],
    ['iec61850', 'iec-61850'],
    ['DNP3', 'dnp3'],
  ];
  for (const [id, key] of spellings) assert.deepEqual(entityKey('protocol', id), { ok: true, key }, id);
  const msg =
    'must be one of modbus, dnp3, opc-ua, iec-61850, profinet, ethernet-ip, bacnet, ssh, http, ftp (GET /api/v1/catalog/protocols)';
  for (const id of ['zigbee', '', 'modbus tcp', 'opc'])
    assert.deepEqual(entityKey('protocol', id), { ok: false, message: msg }, id);
});

test('entityKey cve: any case, trimmed, stored upper-case', () => {
  assert.deepEqual(entityKey('cve', 'cve-2023-28489'), { ok: true, key: 'CVE-2023-28489' });
  assert.deepEqual(entityKey('cve', 'CVE-2024-12345'), { ok: true, key: 'CVE-2024-12345' });
  assert.deepEqual(entityKey('cve', ' CVE-2024-1234 '), { ok: true, key: 'CVE-2024-1234' });
  for (const id of ['CVE-2024-123', 'CVE-24-1234', '2024-1234', 'CVE 2024 1234']) {
    assert.deepEqual(entityKey('cve', id), { ok: false, message: 'must be a CVE id (CVE-YYYY-NNNN)' }, id);
  }
});

test('entityKey: each type judges the same id by its own form', () => {
  assert.deepEqual(
    WATCH_ENTITY_TYPES.map((t) => entityKey(t, 'modbus').ok),
    [true, false, true, false],
  );
  assert.deepEqual(
    WATCH_ENTITY_TYPES.map((t) => entityKey(t, 'siemens/x').ok),
    [true, true, false, false],
  );
  assert.deepEqual(
    WATCH_ENTITY_TYPES.map((t) => entityKey(t, 'cve-2024-1234').ok),
    [true, false, false, true],
  );
});

test('entityKey: every spelling of a key gives that key (case, separators, surrounding space)', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...ICS_PROTOCOLS),
      fc.boolean(),
      fc.constantFrom('', ' ', '_', '/'),
      (p, upper, sep) => {
        const spelled = ` ${(upper ? p.toUpperCase() : p).replace(/-/g, sep)} `;
        assert.deepEqual(entityKey('protocol', spelled), { ok: true, key: p });
      },
    ),
  );
  fc.assert(
    fc.property(fc.stringMatching(/^[a-z0-9]+( [a-z0-9]+){0,3}$/), fc.boolean(), (name, upper) => {
      const key = productKey(name);
      const spelled = `Siemens/${upper ? name.toUpperCase() : name.replace(/ /g, '_')}`;
      assert.deepEqual(entityKey('product', spelled), { ok: true, key: `siemens/${key}` });
    }),
  );
});

test('cveProductKeys: a watched product id is named by a CVE only with its vendor and one of its spellings', () => {
  const has = (id: string, vendors: string[], products: string[]) =>
    cveNamesProduct(cveProductKeys(vendors, products), id);
  // Two vendors, two products: each product under each vendor.
  assert.equal(has('siemens/gateway', ['siemens', 'moxa'], ['Gateway', 'TN-4900']), true);
  assert.equal(has('moxa/tn-4900', ['siemens', 'moxa'], ['Gateway', 'TN-4900']), true);
  assert.equal(has('abb/gateway', ['siemens', 'moxa'], ['Gateway', 'TN-4900']), false, 'another vendor');
  assert.equal(has('siemens/sicam-a8000', ['siemens', 'moxa'], ['Gateway', 'TN-4900']), false, 'another product');
  assert.equal(has('siemens/siemens', ['siemens', 'moxa'], ['Gateway']), false);
  // Spellings with and without the vendor in front, or with "firmware" after, are one catalog product.
  assert.equal(has('linux/kernel', ['linux'], ['Linux Kernel']), true);
  assert.equal(has('linux/kernel', ['linux'], ['kernel']), true);
  assert.equal(has('linux/kernel', ['debian'], ['Linux Kernel']), false, 'another vendor');
  assert.equal(has('dlink/dap-2622', ['dlink'], ['dap-2622_firmware']), true);
});

test("cveProductKeys past PRODUCT_PAIRS_MAX pairs: a name once unless its key starts with a vendor; a CVE names exactly its vendors paired with its names' catalog keys, in either form (property)", () => {
  // Up to the limit, every vendor with every name (the form of migration 1180).
  assert.deepEqual(cveProductKeys(['acme-tools', 'b'], ['Acme Tools X1', 'x1 firmware', 'é']), [
    'acme-tools/x1',
    'b/acme-tools-x1',
    'b/x1',
  ]);
  // Past it: 3 vendors × 400 names. Names with a vendor in front stay paired; the others are keyed once, with the
  // vendors alone.
  const names = ['Linux Kernel', ...Array.from({ length: 399 }, (_, i) => `Plugin ${i}`)];
  const big = cveProductKeys(['linux', 'debian', 'wp'], names);
  assert.equal(big.length, 3 + 399 + 3);
  assert.deepEqual(
    big.filter((k) => k.includes('/')),
    ['debian/', 'debian/linux-kernel', 'linux/', 'linux/kernel', 'wp/', 'wp/linux-kernel'],
  );
  assert.deepEqual(cveProductKeys([], ['Linux Kernel']), [], 'no vendor: no product id');
  // The bound: 2 vendors × 500 names (1,000 pairs) stay paired; one name more is compact. Names spelled twice count once.
  const numbered = (k: number) => Array.from({ length: k }, (_, i) => `Plugin ${i}`);
  const atLimit = cveProductKeys(['a', 'b'], [...numbered(500), 'PLUGIN 0']);
  assert.equal(PRODUCT_PAIRS_MAX, 1000);
  assert.equal(atLimit.length, 1000);
  assert.ok(atLimit.every((k) => /^[ab]\/plugin-\d+$/.test(k)));
  const past = cveProductKeys(['a', 'b'], numbered(501));
  assert.equal(past.length, 501 + 2);
  assert.deepEqual(
    past.filter((k) => k.includes('/')),
    ['a/', 'b/'],
  );
  // The oracle: every vendor with every name's catalog key.
  const pairs = (vendors: string[], products: string[]) =>
    new Set(
      vendors.flatMap((v) =>
        products
          .map((p) => catalogProductKey(p, v))
          .filter((k) => k)
          .map((k) => `${v}/${k}`),
      ),
    );
  const word = fc.constantFrom('acme', 'acme-tools', 'tools', 'x1', 'firmware', 'b', 'kernel', 'b-x1');
  const name = fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join(' '));
  const slug = fc.constantFrom('acme', 'acme-tools', 'b', 'x1', 'kernel');
  // Many numbered names push some cases past the limit, so both forms are checked.
  const many = fc.integer({ min: 0, max: 600 }).map((n) => Array.from({ length: n }, (_, i) => `n${i}`));
  fc.assert(
    fc.property(
      fc.uniqueArray(slug, { maxLength: 3 }),
      fc.array(name, { maxLength: 4 }),
      many,
      fc.array(fc.tuple(slug, name), { maxLength: 6 }),
      (vendors, named, filler, asked) => {
        const products = [...named, ...filler];
        const keys = cveProductKeys(vendors, products);
        const truth = pairs(vendors, products);
        for (const id of [...truth].slice(0, 50).concat(asked.map(([v, p]) => `${v}/${productKey(p)}`))) {
          assert.equal(
            cveNamesProduct(keys, id),
            truth.has(id),
            `${id} of ${vendors} / ${named}: ${keys.slice(0, 20)}`,
          );
        }
      },
    ),
    { numRuns: 300 },
  );
});

test('catalogProductKey: without the vendor\'s slug in front and without a trailing "firmware", when something remains', () => {
  const cases: [string, string, string][] = [
    ['Linux Kernel', 'linux', 'kernel'],
    ['kernel', 'linux', 'kernel'],
    ['Microsoft Edge', 'microsoft', 'edge'],
    ['Oracle VM VirtualBox', 'oracle', 'vm-virtualbox'],
    ['dap-2622_firmware', 'dlink', 'dap-2622'],
    ['WSA8835 Firmware', 'qualcomm', 'wsa8835'],
    ['Rockwell Automation FactoryTalk View', 'rockwell-automation', 'factorytalk-view'],
    ['Linux', 'linux', 'linux'],
    ['Firmware', 'acme', 'firmware'],
    ['linux-firmware', 'linux', 'firmware'],
    ['Linuxfoo Kernel', 'linux', 'linuxfoo-kernel'],
    ['Firmware Update Tool', 'acme', 'firmware-update-tool'],
    ['SICAM A8000', 'siemens', 'sicam-a8000'],
    ['Siemens', 'siemens', 'siemens'],
    ['', 'siemens', ''],
  ];
  for (const [name, vendor, key] of cases) assert.equal(catalogProductKey(name, vendor), key, `${vendor} / ${name}`);
});

test('cveProductKeys up to PRODUCT_PAIRS_MAX pairs: each vendor with each product name under the catalog key, distinct, in byte order, keyless names left out', () => {
  assert.deepEqual(cveProductKeys([], ['SICAM A8000']), []);
  assert.deepEqual(cveProductKeys(['siemens'], []), []);
  // One product spelled three ways is one id; a name with no ASCII letter or digit has none.
  assert.deepEqual(cveProductKeys(['siemens'], ['SICAM A8000', 'Siemens SICAM A8000 Firmware', 'sicam_a8000', 'ü']), [
    'siemens/sicam-a8000',
  ]);
  // Two vendors: every pairing, each keyed under its own vendor (only "acme-" is dropped for acme).
  assert.deepEqual(cveProductKeys(['zeta', 'acme'], ['Acme Widget', 'Gizmo firmware']), [
    'acme/gizmo',
    'acme/widget',
    'zeta/acme-widget',
    'zeta/gizmo',
  ]);
  // The vendor's slug alone, or "firmware" alone, is a key of its own.
  assert.deepEqual(cveProductKeys(['acme'], ['Acme', 'Firmware', 'acme firmware']), ['acme/acme', 'acme/firmware']);
  // Byte order, not locale order: digits before letters, '-' before digits.
  assert.deepEqual(cveProductKeys(['v'], ['b', 'a-1', 'a1', '9']), ['v/9', 'v/a-1', 'v/a1', 'v/b']);
});
