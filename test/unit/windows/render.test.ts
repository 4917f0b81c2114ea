// Rendering one evaluated CVE into the published §2.7 object (src/domain/windows/render.ts), on hosts evaluated
// against the real MSRC documents of test/fixtures/msrc: every field of the object, the note and reason of a CVE
// whose status differs between candidate products, the vendor advisories kept (Microsoft domains only, the MSRC
// page first and once), and the per-item cache (same build and rank: the same object).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cveOf, evalHost } from './fixture-index.ts';
import { renderCve, type ReferencesOut } from '../../../src/domain/windows/render.ts';
import type { CveSignals } from '../../../src/domain/windows/evaluate.ts';

const S2019 = {
  asset_id: 'r1',
  os_product: 'Windows Server 2019 Standard',
  edition_id: 'ServerStandard',
  os_build: '10.0.17763.8389',
  architecture: 'x64',
  installation_type: 'Server',
};
const CVE = 'CVE-2026-41108'; // June 2026, KB5094123 = 10.0.17763.8880 on Server 2019
const ADVISORY = `https://msrc.microsoft.com/update-guide/en-US/vulnerability/${CVE}`;
const msrc = { url: ADVISORY, tags: ['Vendor Advisory'], provided_by: 'msrc' };

test('an open CVE on a resolved host: every field of the §2.7 object', () => {
  const h = evalHost(S2019);
  const it = cveOf(h, CVE);
  const r = renderCve(it, h.os_build, 7);
  assert.deepEqual(r, {
    cve_id: CVE,
    status: 'confirmed open',
    fixed_build: '10.0.17763.8880',
    kb: 'KB5094123',
    source: 'https://api.msrc.microsoft.com/cvrf/v3.0/cvrf/2026-Jun',
    severity: 'Important',
    known_exploited: false,
    note: null,
    priority_rank: 7,
    priority_reason:
      'Open on this host: build 10.0.17763.8389 is below the fixed build 10.0.17763.8880. Fix: KB5094123. Important severity, CVSS 7.',
    fix: {
      available: true,
      action:
        'Install KB5094123 (cumulative update, build 10.0.17763.8880) or any later cumulative update for Windows Server 2019',
      source: 'https://catalog.update.microsoft.com/v7/site/Search.aspx?q=KB5094123',
      derived: false,
    },
    references: {
      nvd_url: `https://nvd.nist.gov/vuln/detail/${CVE}`,
      cve_org_url: `https://www.cve.org/CVERecord?id=${CVE}`,
      vendor_advisories: [msrc],
      cisa_ics_advisories: [],
      other_references: [],
      other_references_total: 0,
    },
    _k: it._k,
  });
  // The why text is written with the build given to the renderer.
  assert.match(renderCve(it, '10.0.17763.1', 7).priority_reason, /^Open on this host: build 10\.0\.17763\.1 is below/);
});

test('a needs-review verdict keeps its own note and reason', () => {
  const h = evalHost({ ...S2019, installed_kbs: ['KB5094123'], kb_source: 'Get-HotFix' });
  const r = renderCve(cveOf(h, CVE), h.os_build, 1);
  const note =
    'build 10.0.17763.8389 is below the fixed build 10.0.17763.8880, but the KB list contains KB5094123 or a later cumulative update';
  assert.equal(r.status, 'needs review');
  assert.equal(r.note, note);
  assert.equal(r.priority_reason, `Needs review: ${note}. Fix: KB5094123. Important severity, CVSS 7.`);
});

test("a CVE whose status differs between candidate products: the item's note and a review reason, not the verdict's", () => {
  const h = evalHost({
    asset_id: 'e1',
    os_product: 'Windows 11 Enterprise',
    edition_id: '',
    os_build: '10.0.26100.8655',
    architecture: 'x64',
    installation_type: '',
  });
  const it = cveOf(h, 'CVE-2026-50507');
  assert.equal(it.v.status, 'cleared (patched)');
  const note =
    'status differs between the candidate products (Windows 11 Version 24H2 for x64-based Systems; Windows Server 2025; Windows Server 2025 (Server Core installation)); supply edition_id and installation_type';
  const r = renderCve(it, h.os_build, 3);
  assert.deepEqual([r.status, r.note, r.priority_reason], ['needs review', note, `Needs review: ${note}.`]);
  assert.deepEqual(r.fix, {
    available: true,
    action:
      'Install KB5094126 (cumulative update, build 10.0.26100.8655) or any later cumulative update for Windows 11 Version 24H2 for x64-based Systems',
    source: 'https://catalog.update.microsoft.com/v7/site/Search.aspx?q=KB5094126',
    derived: false,
  });
  // A differing status without a note of its own falls back to the verdict's note.
  const open = cveOf(evalHost(S2019), CVE);
  const r2 = renderCve({ ...open, status: 'needs review' }, '10.0.17763.8389', 2);
  assert.equal(r2.note, null);
  const r3 = renderCve({ ...open, status: 'needs review', note: 'n' }, '10.0.17763.8389', 2);
  assert.deepEqual([r3.note, r3.priority_reason], ['n', 'Needs review: n.']);
  // Same status: the item's note when a candidate merge gave it one (the fixes differ), else the verdict's.
  assert.equal(renderCve({ ...open, note: 'the update differs' }, '10.0.17763.8389', 2).note, 'the update differs');
  assert.equal(renderCve(open, '10.0.17763.8389', 2).note, null);
});

test("references: the corpus's, with vendor advisories cut to Microsoft domains and the MSRC page added first, once", () => {
  const refs = (vendor: ReferencesOut['vendor_advisories']): ReferencesOut => ({
    nvd_url: 'nvd',
    cve_org_url: 'org',
    vendor_advisories: vendor,
    cisa_ics_advisories: [{ advisory_id: 'ICSA-1', url: null, title: 't', published: null }],
    other_references: [{ url: 'https://example.org/x', tags: [], provided_by: 'nvd' }],
    other_references_total: 4,
  });
  const link = (u: string) => ({ url: u, tags: ['Patch'], provided_by: 'nvd' });
  const vendor = [
    link('https://support.microsoft.com/kb/1'),
    link('https://microsoft.com/a'),
    link('https://notmicrosoft.com/b'),
    link('https://microsoft.com.example.org/c'),
    link('not a url'),
    link('https://PORTAL.MICROSOFT.COM/d'),
    link('https://example.com/microsoft.com'),
  ];
  const sig: CveSignals = {
    kev: false,
    epss: null,
    bcs: null,
    cvss: null,
    hasExploit: false,
    publishedAt: null,
    references: refs(vendor),
  };
  const h = evalHost(S2019, '2026-07-10', { [CVE]: sig });
  const r = renderCve(cveOf(h, CVE), h.os_build, 1);
  assert.deepEqual(r.references, {
    ...refs([
      msrc,
      link('https://support.microsoft.com/kb/1'),
      link('https://microsoft.com/a'),
      link('https://PORTAL.MICROSOFT.COM/d'),
    ]),
  });
  assert.equal(sig.references!.vendor_advisories.length, 7, 'the corpus record is not changed');
  // The MSRC page already among the corpus's advisories is not added again.
  const sig2: CveSignals = { ...sig, references: refs([link('https://example.com/x'), link(ADVISORY)]) };
  const h2 = evalHost(S2019, '2026-07-10', { [CVE]: sig2 });
  assert.deepEqual(renderCve(cveOf(h2, CVE), h2.os_build, 1).references.vendor_advisories, [link(ADVISORY)]);
});

test('a document without an advisory link adds none', () => {
  const h = evalHost(S2019);
  const it = cveOf(h, CVE);
  const bare = { ...it, p: { ...it.p, pc: { ...it.p.pc, meta: { ...it.p.pc.meta, advisoryUrl: null } } } };
  assert.deepEqual(renderCve(bare, h.os_build, 1).references.vendor_advisories, []);
});

test('each item is rendered once per build and rank: the same object back, a new one when either changes', () => {
  const h = evalHost(S2019);
  const it = cveOf(h, CVE);
  const a = renderCve(it, h.os_build, 4);
  assert.equal(renderCve(it, h.os_build, 4), a);
  const b = renderCve(it, h.os_build, 5);
  assert.notEqual(b, a);
  assert.equal(b.priority_rank, 5);
  const c = renderCve(it, '10.0.17763.1', 5);
  assert.notEqual(c, b);
  assert.match(c.priority_reason, /build 10\.0\.17763\.1 is below/);
  assert.equal(renderCve(it, '10.0.17763.1', 5), c);
});
