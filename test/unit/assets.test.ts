// v1 asset records (src/domain/assets.ts; docs/correlation.md §5): each field's rule and message, the privacy
// refusals (identifying field names, addresses in asset_id, vendor or product), and the record as stored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateAsset, ASSET_FIELDS } from '../../src/domain/assets.ts';

// Real names: the NVD records of test/fixtures/nvd (CVE-2023-28489, CVE-2024-3506) and the Siemens drive of the
// correlation integration test.
const DRIVE = 'SIMATIC Drive Controller CPU 1504D TF (6ES7615-4DF10-0AB0)';
const CP_CPE = 'cpe:2.3:h:siemens:cp-8031:-:*:*:*:*:*:*:*';
const ABB_CPE = 'cpe:2.3:a:abb:symphony_plus_s\\+_operations:3.3:sp1:*:*:*:*:*:*';

const MSG = {
  object: 'an asset must be an object',
  forbiddenField: 'identifying data must not be sent; nothing of this asset was stored',
  unknownField: 'field is not part of the asset record (asset_id, vendor, product, version, cpe)',
  badText: 'control characters and unpaired surrogates are not allowed (UTF-8 text only)',
  placeholder: 'placeholder value; send an empty value for unknown',
  missing: 'required field is missing',
  assetId:
    'asset_id must be a scrubbed identifier of at most 64 characters (not a hostname, IP, MAC, domain name or serial number)',
  cpe: 'cpe must be a CPE 2.3 formatted string (cpe:2.3:part:vendor:product:version:...)',
};
const address = (f: 'vendor' | 'product') => ({
  code: 'forbidden_value',
  field: f,
  message: `${f} must name the vendor's product, not a host, address or person`,
});

const base = { asset_id: 'rtu-1', vendor: 'Siemens', product: 'CP-8031' };
const errorsOf = (input: unknown) => {
  const r = validateAsset(input);
  assert.equal(r.ok, false, JSON.stringify(input));
  return r.ok ? [] : r.errors;
};
const assetOf = (input: unknown) => {
  const r = validateAsset(input);
  assert.ok(r.ok, JSON.stringify(r));
  return r.asset;
};

test('the record fields', () => {
  assert.deepEqual([...ASSET_FIELDS], ['asset_id', 'vendor', 'product', 'version', 'cpe']);
});

test('a valid asset: every field kept, trimmed and NFKC-normalised', () => {
  assert.deepEqual(
    validateAsset({ asset_id: 'drive-1', vendor: 'Siemens AG', product: DRIVE, version: 'V3.1.3', cpe: CP_CPE }),
    { ok: true, asset: { asset_id: 'drive-1', vendor: 'Siemens AG', product: DRIVE, version: 'V3.1.3', cpe: CP_CPE } },
  );
  assert.deepEqual(
    assetOf({ asset_id: '  rtu-1 ', vendor: ' Ｓｉｅｍｅｎｓ ', product: '\tCP-8031\n', version: ' CPCI85 V04 ' }),
    { asset_id: 'rtu-1', vendor: 'Siemens', product: 'CP-8031', version: 'CPCI85 V04', cpe: null },
  );
  assert.equal(assetOf({ ...base, cpe: ABB_CPE }).cpe, ABB_CPE);
  // No version typed: the CPE's version and update component are the version, as NVD's ranges read them.
  assert.equal(assetOf({ ...base, cpe: ABB_CPE }).version, '3.3 sp1');
  assert.equal(
    assetOf({ ...base, version: '', cpe: 'cpe:2.3:o:fortinet:fortios:7.2.4:*:*:*:*:*:*:*' }).version,
    '7.2.4',
  );
  assert.equal(assetOf({ ...base, version: '3.2', cpe: ABB_CPE }).version, '3.2', 'a typed version wins');
  assert.equal(assetOf({ ...base, cpe: CP_CPE }).version, null, 'a CPE version "-" states none');
  assert.equal(assetOf({ ...base, cpe: 'cpe:2.3:a:abb:x:*:*:*:*:*:*:*:*' }).version, null);
});

test('version and cpe: omitted, null or empty is unknown (null)', () => {
  for (const v of [undefined, null, '', '   ']) {
    assert.deepEqual(assetOf({ ...base, version: v, cpe: v }), { ...base, version: null, cpe: null }, String(v));
  }
  assert.deepEqual(assetOf(base), { ...base, version: null, cpe: null });
});

test('not an object: one missing_field error on asset_id', () => {
  for (const input of [null, undefined, 'rtu-1', 5, [], [base], true]) {
    assert.deepEqual(validateAsset(input), {
      ok: false,
      asset_id: null,
      errors: [{ code: 'missing_field', field: 'asset_id', message: MSG.object }],
    });
  }
});

test('field names: identifying ones are forbidden_field, other strangers unknown_field, in the order sent', () => {
  const r = validateAsset({ hostname: 'plc7', ...base, notes: 'x', ip_address: '10.0.0.7', Serial: 'S1' });
  assert.deepEqual(r, {
    ok: false,
    asset_id: 'rtu-1',
    errors: [
      { code: 'forbidden_field', field: 'hostname', message: MSG.forbiddenField },
      { code: 'unknown_field', field: 'notes', message: MSG.unknownField },
      { code: 'forbidden_field', field: 'ip_address', message: MSG.forbiddenField },
      { code: 'forbidden_field', field: 'Serial', message: MSG.forbiddenField },
    ],
  });
  assert.deepEqual(
    errorsOf({ ...base, location: '' }).map((e) => e.code),
    ['forbidden_field'],
  );
  assert.deepEqual(
    errorsOf({ ...base, vendor_name: 'Siemens' }).map((e) => `${e.code}:${e.field}`),
    ['unknown_field:vendor_name'],
  );
});

test('values: not a string, bad text, placeholder, too long; one error per field', () => {
  assert.deepEqual(errorsOf({ ...base, vendor: 5, product: ['CP-8031'], version: 3.1, cpe: {} }), [
    { code: 'invalid_value', field: 'vendor', message: 'vendor must be a string' },
    { code: 'invalid_value', field: 'product', message: 'product must be a string' },
    { code: 'invalid_value', field: 'version', message: 'version must be a string' },
    { code: 'invalid_value', field: 'cpe', message: 'cpe must be a string' },
  ]);
  assert.deepEqual(errorsOf({ ...base, asset_id: 7 }), [
    { code: 'invalid_value', field: 'asset_id', message: 'asset_id must be a string' },
  ]);
  assert.deepEqual(errorsOf({ ...base, product: 'CP\u00008031', version: 'V\ud800' }), [
    { code: 'forbidden_value', field: 'product', message: MSG.badText },
    { code: 'forbidden_value', field: 'version', message: MSG.badText },
  ]);
  assert.deepEqual(errorsOf({ ...base, vendor: 'N/A', version: ' unknown ', cpe: '-' }), [
    { code: 'placeholder_value', field: 'vendor', message: MSG.placeholder },
    { code: 'placeholder_value', field: 'version', message: MSG.placeholder },
    { code: 'placeholder_value', field: 'cpe', message: MSG.placeholder },
  ]);
  assert.deepEqual(errorsOf({ ...base, asset_id: 'TBD' }), [
    { code: 'placeholder_value', field: 'asset_id', message: MSG.placeholder },
  ]);
});

test('length: 200 characters after trimming pass, 201 do not', () => {
  const p200 = 'P'.repeat(200);
  assert.equal(assetOf({ ...base, product: `  ${p200}  ` }).product, p200);
  assert.equal(assetOf({ ...base, version: '1'.repeat(200) }).version, '1'.repeat(200));
  assert.deepEqual(errorsOf({ ...base, product: `${p200}Q` }), [
    { code: 'invalid_value', field: 'product', message: 'product is longer than 200 characters' },
  ]);
  assert.deepEqual(errorsOf({ ...base, version: '1'.repeat(201) }), [
    { code: 'invalid_value', field: 'version', message: 'version is longer than 200 characters' },
  ]);
});

test('asset_id: required, at most 64 characters, not identifying', () => {
  for (const id of [undefined, null, '', '  ']) {
    assert.deepEqual(validateAsset({ ...base, asset_id: id }), {
      ok: false,
      asset_id: null,
      errors: [{ code: 'missing_field', field: 'asset_id', message: MSG.missing }],
    });
  }
  const id64 = `a${'-0'.repeat(31)}b`;
  assert.equal(id64.length, 64);
  assert.equal(assetOf({ ...base, asset_id: id64 }).asset_id, id64);
  for (const id of [`${id64}c`, '10.0.0.7', 'aa:bb:cc:dd:ee:ff', 'plc7.plant.example', 'host7.']) {
    assert.deepEqual(
      validateAsset({ ...base, asset_id: id }),
      { ok: false, asset_id: null, errors: [{ code: 'forbidden_value', field: 'asset_id', message: MSG.assetId }] },
      id,
    );
  }
});

test('vendor and product: required', () => {
  assert.deepEqual(errorsOf({ asset_id: 'rtu-1' }), [
    { code: 'missing_field', field: 'vendor', message: MSG.missing },
    { code: 'missing_field', field: 'product', message: MSG.missing },
  ]);
  assert.deepEqual(errorsOf({ ...base, vendor: ' ' }), [
    { code: 'missing_field', field: 'vendor', message: MSG.missing },
  ]);
  assert.deepEqual(errorsOf({ ...base, product: null }), [
    { code: 'missing_field', field: 'product', message: MSG.missing },
  ]);
});

test('vendor and product: an IPv4 address, a MAC or an e-mail address inside is refused; dotted product names are not', () => {
  for (const product of [
    'Node.js',
    'ASP.NET Core',
    'SICAM A8000 CP-8050 1.2.3',
    'Firmware a1.2.3.4',
    'Firmware 1.2.3.4567',
    'ops @ plant.example',
    'user@host.c',
    'DES-1210-28 00:1a:2b:3c:4d',
    '00:1a:2b:3c:4d:5e7',
    'x00:1a:2b:3c:4d:5e',
    DRIVE,
    'a@b',
  ]) {
    assert.equal(assetOf({ ...base, product }).product, product, product);
  }
  for (const product of [
    'Gateway 10.0.0.7',
    '10.0.0.7',
    'Firmware 1.2.3.4',
    'Firmware 255.255.255.255',
    'Unit 00:1a:2b:3c:4d:5e',
    '00-1A-2B-3C-4D-5E',
    'ops@plant.example',
    'OPS@PLANT.EXAMPLE',
    'x.y@plant.co',
  ]) {
    assert.deepEqual(errorsOf({ ...base, product }), [address('product')], product);
  }
  assert.deepEqual(errorsOf({ ...base, vendor: 'admin@siemens.com', product: '192.0.2.1' }), [
    address('vendor'),
    address('product'),
  ]);
});

test('vendor and product: a dotted quad joined to a package release is a version, not an address', () => {
  // Real product names of the snapshot's MSRC documents, refused before as holding an IPv4 address.
  for (const product of [
    'cbl2 kernel 5.15.153.1-2 on CBL Mariner 2.0',
    'azl3 kernel-hwe 6.12.0.0-1 on Azure Linux 3.0',
    'kernel-5.10.57.1-1.cm1.aarch64.rpm on CBL Mariner 1.0 ARM',
    'openjdk8-debuginfo-1.8.0.332-1.cm1.aarch64.rpm on CBL Mariner 1.0 ARM',
  ]) {
    assert.equal(assetOf({ ...base, product }).product, product, product);
  }
  // The joins are exact: a hyphen before a digit or letter after the quad, a hyphen after a letter before it.
  for (const product of [
    'Gateway 10.0.0.7-',
    'Gateway 10.0.0.7 -2',
    'Gateway 10.0.0.7-x',
    'Range 10.0.0.7-10.0.0.9',
    'Gateway -10.0.0.7',
    'Gateway 7-10.0.0.7',
    'Gateway x -10.0.0.7',
    'kernel 5.15.153.1-2 at 10.0.0.7',
    'Mono Framework Version 5.0.0.48',
  ]) {
    assert.deepEqual(errorsOf({ ...base, product }), [address('product')], product);
  }
  assert.deepEqual(
    errorsOf({ ...base, vendor: 'Vendor 10.0.0.7-2 ops@plant.example' }),
    [address('vendor')],
    'the e-mail is still an address',
  );
});

test('vendor and product: a product name the catalog lists is accepted as listed; a vendor never is', () => {
  const listed = new Set(['mono framework version 5.0.0.48', '10.0.0.7']);
  const known = (n: string) => listed.has(n.toLowerCase());
  assert.equal(validateAsset({ ...base, product: 'Mono Framework Version 5.0.0.48' }, known).ok, true);
  assert.equal(validateAsset({ ...base, product: 'MONO framework version 5.0.0.48' }, known).ok, true, 'case aside');
  assert.deepEqual(
    validateAsset({ ...base, product: 'Mono Framework Version 5.0.0.49' }, known),
    { ok: false, asset_id: 'rtu-1', errors: [address('product')] },
    'another quad is not listed',
  );
  assert.deepEqual(validateAsset({ ...base, vendor: '10.0.0.7' }, known), {
    ok: false,
    asset_id: 'rtu-1',
    errors: [address('vendor')],
  });
  assert.deepEqual(
    validateAsset({ ...base, product: 'ops@plant.example' }, () => true),
    { ok: false, asset_id: 'rtu-1', errors: [address('product')] },
    'a MAC or e-mail address is refused whatever the catalog says',
  );
});

test('version: a MAC or an e-mail address inside is refused; dotted quads and other versions are not', () => {
  // The version is scanned too: unscanned, "admin@plant.example" or a MAC would be answered, echoed and stored.
  const refused = {
    code: 'forbidden_value',
    field: 'version',
    message: "version must name the product's version, not a host, address or person",
  };
  for (const version of [
    'admin@plant.example',
    'V2.9.2 (ops@plant.example)',
    '00:1B:1B:12:34:56',
    'V2.9.2 00-1b-1b-12-34-56',
  ]) {
    assert.deepEqual(errorsOf({ ...base, version }), [refused], version);
  }
  for (const version of [
    '10.0.17763.4974',
    '2.2.0.3',
    'V2.9.2',
    '1.0.0-rc1',
    'V3.0 SP1',
    '8u3',
    '12.4(24)T',
    '3ab7b6ac5d82',
    'a@b',
  ]) {
    assert.equal(assetOf({ ...base, version }).version, version, version);
  }
});

test('a tab or line break inside a field, or a bidirectional control, is refused; around the value it is trimmed', () => {
  // "rtu\t1" is no asset_id and "V2.9.2\nX" no version (accepted, every CVE of it would need review).
  for (const [f, v] of [
    ['asset_id', 'rtu\t1'],
    ['asset_id', 'rtu\u202e1'],
    ['vendor', 'Sie\nmens'],
    ['product', 'CP\r8031'],
    ['version', 'V2.9.2\nX'],
    ['cpe', 'cpe:2.3:h:siemens:cp-8031:-:*:*:*:*:*:*:*\tx'],
  ]) {
    const r = validateAsset({ ...base, [f]: v });
    assert.deepEqual(
      r.ok ? [] : r.errors,
      [{ code: 'forbidden_value', field: f, message: MSG.badText }],
      `${f} ${JSON.stringify(v)}`,
    );
  }
  assert.deepEqual(assetOf({ ...base, asset_id: '\trtu-1\r\n', version: ' V2.9.2\n' }), {
    ...base,
    version: 'V2.9.2',
    cpe: null,
  });
  const ls = validateAsset({ ...base, product: 'CP\u20288031' });
  assert.deepEqual(
    ls.ok ? [] : ls.errors,
    [{ code: 'forbidden_value', field: 'product', message: MSG.badText }],
    'U+2028 is a line break',
  );
});

test('an invisible character in asset_id is refused (two look-alike assets); in a product name it is no identifier', () => {
  const r = validateAsset({ ...base, asset_id: 'rtu\u200b1' });
  assert.deepEqual(r.ok ? [] : r.errors, [
    {
      code: 'forbidden_value',
      field: 'asset_id',
      message:
        'invisible characters (soft hyphen, zero-width space, word joiner, byte order mark) are not allowed in an identifier',
    },
  ]);
  assert.equal(validateAsset({ ...base, asset_id: 'rtu\u00ad1' }).ok, false);
  assert.equal(validateAsset({ ...base, asset_id: 'میز\u200cکار' }).ok, true);
});

test('cpe: must parse as CPE 2.3', () => {
  for (const cpe of ['nope', 'cpe:/h:siemens:cp-8031:-', 'cpe:2.3:x:siemens:cp-8031:-', 'cpe:2.3:h:siemens']) {
    assert.deepEqual(errorsOf({ ...base, cpe }), [{ code: 'invalid_cpe', field: 'cpe', message: MSG.cpe }], cpe);
  }
});

test("an error on a field stops that field's later checks, not the others'; a good asset_id is still reported", () => {
  assert.deepEqual(validateAsset({ asset_id: 'rtu-1', vendor: 5, product: 'N/A', cpe: 7 }), {
    ok: false,
    asset_id: 'rtu-1',
    errors: [
      { code: 'invalid_value', field: 'vendor', message: 'vendor must be a string' },
      { code: 'placeholder_value', field: 'product', message: MSG.placeholder },
      { code: 'invalid_value', field: 'cpe', message: 'cpe must be a string' },
    ],
  });
  assert.deepEqual(validateAsset({ asset_id: 5, vendor: 'Siemens', product: '' }), {
    ok: false,
    asset_id: null,
    errors: [
      { code: 'invalid_value', field: 'asset_id', message: 'asset_id must be a string' },
      { code: 'missing_field', field: 'product', message: MSG.missing },
    ],
  });
  // A field name that is both forbidden and a record field cannot occur; a forbidden extra field does not hide the
  // record fields' own errors.
  assert.deepEqual(
    errorsOf({ ...base, vendor: '', hostname: 'plc7' }).map((e) => `${e.code}:${e.field}`),
    ['forbidden_field:hostname', 'missing_field:vendor'],
  );
  assert.deepEqual(
    errorsOf({ ...base, cpe: 'nope', version: 'N/A' }).map((e) => `${e.code}:${e.field}`),
    ['placeholder_value:version', 'invalid_cpe:cpe'],
  );
});
