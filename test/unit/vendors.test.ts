// Canonical vendors (src/domain/vendors.ts): the lookup key, the alias table, names that are no vendor, the parent
// company of a subsidiary, lists of companies, and names outside the table (CPE tokens title-cased).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  canonicalVendor,
  formerSlugTarget,
  productDisplay,
  vendorByDomain,
  vendorKey,
  VENDOR_ALIASES,
} from '../../src/domain/vendors.ts';

test('vendorKey: lower case, no punctuation, no parenthesised words, "&" read as "and", company-form tails dropped', () => {
  assert.equal(vendorKey('SIEMENS'), 'siemens');
  assert.equal(vendorKey('Phoenix Contact GmbH & Co. KG'), 'phoenixcontact');
  assert.equal(vendorKey('B&R'), 'bandr');
  assert.equal(vendorKey('B&R&Co'), 'bandr');
  assert.equal(vendorKey('A&B&C'), 'aandbandc');
  assert.equal(vendorKey('Schweitzer Engineering Laboratories (SEL)'), 'schweitzerengineeringlaboratories');
  assert.equal(vendorKey('Acme (North) Widgets (Europe) Ltd'), 'acmewidgets');
  // A parenthesis separates words: the company-form word after it is still a tail.
  assert.equal(vendorKey('Widgets(Europe)AG'), 'widgets');
  assert.equal(vendorKey('B+B SmartWorx'), 'b+bsmartworx');
  assert.equal(vendorKey('Widgets and'), 'widgets');
  // Leading and trailing punctuation leaves no empty word behind (an empty last word would stop the tail removal).
  assert.equal(vendorKey('-Acme Widgets AG.'), 'acmewidgets');
  assert.equal(vendorKey('Acme Widgets Corp Inc'), 'acmewidgets');
  // One word is never dropped, even a company-form word.
  assert.equal(vendorKey('Inc'), 'inc');
  assert.equal(vendorKey('Co Inc'), 'co');
  assert.equal(vendorKey('And'), 'and');
  // A company-form word inside the name stays.
  assert.equal(vendorKey('Co Widgets'), 'cowidgets');
  assert.equal(vendorKey('()'), '');
  // "SE" (Societas Europaea) is a company form: the SAP CNA's "SAP_SE" is SAP; one word "SE" stays a name.
  assert.equal(vendorKey('SAP_SE'), 'sap');
  assert.equal(vendorKey('Viessmann Climate Solutions SE'), 'viessmannclimatesolutions');
  assert.equal(vendorKey('SE'), 'se');
  assert.equal(vendorKey('SE Widgets'), 'sewidgets');
  assert.equal(vendorKey('Projectworlds Pvt. Limited'), 'projectworlds');
  assert.equal(vendorKey('IT Path Solutions PVT LTD'), 'itpathsolutions');
  assert.equal(vendorKey('Acme Private Limited'), 'acme');
  assert.equal(vendorKey('Private Internet Access'), 'privateinternetaccess');
});

// The spellings of one organisation that the CVE Program's records use side by side (counts of the
// snapshot corpus; as two slugs each pair would split that vendor's CVEs, for the catalog, filters, watchlists and
// correlation alike).
test('canonicalVendor: the CVE Program spellings of one organisation are one table vendor', () => {
  const cases: [string, boolean, string][] = [
    ['SAP_SE', false, 'sap'],
    ['SAP SE', false, 'sap'],
    ['sap', true, 'sap'],
    ['sap_se', true, 'sap'], // 157 + 34 CVEs
    ['Samsung Mobile', false, 'samsung'],
    ['samsung_mobile', true, 'samsung'],
    ['Samsung Open Source', false, 'samsung'],
    ['samsung', true, 'samsung'],
    ['Hewlett Packard Enterprise (HPE)', false, 'hpe'],
    ['hpe', true, 'hpe'],
    ['Apache Software Foundation', false, 'apache'],
    ['apache_software_foundation', true, 'apache'],
    ['apache', true, 'apache'],
    ['Unisoc (Shanghai) Technologies Co., Ltd.', false, 'unisoc'],
    ['unisoc', true, 'unisoc'],
    ['Dassault Systèmes', false, 'dassault-systemes'],
    ['3ds', true, 'dassault-systemes'],
    ['dassault', true, 'dassault-systemes'],
    ['Jenkins Project', false, 'jenkins'],
    ['Python Software Foundation', false, 'python'],
    ['The Wikimedia Foundation', false, 'wikimedia'],
    ['Zoom Communications, Inc', false, 'zoom'],
    ['Zoom Video Communications', false, 'zoom'],
    ['Axis Communications AB', false, 'axis'],
    ['silabs.com', false, 'silicon-labs'],
    ['Silicon Labs', false, 'silicon-labs'],
    ['silabs', true, 'silicon-labs'],
    ['Dräger', false, 'draeger'],
    ['draeger', true, 'draeger'],
    ['lg', true, 'lg-electronics'],
    ['LG Electronics', false, 'lg-electronics'],
  ];
  for (const [name, fromCpe, slug] of cases) assert.equal(canonicalVendor(name, fromCpe)?.slug, slug, name);
  // Distinct companies stay apart: HP and HPE, Samsung and Samsung's acquisitions are not guessed.
  assert.equal(canonicalVendor('HP Inc.')?.slug, 'hp');
  assert.equal(canonicalVendor('arubanetworks', true)?.slug, 'arubanetworks');
  // The display name reads well in a sentence ("affects Apache Struts 1").
  assert.equal(canonicalVendor('Apache Software Foundation')?.name, 'Apache');
  // Their own domains make their pages vendor advisories as before the merge (samsungmobile.com under "Samsung
  // Mobile", silabs.com under "silabs").
  assert.deepEqual(canonicalVendor('Samsung Mobile')?.domains, ['samsung.com', 'samsungmobile.com']);
  assert.deepEqual(canonicalVendor('Silicon Labs')?.domains, ['silabs.com']);
});

test('the alias table: every spelling it lists resolves to its own entry, and every slug is a valid catalog slug', () => {
  for (const e of VENDOR_ALIASES) {
    assert.match(e.slug, /^[a-z0-9][a-z0-9-]*$/, e.slug);
    for (const spelling of [e.name, e.slug, ...e.aliases])
      assert.equal(canonicalVendor(spelling)?.slug, e.slug, `${e.slug}: ${spelling}`);
  }
});

test('formerSlugTarget: the slug a vendor slug that left the catalog may have become', () => {
  const cases: [string, string | null][] = [
    // Former slugs the table lists (no listed spelling normalises to them any more).
    ['sapse', 'sap'],
    ['dassaultsystmes', 'dassault-systemes'],
    ['drger', 'draeger'],
    // Former slugs that are a listed spelling's key; the table decides alone where it knows the slug (the "se" of
    // hewlettpackardenterprise is no company form).
    ['samsungmobile', 'samsung'],
    ['apachesoftwarefoundation', 'apache'],
    ['hewlettpackardenterprise', 'hpe'],
    // A slug that ended with a company form added since: the slug without it (the caller checks its catalog).
    ['viessmannclimatesolutionsse', 'viessmannclimatesolutions'],
    ['acespritechsolutionspvt', 'acespritechsolutions'],
    ['acmeprivate', 'acme'],
    ['base', 'ba'],
    // A vendor's own slug, one that is no spelling of another, or too short to have had a company form: nothing.
    ['siemens', null],
    ['acmewidgets', null],
    ['ase', null],
  ];
  for (const [slug, target] of cases) assert.equal(formerSlugTarget(slug), target, slug);
});

test('canonicalVendor: table vendors by name, slug, alias and CPE token, with their fields', () => {
  const siemens = {
    slug: 'siemens',
    name: 'Siemens',
    ics: true,
    domains: ['siemens.com', 'siemens-energy.com', 'siemens-healthineers.com'],
    known: true,
  };
  for (const v of ['Siemens', 'SIEMENS', 'Siemens AG', ' siemens ', 'Siemens Energy'])
    assert.deepEqual(canonicalVendor(v), siemens, v);
  assert.deepEqual(canonicalVendor('siemens_ag', true), siemens);
  assert.deepEqual(canonicalVendor('Microsoft Corporation'), {
    slug: 'microsoft',
    name: 'Microsoft',
    ics: false,
    domains: ['microsoft.com'],
    known: true,
  });
  assert.deepEqual(canonicalVendor('Carlo Gavazzi'), {
    slug: 'carlo-gavazzi',
    name: 'Carlo Gavazzi',
    ics: true,
    domains: ['gavazziautomation.com'],
    known: true,
  });
  assert.equal(canonicalVendor('Allen-Bradley')?.slug, 'rockwell-automation');
  assert.equal(canonicalVendor('B&R')?.slug, 'b-and-r');
  // The whole name is in the table although it contains "and": its parts are not consulted.
  assert.equal(canonicalVendor('B and R Industrial Automation')?.slug, 'b-and-r');
  assert.equal(canonicalVendor('Hitachi ABB Power Grids')?.slug, 'hitachi-energy');
});

test('canonicalVendor: names that name no vendor', () => {
  for (const v of [
    '',
    '   ',
    '*',
    '-',
    'n/a',
    'N/A',
    'na',
    'NA',
    'multiple',
    'Multiple open source',
    'multiple trailer and brake manufacturers',
    '()',
    '+',
  ]) {
    assert.equal(canonicalVendor(v), null, JSON.stringify(v));
  }
  // Near misses are vendors of their own.
  assert.equal(canonicalVendor('n/ac')?.slug, 'nac');
  assert.equal(canonicalVendor('Rana')?.slug, 'rana');
  assert.equal(canonicalVendor('n/a systems')?.slug, 'nasystems');
  assert.equal(canonicalVendor('Multiplex Inc')?.slug, 'multiplex');
  assert.equal(canonicalVendor('Acme multiple')?.slug, 'acmemultiple');
});

test('canonicalVendor: a subsidiary or affiliate resolves to its parent company', () => {
  assert.equal(
    canonicalVendor('Sensormatic Electronics, LLC, a subsidiary of Johnson Controls Inc.')?.slug,
    'johnson-controls',
  );
  assert.equal(canonicalVendor('Foo Bar, a subsidiary of Siemens')?.slug, 'siemens');
  assert.equal(canonicalVendor('Foo Bar, an affiliate of Siemens AG')?.slug, 'siemens');
  assert.equal(canonicalVendor('Foo Bar,an  Affiliate  OF  Siemens')?.slug, 'siemens');
  // A parent outside the table keeps its own spelling, without trailing dashes or spaces.
  assert.deepEqual(canonicalVendor('Foo Bar, a subsidiary of Acme Widgets - '), {
    slug: 'acmewidgets',
    name: 'Acme Widgets',
    ics: false,
    domains: [],
    known: false,
  });
  assert.equal(canonicalVendor('Foo Bar, a subsidiary of Acme Widgets-')?.name, 'Acme Widgets');
  assert.equal(canonicalVendor('Foo Bar, a subsidiary of   Acme Widgets')?.name, 'Acme Widgets');
  // The parent is the rest of the name, up to its end: a line break inside it is no parent phrase.
  assert.equal(
    canonicalVendor('Foo Bar, a subsidiary of Siemens\nAcme')?.name,
    'Foo Bar, a subsidiary of Siemens Acme',
  );
  // Not the parent-company phrase: the name is read as a list of companies.
  assert.equal(canonicalVendor('Foo Bar, subsidiary of Siemens')?.name, 'Foo Bar, subsidiary of Siemens');
});

test('canonicalVendor: a list of companies resolves to its known part, or to its only real part', () => {
  assert.equal(canonicalVendor('Exacq Technologies, Johnson Controls Inc.')?.slug, 'johnson-controls');
  // "ICONICS, Mitsubishi Electric" is itself an alias; two known parts: the first decides.
  assert.equal(canonicalVendor('ICONICS, Mitsubishi Electric')?.slug, 'mitsubishi-electric');
  assert.equal(canonicalVendor('Siemens, Microsoft')?.slug, 'siemens');
  assert.equal(canonicalVendor('Acme Widgets, Siemens')?.slug, 'siemens');
  assert.equal(canonicalVendor('Acme Widgets and Siemens')?.slug, 'siemens');
  assert.equal(canonicalVendor('Acme Widgets AND Siemens')?.slug, 'siemens');
  assert.equal(canonicalVendor('Acme Widgets, and Siemens')?.slug, 'siemens');
  assert.equal(canonicalVendor('Acme Widgets,Siemens')?.slug, 'siemens');
  // A name whose every word is in parentheses names no vendor, even when a comma cuts the parentheses apart.
  assert.equal(canonicalVendor('(Siemens, Microsoft)'), null);
  // Company-form parts are dropped; the one part left is the vendor.
  assert.deepEqual(canonicalVendor('Widgets Unlimited, Inc.'), {
    slug: 'widgetsunlimited',
    name: 'Widgets Unlimited',
    ics: false,
    domains: [],
    known: false,
  });
  assert.equal(canonicalVendor('Widgets Unlimited,')?.name, 'Widgets Unlimited');
  // Two unknown parts: the name stays as written.
  assert.deepEqual(canonicalVendor('Acme, Widgets'), {
    slug: 'acmewidgets',
    name: 'Acme, Widgets',
    ics: false,
    domains: [],
    known: false,
  });
  assert.equal(canonicalVendor('Andover Controls')?.name, 'Andover Controls');
});

test('canonicalVendor: names outside the table, as typed or as CPE tokens', () => {
  assert.deepEqual(canonicalVendor('  Acme   Widgets  '), {
    slug: 'acmewidgets',
    name: 'Acme Widgets',
    ics: false,
    domains: [],
    known: false,
  });
  assert.deepEqual(canonicalVendor('nortekcontrol', true), {
    slug: 'nortekcontrol',
    name: 'Nortekcontrol',
    ics: false,
    domains: [],
    known: false,
  });
  assert.deepEqual(canonicalVendor('_kento__themes_', true), {
    slug: 'kentothemes',
    name: 'Kento Themes',
    ics: false,
    domains: [],
    known: false,
  });
  // The same spelling typed by a person keeps its underscores in the display name (and the memo tells them apart).
  assert.equal(canonicalVendor('kento_themes', true)?.name, 'Kento Themes');
  assert.equal(canonicalVendor('kento_themes')?.name, 'kento_themes');
  assert.equal(canonicalVendor('kento_themes', true)?.name, 'Kento Themes');
  // '+' helps the lookup key but not the slug.
  assert.deepEqual(canonicalVendor('C++ Tools'), {
    slug: 'ctools',
    name: 'C++ Tools',
    ics: false,
    domains: [],
    known: false,
  });
});

test('vendorByDomain: the table vendor publishing on a registrable domain', () => {
  assert.equal(vendorByDomain('siemens.com')?.slug, 'siemens');
  assert.equal(vendorByDomain('gevernova.com')?.slug, 'ge');
  assert.equal(vendorByDomain('example.com'), undefined);
  assert.equal(VENDOR_ALIASES.find((e) => e.slug === 'sielco')?.domains.length, 0);
});

test('productDisplay: spaces collapsed; CPE underscores become spaces, typed underscores stay', () => {
  assert.equal(productDisplay('  SIMATIC   S7-1500 '), 'SIMATIC S7-1500');
  assert.equal(productDisplay('simatic_s7-1500_firmware', true), 'simatic s7-1500 firmware');
  assert.equal(productDisplay('simatic_s7-1500_firmware'), 'simatic_s7-1500_firmware');
});
