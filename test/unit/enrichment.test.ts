import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { mergeSources } from '../../src/domain/merge.ts';
import { buildCveDocument, enrichCve } from '../../src/domain/enrich.ts';
import { canonicalVendor, vendorKey } from '../../src/domain/vendors.ts';
import { namedIn } from '../../src/domain/affected.ts';
import { composeTitle, shortenTitle, TITLE_MAX } from '../../src/domain/title.ts';
import { epssInterpretation, computeBcs, bsid, cardSeverity } from '../../src/domain/scoring.ts';
import { icsRelevance } from '../../src/domain/ics.ts';
import { OTHER_REFERENCES_CAP } from '../../src/domain/references.ts';
import { VARIES_NOTE, vendorFixOffersFix } from '../../src/domain/patch.ts';
import type { CveSourceRecord } from '../../src/ingest/types.ts';
import { cveRecords, fixture, realCatalogs, snapshotFile } from '../helpers/feeds.ts';

const NOW = '2026-01-01T00:00:00.000Z';
const nvd = (id: string) => fixture('nvd', `${id}.json`);
const csaf = (id: string) => fixture('csaf', `${id}.json`);
const KEV_FULL = snapshotFile('kev', 'known_exploited_vulnerabilities.json');

async function docFor(cve: string, files: string[], filter: (r: CveSourceRecord) => boolean = () => true) {
  const recs = (await cveRecords(...files)).filter((r) => r.cve_id === cve && filter(r));
  return buildCveDocument(mergeSources(cve, recs), await realCatalogs(), NOW).doc;
}

test('merge: NVD text and CVSS first, KEV title; the result does not depend on record order', async () => {
  const recs = (await cveRecords(nvd('CVE-2024-21338'), fixture('kev', 'kev-cut.json'))).filter(
    (r) => r.cve_id === 'CVE-2024-21338',
  );
  assert.deepEqual(recs.map((r) => r.source).sort(), ['kev', 'nvd']);
  const cat = await realCatalogs();
  const a = buildCveDocument(mergeSources('CVE-2024-21338', recs), cat, NOW).doc;
  const b = buildCveDocument(mergeSources('CVE-2024-21338', [...recs].reverse()), cat, NOW).doc;
  assert.deepEqual(a, b);
  assert.match(a.description, /^Windows Kernel Elevation of Privilege Vulnerability/);
  assert.equal(a.title, 'Microsoft Windows Kernel Exposed IOCTL with Insufficient Access Control Vulnerability');
  assert.equal(a.scoring.cvss.vector, 'CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H');
  assert.deepEqual(a.sources, ['nvd', 'kev']);
});

test('merge: a placeholder NVD description falls through to the CSAF description; CSAF CVSS used only when NVD has none', async () => {
  const d = await docFor('CVE-2022-45793', [nvd('CVE-2022-45793'), csaf('icsa-23-262-04')]);
  assert.ok(d.description.length > 20 && !d.description.includes('[PROBLEMTYPE]'));
  assert.equal(d.scoring.cvss.vector, 'CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:N/I:H/A:N');
  // CVE-2024-3506: NVD has v4.0 and v3.1 → v4.0 (newest) from NVD, not the CSAF v3.1.
  const v = await docFor('CVE-2024-3506', [nvd('CVE-2024-3506'), csaf('icsa-24-289-01')]);
  assert.equal(v.scoring.cvss.version, '4.0');
  assert.equal(v.scoring.cvss.score, 7.3);
  // CVE-2022-26925: NVD's Primary v3.1 score (5.9) before the CNA's Secondary one (8.1).
  const w = await docFor('CVE-2022-26925', [fixture('nvd', 'nvd-api-2.0-page.assembled.json')]);
  assert.equal(w.scoring.cvss.score, 5.9);
});

test('vendors: CPE token, CSAF name and KEV vendorProject resolve to one canonical vendor with a stable slug', async () => {
  const pairs: [string, boolean, string][] = [
    ['siemens', true, 'siemens'],
    ['Siemens AG', false, 'siemens'],
    ['Siemens', false, 'siemens'],
    ['schneider-electric', true, 'schneider-electric'],
    ['Schneider Electric', false, 'schneider-electric'],
    ['Schneider Electric Software, LLC', false, 'schneider-electric'],
    ['rockwellautomation', true, 'rockwell-automation'],
    ['Rockwell Automation', false, 'rockwell-automation'],
    ['phoenixcontact', true, 'phoenix-contact'],
    ['PHOENIX CONTACT, Innominate Security Technologies', false, 'phoenix-contact'],
    ['microsoft', true, 'microsoft'],
    ['Microsoft Corporation', false, 'microsoft'],
    ['Johnson Controls, Inc.', false, 'johnson-controls'],
    ['Exacq Technologies, Johnson Controls Inc.', false, 'johnson-controls'],
  ];
  for (const [name, cpe, slug] of pairs) assert.equal(canonicalVendor(name, cpe)?.slug, slug, name);
  assert.equal(canonicalVendor('Schneider Electric')!.name, 'Schneider Electric');
  // Unknown vendors: the normalised key is the slug, the same for every spelling.
  assert.equal(canonicalVendor('acme_widgets', true)!.slug, canonicalVendor('Acme Widgets, Inc.')!.slug);
  assert.equal(canonicalVendor('acme_widgets', true)!.name, 'Acme Widgets');
  fc.assert(
    fc.property(fc.string({ minLength: 1, maxLength: 40 }), (s) => {
      const v = canonicalVendor(s);
      if (v) assert.match(v.slug, /^[a-z0-9][a-z0-9-]*$/);
    }),
  );
  assert.equal(vendorKey('Phoenix Contact GmbH & Co. KG'), 'phoenixcontact');
  const d = await docFor('CVE-2023-28489', [nvd('CVE-2023-28489'), csaf('icsa-23-103-07')]);
  assert.deepEqual(d.affected.vendors, ['Siemens']);
  assert.equal(d.affected.vendor_count, 1);
  assert.equal(d.affected.primary_vendor, 'Siemens');
  assert.equal(d.affected.primary_product, 'CP-8031 MASTER MODULE (6MF2803-1AA00)');
});

test('title: a source title when there is one, CVE-id-only CSAF titles skipped, otherwise composed; never empty', async () => {
  const d = await docFor('CVE-2024-8531', [nvd('CVE-2024-8531'), csaf('icsa-24-289-02')]);
  assert.equal(d.title, 'Improper Verification of Cryptographic Signature in Schneider Electric Data Center Expert');
  const abb = await docFor('CVE-2023-0228', [nvd('CVE-2023-0228')]);
  assert.equal(abb.title, 'Improper Authentication in ABB Symphony Plus S+ Operations');
  assert.equal(
    composeTitle('CVE-2024-0001', { weakness: null, vendor: null, product: null }),
    'Vulnerability (CVE-2024-0001)',
  );
  assert.equal(
    composeTitle('CVE-2024-0001', {
      weakness: 'Out-of-bounds Write',
      vendor: 'Siemens',
      product: 'Siemens SIMATIC S7',
    }),
    'Out-of-bounds Write in Siemens SIMATIC S7',
  );
  fc.assert(
    fc.property(fc.option(fc.string()), fc.option(fc.string()), fc.option(fc.string()), (w, v, p) => {
      assert.ok(composeTitle('CVE-2024-0001', { weakness: w, vendor: v, product: p }).trim().length > 0);
    }),
  );
});

test('EPSS interpretation thresholds (published-service-notes §2.2)', () => {
  assert.equal(epssInterpretation(0.95), 'Top 5% most likely to be exploited');
  assert.equal(epssInterpretation(0.9499), 'Top 10% most likely to be exploited');
  assert.equal(epssInterpretation(0.9), 'Top 10% most likely to be exploited');
  assert.equal(epssInterpretation(0.75), 'Top 25% most likely to be exploited');
  assert.equal(epssInterpretation(0.5), 'Above median exploitation probability');
  assert.equal(epssInterpretation(0.49), 'Below median exploitation probability');
  assert.equal(epssInterpretation(null), null);
});

test('exploit maturity: KEV → WEAPONIZED; Exploit-DB → FUNCTIONAL; Exploit-tagged write-up → POC; none → NONE', async () => {
  const files = [nvd('CVE-2024-21338'), fixture('kev', 'kev-cut.json')];
  const kev = await docFor('CVE-2024-21338', files);
  assert.deepEqual(kev.exploitation, {
    kev_flagged: true,
    kev_added_at: '2024-03-04T00:00:00.000Z',
    has_public_exploit: true,
    poc_available: true,
    exploit_maturity: 'WEAPONIZED',
    actively_exploited: true,
  });
  const noKev = await docFor('CVE-2024-21338', files, (r) => r.source !== 'kev');
  assert.equal(noKev.exploitation.exploit_maturity, 'FUNCTIONAL');
  assert.equal(noKev.exploitation.actively_exploited, false);
  // Keep only the Exploit-tagged Avast write-up (no exploit archive): a proof of concept.
  const poc = await docFor('CVE-2024-21338', [nvd('CVE-2024-21338')], (r) => {
    r.references = r.references.filter((x) => x.url.includes('decoded.avast.io'));
    return true;
  });
  assert.equal(poc.exploitation.exploit_maturity, 'POC');
  assert.equal(poc.exploitation.has_public_exploit, false);
  const none = await docFor('CVE-2023-0228', [nvd('CVE-2023-0228')]);
  assert.equal(none.exploitation.exploit_maturity, 'NONE');
});

test('ICS relevance: a CISA ICS advisory CVE of an ICS vendor is relevant; a web-app CVE and a Windows CVE are not', async () => {
  const ics = await docFor('CVE-2024-8531', [nvd('CVE-2024-8531'), csaf('icsa-24-289-02')]);
  assert.equal(ics.affected.ics_relevance_score, 0.85);
  assert.equal(ics.affected.ics_relevant, true);
  assert.equal(ics.classification.layer, 'OT');
  const web = await docFor('CVE-2023-34362', [KEV_FULL]);
  assert.equal(web.title, 'Progress MOVEit Transfer SQL Injection Vulnerability');
  assert.equal(web.affected.ics_relevance_score, 0);
  assert.equal(web.affected.ics_relevant, false);
  assert.equal(web.classification.layer, 'OS');
  assert.equal(web.classification.category, 'sql-injection');
  const win = await docFor('CVE-2024-21338', [nvd('CVE-2024-21338')]);
  assert.equal(win.affected.ics_relevant, false);
  // Protocols and device types from the record's own words.
  const r = icsRelevance({
    text: 'A Modbus/TCP request to the PLC web server crashes it',
    has_cisa_ics_advisory: false,
    ics_vendor: true,
  });
  assert.deepEqual(r.protocols, ['modbus', 'http']);
  assert.deepEqual(r.device_types, ['plc']);
  assert.equal(r.score, 0.85);
  // KEV-only IT-vendor CVEs on ICS equipment: device type + industrial protocol → relevant (0.5);
  // an ICS vendor's communication processor or building-automation product → relevant (0.35 + 0.25).
  const cisco = await docFor('CVE-2017-12235', [KEV_FULL]);
  assert.deepEqual(
    [cisco.affected.ics_relevance_score, cisco.affected.ics_relevant, cisco.affected.protocols],
    [0.5, true, ['profinet']],
  );
  const cp = await docFor('CVE-2016-8562', [KEV_FULL]);
  assert.deepEqual(
    [cp.affected.primary_vendor, cp.affected.ics_relevance_score, cp.affected.ics_relevant],
    ['Siemens', 0.6, true],
  );
  const umotion = await docFor('CVE-2018-7841', [KEV_FULL]);
  assert.deepEqual([umotion.affected.device_types, umotion.affected.ics_relevant], [['building-automation'], true]);
  // An IT product of a vendor flagged ICS (PTC Windchill, a PLM suite) stays below the threshold.
  const ptc = await docFor('CVE-2026-12569', [KEV_FULL]);
  assert.deepEqual([ptc.affected.ics_relevance_score, ptc.affected.ics_relevant], [0.35, false]);
  const drive = await docFor('CVE-2024-9124', [nvd('CVE-2024-9124')]);
  assert.deepEqual(drive.affected.device_types, ['drive']);
});

test('BCS: CVSS base plus published bumps, clamped to 0–10, tiers; a KEV Modbus gateway outranks an unexploited desktop CVE', () => {
  const base = {
    cvss_score: 5,
    kev_flagged: false,
    has_public_exploit: false,
    poc_available: false,
    patch_available: false,
    ics_relevance: 0,
    epss_percentile: null,
  };
  assert.deepEqual(computeBcs(base), { score: 5, tier: 'MEDIUM' });
  assert.equal(computeBcs({ ...base, kev_flagged: true }).score, 7);
  assert.equal(computeBcs({ ...base, has_public_exploit: true, poc_available: true }).score, 6.5);
  assert.equal(computeBcs({ ...base, poc_available: true }).score, 5.8);
  assert.equal(computeBcs({ ...base, ics_relevance: 0.7 }).score, 6);
  assert.equal(computeBcs({ ...base, ics_relevance: 0.69 }).score, 5);
  assert.equal(computeBcs({ ...base, epss_percentile: 0.9 }).score, 5.8);
  assert.equal(computeBcs({ ...base, patch_available: true }).score, 4.5);
  assert.equal(computeBcs({ ...base, cvss_score: null }).score, 5);
  assert.deepEqual(
    computeBcs({
      ...base,
      cvss_score: 10,
      kev_flagged: true,
      patch_available: true,
      ics_relevance: 0.94,
      poc_available: true,
    }),
    { score: 10, tier: 'CRITICAL' },
  );
  assert.deepEqual(computeBcs({ ...base, cvss_score: 0.1, patch_available: true }), { score: 0, tier: 'LOW' });
  const gateway = computeBcs({ ...base, cvss_score: 6, kev_flagged: true, ics_relevance: 0.85 });
  const desktop = computeBcs({ ...base, cvss_score: 9, patch_available: true });
  assert.ok(gateway.score > desktop.score, `${gateway.score} > ${desktop.score}`);
  fc.assert(
    fc.property(
      fc.option(fc.double({ min: 0, max: 10, noNaN: true })),
      fc.boolean(),
      fc.boolean(),
      fc.boolean(),
      fc.boolean(),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.option(fc.double({ min: 0, max: 1, noNaN: true })),
      (cvss, kev, exp, poc, patch, ics, epss) => {
        const r = computeBcs({
          cvss_score: cvss,
          kev_flagged: kev,
          has_public_exploit: exp,
          poc_available: poc,
          patch_available: patch,
          ics_relevance: ics,
          epss_percentile: epss,
        });
        assert.ok(r.score >= 0 && r.score <= 10);
        assert.equal(r.tier, r.score >= 9 ? 'CRITICAL' : r.score >= 7 ? 'HIGH' : r.score >= 4 ? 'MEDIUM' : 'LOW');
      },
    ),
  );
});

test('patch rule 1–2: an advisory with fixed versions per product → varies_by_product, note to correlate-cves, not available', async () => {
  const d = await docFor('CVE-2024-46886', [csaf('icsa-24-284-01')]);
  assert.equal(d.patch.status, 'varies_by_product');
  assert.equal(d.patch.note, VARIES_NOTE);
  assert.match(d.patch.note!, /POST \/api\/v1\/assets\/correlate-cves/);
  assert.equal(d.patch.fixed_in, null);
  assert.equal(d.patch.patch_available, false);
  // Rule 5: patch_url is filled independently of the status (the advisory's vendor_fix URL).
  assert.equal(d.patch.patch_url, 'https://support.industry.siemens.com/cs/ww/en/view/109478459/');
  assert.equal(d.scoring.bcs.factors.patch_available, false);
});

test('patch rule 3: an advisory fixing exactly one product → fixed_in {product, version} and a note', async () => {
  const d = await docFor('CVE-2024-8531', [nvd('CVE-2024-8531'), csaf('icsa-24-289-02')]);
  assert.deepEqual(d.patch.fixed_in, { product: 'Data Center Expert', version: '8.2' });
  assert.equal(d.patch.note, 'The advisory lists a fix for one product only: Data Center Expert 8.2.');
  assert.equal(d.patch.patch_version, '8.2');
  assert.equal(d.patch.status, 'patched');
  assert.equal(d.patch.patch_available, true);
});

test('patch rule 3/4: an advisory with no fix → unknown, no note, no fixed_in, not available', async () => {
  const d = await docFor('CVE-2023-6874', [csaf('icsa-24-284-12')]);
  assert.deepEqual(
    {
      status: d.patch.status,
      available: d.patch.patch_available,
      note: d.patch.note,
      fixed_in: d.patch.fixed_in,
      url: d.patch.patch_url,
    },
    { status: 'unknown', available: false, note: null, fixed_in: null, url: null },
  );
});

test('patch rule 4: patched only from a known patch source among the references; patch_available iff patched', async () => {
  const win = await docFor('CVE-2024-21338', [nvd('CVE-2024-21338')]);
  assert.equal(win.patch.status, 'patched');
  assert.equal(win.patch.patch_url, 'https://msrc.microsoft.com/update-guide/vulnerability/CVE-2024-21338');
  // An NVD link to a CISA ICS advisory whose CSAF offers only mitigations for this CVE is not a fix source…
  const om = await docFor('CVE-2022-45793', [nvd('CVE-2022-45793'), csaf('icsa-23-262-04')]);
  assert.equal(om.patch.status, 'unknown');
  // …while without that advisory's content the national ICS advisory link counts (rule 4).
  const omNvd = await docFor('CVE-2022-45793', [nvd('CVE-2022-45793')]);
  assert.equal(omNvd.patch.status, 'patched');
  // CERT@VDE mitigation pages are not a fix source: unknown.
  const pc = await docFor('CVE-2022-31801', [nvd('CVE-2022-31801')]);
  assert.equal(pc.patch.status, 'unknown');
  const files = readdirSync(fixture('nvd'))
    .filter((f) => f.startsWith('CVE-'))
    .map((f) => fixture('nvd', f));
  for (const f of files) {
    const id = f.split('/').pop()!.replace('.json', '');
    const d = await docFor(id, [
      f,
      ...readdirSync(fixture('csaf'))
        .filter((x) => x.endsWith('.json'))
        .map((x) => fixture('csaf', x)),
    ]);
    assert.equal(d.patch.patch_available, d.patch.status === 'patched', id);
    assert.equal(d.scoring.bcs.factors.patch_available, d.patch.patch_available, id);
    if (d.patch.fixed_in === null && d.patch.status !== 'varies_by_product') assert.equal(d.patch.note, null, id);
  }
});

test('references: NVD and cve.org always; vendor advisories only on the vendor domain (tagged, or published by the vendor as CNA)', async () => {
  const s = await docFor('CVE-2023-28489', [nvd('CVE-2023-28489')]);
  assert.equal(s.references.nvd_url, 'https://nvd.nist.gov/vuln/detail/CVE-2023-28489');
  assert.equal(s.references.cve_org_url, 'https://www.cve.org/CVERecord?id=CVE-2023-28489');
  assert.deepEqual(
    s.references.vendor_advisories.map((v) => v.url),
    ['https://cert-portal.siemens.com/productcert/pdf/ssa-472454.pdf'],
  );
  assert.deepEqual(
    s.references.other_references.map((o) => o.url),
    [
      'http://packetstormsecurity.com/files/173370/Siemens-A8000-CP-8050-CP-8031-Code-Execution-Command-Injection.html',
      'http://seclists.org/fulldisclosure/2023/Jul/14',
    ],
  );
  assert.equal(s.references.other_references_total, 2);
  // Untagged, but supplied by Moxa's own PSIRT as the CNA, on moxa.com.
  const m = await docFor('CVE-2023-33235', [nvd('CVE-2023-33235')]);
  assert.equal(m.references.vendor_advisories.length, 1);
  assert.match(m.references.vendor_advisories[0].url, /^https:\/\/www\.moxa\.com\//);
  assert.equal(m.references.vendor_advisories[0].provided_by, 'psirt@moxa.com');
  // Tagged advisories on a third party's domain (CERT@VDE) are not vendor advisories.
  const pc = await docFor('CVE-2022-31801', [nvd('CVE-2022-31801')]);
  assert.deepEqual(pc.references.vendor_advisories, []);
  assert.equal(pc.references.other_references_total, 1, 'duplicate URLs from two providers count once');
  // An untagged link from a CNA that is not the vendor (Dragos for Omron) is not a vendor advisory.
  const om = await docFor('CVE-2022-45793', [nvd('CVE-2022-45793')]);
  assert.deepEqual(om.references.vendor_advisories, []);
});

test('references: CISA ICS advisory items {advisory_id, url, title, published}; the advisory page is not repeated in other references', async () => {
  const d = await docFor('CVE-2022-45793', [nvd('CVE-2022-45793'), csaf('icsa-23-262-04')]);
  assert.deepEqual(d.references.cisa_ics_advisories, [
    {
      advisory_id: 'ICSA-23-262-04',
      url: 'https://www.cisa.gov/news-events/ics-advisories/icsa-23-262-04',
      title: 'Omron Engineering Software',
      published: '2023-09-19',
    },
  ]);
  assert.ok(!d.references.other_references.some((o) => o.url.includes('icsa-23-262-04')));
  assert.equal(d.references.other_references_total, 2);
});

test('references: other references capped at 25 with the full total; no link is constructed', async () => {
  // No real record in the shared data has more than 25 references: this real record's references are
  // repeated under distinct real-looking paths only to exercise the cap (the rule, not the data, is tested).
  const recs = (await cveRecords(nvd('CVE-2024-49138'))).map((r) => ({
    ...r,
    references: Array.from({ length: 40 }, (_, i) => ({
      ...r.references[i % r.references.length],
      url: `${r.references[i % r.references.length].url}#${i}`,
    })),
  }));
  const d = buildCveDocument(mergeSources('CVE-2024-49138', recs), await realCatalogs(), NOW).doc;
  assert.equal(d.references.other_references.length + d.references.vendor_advisories.length <= 40, true);
  assert.equal(
    d.references.other_references.length,
    Math.min(OTHER_REFERENCES_CAP, d.references.other_references_total),
  );
  assert.ok(d.references.other_references_total > OTHER_REFERENCES_CAP);
  // Every URL in the references block of every fixture CVE was stated by a source.
  const raw =
    readdirSync(fixture('nvd'))
      .map((f) => readFileSync(fixture('nvd', f), 'utf8'))
      .join('\n') +
    readdirSync(fixture('csaf'))
      .filter((f) => f.endsWith('.json'))
      .map((f) => readFileSync(fixture('csaf', f), 'utf8'))
      .join('\n');
  for (const f of readdirSync(fixture('nvd')).filter((x) => x.startsWith('CVE-'))) {
    const id = f.replace('.json', '');
    const doc = await docFor(id, [
      fixture('nvd', f),
      ...readdirSync(fixture('csaf'))
        .filter((x) => x.endsWith('.json'))
        .map((x) => fixture('csaf', x)),
    ]);
    const urls = [
      ...doc.references.vendor_advisories.map((v) => v.url),
      ...doc.references.other_references.map((v) => v.url),
      ...doc.references.cisa_ics_advisories.map((v) => v.url!),
    ];
    for (const u of urls)
      assert.ok(
        raw.includes(u.replace(/\//g, '/')) || raw.includes(u.replace(/\//g, '\\/')),
        `${id}: ${u} not in the sources`,
      );
  }
});

test('CAPEC: mapping of real CVEs equals the catalog relations; deduplicated with every bridging CWE; [] when none', async () => {
  // Independent computation straight from the raw CAPEC 3.9 STIX objects.
  const objs = gunzipSync(readFileSync(snapshotFile('capec', 'capec-3.9-stix21-objects.jsonl.gz')))
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const expected = (cwes: number[]) => {
    const out = new Map<number, number[]>();
    for (const o of objs) {
      if (o.type !== 'attack-pattern' || o.revoked || ['Deprecated', 'Obsolete'].includes(o.x_capec_status)) continue;
      const refs = o.external_references ?? [];
      const id = Number(refs.find((r: { source_name: string }) => r.source_name === 'capec').external_id.slice(6));
      const related = refs
        .filter((r: { source_name: string }) => r.source_name === 'cwe')
        .map((r: { external_id: string }) => Number(r.external_id.slice(4)));
      const via = cwes.filter((c) => related.includes(c));
      if (via.length)
        out.set(
          id,
          via.sort((a, b) => a - b),
        );
    }
    return [...out.entries()].sort((a, b) => a[0] - b[0]);
  };
  const cases: [string, string[]][] = [
    ['CVE-2023-0228', [nvd('CVE-2023-0228')]],
    ['CVE-2022-45793', [nvd('CVE-2022-45793'), csaf('icsa-23-262-04')]],
    ['CVE-2023-28489', [nvd('CVE-2023-28489')]],
    ['CVE-2024-21338', [nvd('CVE-2024-21338')]],
    ['CVE-2023-6874', [csaf('icsa-24-284-12')]],
  ];
  for (const [id, files] of cases) {
    const d = await docFor(id, files);
    const cwes = d.classification.cwes.map((c) => c.id);
    assert.deepEqual(
      d.capec.map((c) => [c.capec_id, c.via_cwe]),
      expected(cwes),
      id,
    );
    for (const c of d.capec) assert.equal(c.slug, `capec-${c.capec_id}`);
    assert.equal(new Set(d.capec.map((c) => c.capec_id)).size, d.capec.length);
  }
  const om = await docFor('CVE-2022-45793', [nvd('CVE-2022-45793'), csaf('icsa-23-262-04')]);
  assert.ok(
    om.capec.some((c) => c.via_cwe.length > 1),
    'a pattern reached through two CWEs appears once',
  );
  const none = await docFor('CVE-2023-6874', [csaf('icsa-24-284-12')]);
  assert.deepEqual(none.capec, []);
  assert.deepEqual((await realCatalogs()).capec.source, {
    catalog: 'MITRE CAPEC (STIX 2.1)',
    version: '3.9',
    mapping:
      'CWE → CAPEC via the CAPEC catalog Related_Weaknesses of each attack pattern (deprecated/obsolete patterns excluded)',
  });
});

test('classification, bsid and temporal fields', async () => {
  const d = await docFor('CVE-2024-21338', [nvd('CVE-2024-21338'), fixture('kev', 'kev-cut.json')]);
  assert.deepEqual(d.classification.cwes, [{ id: 822, url: 'https://cwe.mitre.org/data/definitions/822.html' }]);
  assert.equal(d.classification.attack_vector, 'LOCAL');
  assert.equal(d.classification.layer, 'OS');
  assert.equal(d.classification.category, 'memory-corruption');
  assert.equal(d.bsid, 'BS-2024-021338-H');
  assert.equal(bsid('CVE-2021-44228', 'CRITICAL'), 'BS-2021-044228-C');
  assert.equal(bsid('CVE-2024-1234567', 'LOW'), 'BS-2024-1234567-L');
  assert.equal(d.temporal.published_at, '2024-02-13T18:15:49.083Z');
  assert.equal(d.temporal.kev_added_at, '2024-03-04T00:00:00.000Z');
  assert.equal(d.temporal.enriched_at, NOW);
});

test('enrichCve without a provider gives the grounded analysis; the document is complete', async () => {
  const recs = (await cveRecords(nvd('CVE-2024-8531'), csaf('icsa-24-289-02'))).filter(
    (r) => r.cve_id === 'CVE-2024-8531',
  );
  const doc = await enrichCve(mergeSources('CVE-2024-8531', recs), await realCatalogs(), undefined, { now: NOW });
  assert.deepEqual(
    Object.keys(doc).sort(),
    [
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
      'severity',
      'sources',
      'temporal',
      'title',
    ].sort(),
  );
  assert.equal(doc.sage.model, 'vulnintel-grounded-1');
  assert.equal(doc.sage.status, 'ready');
  assert.match(doc.sage.executive_summary!, /CVE-2024-8531 is rated HIGH \(CVSS 3\.1 base score 7\.2\)/);
  assert.match(doc.sage.remediation_guidance!, /Update Data Center Expert to 8\.2 or later, as the advisory states\./);
  assert.match(doc.sage.ics_context!, /CISA ICS advisory ICSA-24-289-02 names this CVE\./);
});

test('merge input from the MSRC reader (source "msrc") plugs in: title before KEV, Microsoft vendor advisory, NVD CVSS first', async () => {
  // Values as MSRC CVRF 2024-Feb states them for CVE-2024-21338 (title, CVSS, KB URL); the record shape is the
  // merge input the Windows helper's reader produces.
  const msrc: CveSourceRecord = {
    source: 'msrc',
    source_key: '',
    cve_id: 'CVE-2024-21338',
    description: null,
    title: 'Windows Kernel Elevation of Privilege Vulnerability',
    published: '2024-02-13T08:00:00.000Z',
    modified: null,
    cvss: [
      {
        version: '3.1',
        vector: 'CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H/E:F/RL:O/RC:C',
        score: 7.8,
        scored_by: 'msrc',
        type: null,
      },
    ],
    cwes: [822],
    affected: [{ vendor: 'Microsoft', product: 'Windows Server 2022', origin: 'msrc' }],
    references: [
      { url: 'https://msrc.microsoft.com/update-guide/vulnerability/CVE-2024-21338', tags: [], provided_by: 'msrc' },
    ],
    assigner: null,
    status: null,
    msrc: { exploited: true, publicly_disclosed: false, severity: 'Important' },
  };
  const others = (await cveRecords(nvd('CVE-2024-21338'), fixture('kev', 'kev-cut.json'))).filter(
    (r) => r.cve_id === 'CVE-2024-21338',
  );
  const merged = mergeSources('CVE-2024-21338', [msrc, ...others]);
  assert.deepEqual(merged.sources, ['nvd', 'msrc', 'kev']);
  const d = buildCveDocument(merged, await realCatalogs(), NOW).doc;
  assert.equal(d.title, 'Windows Kernel Elevation of Privilege Vulnerability');
  assert.equal(d.scoring.cvss.vector, 'CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H');
  assert.deepEqual(d.affected.vendors, ['Microsoft']);
  assert.equal(d.affected.primary_product, 'Windows', 'KEV product before MSRC product in the primary order');
  assert.ok(
    d.references.vendor_advisories.some(
      (v) => v.url === 'https://msrc.microsoft.com/update-guide/vulnerability/CVE-2024-21338',
    ),
  );
  // MSRC-only: its title and its CVSS (vector kept with its temporal metrics, canonical order).
  const only = buildCveDocument(
    mergeSources('CVE-2024-21338', [{ ...msrc, description: 'Windows Kernel Elevation of Privilege Vulnerability' }]),
    await realCatalogs(),
    NOW,
  ).doc;
  assert.equal(only.scoring.cvss.vector, 'CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H/E:F/RL:O/RC:C');
  assert.equal(only.scoring.cvss.score, 7.8);
  assert.equal(only.patch.status, 'patched');
});

test("merge is order-independent: every permutation of a CVE's source records gives the same document", async () => {
  const cat = await realCatalogs();
  const cases: [string, string[]][] = [
    ['CVE-2024-21338', [nvd('CVE-2024-21338'), fixture('kev', 'kev-cut.json')]],
    ['CVE-2022-45793', [nvd('CVE-2022-45793'), csaf('icsa-23-262-04')]],
    ['CVE-2024-3506', [nvd('CVE-2024-3506'), csaf('icsa-24-289-01')]],
  ];
  for (const [id, files] of cases) {
    const recs = (await cveRecords(...files)).filter((r) => r.cve_id === id);
    // Two CSAF-like duplicates with different advisory keys exercise the within-source order too.
    const all = [
      ...recs,
      ...recs.filter((r) => r.source === 'csaf').map((r) => ({ ...r, source_key: `${r.source_key}-B` })),
    ];
    const reference = buildCveDocument(mergeSources(id, all), cat, NOW).doc;
    fc.assert(
      fc.property(fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length }), (perm) => {
        assert.deepEqual(buildCveDocument(mergeSources(id, perm), cat, NOW).doc, reference);
      }),
      { numRuns: 50 },
    );
  }
});

test("primary vendor: the vulnerable product's vendor (CNA, CPE, KEV, MSRC) before a bundling advisory's vendor (CVE-2024-3400)", async () => {
  // ICSA-24-116-03 is Siemens' advisory for RUGGEDCOM APE1808, which ships Palo Alto PAN-OS; KEV names Palo Alto.
  const d = await docFor('CVE-2024-3400', [csaf('icsa-24-116-03'), KEV_FULL]);
  assert.equal(d.affected.primary_vendor, 'Palo Alto Networks');
  assert.equal(d.affected.primary_product, 'PAN-OS');
  assert.deepEqual(d.affected.vendors, ['Palo Alto Networks', 'Siemens']);
  assert.ok(d.affected.products.includes('RUGGEDCOM APE1808'));
  assert.equal(d.affected.vendor_count, 2);
  // The advisory alone: its vendor is all there is.
  const alone = await docFor('CVE-2024-3400', [csaf('icsa-24-116-03')]);
  assert.equal(alone.affected.primary_vendor, 'Siemens');
  // NVD CPE vendor first, with the product in the sources' words (KEV "Windows") before CPE tokens.
  const w = await docFor('CVE-2024-21338', [nvd('CVE-2024-21338'), KEV_FULL]);
  assert.equal(w.affected.primary_vendor, 'Microsoft');
  assert.equal(w.affected.primary_product, 'Windows');
  // A CVE record awaiting analysis: the CNA (cybersecurity@se.com) names its own company before any advisory.
  const s = await docFor('CVE-2024-8531', [nvd('CVE-2024-8531'), csaf('icsa-24-289-02')]);
  assert.equal(s.affected.primary_vendor, 'Schneider Electric');
  assert.deepEqual(s.affected.vendors, ['Schneider Electric']);
});

test('card severity: CVSS severity, else the MSRC rating, else null (not scored); bsid letter falls back to the BCS tier', async () => {
  // KEV-only CVE-2024-23897 (Jenkins): no CVSS from any source → not scored.
  const k = await docFor('CVE-2024-23897', [KEV_FULL]);
  assert.equal(k.scoring.cvss.score, null);
  assert.equal(k.severity, null);
  assert.equal(k.scoring.bcs.tier, 'HIGH');
  assert.equal(k.bsid, 'BS-2024-023897-H');
  // CVSS present: the card severity is the CVSS severity (CVE-2024-3400: 10.0 from the CISA advisory).
  const p = await docFor('CVE-2024-3400', [csaf('icsa-24-116-03'), KEV_FULL]);
  assert.equal(p.scoring.cvss.severity, 'CRITICAL');
  assert.equal(p.severity, 'CRITICAL');
  assert.equal(cardSeverity('MEDIUM', 'Critical'), 'MEDIUM');
  // The MSRC rating when there is no CVSS at all.
  assert.deepEqual(
    ['Critical', 'Important', 'Moderate', 'Low', 'Unknown', null].map((r) => cardSeverity(null, r)),
    ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', null, null],
  );
});

test('title: a description-length source title (MSRC third-party entries) is shortened to its first sentence', async () => {
  // MSRC 2022-Jan lists Oracle CVEs for CBL-Mariner with the whole Oracle description as the title (1,000 chars).
  const msrcJan = snapshotFile('msrc', '2022-Jan.xml.gz');
  const recs = (await cveRecords(msrcJan)).filter((r) => r.cve_id === 'CVE-2022-21245');
  assert.ok(recs[0].title!.length > 500);
  const d = buildCveDocument(mergeSources('CVE-2022-21245', recs), await realCatalogs(), NOW).doc;
  assert.equal(
    d.title,
    'Vulnerability in the MySQL Server product of Oracle MySQL (component: Server: Security: Privileges)',
  );
  // No sentence short enough: cut at a word boundary with an ellipsis.
  const long = recs[0].title!.replace(/\./g, ',');
  const cut = shortenTitle(long);
  assert.ok(cut.length <= TITLE_MAX && cut.endsWith('…') && long.startsWith(cut.slice(0, -1)), cut);
  // A short source title is kept as is, and wins over a long one from an earlier source.
  const kev = (await cveRecords(KEV_FULL)).find((r) => r.cve_id === 'CVE-2024-21338')!;
  const withLong = mergeSources('CVE-2024-21338', [
    { ...kev, source: 'msrc', source_key: '', kev: undefined, title: 'x'.repeat(300) },
    kev,
  ]);
  assert.equal(
    buildCveDocument(withLong, await realCatalogs(), NOW).doc.title,
    'Microsoft Windows Kernel Exposed IOCTL with Insufficient Access Control Vulnerability',
  );
  fc.assert(
    fc.property(fc.string({ maxLength: 400 }), (s) => {
      assert.ok(shortenTitle(s).length <= TITLE_MAX);
    }),
  );
});

test('vendors: name variants seen in the CSAF and KEV feeds resolve to one vendor; "multiple" is no vendor', () => {
  // Every spelling below is as the bundled CISA CSAF advisories (product_tree vendor branches) or KEV state it.
  const groups: [string, string[]][] = [
    [
      'johnson-controls',
      [
        'Johnson Controls Inc',
        'Sensormatic Electronics, LLC, a subsidiary of Johnson Controls Inc.',
        'Sensormatic Electronics, a subsidiary of Johnson Controls, Inc.',
        'Sensormatic Electronics, LLC, an affiliate of Johnson Controls Inc.',
        'CKS, a subsidiary of Johnson Controls Inc.',
        'Contolled Electronic Management Systems Ltd, Johnson Contols Inc.',
        'Sensormatic Electronics',
      ],
    ],
    [
      'franklin-fueling-systems',
      ['Franklin Fueling Systems', 'Franklin Fueling System ', 'Franklin Electric Fueling Systems '],
    ],
    ['opw', ['OPW Fuel Management Systems', 'OPW Fuel Managements Systems']],
    ['baker-hughes', ['Baker Hughes - Bently Nevada', 'Bently Nevada, Baker Hughes']],
    ['b-braun', ['B. Braun', 'B. Braun Medical', 'B. Braun Melsungen AG']],
    ['hms-networks', ['HMS Networks', 'HMS Industrial Networks']],
    ['honeywell', ['Honeywell', 'Matrikon, Honeywell', 'MatrikonOPC']],
    [
      'mitsubishi-electric',
      ['Mitsubishi Electric Corporation', 'Mitsubishi Electric India', 'ICONICS, Mitsubishi Electric'],
    ],
    ['loytec', ['LOYTEC', 'LOYTEC electronics GmbH']],
    ['trihedral', ['Trihedral', 'Trihedral Engineering Limited']],
    ['sielco', ['Sielco', 'Sielco Sistemi']],
    ['keysight', ['Keysight ', 'Keysight Technologies, Inc.', 'Keysight Technologies']],
    ['cambium-networks', ['Cambium', 'Cambium Networks']],
    ['zebra', ['Zebra', 'Zebra Technologies']],
    ['fujitsu', ['Fujitsu Limited', 'Fujitsu Software']],
    ['xiongmai', ['Xiongmai Technology', 'Hangzhou Xiongmai Technology Co, Ltd']],
    ['lenels2', ['LenelS2', 'Carrier LenelS2']],
    ['b-and-r', ['B&R Industrial Automation']],
    ['geutebrueck', ['GeutebrÃ¼ck', 'GeutebrÃ¼ck GmbH']],
    [
      'lcds',
      [
        'LCDS - LeÃ£o Consultoria e Desenvolvimento de Sistemas Ltda ME',
        'LCDS LeÃ£o Consultoria e Desenvolvimento de Sistemas LTDA ME',
        'LCDS - Leão Consultoria e Desenvolvimento de Sistemas Ltda ME',
      ],
    ],
    ['meta-platforms', ['Meta', 'Meta Platforms']],
    ['qnap', ['QNAP', 'QNAP Systems']],
    ['php', ['PHP', 'PHP Group']],
    ['schneider-electric', ['Schneider Electric ', 'Schneider Electric Software, LLC', 'Schneider Electric SE']],
    [
      'phoenix-contact',
      ['Phoenix Contact', 'PHOENIX CONTACT, Innominate Security Technologies', 'phoenixcontact-software'],
    ],
    ['rockwell-automation', ['Rockwell Automation ', 'rockwellautomation', 'Allen-Bradley']],
  ];
  for (const [slug, names] of groups) for (const n of names) assert.equal(canonicalVendor(n)?.slug, slug, n);
  // Mis-decoded UTF-8 in the feed gets the table's proper display name.
  assert.equal(canonicalVendor('GeutebrÃ¼ck')!.name, 'Geutebrück');
  for (const n of ['multiple', 'multiple open source', 'multiple trailer and brake manufacturers', 'n/a'])
    assert.equal(canonicalVendor(n), null, n);
  // Different companies stay apart.
  assert.notEqual(canonicalVendor('Delta Controls')!.slug, canonicalVendor('Delta Electronics')!.slug);
  assert.notEqual(
    canonicalVendor('Hewlett Packard Enterprise (HPE)')!.slug,
    canonicalVendor('Hewlett Packard (HP)')!.slug,
  );
  assert.equal(canonicalVendor('EnOcean Edge Inc, a subsidiary of EnOcean GmbH-')!.slug, 'enocean');
});

test('affected: a "multiple open source" advisory names no vendor but its products are kept; the primary product is the one the description names (CVE-2020-17468)', async () => {
  const d = await docFor('CVE-2020-17468', [csaf('icsa-20-343-01')]);
  assert.equal(d.affected.primary_vendor, null);
  assert.deepEqual(d.affected.vendors, []);
  assert.equal(d.affected.vendor_count, 0);
  // The advisory lists all eight stacks as affected by every CVE; the description names FNET.
  assert.ok(d.affected.products.includes('uIP (EOL)') && d.affected.products.includes('FNET'));
  assert.match(d.description, /^The function in FNET /);
  assert.equal(d.affected.primary_product, 'FNET');
  assert.equal(d.title, 'Out-of-bounds Read in FNET');
  assert.equal(namedIn('A flaw in uIP allows…', 'uIP (EOL)'), true);
  assert.equal(namedIn('A flaw in uIP-Contiki-NG allows…', 'uIP (EOL)'), false);
  assert.equal(namedIn('A flaw in picoTCP-NG', 'picoTCP-NG'), true);
});

test('patch rule 4: a vendor_fix remediation that states no fix (end-of-life, general advice) is no fix source', async () => {
  // ICSA-23-138-01 files "Carlo Gavazzi will not issue a fix as this product is end-of-life." and "Users should
  // contact Carlo Gavazzi for more information." under vendor_fix: no fix → unknown, not available.
  const eol = await docFor('CVE-2017-20184', [csaf('icsa-23-138-01')]);
  assert.deepEqual([eol.patch.status, eol.patch.patch_available, eol.patch.fixed_in], ['unknown', false, null]);
  assert.equal(eol.patch.patch_notes, 'Carlo Gavazzi will not issue a fix as this product is end-of-life.');
  // The "contact" remediation's URL (the vendor's sales-network page) is no patch URL.
  assert.equal(eol.patch.patch_url, null);
  // Nor is a mailto: address (ICSA-23-068-04 gives mailto:support@steptools.com with the fix "update to v18.102").
  const mail = await docFor('CVE-2023-0973', [csaf('icsa-23-068-04')]);
  assert.deepEqual([mail.patch.status, mail.patch.patch_url], ['patched', null]);
  // CVE-2024-3400 (ICSA-24-116-03): "Contact customer support to receive patch and update information." is a fix.
  const pan = await docFor('CVE-2024-3400', [csaf('icsa-24-116-03')]);
  assert.deepEqual([pan.patch.status, pan.patch.patch_available], ['patched', true]);
  // Real vendor_fix texts of the bundled advisories.
  const cases: [string, boolean][] = [
    ['Update to V3.1.4 or later version', true],
    [
      'KUKA recommends upgrading KUKA.Sim Pro to Version 3.1.2 or above to mitigate this vulnerability. Version 3.1 is the only affected version that is still maintained. All other versions are end-of-life.',
      true,
    ],
    [
      'Modicon M340: currently, no fix is available. Schneider Electric recommends that affected users set up network segmentation',
      false,
    ],
    [
      'DOPSoft 2 will not receive an update to mitigate these vulnerabilities because it is an end-of-life product.',
      false,
    ],
    ['See recommendations from section Workaround and Mitigations', false],
    ['For further inquiries on security vulnerabilities in Siemens products and solutions, contact Siemens.', false],
    [
      'Red Lion notes the DA50N series product is at end-of-life and does not intend to release a software update to address these vulnerabilities.',
      false,
    ],
  ];
  for (const [text, fix] of cases) assert.equal(vendorFixOffersFix(text), fix, text);
});

test('patch rule 4: "install", "download", "correct" speak of a fix only with a version (ICSA-23-129-02, Hitachi Energy MSM)', async () => {
  // Every vendor_fix of CVE-2021-43298 in ICSA-23-129-02 is general advice; one suggests antivirus "on hosts with the
  // Manufacturing Message Specification (MMS) Client application installed". It was read as a fix: patched.
  const msm = await docFor('CVE-2021-43298', [csaf('icsa-23-129-02')]);
  assert.deepEqual(
    [msm.patch.status, msm.patch.patch_available, msm.patch.fixed_in, msm.patch.patch_url],
    ['unknown', false, null, null],
  );
  assert.equal(msm.scoring.bcs.factors.patch_available, false);
  const cases: [string, boolean][] = [
    [advisoryFix('icsa-23-129-02', 'CVE-2021-43298', 'Hitachi Energy suggests'), false],
    ['Install physical controls so that only authorized personnel can access control systems and equipment.', false],
    [
      'Users with questions regarding their specific Alice 6 installations should contact their local Philips service support team or their regional Alice 6 service support.',
      false,
    ],
    ['Install V1.04.01 - Download: https://support.industry.siemens.com/cs/us/en/view/109745821 ', true],
    ['ControlLogix 5570: Corrected in v33.016, 34.013, 35.012, 36.011 and later', true],
    ['This vulnerability is corrected in System 800xA Base 6.1', true],
    // A patch named by its file (ICSA-23-320-01): the word may follow a digit or an underscore.
    ['ST-IPm-8460 - Install 8313_patch1_tcp_udr_all_blocked.tar.gz', true],
    [
      'Follow the advice concerning SD card usage in the manual “Art.-Nr. 107708: UM EN AXC F 2152 Installing, starting up, and operating the AXC F 2152 controller um_en_axc_f_2152_107708_en_02.pdf” that can be found on the product page below:',
      false,
    ],
  ];
  for (const [text, fix] of cases) assert.equal(vendorFixOffersFix(text), fix, text);
});

/** The text of the vendor_fix remediation of `cve` in the fixture advisory that starts with `start`. */
function advisoryFix(id: string, cve: string, start: string): string {
  const doc = JSON.parse(readFileSync(csaf(id), 'utf8')) as {
    vulnerabilities: { cve: string; remediations: { category: string; details: string }[] }[];
  };
  const v = doc.vulnerabilities.find((x) => x.cve === cve)!;
  return v.remediations.find((r) => r.category === 'vendor_fix' && r.details.startsWith(start))!.details;
}
