// Every detail block, the card, the page and the PDF for documents built by the real import pipeline from real
// feed fixtures: a KEV CVE (CVE-2024-21338: NVD record + KEV catalog + EPSS) and an ICS advisory CVE
// (CVE-2024-8531: NVD record + CISA CSAF ICSA-24-289-02 + EPSS), with the CWE and CAPEC catalogs.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, seedOrg, type TestApp } from '../helpers/app.ts';
import { importPaths } from '../../src/services/import/pipeline.ts';
import { fixture } from '../helpers/feeds.ts';
import { CATALOGS, CSAF_FIXTURES, NVD_FIXTURES, docOf, feedDir } from '../helpers/ingest.ts';
import { CAPEC_MAPPING } from '../../src/domain/capec.ts';
import type { CveDocument } from '../../src/domain/cve-document.ts';

let t: TestApp;
let pro: Record<string, string>;
before(async () => {
  t = await testApp();
  const dir = feedDir([
    ...CATALOGS,
    ...NVD_FIXTURES,
    ...CSAF_FIXTURES,
    fixture('kev', 'kev-cut.json'),
    fixture('epss', 'epss-cut.ssv.gz'),
  ]);
  await importPaths(t.store.db, [dir], { log: { info() {}, warn() {} } });
  pro = (await seedOrg(t.store, { tier: 'professional' })).auth;
});
after(async () => {
  await t.close();
});

async function detail(id: string, headers: Record<string, string> = {}) {
  const r = await t.app.inject({ method: 'GET', url: `/api/v1/cves/${id}`, headers });
  assert.equal(r.statusCode, 200, r.body);
  return r.json();
}

/** Blocks every detail must carry, checked against the stored document (the API adds links and hides by tier). */
function assertAllBlocks(d: Record<string, any>, doc: CveDocument) {
  assert.deepEqual(Object.keys(d).sort(), [
    '_links',
    'affected',
    'bsid',
    'capec',
    'classification',
    'cve_id',
    'description',
    'exploitation',
    'patch',
    'references',
    'sage',
    'scoring',
    'temporal',
    'title',
  ]);
  assert.equal(d.title, doc.title);
  assert.ok(d.title.length > 0);
  assert.equal(d.description, doc.description);
  assert.match(d.bsid, /^BS-\d{4}-\d{6,}-[CHML]$/);
  assert.deepEqual(d.scoring.cvss, doc.scoring.cvss);
  assert.deepEqual(d.scoring.epss, doc.scoring.epss);
  assert.deepEqual(d.scoring.bcs, doc.scoring.bcs);
  assert.deepEqual(Object.keys(d.exploitation).sort(), [
    'actively_exploited',
    'exploit_maturity',
    'has_public_exploit',
    'kev_added_at',
    'kev_flagged',
    'poc_available',
  ]);
  assert.deepEqual(Object.keys(d.affected).sort(), [
    'device_types',
    'ics_relevance_score',
    'ics_relevant',
    'primary_product',
    'primary_vendor',
    'products',
    'protocols',
    'vendor_count',
    'vendors',
  ]);
  assert.deepEqual(d.patch, doc.patch);
  assert.deepEqual(d.classification, doc.classification);
  assert.deepEqual(d.capec, doc.capec);
  const cwes = d.classification.cwes.map((c: { id: number }) => c.id);
  for (const c of d.capec) {
    assert.equal(c.slug, `capec-${c.capec_id}`);
    for (const w of c.via_cwe) assert.ok(cwes.includes(w), `via_cwe ${w} is a CWE of the CVE`);
  }
  assert.equal(d.references.nvd_url, `https://nvd.nist.gov/vuln/detail/${doc.cve_id}`);
  assert.equal(d.references.breachspider_url, `http://vulnintel.test/cve/${doc.cve_id}`);
  assert.ok(d.references.other_references.length <= 25);
  assert.equal(d.references.other_references_total, doc.references.other_references_total);
  assert.deepEqual(d._links, {
    self: `/api/v1/cves/${doc.cve_id}`,
    pdf: `/api/v1/ics-cve/${doc.cve_id}/pdf`,
    html: `http://vulnintel.test/cve/${doc.cve_id}`,
  });
}

describe('real KEV CVE (CVE-2024-21338)', () => {
  test('every block', async () => {
    const doc = (await docOf(t.store.db, 'CVE-2024-21338'))!;
    const b = await detail('CVE-2024-21338', pro);
    const d = b.data;
    assertAllBlocks(d, doc);
    assert.equal(d.title, 'Microsoft Windows Kernel Exposed IOCTL with Insufficient Access Control Vulnerability');
    assert.deepEqual([d.scoring.epss.score, d.scoring.epss.percentile], [0.5981, 0.99054]);
    assert.equal(d.scoring.epss.interpretation, 'Top 5% most likely to be exploited');
    assert.equal(d.exploitation.kev_flagged, true);
    assert.equal(d.exploitation.exploit_maturity, 'WEAPONIZED');
    assert.equal(d.exploitation.actively_exploited, true);
    assert.equal(d.exploitation.kev_added_at, '2024-03-04T00:00:00.000Z');
    assert.equal(d.temporal.kev_added_at, '2024-03-04T00:00:00.000Z');
    assert.equal(d.scoring.bcs.factors.kev_flagged, true);
    assert.equal(d.affected.primary_vendor, 'Microsoft');
    assert.equal(d.scoring.cvss.version, '3.1');
    assert.equal(d.sage._upgrade_required, false);
    assert.deepEqual(b.meta.capec_source, {
      catalog: 'MITRE CAPEC (STIX 2.1)',
      version: '3.9',
      mapping: CAPEC_MAPPING,
    });
    assert.equal(b.meta.enrichment_version, '1.13');
    assert.equal(b.meta.source, 'vulnintel-enriched');
  });
});

describe('real ICS advisory CVE (CVE-2024-8531)', () => {
  test('every block', async () => {
    const doc = (await docOf(t.store.db, 'CVE-2024-8531'))!;
    const b = await detail('CVE-2024-8531');
    const d = b.data;
    assertAllBlocks(d, doc);
    assert.equal(d.exploitation.kev_flagged, false);
    assert.equal(d.exploitation.kev_added_at, null);
    assert.deepEqual([d.scoring.epss.score, d.scoring.epss.percentile], [0.00459, 0.3799]);
    assert.deepEqual(d.patch.fixed_in, { product: 'Data Center Expert', version: '8.2' });
    assert.ok(d.patch.note);
    const adv = d.references.cisa_ics_advisories;
    assert.deepEqual(
      adv.map((a: { advisory_id: string }) => a.advisory_id),
      ['ICSA-24-289-02'],
    );
    assert.match(adv[0].url, /^https:\/\/www\.cisa\.gov\/news-events\/ics-advisories\/icsa-24-289-02/);
    assert.ok(d.capec.length > 0);
    assert.equal(d.affected.primary_vendor, 'Schneider Electric');
    // Anonymous: analysis withheld.
    assert.equal(d.sage._upgrade_required, true);
    assert.equal(d.sage.remediation_guidance, null);
  });

  test('its card, its vendor collection, its page and its PDF', async () => {
    const list = (await t.app.inject({ method: 'GET', url: '/api/v1/cves?q=CVE-2024-8531' })).json();
    assert.equal(list.data[0].cve_id, 'CVE-2024-8531');
    assert.equal(list.data[0].primary_vendor, 'Schneider Electric');
    assert.equal(list.data[0].patch_status, (await docOf(t.store.db, 'CVE-2024-8531'))!.patch.status);
    const vendors = (await t.app.inject({ method: 'GET', url: '/api/v1/catalog/vendors?q=schneider' })).json();
    const se = vendors.data.find((v: { slug: string }) => v.slug === 'schneider-electric');
    assert.ok(se.cve_count >= 1);
    const byVendor = (
      await t.app.inject({ method: 'GET', url: '/api/v1/cves/vendor/schneider-electric', headers: pro })
    ).json();
    assert.equal(byVendor.pagination.total, se.cve_count);
    assert.ok(byVendor.data.some((c: { cve_id: string }) => c.cve_id === 'CVE-2024-8531'));
    const page = await t.app.inject({ method: 'GET', url: '/cve/CVE-2024-8531' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /ICSA-24-289-02/);
    assert.match(page.body, /Data Center Expert 8\.2/);
    const pdf = await t.app.inject({ method: 'GET', url: '/api/v1/ics-cve/CVE-2024-8531/pdf' });
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');
  });
});

test('KEV list and stats reflect the imported KEV cut', async () => {
  const kev = (await t.app.inject({ method: 'GET', url: '/api/v1/cves/kev' })).json();
  const ids = kev.data.map((c: { cve_id: string }) => c.cve_id);
  assert.ok(ids.includes('CVE-2024-21338') && ids.includes('CVE-2024-49138'));
  const s = (await t.app.inject({ method: 'GET', url: '/api/v1/cves/stats/summary' })).json().data;
  assert.equal(s.kev, kev.pagination.total);
  assert.equal(s.by_exploit_maturity.WEAPONIZED, kev.pagination.total);
});
