import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  assetLookupKeys,
  familyKeys,
  matchProduct,
  productKey,
  strongerMatch,
  vendorSlug,
} from '../../src/domain/product-match.ts';
import { parseCpe } from '../../src/domain/cpe-name.ts';
import { stemFreeKey, vendorStem } from '../../src/domain/vendor-stem.ts';

test('vendor aliases, case and CPE tokens resolve to one canonical vendor', () => {
  for (const v of ['Siemens', 'Siemens AG', 'SIEMENS', 'siemens_ag']) assert.equal(vendorSlug(v), 'siemens', v);
  for (const v of ['Schneider Electric SE', 'schneider electric', 'Schneider-Electric'])
    assert.equal(vendorSlug(v), 'schneider-electric', v);
  assert.equal(vendorSlug('schneider-electric'), 'schneider-electric');
  // The short name an inventory writes on a Modicon nameplate. As its own slug (`schneider`), which no source uses,
  // "Schneider / Modicon M340" would meet nothing and read as "no known vulnerabilities".
  for (const v of ['Schneider', 'SCHNEIDER', 'schneider']) assert.equal(vendorSlug(v), 'schneider-electric', v);
  assert.deepEqual(
    matchProduct(
      { vendor: 'Schneider', product: 'Modicon M340' },
      { vendor: 'Schneider Electric', product: 'Modicon M340', cpe: null },
    )?.confidence,
    'exact',
  );
  // Another company of that name stays apart.
  assert.equal(vendorSlug('Schneider Elektronik'), 'schneiderelektronik');
  assert.equal(vendorSlug('Allen-Bradley'), 'rockwell-automation');
  assert.equal(vendorSlug('multiple vendors'), null);
});

test('product keys: punctuation, CPE underscores, vendor prefix and family/firmware words', () => {
  assert.equal(productKey('simatic_s7-1500_firmware'), 'simatic s7 1500');
  assert.equal(productKey('SIMATIC S7-1500'), 'simatic s7 1500');
  assert.equal(productKey('Siemens SIMATIC S7-1500', 'Siemens AG'), 'simatic s7 1500');
  assert.equal(productKey('SCALANCE X-200 family'), 'scalance x 200');
  assert.equal(productKey('Firmware'), 'firmware');
  assert.deepEqual(familyKeys('simatic s7 1500 cpu'), [
    'simatic s7 1500 cpu',
    'simatic s7 1500',
    'simatic s7',
    'simatic',
  ]);
});

test('CPE 2.3 parsing, escapes included', () => {
  assert.deepEqual(parseCpe('cpe:2.3:o:siemens:simatic_s7-1500_firmware:*:*:*:*:*:*:*:*'), {
    part: 'o',
    vendor: 'siemens',
    product: 'simatic_s7-1500_firmware',
    version: null,
    update: null,
  });
  assert.deepEqual(parseCpe('cpe:2.3:a:schneider-electric:ecostruxure\\:_power:2.1:*:*:*:*:*:*:*'), {
    part: 'a',
    vendor: 'schneider-electric',
    product: 'ecostruxure:_power',
    version: '2.1',
    update: null,
  });
  assert.equal(parseCpe('cpe:/a:siemens:x'), null);
  assert.equal(parseCpe('not a cpe'), null);
});

test('matchProduct: exact, normalised, family, each with its basis; never the other way round', () => {
  const range = {
    vendor: 'siemens',
    product: 'simatic_s7-1500_firmware',
    cpe: 'cpe:2.3:o:siemens:simatic_s7-1500_firmware:*:*:*:*:*:*:*:*',
  };
  const exactCpe = matchProduct(
    { vendor: 'whatever', product: 'x', cpe: 'cpe:2.3:o:siemens:simatic_s7-1500_firmware:2.9:*:*:*:*:*:*:*' },
    range,
  );
  assert.equal(exactCpe?.confidence, 'exact');
  assert.match(exactCpe!.basis, /CPE vendor and product siemens:simatic_s7-1500_firmware/);
  const norm = matchProduct({ vendor: 'Siemens AG', product: 'SIMATIC S7-1500' }, range);
  assert.equal(norm?.confidence, 'normalised');
  assert.match(norm!.basis, /simatic s7 1500/);
  const exact = matchProduct({ vendor: 'SIEMENS', product: 'SIMATIC_S7-1500_FIRMWARE ' }, range);
  assert.equal(exact?.confidence, 'exact');
  const fam = matchProduct(
    { vendor: 'Siemens', product: 'SIMATIC S7-1500 CPU 1518-4 PN/DP' },
    { vendor: 'Siemens', product: 'SIMATIC S7-1500 family', cpe: null },
  );
  assert.equal(fam?.confidence, 'family');
  // Less specific than the source's product: no match.
  assert.equal(
    matchProduct(
      { vendor: 'Siemens', product: 'SIMATIC' },
      { vendor: 'Siemens', product: 'SIMATIC S7-1500', cpe: null },
    ),
    null,
  );
  // Same product, another vendor: no match.
  assert.equal(matchProduct({ vendor: 'Schneider Electric', product: 'SIMATIC S7-1500' }, range), null);
  // Word prefix only: "S7-15" is not in "S7-1500".
  assert.equal(
    matchProduct(
      { vendor: 'Siemens', product: 'SIMATIC S7-1500' },
      { vendor: 'Siemens', product: 'SIMATIC S7-15', cpe: null },
    ),
    null,
  );
});

test('CSAF version ranges: vers: and the free text CISA writes, parsed only where certain', async () => {
  const { parseCsafRange } = await import('../../src/domain/csaf-ranges.ts');
  const b = (v: string, inclusive: boolean) => ({ version: v, inclusive });
  assert.deepEqual(parseCsafRange('vers:all/*'), { kind: 'all' });
  assert.deepEqual(parseCsafRange('vers:all/<V3.1.4'), { kind: 'bounds', start: null, end: b('V3.1.4', false) });
  assert.deepEqual(parseCsafRange('vers:all/<CPCI85 V05'), {
    kind: 'bounds',
    start: null,
    end: b('CPCI85 V05', false),
  });
  assert.deepEqual(parseCsafRange('vers:generic/>=2.0|<2.9.2'), {
    kind: 'bounds',
    start: b('2.0', true),
    end: b('2.9.2', false),
  });
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

// ---- boundaries of each rule ----

test('vendorSlug: null (not undefined) when the name names no vendor; CPE tokens and typed names alike', () => {
  assert.equal(vendorSlug('n/a'), null);
  assert.equal(vendorSlug('*'), null);
  assert.equal(vendorSlug('kento_themes'), 'kentothemes');
  assert.equal(vendorSlug('Kento Themes'), 'kentothemes');
});

test('productKey: words of any script, CPE escapes undone, punctuation and edges dropped', () => {
  assert.equal(productKey('Überwachungs-Modul'), 'überwachungs modul');
  assert.equal(productKey('  --SIMATIC   S7--  '), 'simatic s7');
  assert.equal(productKey('ab\\cd'), 'abcd');
  assert.equal(productKey('symphony_plus_s\\+_operations'), 'symphony plus s operations');
  assert.equal(productKey('---'), '');
  assert.equal(productKey(''), '');
});

test('productKey: the vendor prefix (as typed, canonical name or slug) goes once, never the whole product', () => {
  // As typed.
  assert.equal(productKey('Acme Widgets Hub 2', 'Acme Widgets'), 'hub 2');
  // Canonical name ("Siemens AG" is typed, "Siemens" leads the product).
  assert.equal(productKey('Siemens SIMATIC S7-1500', 'Siemens AG'), 'simatic s7 1500');
  // Canonical slug ("schweitzer-engineering"), neither the typed "SEL" nor the name "... Laboratories".
  assert.equal(productKey('Schweitzer Engineering SEL-751', 'SEL'), 'sel 751');
  // Only once, and only when something is left.
  assert.equal(productKey('Siemens Siemens LOGO!', 'Siemens'), 'siemens logo');
  assert.equal(productKey('Siemens', 'Siemens'), 'siemens');
  assert.equal(productKey('Acme Widgets', 'Acme Widgets'), 'acme widgets');
  // A vendor that is not a prefix, or no vendor.
  assert.equal(productKey('SIMATIC Siemens', 'Siemens'), 'simatic siemens');
  assert.equal(productKey('Siemens SIMATIC'), 'siemens simatic');
  assert.equal(productKey('Siemens SIMATIC', 'n/a'), 'siemens simatic');
  // The memo keys by vendor too.
  assert.equal(productKey('Siemens SIMATIC', 'Siemens'), 'simatic');
  assert.equal(productKey('Siemens SIMATIC', ''), 'siemens simatic');
});

test('productKey: trailing family / firmware / series / products / all versions words go, the last word stays', () => {
  assert.equal(productKey('SCALANCE X-200 series'), 'scalance x 200');
  assert.equal(productKey('PowerLogic products'), 'powerlogic');
  assert.equal(productKey('PowerLogic product family'), 'powerlogic');
  assert.equal(productKey('Modicon M580 firmware all versions'), 'modicon m580');
  assert.equal(productKey('Series'), 'series');
  assert.equal(productKey('firmware series'), 'firmware');
  assert.equal(productKey('Firmware Updater'), 'firmware updater');
});

test('familyKeys: empty key, one word, extra spaces', () => {
  assert.deepEqual(familyKeys(''), []);
  assert.deepEqual(familyKeys('logo'), ['logo']);
  assert.deepEqual(familyKeys(' logo  8 '), ['logo 8', 'logo']);
});

test('parseCpe: field count, prefix, part, vendor and product required; * - and empty read as null', () => {
  assert.deepEqual(parseCpe('cpe:2.3:h:Siemens:CP-8031:-:SP1'), {
    part: 'h',
    vendor: 'siemens',
    product: 'cp-8031',
    version: null,
    update: 'SP1',
  });
  assert.deepEqual(parseCpe('cpe:2.3:a:abb:s\\+:2.1:sp2:*'), {
    part: 'a',
    vendor: 'abb',
    product: 's+',
    version: '2.1',
    update: 'sp2',
  });
  assert.deepEqual(parseCpe('cpe:2.3:a:v:p:V2.0'), {
    part: 'a',
    vendor: 'v',
    product: 'p',
    version: 'V2.0',
    update: null,
  });
  assert.deepEqual(parseCpe('cpe:2.3:a:v:p:'), { part: 'a', vendor: 'v', product: 'p', version: null, update: null });
  assert.deepEqual(parseCpe('cpe:2.3:a:v:p:1:-'), { part: 'a', vendor: 'v', product: 'p', version: '1', update: null });
  assert.deepEqual(parseCpe('cpe:2.3:a:v:p:1:'), { part: 'a', vendor: 'v', product: 'p', version: '1', update: null });
  // A backslash at the very end is kept as a character.
  assert.deepEqual(parseCpe('cpe:2.3:a:v:p\\'), null);
  assert.deepEqual(parseCpe('cpe:2.3:a:v:p\\:1'), null);
  assert.deepEqual(parseCpe('cpe:2.3:a:v:p:1\\'), {
    part: 'a',
    vendor: 'v',
    product: 'p',
    version: '1\\',
    update: null,
  });
  for (const bad of [
    'cpe:2.3:a:v:p',
    'cpx:2.3:a:v:p:1',
    'cpe:2.2:a:v:p:1',
    'cpe:2.3:x:v:p:1',
    'cpe:2.3:ao:v:p:1',
    'cpe:2.3::v:p:1',
    'cpe:2.3:a::p:1',
    'cpe:2.3:a:v::1',
  ]) {
    assert.equal(parseCpe(bad), null, bad);
  }
});

test('matchProduct: every basis sentence, word for word', () => {
  const cpe = 'cpe:2.3:o:siemens:simatic_s7-1500_firmware:*:*:*:*:*:*:*:*';
  const range = { vendor: 'siemens', product: 'simatic_s7-1500_firmware', cpe };
  assert.deepEqual(
    matchProduct(
      { vendor: 'x', product: 'y', cpe: 'cpe:2.3:o:siemens:simatic_s7-1500_firmware:2.9:*:*:*:*:*:*:*' },
      range,
    ),
    { confidence: 'exact', basis: 'CPE vendor and product siemens:simatic_s7-1500_firmware' },
  );
  assert.deepEqual(matchProduct({ vendor: 'Siemens AG', product: ' SIMATIC_S7-1500_Firmware' }, range), {
    confidence: 'exact',
    basis: 'product "simatic_s7-1500_firmware" of vendor siemens',
  });
  assert.deepEqual(matchProduct({ vendor: 'Siemens AG', product: 'SIMATIC S7-1500' }, range), {
    confidence: 'normalised',
    basis: 'product "SIMATIC S7-1500" read as "simatic s7 1500" (vendor siemens)',
  });
  assert.deepEqual(
    matchProduct(
      { vendor: 'Siemens', product: 'SIMATIC S7-1500 CPU 1518' },
      { vendor: 'Siemens', product: 'SIMATIC S7-1500 family', cpe: null },
    ),
    {
      confidence: 'family',
      basis: '"SIMATIC S7-1500 CPU 1518" is in the product family "SIMATIC S7-1500 family" (vendor siemens)',
    },
  );
});

test('matchProduct: the CPE match needs both CPEs and the same vendor and product tokens', () => {
  const range = { vendor: 'abb', product: 'Other Name', cpe: 'cpe:2.3:a:abb:symphony_plus:*:*:*:*:*:*:*:*' };
  // Same tokens: exact, whatever the names say.
  assert.equal(
    matchProduct({ vendor: 'x', product: 'y', cpe: 'cpe:2.3:a:abb:symphony_plus:3.0:*:*:*:*:*:*:*' }, range)
      ?.confidence,
    'exact',
  );
  // Same product token, another vendor token; same vendor, another product: the names decide (here: no match).
  assert.equal(
    matchProduct({ vendor: 'x', product: 'y', cpe: 'cpe:2.3:a:abc:symphony_plus:3.0:*:*:*:*:*:*:*' }, range),
    null,
  );
  assert.equal(
    matchProduct({ vendor: 'x', product: 'y', cpe: 'cpe:2.3:a:abb:symphony:3.0:*:*:*:*:*:*:*' }, range),
    null,
  );
  // No CPE on one side, or a CPE that does not parse: the names decide.
  assert.equal(
    matchProduct(
      { vendor: 'x', product: 'y', cpe: 'cpe:2.3:a:abb:symphony_plus:3.0:*:*:*:*:*:*:*' },
      { ...range, cpe: null },
    ),
    null,
  );
  assert.equal(matchProduct({ vendor: 'x', product: 'y', cpe: 'cpe:/a:abb:symphony_plus' }, range), null);
  assert.equal(matchProduct({ vendor: 'x', product: 'y', cpe: null }, range), null);
  assert.equal(matchProduct({ vendor: 'ABB', product: 'other name', cpe: null }, range)?.confidence, 'exact');
  // Surrounding spaces on either side do not matter to the exact match.
  assert.deepEqual(
    matchProduct({ vendor: 'Siemens', product: 'LOGO!' }, { vendor: 'Siemens', product: ' LOGO! ', cpe: null }),
    { confidence: 'exact', basis: 'product " LOGO! " of vendor siemens' },
  );
});

test('matchProduct: no vendor, or products with no words, never match', () => {
  assert.equal(
    matchProduct({ vendor: 'n/a', product: 'Device Manager' }, { vendor: 'n/a', product: 'Device Manager', cpe: null }),
    null,
  );
  assert.equal(
    matchProduct({ vendor: 'Siemens', product: '--' }, { vendor: 'Siemens', product: '---', cpe: null }),
    null,
  );
  assert.equal(
    matchProduct({ vendor: 'Siemens', product: 'LOGO' }, { vendor: 'Siemens', product: '---', cpe: null }),
    null,
  );
  assert.equal(
    matchProduct({ vendor: 'Siemens', product: '---' }, { vendor: 'Siemens', product: 'LOGO', cpe: null }),
    null,
  );
});

test('strongerMatch: exact > normalised > family; a tie keeps the first', () => {
  const e = { confidence: 'exact' as const, basis: 'e' };
  const n = { confidence: 'normalised' as const, basis: 'n' };
  const n2 = { confidence: 'normalised' as const, basis: 'n2' };
  const f = { confidence: 'family' as const, basis: 'f' };
  assert.equal(strongerMatch(f, e), e);
  assert.equal(strongerMatch(e, f), e);
  assert.equal(strongerMatch(f, n), n);
  assert.equal(strongerMatch(n, f), n);
  assert.equal(strongerMatch(n, e), e);
  assert.equal(strongerMatch(n, n2), n);
  assert.equal(strongerMatch(n2, n), n2);
});

// One organisation, two vendor spellings (docs/correlation.md §2 "One organisation"). The pairs are slugs the
// snapshot corpus holds side by side: the CNA's name with its organisation word, and the CPE token without.
test('vendorStem: one trailing organisation word, then a leading "the"; table vendors and short stems stay', () => {
  const cases: [string, string][] = [
    ['apachesoftwarefoundation', 'apache'], // "Apache Software Foundation" (CNA) vs cpe apache
    ['pythonsoftwarefoundation', 'python'],
    ['eclipsefoundation', 'eclipse'],
    ['thewikimediafoundation', 'wikimedia'], // "The Wikimedia Foundation"
    ['jenkinsproject', 'jenkins'],
    ['gvectorsteam', 'gvectors'],
    ['unisoctechnologies', 'unisoc'],
    ['a10networks', 'a10'],
    ['foxitsoftware', 'foxit'],
    ['thalesgroup', 'thales'],
    ['matrixorg', 'matrix'],
    ['answerdev', 'answer'],
    ['apache', 'apache'],
    ['georg', 'georg'], // "org" leaves 2 letters: kept
    ['thermofisher', 'thermofisher'], // "the" goes only after a tail
    ['theforemanproject', 'foreman'],
    ['theteam', 'theteam'], // "the" + "team": the stem would be empty
  ];
  for (const [slug, stem] of cases) assert.equal(vendorStem(slug), stem, slug);
  // Vendors of the alias table are their own stem (their spellings are listed there).
  assert.equal(vendorStem('palo-alto-networks'), 'palo-alto-networks');
  assert.equal(vendorStem('linux'), 'linux');
  // Apache is a table vendor: both spellings are one slug. gVectors is not.
  assert.equal(vendorSlug('Apache Software Foundation'), 'apache');
  assert.equal(vendorSlug('gVectors Team'), 'gvectorsteam');
  assert.equal(vendorStem('gvectorsteam'), 'gvectors');
});

test("stemFreeKey: the stem's words in front go, only whole words, never the whole key", () => {
  assert.equal(stemFreeKey('apache tomcat', 'apache'), 'tomcat');
  assert.equal(stemFreeKey('palo alto pan os', 'paloalto'), 'pan os');
  assert.equal(stemFreeKey('apache', 'apache'), 'apache');
  assert.equal(stemFreeKey('apachetomcat', 'apache'), 'apachetomcat');
  assert.equal(stemFreeKey('apach tomcat', 'apache'), 'apach tomcat');
  assert.equal(stemFreeKey('tomcat', 'apache'), 'tomcat');
});

test('matchProduct across the vendor spellings of one organisation: normalised at most, the basis names both', () => {
  // CVE-2023-46310 (CVE record 5, CNA Patchstack): vendor "gVectors Team", product "wpDiscuz".
  const cna = { vendor: 'gVectors Team', product: 'wpDiscuz', cpe: null };
  // The same product as CISA-ADP's CPE-derived range: vendor token gvectors, product wpdiscuz.
  const cpe = { vendor: 'gvectors', product: 'wpdiscuz', cpe: 'cpe:2.3:a:gvectors:wpdiscuz:-:*:*:*:*:wordpress:*:*' };
  const cases: [{ vendor: string; product: string }, string, string][] = [
    // asset, confidence against the CNA spelling, against the CPE spelling
    [{ vendor: 'gVectors', product: 'wpDiscuz' }, 'normalised', 'exact'],
    [{ vendor: 'gVectors Team', product: 'wpDiscuz' }, 'exact', 'normalised'],
    [{ vendor: 'gVectors Team', product: 'gVectors wpDiscuz' }, 'normalised', 'normalised'],
    [{ vendor: 'gvectors', product: 'WPDISCUZ' }, 'normalised', 'exact'],
  ];
  for (const [asset, viaCna, viaCpe] of cases) {
    assert.equal(
      matchProduct(asset, cna)?.confidence,
      viaCna,
      `${asset.vendor} / ${asset.product} vs the CNA spelling`,
    );
    assert.equal(
      matchProduct(asset, cpe)?.confidence,
      viaCpe,
      `${asset.vendor} / ${asset.product} vs the CPE spelling`,
    );
  }
  assert.deepEqual(matchProduct({ vendor: 'gVectors', product: 'wpDiscuz' }, cna), {
    confidence: 'normalised',
    basis:
      'product "wpDiscuz" read as "wpdiscuz" (vendor gvectors; the source\'s vendor "gVectors Team" (gvectorsteam) read as the same organisation)',
  });
  // A family across the spellings: the asset names an edition of the wpDiscuz family.
  assert.equal(matchProduct({ vendor: 'gVectors', product: 'wpDiscuz Comments Pro' }, cna)?.confidence, 'family');
  // Another product of the organisation, or the same product name of another organisation: no match.
  assert.equal(matchProduct({ vendor: 'gVectors', product: 'wpForo Forum' }, cna), null);
  assert.equal(matchProduct({ vendor: 'gVectors Media', product: 'wpDiscuz' }, cna), null);
  assert.equal(matchProduct({ vendor: 'Eclipse Foundation', product: 'wpDiscuz' }, cna), null);
  // A less specific asset stays no match across spellings too.
  assert.equal(matchProduct({ vendor: 'gVectors', product: 'gVectors' }, cna), null);
  // Spellings the alias table lists are one vendor: no cross-organisation wording (CVE-2024-34750, Apache Tomcat).
  assert.deepEqual(
    matchProduct(
      { vendor: 'Apache', product: 'Tomcat' },
      { vendor: 'Apache Software Foundation', product: 'Apache Tomcat', cpe: null },
    ),
    { confidence: 'normalised', basis: 'product "Tomcat" read as "tomcat" (vendor apache)' },
  );
});

test("assetLookupKeys: own slug first; the organisation's other slugs with the key with and without the stem", () => {
  const related = (stem: string) => (stem === 'gvectors' ? ['gvectors', 'gvectorsteam'] : []);
  const keys = assetLookupKeys('gVectors', 'wpDiscuz 7', related).map((k) => `${k.slug}/${k.key}`);
  assert.deepEqual(keys, [
    'gvectors/wpdiscuz 7',
    'gvectors/wpdiscuz',
    'gvectorsteam/wpdiscuz 7',
    'gvectorsteam/wpdiscuz',
    'gvectorsteam/gvectors wpdiscuz 7',
    'gvectorsteam/gvectors wpdiscuz',
  ]);
  // From the long spelling: the stem's own slug is looked up without the stem words.
  assert.deepEqual(
    assetLookupKeys('gVectors Team', 'gVectors wpDiscuz', related).map((k) => `${k.slug}/${k.key}`),
    ['gvectorsteam/gvectors wpdiscuz', 'gvectorsteam/gvectors', 'gvectorsteam/wpdiscuz', 'gvectors/wpdiscuz'],
  );
  // A vendor with no other spelling: the keys as before (its own key and family prefixes).
  assert.deepEqual(
    assetLookupKeys('Siemens AG', 'SIMATIC S7-1500', () => []).map((k) => `${k.slug}/${k.key}`),
    ['siemens/simatic s7 1500', 'siemens/simatic s7', 'siemens/simatic'],
  );
  assert.deepEqual(assetLookupKeys('multiple vendors', 'x', related), []);
});

test('productKey: a widening note "(incl. …)" / "(Including …)" is dropped; narrower notes stay', () => {
  // Spellings of the Siemens and Yokogawa CSAF product trees (CISA ICS advisories).
  assert.equal(productKey('SIMATIC S7-1200 CPU family (incl. SIPLUS variants)', 'Siemens'), 'simatic s7 1200 cpu');
  assert.equal(productKey('LOGO! 8 BM (incl. SIPLUS variants)'), 'logo 8 bm');
  assert.equal(
    productKey('SIMATIC S7-1500 CPU family (incl. related ET200 CPUs and SIPLUS variants)'),
    'simatic s7 1500 cpu',
  );
  assert.equal(productKey('SCALANCE X-200 switch family (INCL. SIPLUS NET variants)'), 'scalance x 200 switch');
  assert.equal(productKey('CENTUM CS 3000 (Including CENTUM CS 3000 Entry Class)', 'Yokogawa'), 'centum cs 3000');
  // An order number, an installation kind or a version note names a narrower product: kept.
  assert.equal(
    productKey('SIMATIC S7-1500 CPU 1511-1 PN (6ES7511-1AK02-0AB0)'),
    'simatic s7 1500 cpu 1511 1 pn 6es7511 1ak02 0ab0',
  );
  assert.equal(
    productKey('Windows Server 2019 (Server Core installation)'),
    'windows server 2019 server core installation',
  );
  assert.equal(productKey('FactoryTalk Linx (includes 6.0 - 6.40)'), 'factorytalk linx includes 6 0 6 40');
  // "incl" only as a word at the start of the note.
  assert.equal(productKey('Inclinometer (inclinometer kit)'), 'inclinometer inclinometer kit');
  assert.equal(productKey('(incl. SIPLUS variants)'), '');
  // As a nameplate reads: the family covers the model, the product its own name.
  assert.equal(
    matchProduct(
      { vendor: 'Siemens', product: 'SIMATIC S7-1200 CPU 1214C DC/DC/DC' },
      { vendor: 'Siemens', product: 'SIMATIC S7-1200 CPU family (incl. SIPLUS variants)', cpe: null },
    )?.confidence,
    'family',
  );
  assert.equal(
    matchProduct(
      { vendor: 'Siemens', product: 'LOGO! 8 BM' },
      { vendor: 'Siemens', product: 'LOGO! 8 BM (incl. SIPLUS variants)', cpe: null },
    )?.confidence,
    'normalised',
  );
});

test('productKey: a brand or other spelling of a table vendor in front goes too, the longest first (Allen-Bradley, Mitsubishi)', () => {
  // Rockwell Automation's CISA advisories name "Allen-Bradley Stratix 5400" (27 CVEs of the snapshot), a nameplate
  // says "Stratix 5400".
  assert.equal(productKey('Allen-Bradley Stratix 5400', 'Rockwell Automation'), 'stratix 5400');
  assert.equal(productKey('Allen Bradley MicroLogix 1400', 'Rockwell'), 'micrologix 1400');
  assert.equal(productKey('Stratix 5400', 'Allen-Bradley'), 'stratix 5400');
  // The longest spelling that fits: "Mitsubishi Electric" before "Mitsubishi" (not "electric melsec ...").
  assert.equal(productKey('Mitsubishi Electric MELSEC iQ-R', 'Mitsubishi Electric Corporation'), 'melsec iq r');
  assert.equal(productKey('Mitsubishi MELSEC iQ-R', 'Mitsubishi Electric'), 'melsec iq r');
  // Spellings shorter than three letters are not read off a product ("SE" of Schneider Electric).
  assert.equal(productKey('SE Link Manager', 'Schneider Electric'), 'se link manager');
  // Vendors outside the table have no brands; nothing is left is never the result.
  assert.equal(productKey('Allen-Bradley Stratix', 'Acme'), 'allen bradley stratix');
  assert.equal(productKey('Allen-Bradley', 'Rockwell Automation'), 'allen bradley');
});

test('productKey: "Series" inside a name goes (MELSEC iQ-R Series R00CPU is the R00CPU of the MELSEC iQ-R)', () => {
  assert.equal(productKey('MELSEC iQ-R Series R00CPU', 'Mitsubishi Electric'), 'melsec iq r r00cpu');
  assert.equal(productKey('MELSEC iQ-R R00CPU', 'Mitsubishi Electric'), 'melsec iq r r00cpu');
  assert.equal(productKey('MicroLogix 1400 Controllers Series B'), 'micrologix 1400 controllers b');
  assert.equal(
    productKey('MicroLogix 1400 Controllers Series A') === productKey('MicroLogix 1400 Controllers Series B'),
    false,
  );
  assert.equal(productKey('Series 7'), '7');
  assert.equal(productKey('Series'), 'series');
  const m = matchProduct(
    { vendor: 'Mitsubishi', product: 'MELSEC iQ-R R00CPU' },
    { vendor: 'Mitsubishi Electric', product: 'MELSEC iQ-R Series R00CPU', cpe: null },
  );
  assert.deepEqual(m, {
    confidence: 'normalised',
    basis: 'product "MELSEC iQ-R R00CPU" read as "melsec iq r r00cpu" (vendor mitsubishi-electric)',
  });
});

test('vendors: "Mitsubishi" is Mitsubishi Electric (the snapshot\'s `mitsubishi` CPE rows are all MELSEC and MELIPC)', () => {
  assert.deepEqual(
    ['Mitsubishi', 'mitsubishi', 'MITSUBISHI ELECTRIC', 'Mitsubishi Electric Corporation'].map(vendorSlug),
    ['mitsubishi-electric', 'mitsubishi-electric', 'mitsubishi-electric', 'mitsubishi-electric'],
  );
  assert.equal(vendorSlug('Mitsubishi Heavy Industries'), 'mitsubishiheavyindustries');
});
