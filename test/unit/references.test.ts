// The references block (src/domain/references.ts; spec §2.5): which stated links are vendor advisories, the CISA ICS
// advisory list, and the national advisory pages not repeated. Vendors from the alias table; advisories as the
// CSAF reader gives them for the fixtures (test/fixtures/csaf).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildReferences, cisaIcsAdvisories, isVendorAdvisory, vendorOwnsHost } from '../../src/domain/references.ts';
import { canonicalVendor, type CanonicalVendor } from '../../src/domain/vendors.ts';
import type { MergedCve } from '../../src/domain/merge.ts';
import type { CsafAdvisoryFacts } from '../../src/domain/records.ts';
import { cveRecords, fixture } from '../helpers/feeds.ts';

const vendor = (name: string) => canonicalVendor(name) as CanonicalVendor;
const ref = (url: string, tags: string[], provided_by: string) => ({ url, tags, provided_by });

async function advisoryOf(id: string): Promise<CsafAdvisoryFacts> {
  const [r] = await cveRecords(fixture('csaf', `${id.toLowerCase()}.json`));
  return r.advisory!;
}

test('vendorOwnsHost: an alias-table domain, or a registrable-domain label equal to the vendor key (three characters or more)', () => {
  assert.equal(vendorOwnsHost(vendor('Siemens'), 'cert-portal.siemens.com'), true);
  assert.equal(vendorOwnsHost(vendor('Siemens'), 'www.siemens-energy.com'), true);
  assert.equal(vendorOwnsHost(vendor('Siemens'), 'siemens.example.com'), false);
  assert.equal(vendorOwnsHost(vendor('Schneider Electric'), 'download.schneider-electric.com'), true);
  assert.equal(vendorOwnsHost(vendor('Acme Widgets'), 'support.acme-widgets.io'), true);
  assert.equal(vendorOwnsHost(vendor('Acme Widgets'), 'acme.io'), false);
  assert.equal(vendorOwnsHost({ ...vendor('Acme Widgets'), slug: 'ace' }, 'ace.com'), true);
  assert.equal(vendorOwnsHost(vendor('HP'), 'support.hp.com'), false);
});

test("isVendorAdvisory: on the vendor's domain and tagged, or from MSRC (not its Patch links), or stated by the vendor as CNA", () => {
  const siemens = [vendor('Siemens')];
  const ssa = 'https://cert-portal.siemens.com/productcert/pdf/ssa-472454.pdf';
  assert.equal(isVendorAdvisory(ref(ssa, ['Vendor Advisory'], 'nvd@nist.gov'), siemens, null), true);
  assert.equal(isVendorAdvisory(ref(ssa, ['Patch'], 'nvd@nist.gov'), siemens, 'productcert@siemens.com'), false);
  assert.equal(isVendorAdvisory(ref(ssa, [], 'productcert@siemens.com'), siemens, 'productcert@siemens.com'), true);
  assert.equal(isVendorAdvisory(ref(ssa, [], 'productcert@siemens.com'), siemens, null), false);
  assert.equal(
    isVendorAdvisory(ref(ssa, [], 'psirt@paloaltonetworks.com'), siemens, 'psirt@paloaltonetworks.com'),
    false,
  );
  assert.equal(
    isVendorAdvisory(
      ref(ssa, [], 'cf45122d-9d50-442a-9b23-e05cde9943d8'),
      siemens,
      'cf45122d-9d50-442a-9b23-e05cde9943d8',
    ),
    false,
  );
  assert.equal(
    isVendorAdvisory(
      ref('https://www.cisa.gov/news-events/ics-advisories/icsa-23-103-07', ['Vendor Advisory'], 'nvd@nist.gov'),
      siemens,
      null,
    ),
    false,
  );
  assert.equal(isVendorAdvisory(ref('not a url', ['Vendor Advisory'], 'nvd@nist.gov'), siemens, null), false);
  const microsoft = [vendor('Microsoft')];
  const msrc = 'https://msrc.microsoft.com/update-guide/vulnerability/CVE-2024-21338';
  assert.equal(isVendorAdvisory(ref(msrc, [], 'msrc'), microsoft, null), true);
  assert.equal(
    isVendorAdvisory(
      ref('https://catalog.update.microsoft.com/v7/site/Search.aspx?q=KB5034763', ['Patch'], 'msrc'),
      microsoft,
      null,
    ),
    false,
  );
  assert.equal(isVendorAdvisory(ref(msrc, [], 'nvd@nist.gov'), microsoft, null), false);
});

test('cisaIcsAdvisories: one item per advisory id (first kept), release date only, oldest first, then by id', async () => {
  const [a23068, a23103, a24116] = await Promise.all(
    ['ICSA-23-068-03', 'ICSA-23-103-07', 'ICSA-24-116-03'].map(advisoryOf),
  );
  const undated = { ...a24116, advisory_id: 'ICSA-00-000-00', published: null };
  const sameDay = { ...a23103, advisory_id: 'ICSA-23-103-01', url: null };
  const merged = {
    advisories: [a24116, a23103, { ...a23103, title: 'later copy' }, undated, sameDay, a23068],
  } as unknown as MergedCve;
  assert.deepEqual(cisaIcsAdvisories(merged), [
    { advisory_id: 'ICSA-00-000-00', url: a24116.url, title: a24116.title, published: null },
    {
      advisory_id: 'ICSA-23-068-03',
      url: 'https://www.cisa.gov/news-events/ics-advisories/icsa-23-068-03',
      title: 'ABB Ability Symphony Plus',
      published: '2023-04-03',
    },
    { advisory_id: 'ICSA-23-103-01', url: null, title: a23103.title, published: '2023-04-14' },
    {
      advisory_id: 'ICSA-23-103-07',
      url: 'https://www.cisa.gov/news-events/ics-advisories/icsa-23-103-07',
      title: 'Siemens CPCI85 Firmware of SICAM A8000 Devices',
      published: '2023-04-14',
    },
    {
      advisory_id: 'ICSA-24-116-03',
      url: 'https://www.cisa.gov/news-events/ics-advisories/icsa-24-116-03',
      title: a24116.title,
      published: '2024-04-19',
    },
  ]);
});

test('buildReferences: the listed CISA ICS advisory pages are not repeated, in any letter case; other CISA pages stay', async () => {
  const a = await advisoryOf('ICSA-23-103-07');
  const merged = {
    cve_id: 'CVE-2023-28489',
    assigner: 'productcert@siemens.com',
    advisories: [a],
    references: [
      ref('https://www.cisa.gov/news-events/ics-advisories/icsa-23-103-07', ['Third Party Advisory'], 'nvd@nist.gov'),
      ref('https://www.cisa.gov/news-events/ics-advisories/ICSA-23-103-07', [], 'nvd@nist.gov'),
      ref('https://www.cisa.gov/uscert/ics/advisories/icsa-23-103-07.json', [], 'ics-cert@hq.dhs.gov'),
      ref('https://www.cisa.gov/news-events/ics-advisories/icsa-23-103-08', [], 'nvd@nist.gov'),
      ref('https://example.org/mirror/icsa-23-103-07', [], 'nvd@nist.gov'),
      ref('https://cert-portal.siemens.com/productcert/pdf/ssa-472454.pdf', [], 'productcert@siemens.com'),
    ],
  } as unknown as MergedCve;
  const r = buildReferences(merged, [vendor('Siemens')]);
  assert.equal(r.nvd_url, 'https://nvd.nist.gov/vuln/detail/CVE-2023-28489');
  assert.equal(r.cve_org_url, 'https://www.cve.org/CVERecord?id=CVE-2023-28489');
  assert.deepEqual(r.vendor_advisories, [
    ref('https://cert-portal.siemens.com/productcert/pdf/ssa-472454.pdf', [], 'productcert@siemens.com'),
  ]);
  assert.deepEqual(
    r.other_references.map((x) => x.url),
    ['https://www.cisa.gov/news-events/ics-advisories/icsa-23-103-08', 'https://example.org/mirror/icsa-23-103-07'],
  );
  assert.equal(r.other_references_total, 2);
  assert.deepEqual(
    r.cisa_ics_advisories.map((x) => x.advisory_id),
    ['ICSA-23-103-07'],
  );
});

test("buildReferences: one page listed by two sources, or in MSRC's two spellings, is listed once with both sources' tags", () => {
  // CVE-2024-30040: the CVE record (CNA microsoft) links the update-guide page without a locale, the MSRC document
  // with /en-US/; the same NVD link twice keeps its first provider.
  const merged = {
    cve_id: 'CVE-2024-30040',
    assigner: 'microsoft',
    advisories: [],
    references: [
      ref('https://msrc.microsoft.com/update-guide/vulnerability/CVE-2024-30040', ['Vendor Advisory'], 'cna:microsoft'),
      ref(
        'https://msrc.microsoft.com/update-guide/en-US/vulnerability/CVE-2024-30040',
        ['Vendor Advisory', 'Mitigation'],
        'msrc',
      ),
      ref('https://www.zerodayinitiative.com/advisories/ZDI-24-500/', ['Third Party Advisory'], 'nvd@nist.gov'),
      ref('https://www.zerodayinitiative.com/advisories/ZDI-24-500/', ['VDB Entry'], 'cna:microsoft'),
      // Another locale of another host's path is another page.
      ref('https://learn.microsoft.com/en-us/security-updates/securitybulletins/2017/ms17-010', [], 'nvd@nist.gov'),
      ref('https://learn.microsoft.com/de-de/security-updates/securitybulletins/2017/ms17-010', [], 'nvd@nist.gov'),
      // An MSRC fix link is not a reference, and does not hide a later reference to the same page.
      ref('https://catalog.update.microsoft.com/v7/site/Search.aspx?q=KB5037765', ['Patch'], 'msrc'),
      ref('https://catalog.update.microsoft.com/v7/site/Search.aspx?q=KB5037765', ['Patch'], 'nvd@nist.gov'),
    ],
  } as unknown as MergedCve;
  const r = buildReferences(merged, [vendor('Microsoft')]);
  assert.deepEqual(r.vendor_advisories, [
    ref(
      'https://msrc.microsoft.com/update-guide/vulnerability/CVE-2024-30040',
      ['Vendor Advisory', 'Mitigation'],
      'cna:microsoft',
    ),
  ]);
  assert.deepEqual(r.other_references, [
    ref(
      'https://www.zerodayinitiative.com/advisories/ZDI-24-500/',
      ['Third Party Advisory', 'VDB Entry'],
      'nvd@nist.gov',
    ),
    ref('https://learn.microsoft.com/en-us/security-updates/securitybulletins/2017/ms17-010', [], 'nvd@nist.gov'),
    ref('https://learn.microsoft.com/de-de/security-updates/securitybulletins/2017/ms17-010', [], 'nvd@nist.gov'),
    ref('https://catalog.update.microsoft.com/v7/site/Search.aspx?q=KB5037765', ['Patch'], 'nvd@nist.gov'),
  ]);
  assert.equal(r.other_references_total, 4);
  // The input is not changed (merged records are shared between documents).
  assert.deepEqual(merged.references[0].tags, ['Vendor Advisory']);
});
