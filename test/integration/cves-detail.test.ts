// GET /api/v1/cves/{cve_id} (spec §2.3–§2.5): every block, errors, conditional requests, sage per tier, key kinds.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, seedOrg, seedKey, type TestApp } from '../helpers/app.ts';
import { fromNvdFixture, seedCves } from '../helpers/cve-docs.ts';
import { upsertCves } from '../../src/store/cves.ts';
import type { CveDocument } from '../../src/domain/cve-document.ts';
import { CAPEC_MAPPING } from '../../src/domain/capec.ts';
import { apiClient } from '../helpers/api-client.ts';

let t: TestApp;
let kevDoc: CveDocument;
let icsDoc: CveDocument;
const LONG_SUMMARY =
  'The Common Log File System driver mishandles base log file metadata, so a local user can corrupt kernel memory and run code as SYSTEM. '
    .repeat(3)
    .trim();

before(async () => {
  t = await testApp();
  kevDoc = fromNvdFixture('CVE-2023-28252', {
    vendors: [{ slug: 'microsoft', name: 'Microsoft' }],
    products: ['Windows Server 2022', 'Windows 11'],
    patch: 'patched',
    epss: 0.7,
    percentile: 0.985,
    bcs: 10,
    exploit: true,
    ics: 0.3,
    title: 'Windows Common Log File System Driver Elevation of Privilege Vulnerability',
    sageSummary: LONG_SUMMARY,
  });
  kevDoc.patch.patch_url = 'https://msrc.microsoft.com/update-guide/vulnerability/CVE-2023-28252';
  icsDoc = fromNvdFixture('CVE-2023-28489', {
    vendors: [{ slug: 'siemens', name: 'Siemens' }],
    products: ['CP-8031 MASTER MODULE', 'CP-8050 MASTER MODULE'],
    protocols: ['http'],
    ics: 0.94,
    patch: 'varies_by_product',
    epss: 0.015,
    percentile: 0.8,
    bcs: 9.6,
    title: 'Siemens SICAM A8000 CP-8031/CP-8050 command injection via the web server',
  });
  icsDoc.affected.device_types = ['RTU'];
  icsDoc.patch.fixed_in = null;
  icsDoc.references.cisa_ics_advisories = [
    {
      advisory_id: 'ICSA-23-103-09',
      url: 'https://www.cisa.gov/news-events/ics-advisories/icsa-23-103-09',
      title: 'Siemens SICAM A8000 Devices',
      published: '2023-04-13',
    },
  ];
  icsDoc.capec = [
    { capec_id: 15, name: 'Command Delimiters', slug: 'capec-15', typical_severity: 'High', via_cwe: [77] },
  ];
  await seedCves(t.store, [kevDoc, icsDoc]);
});
after(async () => {
  await t.close();
});

async function get(url: string, headers: Record<string, string> = {}) {
  const r = await t.app.inject({ method: 'GET', url, headers });
  return {
    status: r.statusCode,
    body: r.body
      ? (() => {
          try {
            return r.json();
          } catch {
            return null;
          }
        })()
      : null,
    headers: r.headers,
  };
}

describe('every block of a real KEV CVE', () => {
  test('CVE-2023-28252', async () => {
    const pro = await seedOrg(t.store, { tier: 'professional' });
    // Through the typed client (clients/typescript): every block read here is a documented field of the answer.
    const {
      data: body,
      error,
      response,
    } = await apiClient(t.app, pro.auth).GET('/api/v1/cves/{cve_id}', {
      params: { path: { cve_id: 'CVE-2023-28252' } },
    });
    assert.equal(response.status, 200, JSON.stringify(error));
    assert.ok(body);
    const d = body.data;
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
    assert.equal(d.cve_id, 'CVE-2023-28252');
    assert.equal(d.bsid, 'BS-2023-028252-H');
    assert.equal(d.description, 'Windows Common Log File System Driver Elevation of Privilege Vulnerability');
    assert.deepEqual(d.scoring.cvss, {
      score: 7.8,
      vector: 'CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H',
      version: '3.1',
      severity: 'HIGH',
      attack_vector: 'LOCAL',
      attack_complexity: 'LOW',
      privileges_required: 'LOW',
      user_interaction: 'NONE',
      scope: 'UNCHANGED',
      confidentiality_impact: 'HIGH',
      integrity_impact: 'HIGH',
      availability_impact: 'HIGH',
    });
    assert.deepEqual(d.scoring.epss, {
      score: 0.7,
      percentile: 0.985,
      interpretation: 'Top 10% most likely to be exploited',
    });
    assert.deepEqual(d.scoring.bcs, {
      score: 10,
      tier: 'CRITICAL',
      factors: {
        kev_flagged: true,
        poc_available: false,
        has_public_exploit: true,
        patch_available: true,
        ics_relevance: 0.3,
      },
    });
    assert.deepEqual(d.exploitation, {
      kev_flagged: true,
      kev_added_at: '2023-04-11T00:00:00.000Z',
      has_public_exploit: true,
      poc_available: false,
      exploit_maturity: 'WEAPONIZED',
      actively_exploited: true,
    });
    assert.deepEqual(d.affected, {
      vendors: ['Microsoft'],
      products: ['Windows Server 2022', 'Windows 11'],
      primary_vendor: 'Microsoft',
      primary_product: 'Windows Server 2022',
      vendor_count: 1,
      device_types: [],
      protocols: [],
      ics_relevance_score: 0.3,
      ics_relevant: false,
    });
    assert.deepEqual(d.patch, {
      status: 'patched',
      patch_available: true,
      patch_version: null,
      patch_url: 'https://msrc.microsoft.com/update-guide/vulnerability/CVE-2023-28252',
      patch_notes: null,
      note: null,
      fixed_in: null,
    });
    assert.deepEqual(d.classification.cwes, [
      { id: 122, url: 'https://cwe.mitre.org/data/definitions/122.html' },
      { id: 787, url: 'https://cwe.mitre.org/data/definitions/787.html' },
    ]);
    assert.equal(d.classification.attack_vector, 'LOCAL');
    assert.equal(d.classification.layer, 'OS');
    assert.deepEqual(d.capec, []);
    assert.deepEqual(d.sage, {
      model: 'SAGE-v1',
      tier: 'full',
      executive_summary: LONG_SUMMARY,
      ics_context: 'ICS context for CVE-2023-28252.',
      remediation_guidance: 'Remediation for CVE-2023-28252.',
      confidence_score: 0.82,
      confidence_tier: 'HIGH_CONFIDENCE',
      _upgrade_required: false,
      _upgrade_url: null,
    });
    assert.deepEqual(d.temporal, {
      published_at: '2023-04-11T21:15:25.137Z',
      modified_at: '2025-10-28T14:09:36.813Z',
      enriched_at: '2026-11-20T00:00:00.000Z',
      kev_added_at: '2023-04-11T00:00:00.000Z',
    });
    assert.deepEqual(d.references, {
      nvd_url: 'https://nvd.nist.gov/vuln/detail/CVE-2023-28252',
      cve_org_url: 'https://www.cve.org/CVERecord?id=CVE-2023-28252',
      breachspider_url: 'http://vulnintel.test/cve/CVE-2023-28252',
      vendor_advisories: [
        {
          url: 'https://msrc.microsoft.com/update-guide/vulnerability/CVE-2023-28252',
          tags: ['Patch', 'Vendor Advisory'],
          provided_by: 'secure@microsoft.com',
        },
      ],
      cisa_ics_advisories: [],
      other_references: [
        {
          url: 'http://packetstormsecurity.com/files/174668/Windows-Common-Log-File-System-Driver-clfs.sys-Privilege-Escalation.html',
          tags: ['Exploit', 'Third Party Advisory', 'VDB Entry'],
          provided_by: 'af854a3a-2127-422b-91ae-364da2661108',
        },
        {
          url: 'https://www.cisa.gov/known-exploited-vulnerabilities-catalog?field_cve=CVE-2023-28252',
          tags: ['US Government Resource'],
          provided_by: '134c704f-9b21-4f2e-91b3-4a467353bcc0',
        },
      ],
      other_references_total: 2,
    });
    assert.deepEqual(d._links, {
      self: '/api/v1/cves/CVE-2023-28252',
      pdf: '/api/v1/ics-cve/CVE-2023-28252/pdf',
      html: 'http://vulnintel.test/cve/CVE-2023-28252',
    });
    assert.deepEqual(body.meta, {
      enrichment_version: '1.13',
      sage_model: 'SAGE-v1',
      source: 'vulnintel-enriched',
      // No CAPEC catalog imported in this test database.
      capec_source: { catalog: 'MITRE CAPEC (STIX 2.1)', version: 'unknown', mapping: CAPEC_MAPPING },
    });
    // The store-only field never leaves the service.
    assert.equal('vendor_slugs' in d.affected, false);
    assert.equal('status' in d.sage, false);
  });
});

describe('every block of a real ICS advisory CVE', () => {
  test('CVE-2023-28489', async () => {
    const { status, body } = await get('/api/v1/cves/CVE-2023-28489');
    assert.equal(status, 200);
    const d = body.data;
    assert.equal(d.scoring.cvss.score, 9.8);
    assert.equal(d.scoring.cvss.severity, 'CRITICAL');
    assert.equal(d.scoring.cvss.attack_vector, 'NETWORK');
    assert.deepEqual(d.scoring.bcs.factors, {
      kev_flagged: false,
      poc_available: false,
      has_public_exploit: false,
      patch_available: false,
      ics_relevance: 0.94,
    });
    assert.equal(d.scoring.bcs.tier, 'CRITICAL');
    assert.deepEqual(d.exploitation, {
      kev_flagged: false,
      kev_added_at: null,
      has_public_exploit: false,
      poc_available: false,
      exploit_maturity: 'NONE',
      actively_exploited: false,
    });
    assert.deepEqual(d.affected, {
      vendors: ['Siemens'],
      products: ['CP-8031 MASTER MODULE', 'CP-8050 MASTER MODULE'],
      primary_vendor: 'Siemens',
      primary_product: 'CP-8031 MASTER MODULE',
      vendor_count: 1,
      device_types: ['RTU'],
      protocols: ['http'],
      ics_relevance_score: 0.94,
      ics_relevant: true,
    });
    assert.equal(d.patch.status, 'varies_by_product');
    assert.equal(d.patch.patch_available, false);
    assert.match(d.patch.note, /correlate-cves/);
    assert.deepEqual(d.classification.cwes, [{ id: 77, url: 'https://cwe.mitre.org/data/definitions/77.html' }]);
    assert.equal(d.classification.layer, 'OT');
    assert.deepEqual(d.capec, [
      { capec_id: 15, name: 'Command Delimiters', slug: 'capec-15', typical_severity: 'High', via_cwe: [77] },
    ]);
    assert.deepEqual(d.references.cisa_ics_advisories, [
      {
        advisory_id: 'ICSA-23-103-09',
        url: 'https://www.cisa.gov/news-events/ics-advisories/icsa-23-103-09',
        title: 'Siemens SICAM A8000 Devices',
        published: '2023-04-13',
      },
    ]);
    assert.deepEqual(
      d.references.vendor_advisories.map((v: { url: string }) => v.url),
      ['https://cert-portal.siemens.com/productcert/pdf/ssa-472454.pdf'],
    );
    assert.equal(d.references.other_references_total, 2);
    assert.deepEqual(d.temporal, {
      published_at: '2023-04-11T10:15:18.280Z',
      modified_at: '2023-07-11T18:15:12.383Z',
      enriched_at: '2026-11-20T00:00:00.000Z',
      kev_added_at: null,
    });
  });
});

describe('errors', () => {
  test('malformed id → 422 VALIDATION_ERROR on params.cve_id', async () => {
    for (const bad of ['CVE-23-1', 'NOT-A-CVE', 'CVE-2023-12']) {
      const { status, body } = await get(`/api/v1/cves/${bad}`);
      assert.equal(status, 422, bad);
      assert.equal(body.error.code, 'VALIDATION_ERROR');
      assert.equal(body.error.detail[0].field, 'params.cve_id');
    }
  });
  test('unknown id → 404 NOT_FOUND with resource and identifier', async () => {
    const { status, body } = await get('/api/v1/cves/CVE-9999-99999');
    assert.equal(status, 404);
    assert.equal(body.error.code, 'NOT_FOUND');
    assert.equal(body.error.message, 'CVE not found.');
    assert.deepEqual(body.error.detail, { error: 'not_found', resource: 'CVE', identifier: 'CVE-9999-99999' });
  });
  test('lower-case id is accepted and normalised', async () => {
    const { status, body } = await get('/api/v1/cves/cve-2023-28489');
    assert.equal(status, 200);
    assert.equal(body.data.cve_id, 'CVE-2023-28489');
  });
  test('query parameters are not accepted on the detail', async () => {
    const { status, body } = await get('/api/v1/cves/CVE-2023-28489?fields=all');
    assert.equal(status, 400);
    assert.equal(body.error.code, 'UNKNOWN_PARAMETER');
  });
});

describe('conditional requests', () => {
  test('ETag and Last-Modified; 304 on If-None-Match and If-Modified-Since; a change gives a new ETag', async () => {
    const first = await get('/api/v1/cves/CVE-2023-28489');
    const etag = String(first.headers.etag);
    const lm = String(first.headers['last-modified']);
    assert.match(etag, /^"[0-9a-f]{24}-t"$/);
    assert.equal(lm, new Date('2026-11-20T00:00:00Z').toUTCString());
    assert.match(String(first.headers.vary), /Authorization/);

    const inm = await t.app.inject({
      method: 'GET',
      url: '/api/v1/cves/CVE-2023-28489',
      headers: { 'if-none-match': etag },
    });
    assert.equal(inm.statusCode, 304);
    assert.equal(inm.body, '');
    assert.equal(inm.headers.etag, etag);
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/v1/cves/CVE-2023-28489',
      headers: { 'if-none-match': `"other", W/${etag}` },
    });
    assert.equal(list.statusCode, 304);
    const ims = await t.app.inject({
      method: 'GET',
      url: '/api/v1/cves/CVE-2023-28489',
      headers: { 'if-modified-since': lm },
    });
    assert.equal(ims.statusCode, 304);
    const older = await t.app.inject({
      method: 'GET',
      url: '/api/v1/cves/CVE-2023-28489',
      headers: { 'if-modified-since': new Date('2026-11-19T00:00:00Z').toUTCString() },
    });
    assert.equal(older.statusCode, 200);
    // Only an HTTP-date is a date (RFC 9110 §13.1.3: ignore anything else). Date.parse read "3000" as the year 3000: 304.
    for (const notADate of ['3000', '2100-01-01', 'Fri, 01 Jan 2100 00:00:00 +0100', 'garbage']) {
      const r = await t.app.inject({
        method: 'GET',
        url: '/api/v1/cves/CVE-2023-28489',
        headers: { 'if-modified-since': notADate },
      });
      assert.equal(r.statusCode, 200, notADate);
      assert.equal(r.json().data.cve_id, 'CVE-2023-28489');
    }
    for (const laterDate of [
      'Friday, 01-Jan-99 00:00:00 GMT',
      'Fri Jan  1 00:00:00 2100',
      'Fri, 01 Jan 2100 00:00:00 GMT',
    ]) {
      const r = await t.app.inject({
        method: 'GET',
        url: '/api/v1/cves/CVE-2023-28489',
        headers: { 'if-modified-since': laterDate },
      });
      assert.equal(r.statusCode, laterDate.includes('-99') ? 200 : 304, laterDate);
    }
    // If-None-Match wins over If-Modified-Since.
    const both = await t.app.inject({
      method: 'GET',
      url: '/api/v1/cves/CVE-2023-28489',
      headers: { 'if-none-match': '"stale"', 'if-modified-since': lm },
    });
    assert.equal(both.statusCode, 200);

    // A tier that sees the full analysis gets a different representation, so a different ETag.
    const pro = await seedOrg(t.store, { tier: 'enterprise' });
    const full = await get('/api/v1/cves/CVE-2023-28489', pro.auth);
    assert.match(String(full.headers.etag), /-f"$/);
    assert.notEqual(full.headers.etag, etag);

    const changed = structuredClone(icsDoc);
    changed.scoring.epss.score = 0.5;
    changed.temporal.enriched_at = '2026-11-21T06:00:00Z';
    await upsertCves(t.store.db, [changed]);
    let after = await t.app.inject({
      method: 'GET',
      url: '/api/v1/cves/CVE-2023-28489',
      headers: { 'if-none-match': etag },
    });
    // The cache drops the old document when the commit's notification arrives; wait for it (bounded).
    for (let i = 0; i < 100 && after.statusCode === 304; i++) {
      await new Promise((r) => setTimeout(r, 20));
      after = await t.app.inject({
        method: 'GET',
        url: '/api/v1/cves/CVE-2023-28489',
        headers: { 'if-none-match': etag },
      });
    }
    assert.equal(after.statusCode, 200);
    assert.equal(after.json().data.scoring.epss.score, 0.5);
    assert.notEqual(after.headers.etag, etag);
    assert.equal(after.headers['last-modified'], new Date('2026-11-21T06:00:00Z').toUTCString());
  });
});

describe('sage visibility per tier', () => {
  const truncated = (s: string) => s.length <= 201 && s.endsWith('…');
  for (const tier of [null, 'free', 'standard'] as const) {
    test(`${tier ?? 'anonymous'}: truncated summary, analysis withheld, upgrade flagged`, async () => {
      const headers = tier ? (await seedOrg(t.store, { tier })).auth : {};
      const { body } = await get('/api/v1/cves/CVE-2023-28252', headers);
      const s = body.data.sage;
      assert.equal(s._upgrade_required, true);
      assert.equal(s._upgrade_url, 'http://vulnintel.test/upgrade');
      assert.equal(s.tier, 'truncated');
      assert.equal(s.model, 'SAGE-v1');
      assert.ok(truncated(s.executive_summary), s.executive_summary);
      assert.ok(LONG_SUMMARY.startsWith(s.executive_summary.slice(0, -1)));
      assert.equal(s.ics_context, null);
      assert.equal(s.remediation_guidance, null);
      assert.equal(s.confidence_score, null);
      assert.equal(s.confidence_tier, null);
    });
  }
  for (const tier of ['professional', 'api', 'enterprise'] as const) {
    test(`${tier}: everything`, async () => {
      const { body } = await get('/api/v1/cves/CVE-2023-28252', (await seedOrg(t.store, { tier })).auth);
      const s = body.data.sage;
      assert.equal(s._upgrade_required, false);
      assert.equal(s._upgrade_url, null);
      assert.equal(s.executive_summary, LONG_SUMMARY);
      assert.equal(s.remediation_guidance, 'Remediation for CVE-2023-28252.');
      assert.equal(s.confidence_tier, 'HIGH_CONFIDENCE');
    });
  }
});

describe('key kinds', () => {
  test('trial and partner keys may read the detail', async () => {
    const o = await seedOrg(t.store, { tier: 'free' });
    const trial = await seedKey(t.store, o.orgId, o.memberId, { kind: 'trial' });
    const partner = await seedKey(t.store, o.orgId, o.memberId, { kind: 'partner', scopes: ['read'] });
    for (const k of [trial, partner]) {
      const { status, body } = await get('/api/v1/cves/CVE-2023-28489', k.auth);
      assert.equal(status, 200);
      assert.equal(body.data.cve_id, 'CVE-2023-28489');
    }
    const kev = await get('/api/v1/cves/kev', trial.auth);
    assert.equal(kev.status, 403);
    assert.equal(kev.body.error.code, 'TRIAL_SCOPE');
  });
});
