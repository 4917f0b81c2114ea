// Patch rules of src/domain/patch.ts (spec §2.3 patch, docs/enrichment.md "Patch") one by one: the known patch and
// fix sources of rule 4 host by host (spellings), the own-vendor advisory test of rule 3, and buildPatch's
// branches (pairs, links to advisories without a fix, CSAF-provided links, patch URL and notes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildPatch, isOwnVendorAdvisory, isPatchSource, VARIES_NOTE } from '../../src/domain/patch.ts';
import { canonicalVendor } from '../../src/domain/vendors.ts';
import type { MergedCve } from '../../src/domain/merge.ts';
import type { CsafAdvisoryFacts, SourceReference } from '../../src/domain/records.ts';

const ref = (url: string, tags: string[] = [], provided_by = 'nvd@nist.gov'): SourceReference => ({
  url,
  tags,
  provided_by,
});
const src = (url: string) => isPatchSource(ref(url), false);

test('rule 4: a vendor advisory or a link tagged Patch is a fix source whatever its host', () => {
  assert.equal(isPatchSource(ref('https://example.test/page'), true), true);
  assert.equal(isPatchSource(ref('https://example.test/page', ['Vendor Advisory', 'Patch']), false), true);
  assert.equal(isPatchSource(ref('https://example.test/page', ['Vendor Advisory', 'patch']), false), false);
  assert.equal(isPatchSource(ref('not a url'), false), false);
  assert.equal(isPatchSource(ref('not a url'), true), true);
  assert.equal(src('mailto:psirt@example.test'), false);
});

test('rule 4: code hosts count for commits, pull requests and releases only', () => {
  for (const url of [
    'https://github.com/acme/widget/commit/0a1b2c',
    'https://github.com/acme/widget/commits/main',
    'https://github.com/acme/widget/pull/12',
    'https://github.com/acme/widget/releases/tag/v1.2.3',
    'https://github.com/acme/widget/compare/v1...v2',
    'https://gitlab.com/acme/widget/-/commit/0a1b',
    'https://gitlab.com/group/sub/widget/-/merge_requests/4',
    'https://gitlab.com/acme/widget/-/tags/v2',
    'https://gitlab.com/acme/widget/-/releases',
    'https://gitlab.com/acme/widget/-/commits/main',
    'https://bitbucket.org/acme/widget/commits/0a1b',
    'https://bitbucket.org/acme/widget/pull-requests/3',
    'https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git/commit/?id=0a1b',
    'https://git.kernel.org/linus/c/0a1b',
  ])
    assert.equal(src(url), true, url);
  for (const url of [
    'https://github.com/acme/widget/issues/12',
    'https://www.github.com/acme/widget/pull/12',
    'https://github.com/acme/widget',
    'https://github.com/acme/commit/x',
    'https://github.com/acme/widget/committee',
    'https://github.com/x/acme/widget/commit/0a1b',
    'https://gist.github.com/acme/widget/commit/0a1b',
    'https://gitlab.com/acme/widget/commit/0a1b',
    'https://gitlab.com/acme/widget/-/issues/4',
    'https://bitbucket.org/acme/widget/issues/3',
    'https://bitbucket.org/x/acme/widget/commits/0a1b',
    'https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git/log/',
    'https://example.test/acme/widget/commit/0a1b',
  ])
    assert.equal(src(url), false, url);
});

test('rule 4: distribution security pages, host by host and path by path', () => {
  for (const url of [
    'https://access.redhat.com/errata/RHSA-2024:0001',
    'https://access.redhat.com/security/cve/CVE-2024-0001',
    'https://ubuntu.com/security/CVE-2024-0001',
    'https://www.ubuntu.com/security/notices/USN-6000-1',
    'https://usn.ubuntu.com/6000-1/',
    'https://www.debian.org/security/2024/dsa-5600',
    'https://debian.org/security/2024/dsa-5600',
    'https://lists.debian.org/debian-security-announce/2024/msg00001.html',
    'https://lists.debian.org/debian-lts-announce/2024/01/msg00001.html',
    'https://security.gentoo.org/glsa/202401-01',
    'https://www.suse.com/security/cve/CVE-2024-0001/',
    'https://suse.com/support/update/announcement/2024/suse-su-20240001-1/',
    'https://lists.opensuse.org/archives/list/security-announce@lists.opensuse.org/',
    'https://lists.fedoraproject.org/archives/list/package-announce@lists.fedoraproject.org/message/X/',
    'https://security.archlinux.org/AVG-1',
    'https://www.oracle.com/security-alerts/cpujan2024.html',
    'https://oracle.com/security-alerts/cpujan2024.html',
    'https://security.netapp.com/advisory/ntap-20240101-0001/',
    'https://www.freebsd.org/security/advisories/FreeBSD-SA-24:01.x.asc',
    'https://freebsd.org/security/advisories/FreeBSD-SA-24:01.x.asc',
  ])
    assert.equal(src(url), true, url);
  for (const url of [
    'https://access.redhat.com/solutions/123',
    'https://ubuntu.com/blog/x',
    'https://www.debian.org/News/2024',
    'https://lists.debian.org/debian-user/2024/msg1.html',
    'https://security.gentoo.org/news/1',
    'https://www.suse.com/products/',
    'https://lists.fedoraproject.org/archives/list/devel@lists.fedoraproject.org/',
    'https://www.oracle.com/downloads/',
    'https://security.netapp.com/bulletins/x',
    'https://www.freebsd.org/releases/',
    'https://wwwXoracle.com/security-alerts/x',
    'https://mirror.debian.org/security/2024/dsa-5600',
    'https://www.redhat.com/errata/RHSA-2024:0001',
    'https://ubuntu.com.example.test/security/x',
  ])
    assert.equal(src(url), false, url);
});

test('rule 4: national ICS advisories', () => {
  for (const url of [
    'https://www.cisa.gov/news-events/ics-advisories/icsa-24-284-01',
    'https://cisa.gov/news-events/ics-medical-advisories/icsma-24-001-01',
    'https://us-cert.cisa.gov/ics/advisories/icsa-20-343-01',
    'https://ics-cert.us-cert.gov/advisories/ICSA-17-129-01',
    'https://jvn.jp/vu/JVNVU12345678/',
    'https://jvn.jp/jp/JVN12345678/',
  ])
    assert.equal(src(url), true, url);
  for (const url of [
    'https://www.cisa.gov/news-events/alerts/2024/01/01/x',
    'https://www.cisa.gov/known-exploited-vulnerabilities-catalog',
    'https://us-cert.cisa.gov/ncas/alerts/aa22-103a',
    'https://ics-cert.us-cert.gov/alerts/ICS-ALERT-14-281-01',
    'https://jvn.jp/en/jp/JVN12345678/',
  ])
    assert.equal(src(url), false, url);
});

const adv = (o: Partial<CsafAdvisoryFacts> = {}): CsafAdvisoryFacts => ({
  advisory_id: 'ICSA-24-001-01',
  title: 'Acme Widget',
  url: null,
  json_url: null,
  published: '2024-01-01T00:00:00Z',
  fixes: [],
  vendor_fixes: [],
  remediation_categories: [],
  ...o,
});
function merged(o: Partial<MergedCve> = {}): MergedCve {
  return {
    cve_id: 'CVE-2024-0001',
    sources: ['csaf'],
    description: null,
    description_source: null,
    titles: [],
    published: null,
    modified: null,
    cvss: null,
    all_cvss: [],
    cwes: [],
    affected: [],
    references: [],
    assigner: null,
    kev: null,
    advisories: [],
    msrc: null,
    cve5: null,
    epss: null,
    ...o,
  };
}

test("rule 3: an advisory is the CVE vendor's when it lists one of that vendor's products, or when either side is unknown", () => {
  const siemens = canonicalVendor('Siemens');
  assert.equal(isOwnVendorAdvisory(adv({ vendors: ['Siemens AG'] }), siemens), true);
  assert.equal(isOwnVendorAdvisory(adv({ vendors: ['Moxa', 'SIEMENS'] }), siemens), true);
  assert.equal(isOwnVendorAdvisory(adv({ vendors: ['Moxa'] }), siemens), false);
  assert.equal(isOwnVendorAdvisory(adv({ vendors: ['multiple'] }), siemens), false);
  assert.equal(isOwnVendorAdvisory(adv({ vendors: [] }), siemens), true);
  assert.equal(isOwnVendorAdvisory(adv(), siemens), true);
  assert.equal(isOwnVendorAdvisory(adv({ vendors: ['Moxa'] }), null), true);
});

test('buildPatch: pairs de-duplicated whatever their case; two pairs vary, one is fixed_in; a downstream advisory is left out', () => {
  const siemens = canonicalVendor('Siemens');
  const fix = (product: string, version: string) => ({ product, version, origin: 'product_status.fixed' as const });
  const one = buildPatch(
    merged({
      advisories: [adv({ vendors: ['Siemens'], fixes: [fix('SCALANCE X', 'V2.0'), fix('scalance x', 'v2.0')] })],
    }),
    new Set(),
    siemens,
  );
  assert.deepEqual(one, {
    status: 'patched',
    patch_available: true,
    patch_version: 'V2.0',
    patch_url: null,
    patch_notes: null,
    note: 'The advisory lists a fix for one product only: SCALANCE X V2.0.',
    fixed_in: { product: 'SCALANCE X', version: 'V2.0' },
  });
  const two = buildPatch(
    merged({
      advisories: [adv({ vendors: ['Siemens'], fixes: [fix('SCALANCE X', 'V2.0'), fix('SCALANCE X', 'V2.1')] })],
    }),
    new Set(),
    siemens,
  );
  assert.deepEqual(two, {
    status: 'varies_by_product',
    patch_available: false,
    patch_version: null,
    patch_url: null,
    patch_notes: null,
    note: VARIES_NOTE,
    fixed_in: null,
  });
  // The key folds case as lower case does: STRASSE and Straße are two products, 1.0-SS and 1.0-ß two versions.
  assert.equal(
    buildPatch(merged({ advisories: [adv({ fixes: [fix('STRASSE', '1.0'), fix('Straße', '1.0')] })] }), new Set())
      .status,
    'varies_by_product',
  );
  assert.equal(
    buildPatch(merged({ advisories: [adv({ fixes: [fix('X', '1.0-SS'), fix('X', '1.0-ß')] })] }), new Set()).status,
    'varies_by_product',
  );
  const acrossAdvisories = buildPatch(
    merged({
      advisories: [adv({ fixes: [fix('A', '1.0')] }), adv({ advisory_id: 'ICSA-24-002-01', fixes: [fix('B', '1.0')] })],
    }),
    new Set(),
  );
  assert.equal(acrossAdvisories.status, 'varies_by_product');
  // A downstream vendor's advisory: its fixed version is not this CVE's, but the fix still makes the CVE patched.
  const downstream = buildPatch(
    merged({
      advisories: [
        adv({
          vendors: ['Moxa'],
          fixes: [fix('Moxa Box', '3.0')],
          vendor_fixes: [{ details: 'Update Moxa Box to 3.0.', url: 'https://moxa.test/fix', products: [] }],
        }),
      ],
    }),
    new Set(),
    siemens,
  );
  assert.deepEqual(downstream, {
    status: 'patched',
    patch_available: true,
    patch_version: null,
    patch_url: null,
    patch_notes: null,
    note: null,
    fixed_in: null,
  });
});

test('buildPatch: a link to an advisory we hold without a fix is no fix source; CSAF-provided links never are', () => {
  const noFix = adv({
    advisory_id: 'ICSA-23-262-04',
    vendor_fixes: [{ details: 'See recommendations from section Workaround and Mitigations', url: null, products: [] }],
  });
  const link = (url: string, provided_by = 'nvd@nist.gov') =>
    merged({ advisories: [noFix], references: [ref(url, [], provided_by)] });
  assert.equal(
    buildPatch(link('https://www.cisa.gov/news-events/ics-advisories/icsa-23-262-04'), new Set()).status,
    'unknown',
  );
  assert.equal(
    buildPatch(link('https://www.cisa.gov/news-events/ics-advisories/ICSA-23-262-04'), new Set()).status,
    'unknown',
  );
  assert.equal(
    buildPatch(link('https://www.cisa.gov/news-events/ics-advisories/icsa-23-262-05'), new Set()).status,
    'patched',
  );
  assert.equal(
    buildPatch(link('https://www.cisa.gov/news-events/ics-advisories/icsa-23-262-04b'), new Set()).status,
    'patched',
    'another revision id',
  );
  assert.equal(
    buildPatch(link('https://www.cisa.gov/news-events/ics-advisories/icsa-23-262-04-update'), new Set()).status,
    'unknown',
    'the id ends at a word boundary',
  );
  assert.equal(
    buildPatch(link('https://www.cisa.gov/news-events/ics-medical-advisories/icsma-23-262-04'), new Set()).status,
    'patched',
  );
  assert.equal(
    buildPatch(link('https://www.cisa.gov/news-events/ics-advisories/icsa-23-262-05', 'csaf'), new Set()).status,
    'unknown',
  );
  assert.equal(buildPatch(link('https://github.com/acme/widget/commit/0a1b'), new Set()).status, 'patched');
  assert.equal(
    buildPatch(link('https://acme.test/psirt'), new Set(['https://acme.test/psirt'])).status,
    'patched',
    'a vendor advisory',
  );
  assert.equal(buildPatch(link('https://acme.test/psirt'), new Set(['https://acme.test/other'])).status, 'unknown');
  const medical = adv({ advisory_id: 'ICSMA-23-262-04' });
  assert.equal(
    buildPatch(
      merged({
        advisories: [medical],
        references: [ref('https://www.cisa.gov/news-events/ics-medical-advisories/icsma-23-262-04')],
      }),
      new Set(),
    ).status,
    'unknown',
  );
});

test("buildPatch: patch URL from a Patch-tagged link, else a fix-offering remediation's URL; notes put fixes first, squeezed, at most 500 characters", () => {
  const general = { details: 'Contact   Acme\nsupport.', url: 'https://acme.test/contact', products: [] };
  const update = {
    details: '  Update   the Widget\n to version 2.4.1.  ',
    url: 'https://acme.test/download',
    products: [],
  };
  const bare = { details: 'Install firmware 3.0.', url: null, products: [] };
  let p = buildPatch(merged({ advisories: [adv({ vendor_fixes: [general, update] })] }), new Set());
  assert.deepEqual(
    [p.status, p.patch_url, p.patch_notes],
    ['patched', 'https://acme.test/download', 'Update the Widget to version 2.4.1.'],
  );
  p = buildPatch(merged({ advisories: [adv({ vendor_fixes: [bare, update] })] }), new Set());
  assert.deepEqual([p.patch_url, p.patch_notes], ['https://acme.test/download', 'Install firmware 3.0.']);
  p = buildPatch(
    merged({
      advisories: [adv({ vendor_fixes: [general] })],
      references: [ref('https://acme.test/tagged', ['Patch'])],
    }),
    new Set(),
  );
  assert.deepEqual(
    [p.status, p.patch_url, p.patch_notes],
    ['patched', 'https://acme.test/tagged', 'Contact Acme support.'],
  );
  p = buildPatch(merged({ advisories: [adv({ vendor_fixes: [general] })] }), new Set());
  assert.deepEqual([p.status, p.patch_url, p.patch_notes], ['unknown', null, 'Contact Acme support.']);
  p = buildPatch(
    merged({ advisories: [adv({ vendor_fixes: [{ details: '', url: 'https://acme.test/x', products: [] }] })] }),
    new Set(),
  );
  assert.deepEqual([p.status, p.patch_url, p.patch_notes], ['unknown', null, null]);
  const long = `Update to version 2.0. ${'x'.repeat(600)}`;
  p = buildPatch(
    merged({ advisories: [adv({ vendor_fixes: [{ details: long, url: null, products: [] }] })] }),
    new Set(),
  );
  assert.equal(p.patch_notes, long.slice(0, 500));
  assert.deepEqual(buildPatch(merged(), new Set()), {
    status: 'unknown',
    patch_available: false,
    patch_version: null,
    patch_url: null,
    patch_notes: null,
    note: null,
    fixed_in: null,
  });
});
