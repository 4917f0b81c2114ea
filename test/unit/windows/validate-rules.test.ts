// Per-host validation (spec §2.6, §4.2 "Per-host validation"), rule by rule: every error is asserted whole (code,
// field, exact message) and in order, with a case on each side of every boundary. The base record is the README
// sample row (docs/windows-collector.md), a real Windows Server 2019 host as the collector reports it.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { csvRowToHostRecord, validateHost } from '../../../src/domain/windows/validate.ts';
import { identifyingSoftwareHosts, validateSoftware } from '../../../src/domain/windows/validate-software.ts';
import { isForbiddenFieldName, isPlaceholder, looksIdentifying } from '../../../src/domain/windows/field-checks.ts';
import type { HostError, WindowsHost } from '../../../src/domain/windows/host-record.ts';

const GOOD: Record<string, unknown> = {
  asset_id: '5f0c1e9a7b2d44e08c3a6f1d2b9e7a41',
  os_product: 'Windows Server 2019 Datacenter',
  edition_id: 'ServerDatacenter',
  display_version: '1809',
  os_build: '10.0.17763.8755',
  architecture: 'x64',
  installation_type: 'Server',
  installed_kbs: ['KB5087538', 'KB5086096'],
  kb_source: 'Get-HotFix',
  esu_enrolled: '',
  collected_at: '2026-06-15T08:00:00Z',
};

const M = {
  forbiddenField: 'identifying data must not be sent; nothing of this host was stored',
  unknownField: 'field is not part of the Windows host record (spec §2.6)',
  control: 'control characters and unpaired surrogates are not allowed (UTF-8 text only)',
  placeholder: 'placeholder value; send an empty value for unknown',
  missing: 'required field is missing',
  assetId:
    'asset_id must be a scrubbed identifier of at most 64 characters (not a hostname, IP, MAC, domain name or serial number)',
  assetIdType: 'asset_id must be a string',
  product:
    'os_product must be the Windows ProductName as the host reports it (e.g. Windows Server 2019 Datacenter), nothing else',
  productType: 'os_product must be a string',
  edition:
    'edition_id must be a Windows EditionID (e.g. ServerDatacenter, ServerStandard, Enterprise, EnterpriseS, Professional)',
  editionType: 'edition_id must be a string',
  display: 'display_version must be a DisplayVersion (e.g. 22H2) or a ReleaseId (e.g. 1809)',
  displayType: 'display_version must be a string',
  buildType: 'os_build must be a string of digits and dots',
  build: 'os_build must be digits and dots: 10.0.<CurrentBuild>.<UBR>',
  buildRange:
    'os_build is not a Windows build: major and minor go to 255, CurrentBuild to 65535 and the UBR to 4294967295',
  bare: 'os_product is only "Windows" and there is no os_build; send the ProductName and the build',
  arch: 'architecture must be x64, x86 or arm64',
  inst: 'installation_type must be Server, Server Core or Client',
  instMissing: 'a server edition needs installation_type (Server or Server Core)',
  kbList: 'installed_kbs must be a list of KB numbers',
  kbPlaceholder: 'placeholder value in the KB list; send an empty list for none',
  kb: 'each KB must be KB followed by digits',
  kbSourceType: 'kb_source must be a string',
  kbSource:
    'kb_source must describe the method only, in at most 200 characters (no paths, hosts, addresses, URLs or e-mail addresses)',
  kbSourceMissing: 'installed_kbs needs kb_source (how the list was collected)',
  esu: 'esu_enrolled must be yes or no',
  at: 'collected_at must be ISO 8601 with a time zone, e.g. 2026-06-15T08:00:00Z',
  atType: 'collected_at must be an ISO 8601 string',
} as const;

const e = (code: HostError['code'], field: string, message: string): HostError => ({ code, field, message });

/** The errors of a refused record (fails the test when it is accepted). */
function refused(rec: unknown): { asset_id: string | null; errors: HostError[] } {
  const v = validateHost(rec);
  if (v.ok) assert.fail(`accepted: ${JSON.stringify(rec)}`);
  return { asset_id: v.asset_id, errors: v.errors };
}
const errorsOf = (rec: unknown) => refused(rec).errors;

/** The host of an accepted record (fails the test when it is refused). */
function accepted(rec: unknown): { host: WindowsHost; warnings: string[] } {
  const v = validateHost(rec);
  if (!v.ok) assert.fail(`refused: ${JSON.stringify(v.errors)}`);
  return { host: v.host, warnings: v.warnings };
}

const without = (...fields: string[]) => Object.fromEntries(Object.entries(GOOD).filter(([k]) => !fields.includes(k)));

describe('validateHost: the record as a whole', () => {
  test('the README sample is accepted as is, every field normalised into the host', () => {
    const v = validateHost(GOOD);
    assert.deepEqual(v, {
      ok: true,
      warnings: [],
      host: {
        asset_id: '5f0c1e9a7b2d44e08c3a6f1d2b9e7a41',
        os_product: 'Windows Server 2019 Datacenter',
        edition_id: 'ServerDatacenter',
        display_version: '1809',
        os_build: '10.0.17763.8755',
        architecture: 'x64',
        installation_type: 'Server',
        installed_kbs: ['KB5087538', 'KB5086096'],
        kb_source: 'Get-HotFix',
        esu_enrolled: null,
        collected_at: '2026-06-15T08:00:00Z',
      },
    });
  });

  test('a record that is not an object: one missing_field on asset_id, nothing echoed', () => {
    for (const input of [null, undefined, 0, 'asset_id', [], [GOOD], true]) {
      assert.deepEqual(
        validateHost(input),
        { ok: false, asset_id: null, errors: [e('missing_field', 'asset_id', 'a host record must be an object')] },
        JSON.stringify(input),
      );
    }
  });

  test('extra fields: identifying names are forbidden_field, others unknown_field, in the order sent', () => {
    const r = refused({ ...GOOD, colour: 'blue', hostname: 'PLC-GW-01', MAC: 'x', Owner: 'y', rack: '4' });
    assert.deepEqual(r.errors, [
      e('unknown_field', 'colour', M.unknownField),
      e('forbidden_field', 'hostname', M.forbiddenField),
      e('forbidden_field', 'MAC', M.forbiddenField),
      e('forbidden_field', 'Owner', M.forbiddenField),
      e('unknown_field', 'rack', M.unknownField),
    ]);
    // A valid asset_id is still named in the refusal (it is a scrubbed identifier, never identifying data).
    assert.equal(r.asset_id, '5f0c1e9a7b2d44e08c3a6f1d2b9e7a41');
  });

  test('a refused host with no usable asset_id reports asset_id null', () => {
    assert.equal(refused({ ...GOOD, asset_id: '10.1.2.3' }).asset_id, null);
    assert.equal(refused(without('asset_id')).asset_id, null);
  });
});

describe('validateHost: unreadable text (control characters, lone surrogates)', () => {
  test('a control character or a lone surrogate in any field is forbidden_value on that field', () => {
    // a refused kb_source counts as absent: the KB list then lacks its source
    assert.deepEqual(errorsOf({ ...GOOD, kb_source: 'Get-HotFix\u0000' }), [
      e('forbidden_value', 'kb_source', M.control),
      e('missing_kb_source', 'kb_source', M.kbSourceMissing),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, display_version: '18\uD80009' }), [
      e('forbidden_value', 'display_version', M.control),
    ]);
    // asset_id is refused for its text only (no second error on the same field, nothing echoed)
    const r = refused({ ...GOOD, asset_id: 'a3f9\u0007c2e1' });
    assert.deepEqual(r.errors, [e('forbidden_value', 'asset_id', M.control)]);
    assert.equal(r.asset_id, null);
  });

  test('a tab or line break inside asset_id or kb_source, or a bidirectional control in any field, is forbidden_value; elsewhere a tab is spacing', () => {
    // "h\tx" and "h\u202ex" are refused as asset_ids, never stored or echoed.
    for (const id of ['h\tx', 'h\nx', 'h\u202ex'])
      assert.deepEqual(
        refused({ ...GOOD, asset_id: id }).errors,
        [e('forbidden_value', 'asset_id', M.control)],
        JSON.stringify(id),
      );
    assert.deepEqual(errorsOf({ ...GOOD, kb_source: 'Get-\nHotFix' }), [
      e('forbidden_value', 'kb_source', M.control),
      e('missing_kb_source', 'kb_source', M.kbSourceMissing),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, os_product: 'Windows Server 2019\u2066 Standard' }), [
      e('forbidden_value', 'os_product', M.control),
    ]);
    assert.equal(accepted({ ...GOOD, asset_id: '\th-1\r\n', installation_type: 'Server\tCore' }).host.asset_id, 'h-1');
    // The Unicode line and paragraph separators are line breaks too.
    for (const id of ['h\u2028x', 'h\u2029x'])
      assert.deepEqual(
        refused({ ...GOOD, asset_id: id }).errors,
        [e('forbidden_value', 'asset_id', M.control)],
        JSON.stringify(id),
      );
  });

  test('an invisible character in asset_id (two look-alike hosts) is forbidden_value; the joiners of Persian and Indic text are not', () => {
    const invisible =
      'invisible characters (soft hyphen, zero-width space, word joiner, byte order mark) are not allowed in an identifier';
    for (const id of ['h\u200b1', 'h\u00ad1', 'h\u20601', 'h\u20621', 'h\ufeff1', 'h\u180e1']) {
      assert.deepEqual(
        refused({ ...GOOD, asset_id: id }).errors,
        [e('forbidden_value', 'asset_id', invisible)],
        JSON.stringify(id),
      );
    }
    for (const id of ['میز\u200cکار', 'क्\u200dष-1'])
      assert.equal(accepted({ ...GOOD, asset_id: id }).host.asset_id, id.normalize('NFKC'));
    // Elsewhere (a product name) it is not an identifier: only asset_id is checked.
    assert.equal(accepted({ ...GOOD, kb_source: 'Get-\u00adHotFix' }).host.kb_source, 'Get-\u00adHotFix');
  });

  test('a field name holding NUL or a lone surrogate is named with U+FFFD in their place', () => {
    assert.deepEqual(errorsOf({ ...GOOD, 'no\u0000te': 'x' }), [e('unknown_field', 'no\uFFFDte', M.unknownField)]);
    assert.deepEqual(errorsOf({ ...GOOD, 'host\uD800name': 'x' }), [
      e('forbidden_field', 'host\uFFFDname', M.forbiddenField),
    ]);
  });

  test('a bad string inside the KB list is refused on installed_kbs; other kinds of entry are not text', () => {
    assert.deepEqual(errorsOf({ ...GOOD, installed_kbs: ['KB5087538', 'KB50\u001f86096'] }), [
      e('forbidden_value', 'installed_kbs', M.control),
      e('invalid_kb', 'installed_kbs', M.kb),
    ]);
    // A nested list holding a control character is not a string entry: only invalid_kb.
    assert.deepEqual(errorsOf({ ...GOOD, installed_kbs: [['\u0001']] }), [e('invalid_kb', 'installed_kbs', M.kb)]);
    // A number or object in a field is not scanned as text either.
    assert.deepEqual(errorsOf({ ...GOOD, esu_enrolled: { v: '\u0001' } }), [e('invalid_esu', 'esu_enrolled', M.esu)]);
  });

  test('a placeholder wrapped in a vertical tab (trimmed away) is unreadable, not also a placeholder', () => {
    assert.deepEqual(errorsOf({ ...GOOD, display_version: 'N/A\u000b' }), [
      e('forbidden_value', 'display_version', M.control),
    ]);
    // unreadable required fields are not reported missing either
    assert.deepEqual(errorsOf({ ...GOOD, architecture: '\u000c' }), [e('forbidden_value', 'architecture', M.control)]);
  });

  test('unreadable text in os_product, edition_id or kb_source is not checked against their formats', () => {
    assert.deepEqual(errorsOf({ ...GOOD, os_product: 'Windows Server 2019 Datacenter\u0001' }), [
      e('forbidden_value', 'os_product', M.control),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, edition_id: 'ServerDatacenter\u0002', installation_type: 'Server' }), [
      e('forbidden_value', 'edition_id', M.control),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, installed_kbs: [], kb_source: 'Get-HotFix on 10.1.2.3\u0003' }), [
      e('forbidden_value', 'kb_source', M.control),
    ]);
  });
});

describe('validateHost: placeholders and missing fields', () => {
  test('each placeholder spelling in a string field is placeholder_value, case and spaces ignored', () => {
    for (const p of [
      'N/A',
      'n/a',
      ' NA ',
      'n.a.',
      '-',
      '--',
      '---',
      'Unknown',
      'NONE',
      'null',
      'nil',
      'TBD',
      'tba',
      '?',
      'undefined',
      'Not Available',
      'not applicable',
      'unavailable',
    ]) {
      assert.deepEqual(
        errorsOf({ ...GOOD, display_version: p }),
        [e('placeholder_value', 'display_version', M.placeholder)],
        p,
      );
    }
  });

  test('a placeholder in a required field is not also missing, nor checked against the field format', () => {
    const r = refused({ ...GOOD, asset_id: 'unknown' });
    assert.deepEqual(r.errors, [e('placeholder_value', 'asset_id', M.placeholder)]);
    assert.equal(r.asset_id, null);
    assert.deepEqual(errorsOf({ ...GOOD, os_product: 'N/A' }), [e('placeholder_value', 'os_product', M.placeholder)]);
    assert.deepEqual(errorsOf({ ...GOOD, edition_id: 'none' }), [e('placeholder_value', 'edition_id', M.placeholder)]);
    assert.deepEqual(errorsOf({ ...GOOD, os_build: 'TBD' }), [e('placeholder_value', 'os_build', M.placeholder)]);
    assert.deepEqual(errorsOf({ ...GOOD, architecture: '-' }), [e('placeholder_value', 'architecture', M.placeholder)]);
    assert.deepEqual(errorsOf({ ...GOOD, installation_type: 'n/a' }), [
      e('placeholder_value', 'installation_type', M.placeholder),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, kb_source: 'unknown' }), [
      e('placeholder_value', 'kb_source', M.placeholder),
      e('missing_kb_source', 'kb_source', M.kbSourceMissing),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, installed_kbs: [], kb_source: 'unknown' }), [
      e('placeholder_value', 'kb_source', M.placeholder),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, esu_enrolled: 'none' }), [
      e('placeholder_value', 'esu_enrolled', M.placeholder),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, collected_at: 'unknown' }), [
      e('placeholder_value', 'collected_at', M.placeholder),
    ]);
  });

  test('a placeholder hidden in compatibility forms is found after NFKC', () => {
    // full-width "N/A" (U+FF2E U+FF0F U+FF21)
    assert.deepEqual(errorsOf({ ...GOOD, display_version: '\uFF2E\uFF0F\uFF21' }), [
      e('placeholder_value', 'display_version', M.placeholder),
    ]);
  });

  test('each required field missing, null or undefined is missing_field, in the order of the required list', () => {
    for (const f of ['asset_id', 'os_product', 'edition_id', 'os_build', 'architecture', 'collected_at']) {
      const want = [e('missing_field', f, M.missing)];
      assert.deepEqual(errorsOf(without(f)), want, `${f} absent`);
      assert.deepEqual(errorsOf({ ...GOOD, [f]: null }), want, `${f} null`);
      assert.deepEqual(errorsOf({ ...GOOD, [f]: undefined }), want, `${f} undefined`);
    }
    assert.deepEqual(errorsOf(without('collected_at', 'asset_id', 'architecture')), [
      e('missing_field', 'asset_id', M.missing),
      e('missing_field', 'architecture', M.missing),
      e('missing_field', 'collected_at', M.missing),
    ]);
  });

  test('empty or blank text: missing for asset_id, os_product, architecture, collected_at; unknown for edition_id and os_build', () => {
    for (const f of ['asset_id', 'os_product', 'architecture', 'collected_at']) {
      assert.deepEqual(errorsOf({ ...GOOD, [f]: '' }), [e('missing_field', f, M.missing)], `${f} empty`);
      assert.deepEqual(errorsOf({ ...GOOD, [f]: '  ' }), [e('missing_field', f, M.missing)], `${f} blank`);
    }
    // an empty asset_id names no host: the refusal carries null, not ''
    assert.equal(refused({ ...GOOD, asset_id: '' }).asset_id, null);
    assert.equal(refused({ ...GOOD, asset_id: '   ' }).asset_id, null);
    const h = accepted({ ...GOOD, edition_id: '', os_build: '', installation_type: 'Server' }).host;
    assert.equal(h.edition_id, null);
    assert.equal(h.os_build, null);
    // display_version is optional: absent, null or empty all mean unknown
    assert.equal(accepted(without('display_version')).host.display_version, null);
    assert.equal(accepted({ ...GOOD, display_version: null }).host.display_version, null);
    assert.equal(accepted({ ...GOOD, display_version: '' }).host.display_version, null);
  });
});

describe('validateHost: asset_id', () => {
  test('64 characters are accepted, 65 refused; the length is counted after NFKC and trimming', () => {
    assert.equal(accepted({ ...GOOD, asset_id: 'a'.repeat(64) }).host.asset_id, 'a'.repeat(64));
    assert.deepEqual(errorsOf({ ...GOOD, asset_id: 'a'.repeat(65) }), [e('forbidden_value', 'asset_id', M.assetId)]);
    // 64 characters between spaces: trimmed, accepted
    assert.equal(accepted({ ...GOOD, asset_id: ` ${'b'.repeat(64)} ` }).host.asset_id, 'b'.repeat(64));
    // 33 "ﬁ" ligatures are 33 characters as sent, 66 after NFKC
    assert.deepEqual(errorsOf({ ...GOOD, asset_id: '\uFB01'.repeat(33) }), [
      e('forbidden_value', 'asset_id', M.assetId),
    ]);
    assert.equal(accepted({ ...GOOD, asset_id: '\uFB01'.repeat(32) }).host.asset_id, 'fi'.repeat(32));
  });

  test('stored in NFKC form (full-width letters folded)', () => {
    assert.equal(accepted({ ...GOOD, asset_id: '\uFF41\uFF53\uFF53\uFF45\uFF54-7' }).host.asset_id, 'asset-7');
  });

  test('an IP, MAC, domain name or trailing-dot name is forbidden_value, never echoed', () => {
    for (const id of [
      '10.1.2.3',
      '00:1a:2b:3c:4d:5e',
      '001a2b3c4d5e',
      'scada01.plant.example.com',
      'scada01.',
      'fe80::1:2',
    ]) {
      const r = refused({ ...GOOD, asset_id: id });
      assert.deepEqual(r.errors, [e('forbidden_value', 'asset_id', M.assetId)], id);
      assert.equal(r.asset_id, null);
    }
  });

  test('a non-string asset_id is missing_field "must be a string"', () => {
    for (const id of [42, true, { id: 'x' }, ['a']]) {
      const r = refused({ ...GOOD, asset_id: id });
      assert.deepEqual(r.errors, [e('missing_field', 'asset_id', M.assetIdType)], JSON.stringify(id));
      assert.equal(r.asset_id, null);
    }
  });
});

describe('validateHost: os_product, edition_id, display_version', () => {
  test('os_product: a ProductName is accepted (NFKC, trimmed); anything else is forbidden_value', () => {
    assert.equal(
      accepted({ ...GOOD, os_product: '  Windows Server 2019 Datacenter ' }).host.os_product,
      'Windows Server 2019 Datacenter',
    );
    assert.deepEqual(errorsOf({ ...GOOD, os_product: 'Windows Server 2019 Plant Dortmund' }), [
      e('forbidden_value', 'os_product', M.product),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, os_product: 'Ubuntu 22.04' }), [
      e('forbidden_value', 'os_product', M.product),
    ]);
  });

  test('os_product that is not a string: "must be a string", not missing', () => {
    assert.deepEqual(errorsOf({ ...GOOD, os_product: 2019 }), [e('missing_field', 'os_product', M.productType)]);
    assert.deepEqual(errorsOf({ ...GOOD, os_product: ['Windows'] }), [e('missing_field', 'os_product', M.productType)]);
  });

  test('edition_id: an EditionID is accepted; anything else forbidden_value; a non-string "must be a string"', () => {
    assert.equal(accepted({ ...GOOD, edition_id: ' ServerStandard ' }).host.edition_id, 'ServerStandard');
    assert.deepEqual(errorsOf({ ...GOOD, edition_id: 'Plant4Datacenter' }), [
      e('forbidden_value', 'edition_id', M.edition),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, edition_id: 7 }), [e('missing_field', 'edition_id', M.editionType)]);
  });

  test('display_version: DisplayVersion or ReleaseId accepted; anything else forbidden_value; a non-string "must be a string"', () => {
    assert.equal(accepted({ ...GOOD, display_version: ' 22H2 ' }).host.display_version, '22H2');
    assert.deepEqual(errorsOf({ ...GOOD, display_version: 'Plant 4' }), [
      e('forbidden_value', 'display_version', M.display),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, display_version: 1809 }), [
      e('missing_field', 'display_version', M.displayType),
    ]);
  });
});

describe('validateHost: os_build and bare_windows', () => {
  test('three or four dot-separated numbers are accepted (trimmed); three parts warn needs_revision', () => {
    const four = accepted({ ...GOOD, os_build: ' 10.0.17763.8755 ' });
    assert.equal(four.host.os_build, '10.0.17763.8755');
    assert.deepEqual(four.warnings, []);
    const three = accepted({ ...GOOD, os_build: '10.0.17763' });
    assert.equal(three.host.os_build, '10.0.17763');
    assert.deepEqual(three.warnings, ['needs_revision']);
  });

  test('two or five parts, letters before or after, empty parts: invalid_build', () => {
    for (const b of [
      '10.0',
      '10.0.17763.8755.1',
      'v10.0.17763.8755',
      '10.0.17763.8755a',
      '10.0..8755',
      '10.0.17763.',
      '.10.0.17763',
      '10 0 17763 8755',
    ]) {
      assert.deepEqual(errorsOf({ ...GOOD, os_build: b }), [e('invalid_build', 'os_build', M.build)], b);
    }
  });

  test('a part past its registry value is invalid_build: major and minor 255, CurrentBuild 65535, UBR 4294967295', () => {
    for (const b of ['10.0.17763.4294967295', '255.255.65535.0', '6.1.7601', '10.0.017763.008880']) {
      assert.equal(accepted({ ...GOOD, os_build: b }).host.os_build, b);
    }
    for (const b of [
      '10.0.17763.4294967296',
      '10.0.17763.99999999999999999999',
      '256.0.17763.1',
      '10.256.17763.1',
      '10.0.65536.1',
      '10.0.65536',
    ]) {
      assert.deepEqual(errorsOf({ ...GOOD, os_build: b }), [e('invalid_build', 'os_build', M.buildRange)], b);
    }
  });

  test('a non-string os_build is invalid_build "must be a string"', () => {
    assert.deepEqual(errorsOf({ ...GOOD, os_build: 17763 }), [e('invalid_build', 'os_build', M.buildType)]);
  });

  test('unreadable os_build text is refused twice (text, then format)', () => {
    assert.deepEqual(errorsOf({ ...GOOD, os_build: '10.0.17763.8755\u0001' }), [
      e('forbidden_value', 'os_build', M.control),
      e('invalid_build', 'os_build', M.build),
    ]);
  });

  test('bare_windows: "Windows" or "Microsoft Windows" without a build', () => {
    const noBuild = { ...GOOD, os_build: '' };
    for (const p of ['Windows', 'windows', 'Microsoft Windows', 'Microsoft   Windows', ' WINDOWS ']) {
      assert.deepEqual(errorsOf({ ...noBuild, os_product: p }), [e('bare_windows', 'os_product', M.bare)], p);
    }
    // a name with a version is not bare; a bare name with a build is accepted (product-level later, match.ts)
    assert.equal(accepted({ ...noBuild, os_product: 'Windows 10' }).host.os_product, 'Windows 10');
    assert.equal(
      accepted({ ...noBuild, os_product: 'Windows Server Windows' }).host.os_product,
      'Windows Server Windows',
    );
    assert.equal(
      accepted({ ...noBuild, os_product: 'Microsoft Windows Server' }).host.os_product,
      'Microsoft Windows Server',
    );
    assert.equal(accepted({ ...GOOD, os_product: 'Windows' }).host.os_product, 'Windows');
  });

  test('bare_windows is added to a missing os_build (null or absent), not to a build with an error of its own', () => {
    const { os_build: _absent, ...noKey } = GOOD;
    for (const h of [
      { ...GOOD, os_product: 'Windows', os_build: null },
      { ...noKey, os_product: 'Windows' },
    ]) {
      assert.deepEqual(errorsOf(h), [
        e('missing_field', 'os_build', M.missing),
        e('bare_windows', 'os_product', M.bare),
      ]);
    }
    assert.deepEqual(errorsOf({ ...noKey, os_product: 'Windows Server 2019 Datacenter' }), [
      e('missing_field', 'os_build', M.missing),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, os_product: 'Windows', os_build: '10.0' }), [
      e('invalid_build', 'os_build', M.build),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, os_product: 'Windows', os_build: 'N/A' }), [
      e('placeholder_value', 'os_build', M.placeholder),
    ]);
  });

  test('bare_windows after an error on another field is still reported', () => {
    assert.deepEqual(errorsOf({ ...GOOD, os_product: 'Windows', os_build: '', architecture: 'amd64' }), [
      e('bare_windows', 'os_product', M.bare),
      e('invalid_architecture', 'architecture', M.arch),
    ]);
  });
});

describe('validateHost: architecture, installation_type', () => {
  test('architecture: x64, x86, arm64 in any case and spacing; anything else invalid_architecture', () => {
    assert.equal(accepted({ ...GOOD, architecture: ' X64 ' }).host.architecture, 'x64');
    assert.equal(accepted({ ...GOOD, architecture: 'x86' }).host.architecture, 'x86');
    assert.equal(accepted({ ...GOOD, architecture: 'ARM64' }).host.architecture, 'arm64');
    for (const a of ['amd64', 'x64x', 'arm', 64, true]) {
      assert.deepEqual(
        errorsOf({ ...GOOD, architecture: a }),
        [e('invalid_architecture', 'architecture', M.arch)],
        String(a),
      );
    }
  });

  test('installation_type: Server, Server Core, Client in any case and spacing', () => {
    assert.equal(accepted({ ...GOOD, installation_type: ' server ' }).host.installation_type, 'Server');
    assert.equal(accepted({ ...GOOD, installation_type: 'SERVER   core' }).host.installation_type, 'Server Core');
    assert.equal(accepted({ ...GOOD, installation_type: 'Server\tCore' }).host.installation_type, 'Server Core');
    assert.equal(
      accepted({ ...GOOD, installation_type: 'Client', edition_id: 'Enterprise', os_product: 'Windows 10 Enterprise' })
        .host.installation_type,
      'Client',
    );
    for (const t of ['Nano', 'ServerCore', 'Server Core Edition', 1]) {
      assert.deepEqual(
        errorsOf({ ...GOOD, installation_type: t }),
        [e('invalid_installation_type', 'installation_type', M.inst)],
        String(t),
      );
    }
  });

  test('a server edition needs installation_type; a client edition does not', () => {
    for (const t of [undefined, null, '', '   ']) {
      assert.deepEqual(
        errorsOf({ ...GOOD, installation_type: t }),
        [e('missing_installation_type', 'installation_type', M.instMissing)],
        String(t),
      );
    }
    // case-insensitive "server" prefix of the EditionID
    assert.deepEqual(errorsOf({ ...GOOD, edition_id: 'serverstandard', installation_type: '' }), [
      e('missing_installation_type', 'installation_type', M.instMissing),
    ]);
    // no edition: nothing to say; a client edition: fine without
    assert.equal(accepted({ ...GOOD, edition_id: '', installation_type: '' }).host.installation_type, null);
    assert.equal(
      accepted({ ...GOOD, edition_id: 'Enterprise', os_product: 'Windows 10 Enterprise', installation_type: '' }).host
        .installation_type,
      null,
    );
    // "server" must open the EditionID: a refused edition with "Server" further in does not ask for installation_type
    assert.deepEqual(errorsOf({ ...GOOD, edition_id: 'Plant4Server', installation_type: '' }), [
      e('forbidden_value', 'edition_id', M.edition),
    ]);
  });

  test('an edition refused for its format still asks for installation_type when it starts with "server"', () => {
    assert.deepEqual(errorsOf({ ...GOOD, edition_id: 'ServerPlant4', installation_type: '' }), [
      e('forbidden_value', 'edition_id', M.edition),
      e('missing_installation_type', 'installation_type', M.instMissing),
    ]);
  });

  test('a wrong or placeholder installation_type is the only error on that field', () => {
    assert.deepEqual(errorsOf({ ...GOOD, installation_type: 'Nano' }), [
      e('invalid_installation_type', 'installation_type', M.inst),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, installation_type: 'N/A' }), [
      e('placeholder_value', 'installation_type', M.placeholder),
    ]);
  });
});

describe('validateHost: installed_kbs and kb_source', () => {
  test('KBs are trimmed, upper-cased, de-duplicated, in the order sent', () => {
    assert.deepEqual(
      accepted({ ...GOOD, installed_kbs: [' kb5086096 ', 'KB5087538', 'Kb5086096', 'KB1'] }).host.installed_kbs,
      ['KB5086096', 'KB5087538', 'KB1'],
    );
  });

  test('KB followed by 1 to 9 digits; 10 digits, no digits or other text is invalid_kb (once for the list)', () => {
    assert.deepEqual(accepted({ ...GOOD, installed_kbs: ['KB123456789'] }).host.installed_kbs, ['KB123456789']);
    for (const bad of ['KB1234567890', 'KB', '5087538', 'KB5087538x', 'xKB5087538', 'KB 5087538', '']) {
      assert.deepEqual(
        errorsOf({ ...GOOD, installed_kbs: ['KB5087538', bad, 'KB12'] }),
        [e('invalid_kb', 'installed_kbs', M.kb)],
        bad,
      );
    }
    assert.deepEqual(errorsOf({ ...GOOD, installed_kbs: [5087538, null, 'KB1x'] }), [
      e('invalid_kb', 'installed_kbs', M.kb),
    ]);
  });

  test('a placeholder in the list is placeholder_value (once), before invalid_kb', () => {
    assert.deepEqual(errorsOf({ ...GOOD, installed_kbs: ['none', 'KB1', 'N/A'] }), [
      e('placeholder_value', 'installed_kbs', M.kbPlaceholder),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, installed_kbs: ['junk', ' n/a '] }), [
      e('placeholder_value', 'installed_kbs', M.kbPlaceholder),
      e('invalid_kb', 'installed_kbs', M.kb),
    ]);
  });

  test('installed_kbs that is not a list: invalid_kb "must be a list" (a placeholder string is both)', () => {
    assert.deepEqual(errorsOf({ ...GOOD, installed_kbs: 'KB5087538' }), [e('invalid_kb', 'installed_kbs', M.kbList)]);
    assert.deepEqual(errorsOf({ ...GOOD, installed_kbs: { 0: 'KB5087538' } }), [
      e('invalid_kb', 'installed_kbs', M.kbList),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, installed_kbs: 'N/A' }), [
      e('placeholder_value', 'installed_kbs', M.placeholder),
      e('invalid_kb', 'installed_kbs', M.kbList),
    ]);
  });

  test('KBs without kb_source: missing_kb_source; with an empty list, kb_source is optional', () => {
    for (const s of [undefined, null, '', '  ']) {
      assert.deepEqual(
        errorsOf({ ...GOOD, kb_source: s }),
        [e('missing_kb_source', 'kb_source', M.kbSourceMissing)],
        String(s),
      );
    }
    const none = accepted({ ...GOOD, installed_kbs: [], kb_source: '' }).host;
    assert.equal(none.installed_kbs, null);
    assert.equal(none.kb_source, null);
    // only placeholders in the list: no KB, so no kb_source needed
    assert.deepEqual(errorsOf({ ...GOOD, installed_kbs: ['none'], kb_source: '' }), [
      e('placeholder_value', 'installed_kbs', M.kbPlaceholder),
    ]);
  });

  test('KB list states: values, empty with kb_source (collected, none), kb_source alone, nothing', () => {
    assert.deepEqual(accepted({ ...GOOD, installed_kbs: [], kb_source: ' Get-HotFix ' }).host.installed_kbs, []);
    const srcOnly = accepted(without('installed_kbs')).host;
    assert.deepEqual(srcOnly.installed_kbs, []);
    assert.equal(srcOnly.kb_source, 'Get-HotFix');
    assert.equal(accepted({ ...GOOD, installed_kbs: null, kb_source: null }).host.installed_kbs, null);
    assert.equal(accepted(without('installed_kbs', 'kb_source')).host.installed_kbs, null);
  });

  test('kb_source: 200 characters accepted, 201 refused; identifying text refused; a non-string "must be a string"', () => {
    assert.equal(accepted({ ...GOOD, kb_source: 'g'.repeat(200) }).host.kb_source, 'g'.repeat(200));
    assert.deepEqual(errorsOf({ ...GOOD, kb_source: 'g'.repeat(201) }), [
      e('forbidden_value', 'kb_source', M.kbSource),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, kb_source: 'Get-HotFix via \\\\fileserver\\share' }), [
      e('forbidden_value', 'kb_source', M.kbSource),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, kb_source: 'WSUS report from wsus.plant.example.com' }), [
      e('forbidden_value', 'kb_source', M.kbSource),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, kb_source: 42 }), [
      e('missing_field', 'kb_source', M.kbSourceType),
      e('missing_kb_source', 'kb_source', M.kbSourceMissing),
    ]);
    assert.deepEqual(errorsOf({ ...GOOD, installed_kbs: [], kb_source: 42 }), [
      e('missing_field', 'kb_source', M.kbSourceType),
    ]);
  });
});

describe('validateHost: esu_enrolled, collected_at', () => {
  test('esu_enrolled: yes/no in any case and spacing; empty means unknown; anything else invalid_esu', () => {
    assert.equal(accepted({ ...GOOD, esu_enrolled: ' YES ' }).host.esu_enrolled, true);
    assert.equal(accepted({ ...GOOD, esu_enrolled: 'No' }).host.esu_enrolled, false);
    assert.equal(accepted({ ...GOOD, esu_enrolled: '  ' }).host.esu_enrolled, null);
    assert.equal(accepted({ ...GOOD, esu_enrolled: null }).host.esu_enrolled, null);
    assert.equal(accepted(without('esu_enrolled')).host.esu_enrolled, null);
    for (const v of ['maybe', 'y', 'true', true, false, 1]) {
      assert.deepEqual(errorsOf({ ...GOOD, esu_enrolled: v }), [e('invalid_esu', 'esu_enrolled', M.esu)], String(v));
    }
  });

  test('collected_at: ISO 8601 with a time zone (Z or offset, with or without seconds and fraction), trimmed', () => {
    for (const [sent, stored] of [
      [' 2026-06-15T08:00:00Z ', '2026-06-15T08:00:00Z'],
      ['2026-06-15T08:00Z', '2026-06-15T08:00Z'],
      ['2026-06-15T08:00:00.123456789+02:00', '2026-06-15T08:00:00.123456789+02:00'],
      ['2026-06-15T08:00:00-0530', '2026-06-15T08:00:00-0530'],
      // The last day of a month, of February in a leap year, and the last second of a day.
      ['2028-02-29T10:00:00Z', '2028-02-29T10:00:00Z'],
      ['2026-04-30T23:59:59Z', '2026-04-30T23:59:59Z'],
      ['2026-12-31T00:00Z', '2026-12-31T00:00Z'],
    ])
      assert.equal(accepted({ ...GOOD, collected_at: sent }).host.collected_at, stored, sent);
  });

  test('collected_at without a time zone, not a date, or an impossible date: invalid_collected_at', () => {
    for (const v of [
      '2026-06-15T08:00:00',
      '2026-06-15',
      '2026-06-15 08:00:00Z',
      '2026-13-01T08:00:00Z',
      '2026-06-15T25:00:00Z',
      'x2026-06-15T08:00:00Z',
      '2026-06-15T08:00:00Zx',
      // Days a month does not have (Date.parse rolls them over), and times a day does not have.
      '2026-02-30T10:00:00Z',
      '2026-02-29T10:00:00Z',
      '2026-04-31T10:00Z',
      '2026-06-00T10:00:00Z',
      '2026-06-15T24:00:00Z',
      '2026-06-15T08:60:00Z',
      '2026-06-15T08:00:60Z',
    ]) {
      assert.deepEqual(errorsOf({ ...GOOD, collected_at: v }), [e('invalid_collected_at', 'collected_at', M.at)], v);
    }
  });

  test('collected_at at most 24 hours after the request: accepted; later: invalid_collected_at (the zone counts)', () => {
    const now = new Date('2026-06-15T08:00:00Z');
    const atNow = (at: string) => validateHost({ ...GOOD, collected_at: at }, now);
    for (const at of [
      '2026-06-15T08:00:00Z',
      '2026-06-14T08:00:00Z',
      '2020-01-01T00:00Z',
      '2026-06-16T08:00:00Z',
      '2026-06-16T07:59:59.999Z',
      // Local time sent as UTC, 14 hours ahead (the largest zone offset): still within the skew.
      '2026-06-15T22:00:00Z',
      '2026-06-16T10:00:00+02:00',
    ]) {
      assert.equal(atNow(at).ok, true, at);
    }
    const future =
      'collected_at is more than 24 hours in the future; send when the data was collected (check the clock and time zone of the collecting machine)';
    for (const at of [
      '2026-06-16T08:00:01Z',
      '2026-06-16T08:00:00.001Z',
      '2026-06-16T10:00:01+02:00',
      '2026-06-16T03:00:01-05:00',
      '2099-01-01T00:00:00Z',
    ]) {
      const v = atNow(at);
      assert.deepEqual(v.ok ? [] : v.errors, [e('invalid_collected_at', 'collected_at', future)], at);
      assert.equal(v.ok ? null : v.asset_id, GOOD.asset_id, 'the host is named: its asset_id is fine');
    }
    // Without the request's time only the form is checked (the rule needs a clock; the service passes its own).
    assert.equal(validateHost({ ...GOOD, collected_at: '2099-01-01T00:00:00Z' }).ok, true);
  });

  test('a non-string collected_at is invalid_collected_at "must be an ISO 8601 string"', () => {
    for (const v of [1781510400000, true, { t: 1 }]) {
      assert.deepEqual(
        errorsOf({ ...GOOD, collected_at: v }),
        [e('invalid_collected_at', 'collected_at', M.atType)],
        String(v),
      );
    }
  });
});

describe('validateHost: several errors at once', () => {
  test('errors come in rule order: fields, text, placeholders, missing, then field by field', () => {
    const r = refused({
      asset_id: 'asset-9',
      os_product: 'Windows',
      edition_id: 'ServerStandard',
      display_version: 'N/A',
      os_build: '',
      architecture: 'sparc',
      installed_kbs: ['KB1', 'x'],
      esu_enrolled: 'perhaps',
      collected_at: 'yesterday',
      hostname: 'h',
    });
    assert.equal(r.asset_id, 'asset-9');
    assert.deepEqual(r.errors, [
      e('forbidden_field', 'hostname', M.forbiddenField),
      e('placeholder_value', 'display_version', M.placeholder),
      e('bare_windows', 'os_product', M.bare),
      e('invalid_architecture', 'architecture', M.arch),
      e('missing_installation_type', 'installation_type', M.instMissing),
      e('invalid_kb', 'installed_kbs', M.kb),
      e('missing_kb_source', 'kb_source', M.kbSourceMissing),
      e('invalid_esu', 'esu_enrolled', M.esu),
      e('invalid_collected_at', 'collected_at', M.at),
    ]);
  });
});

describe('helpers exported for other paths', () => {
  test('isForbiddenFieldName: the identifying names of §2.6 and similar, not the contract fields', () => {
    for (const n of [
      'hostname',
      'ComputerName',
      'ip',
      'IP',
      'ip_address',
      'ipv4',
      'mac',
      'mac_address',
      'domain',
      'serial_number',
      'user_name',
      'owner',
      'license_key',
      'product_key',
      'install_path',
      'path',
      'site',
      'customer',
      'client_name',
      'organisation',
      'organization',
      'location',
      'asset_tag',
      'sid',
      'email',
    ]) {
      assert.equal(isForbiddenFieldName(n), true, n);
    }
    for (const n of ['asset_id', 'os_product', 'edition_id', 'kb_source', 'colour', 'ipsum', 'macro', 'pathology']) {
      assert.equal(isForbiddenFieldName(n), false, n);
    }
  });

  test('isPlaceholder: trimmed, case-insensitive; empty text and real values are not placeholders', () => {
    assert.equal(isPlaceholder('  N/A  '), true);
    assert.equal(isPlaceholder('UNKNOWN'), true);
    assert.equal(isPlaceholder(''), false);
    assert.equal(isPlaceholder('22H2'), false);
    assert.equal(isPlaceholder('n/a/'), false);
  });

  test('looksIdentifying: IP, MAC, domain, trailing dot; a scrubbed id is not', () => {
    assert.equal(looksIdentifying('10.0.0.1'), true);
    assert.equal(looksIdentifying('001A2B3C4D5E'), true);
    assert.equal(looksIdentifying('plc.example.com'), true);
    assert.equal(looksIdentifying('plc01.'), true);
    assert.equal(looksIdentifying('5f0c1e9a7b2d44e08c3a6f1d2b9e7a41'), false);
    assert.equal(looksIdentifying('asset-0042'), false);
  });
});

describe('csvRowToHostRecord', () => {
  test('installed_kbs split on ";", entries trimmed, empty entries dropped; other cells kept as text', () => {
    assert.deepEqual(csvRowToHostRecord({ asset_id: ' a1 ', installed_kbs: ' KB1 ;;KB2; ', esu_enrolled: '' }), {
      asset_id: ' a1 ',
      installed_kbs: ['KB1', 'KB2'],
      esu_enrolled: '',
    });
    assert.deepEqual(csvRowToHostRecord({ installed_kbs: '   ' }), { installed_kbs: [] });
    assert.deepEqual(csvRowToHostRecord({ installed_kbs: 'KB5087538' }), { installed_kbs: ['KB5087538'] });
  });

  test('a missing cell (short CSV row) becomes empty text, or an empty KB list', () => {
    const row = { asset_id: undefined, installed_kbs: undefined } as unknown as Record<string, string>;
    assert.deepEqual(csvRowToHostRecord(row), { asset_id: '', installed_kbs: [] });
  });
});

describe('validateSoftware (spec §2.6 installed software)', () => {
  const ACC = new Set(['5f0c1e9a7b2d44e08c3a6f1d2b9e7a41', 'asset-7']);
  const SW = {
    asset_id: '5f0c1e9a7b2d44e08c3a6f1d2b9e7a41',
    name: 'Siemens WinCC',
    publisher: 'Siemens AG',
    version: '7.5.2.4',
  };
  const S = {
    unknown: 'field is not part of the software record (asset_id, name, publisher, version)',
    forbidden: 'identifying data must not be sent; nothing of this host was stored',
    assetId: 'asset_id must be a scrubbed identifier',
    unknownHost: 'software is stored only for hosts listed (and accepted) in windows_hosts',
    type: 'must be a string',
    long: 'at most 500 characters',
    path: 'install paths must not be sent',
  };
  const one = (item: unknown) => validateSoftware([item], ACC);
  const rejectedErrors = (item: unknown) => {
    const r = one(item);
    assert.deepEqual(r.stored, []);
    assert.equal(r.rejected.length, 1);
    return r.rejected[0];
  };

  test('the same record twice (after normalisation) is stored once; another version or publisher is another record', () => {
    const r = validateSoftware(
      [
        SW,
        { ...SW },
        { ...SW, name: ' Siemens WinCC ' },
        { ...SW, version: '7.5.2.5' },
        { ...SW, publisher: null },
        { ...SW, asset_id: 'asset-7' },
      ],
      ACC,
    );
    assert.deepEqual(r, {
      stored: [SW, { ...SW, version: '7.5.2.5' }, { ...SW, publisher: null }, { ...SW, asset_id: 'asset-7' }],
      rejected: [],
    });
  });

  test('records of accepted hosts are stored, normalised (NFKC, trimmed), empty publisher and version as null', () => {
    assert.deepEqual(
      validateSoftware(
        [
          SW,
          { asset_id: ' asset-7 ', name: ' \uFF37inCC Runtime ', publisher: '', version: '  ' },
          { asset_id: 'asset-7', name: 'OPC UA Server', publisher: null },
        ],
        ACC,
      ),
      {
        stored: [
          SW,
          { asset_id: 'asset-7', name: 'WinCC Runtime', publisher: null, version: null },
          { asset_id: 'asset-7', name: 'OPC UA Server', publisher: null, version: null },
        ],
        rejected: [],
      },
    );
  });

  test('a record that is not an object is rejected at its index', () => {
    assert.deepEqual(validateSoftware([SW, null, 'WinCC', [SW], 7], ACC), {
      stored: [SW],
      rejected: [1, 2, 3, 4].map((index) => ({
        asset_id: null,
        index,
        errors: [{ code: 'missing_field', field: 'asset_id', message: 'a software record must be an object' }],
      })),
    });
  });

  test('fields outside asset_id, name, publisher, version are unknown_field, identifying ones forbidden_field; the host is still echoed', () => {
    assert.deepEqual(rejectedErrors({ ...SW, install_path: 'C:\\x', vendor: 'y' }), {
      asset_id: SW.asset_id,
      index: 0,
      errors: [
        { code: 'forbidden_field', field: 'install_path', message: S.forbidden },
        { code: 'unknown_field', field: 'vendor', message: S.unknown },
      ],
    });
  });

  test('identifyingSoftwareHosts: the asset_ids of records that carry an identifying field (whose hosts are refused whole)', () => {
    assert.deepEqual(
      [
        ...identifyingSoftwareHosts([
          { ...SW, hostname: 'plc-7' },
          { ...SW, asset_id: 'asset-7', vendor: 'not identifying' },
          { ...SW, asset_id: ' asset-8 ', user_name: 'x' },
          { asset_id: 42, serial_number: 'x' },
          null,
          ['asset-9'],
        ]),
      ],
      [SW.asset_id, 'asset-8'],
    );
  });

  test('asset_id: missing, empty or not a string is missing_field; identifying or over 64 characters forbidden_value', () => {
    for (const id of [undefined, null, '', '  ', 42]) {
      const item = id === undefined ? { name: 'WinCC' } : { ...SW, asset_id: id };
      assert.deepEqual(
        rejectedErrors(item),
        {
          asset_id: null,
          index: 0,
          errors: [{ code: 'missing_field', field: 'asset_id', message: 'required field is missing' }],
        },
        String(id),
      );
    }
    for (const id of ['10.1.2.3', 'plc.example.com', 'a'.repeat(65)]) {
      assert.deepEqual(
        rejectedErrors({ ...SW, asset_id: id }),
        { asset_id: null, index: 0, errors: [{ code: 'forbidden_value', field: 'asset_id', message: S.assetId }] },
        id,
      );
    }
    const long = 'a'.repeat(64);
    assert.deepEqual(validateSoftware([{ ...SW, asset_id: long }], new Set([long])).stored, [
      { ...SW, asset_id: long },
    ]);
  });

  test('software of a host not accepted in the call is unknown_host', () => {
    assert.deepEqual(rejectedErrors({ ...SW, asset_id: 'asset-8' }), {
      asset_id: null,
      index: 0,
      errors: [{ code: 'unknown_host', field: 'asset_id', message: S.unknownHost }],
    });
  });

  test('name is required; name, publisher, version must be strings of at most 500 characters', () => {
    assert.deepEqual(rejectedErrors({ ...SW, name: '' }).errors, [
      { code: 'missing_field', field: 'name', message: 'required field is missing' },
    ]);
    assert.deepEqual(rejectedErrors({ asset_id: SW.asset_id }).errors, [
      { code: 'missing_field', field: 'name', message: 'required field is missing' },
    ]);
    assert.deepEqual(rejectedErrors({ ...SW, name: 5 }).errors, [
      { code: 'missing_field', field: 'name', message: 'required field is missing' },
      { code: 'missing_field', field: 'name', message: S.type },
    ]);
    // a list is not text, even one holding a control character
    assert.deepEqual(rejectedErrors({ ...SW, publisher: ['Siemens\u0001'], version: 7.5 }).errors, [
      { code: 'missing_field', field: 'publisher', message: S.type },
      { code: 'missing_field', field: 'version', message: S.type },
    ]);
    assert.equal(one({ ...SW, name: 'n'.repeat(500) }).stored[0].name, 'n'.repeat(500));
    for (const k of ['name', 'publisher', 'version']) {
      assert.deepEqual(
        rejectedErrors({ ...SW, [k]: 'n'.repeat(501) }).errors,
        [{ code: 'forbidden_value', field: k, message: S.long }],
        k,
      );
    }
  });

  test('placeholders and install paths in name, publisher, version are refused', () => {
    assert.deepEqual(rejectedErrors({ ...SW, publisher: 'N/A', version: 'unknown' }).errors, [
      { code: 'placeholder_value', field: 'publisher', message: 'placeholder value; send an empty value for unknown' },
      { code: 'placeholder_value', field: 'version', message: 'placeholder value; send an empty value for unknown' },
    ]);
    for (const p of ['C:\\Program Files\\Siemens', 'WinCC d:\\wincc', '\\\\server\\share\\WinCC']) {
      assert.deepEqual(
        rejectedErrors({ ...SW, name: p }).errors,
        [{ code: 'forbidden_value', field: 'name', message: S.path }],
        p,
      );
    }
    // a drive letter needs its backslash; a single backslash is not a path
    assert.equal(one({ ...SW, name: 'WinCC C: edition', version: '7\\5' }).stored.length, 1);
  });

  test('an e-mail or MAC address or a licence key in name, publisher or version is refused; dotted names and quads are not', () => {
    // Not install paths alone: every one of these is refused (spec §2.6: identifying data is refused).
    const refused = (field: string) => [
      { code: 'forbidden_value', field, message: 'must not hold an e-mail or MAC address or a licence key' },
    ];
    for (const [k, v] of [
      ['name', 'Agent for jane.doe@acme.example'],
      ['name', 'NIC driver 00:1B:44:11:3A:B7'],
      ['name', 'NIC driver 00-1b-44-11-3a-b7'],
      ['name', 'Licensed (key ABCDE-12345-FGHIJ-67890-KLMNO)'],
      ['publisher', 'ops@plant.example'],
      ['version', '7.5 ABCDE-12345-FGHIJ-67890-KLMNO'],
    ]) {
      assert.deepEqual(rejectedErrors({ ...SW, [k]: v }).errors, refused(k), v);
    }
    for (const name of [
      'Node.js',
      'Npcap 1.0.0.1',
      'Microsoft Visual C++ 2015-2019 Redistributable (x64) - 14.29.30133',
      '@RISK 8.2',
      'angular/cli@16.2.0',
      'ABCDE-12345-FGHIJ-67890',
      'ABCDE-12345-FGHIJ-67890-KLMNOP',
      '00:1B:44:11:3A',
    ]) {
      assert.equal(one({ ...SW, name }).stored.length, 1, name);
    }
  });

  test('a tab or line break inside a value is refused (around it, trimmed); a bidirectional control anywhere', () => {
    const bad = (field: string) => ({
      code: 'forbidden_value',
      field,
      message: 'control characters and unpaired surrogates are not allowed (UTF-8 text only)',
    });
    assert.deepEqual(rejectedErrors({ ...SW, name: 'Win\tCC', publisher: 'Siemens\nAG', version: '7.5\r2' }).errors, [
      bad('name'),
      bad('publisher'),
      bad('version'),
    ]);
    assert.deepEqual(rejectedErrors({ ...SW, name: 'Win\u202eCC' }).errors, [bad('name')]);
    assert.deepEqual(
      one({ ...SW, name: '\tWinCC\r\n' }).stored.map((x) => x.name),
      ['WinCC'],
    );
  });

  test('unreadable text is refused once per field, in field order, and the field counts as empty', () => {
    assert.deepEqual(rejectedErrors({ version: '7.5\u0000', name: 'Win\u0001CC', asset_id: SW.asset_id }), {
      asset_id: SW.asset_id,
      index: 0,
      errors: [
        {
          code: 'forbidden_value',
          field: 'name',
          message: 'control characters and unpaired surrogates are not allowed (UTF-8 text only)',
        },
        {
          code: 'forbidden_value',
          field: 'version',
          message: 'control characters and unpaired surrogates are not allowed (UTF-8 text only)',
        },
      ],
    });
    assert.deepEqual(rejectedErrors({ ...SW, asset_id: 'asset\u0002' }), {
      asset_id: null,
      index: 0,
      errors: [
        {
          code: 'forbidden_value',
          field: 'asset_id',
          message: 'control characters and unpaired surrogates are not allowed (UTF-8 text only)',
        },
      ],
    });
  });

  test('every record is judged alone: index and echo per record', () => {
    const r = validateSoftware([{ ...SW, asset_id: 'asset-8' }, SW, { ...SW, asset_id: 'asset-7', version: '-' }], ACC);
    assert.deepEqual(r.stored, [SW]);
    assert.deepEqual(
      r.rejected.map((x) => [x.index, x.asset_id, x.errors.map((y) => y.code)]),
      [
        [0, null, ['unknown_host']],
        [2, 'asset-7', ['placeholder_value']],
      ],
    );
  });
});
