// GET /api/v1/cves (spec §2.2, §4.1, §8): every parameter, its validation errors, ordering, tier caps, ranking.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { testApp, seedOrg, seedKey, type TestApp } from '../helpers/app.ts';
import { buildCve, seedCves } from '../helpers/cve-docs.ts';
import { addWatch } from '../../src/store/cve-catalog.ts';
import { apiClient } from '../helpers/api-client.ts';

let t: TestApp;
const siemens = { slug: 'siemens', name: 'Siemens' };
const moxa = { slug: 'moxa', name: 'Moxa' };
const acme = { slug: 'acme', name: 'Acme' };

const DOCS = [
  buildCve({
    id: 'CVE-2021-44228',
    cvss: 10,
    epss: 0.97,
    percentile: 0.999,
    kev: true,
    exploit: true,
    patch: 'patched',
    vendors: [acme],
    products: ['Log Library'],
    published: '2021-12-10T10:15:00Z',
    title: 'Remote code execution in Log Library',
  }),
  buildCve({
    id: 'CVE-2023-28489',
    cvss: 9.8,
    epss: 0.2,
    percentile: 0.95,
    vendors: [siemens],
    products: ['SICAM A8000'],
    protocols: ['modbus', 'http'],
    ics: 0.9,
    patch: 'varies_by_product',
    published: '2023-04-11T10:00:00Z',
    title: 'Command injection in SICAM A8000 web server',
  }),
  buildCve({
    id: 'CVE-2023-33235',
    cvss: 7.2,
    epss: 0.05,
    percentile: 0.6,
    vendors: [moxa],
    products: ['TN-5900'],
    protocols: ['ssh'],
    ics: 0.8,
    poc: true,
    published: '2023-06-01T00:00:00Z',
    title: 'Moxa TN-5900 command injection',
  }),
  buildCve({
    id: 'CVE-2024-2229',
    cvss: 5.4,
    epss: 0.001,
    percentile: 0.1,
    vendors: [siemens, moxa],
    products: ['Gateway'],
    protocols: ['modbus'],
    ics: 0.75,
    patch: 'patched',
    published: '2024-03-15T08:00:00Z',
    title: 'Denial of service in Gateway firmware',
  }),
  buildCve({
    id: 'CVE-2024-9124',
    cvss: 3.1,
    epss: null,
    percentile: null,
    vendors: [acme],
    published: '2024-10-01T00:00:00Z',
    title: 'Information disclosure in Widget',
    description: 'Widget logs the session token in clear text; the Log Library is not involved.',
  }),
  buildCve({
    id: 'CVE-2025-0001',
    cvss: null,
    epss: 0.5,
    percentile: 0.97,
    vendors: [acme],
    published: null,
    title: 'Awaiting analysis entry',
  }),
  buildCve({
    id: 'CVE-2022-46361',
    cvss: 8.8,
    epss: 0.3,
    percentile: 0.91,
    kev: true,
    vendors: [{ slug: 'honeywell', name: 'Honeywell' }],
    products: ['Experion'],
    protocols: ['dnp3'],
    ics: 0.95,
    published: '2022-12-01T00:00:00Z',
    title: 'Honeywell Experion buffer overflow',
  }),
];

async function get(url: string, headers: Record<string, string> = {}) {
  const r = await t.app.inject({ method: 'GET', url, headers });
  return { status: r.statusCode, body: r.json(), headers: r.headers };
}
const ids = (b: { data: { cve_id: string }[] }) => b.data.map((c) => c.cve_id);

before(async () => {
  t = await testApp();
  await seedCves(t.store, DOCS);
  await t.store.db
    .updateTable('vendors')
    .set({ aliases: ['Siemens AG'] })
    .where('slug', '=', 'siemens')
    .execute();
});
after(async () => {
  await t.close();
});

describe('summary cards', () => {
  // Through the typed client (clients/typescript): the card's documented type is what these assertions read.
  test('every §2.2 field, with _links.self and _links.html', async () => {
    const {
      data: body,
      error,
      response,
    } = await apiClient(t.app).GET('/api/v1/cves', { params: { query: { q: 'CVE-2023-28489' } } });
    assert.equal(response.status, 200, JSON.stringify(error));
    assert.ok(body);
    const c = body.data[0];
    assert.deepEqual(Object.keys(c).sort(), [
      '_links',
      'bcs_score',
      'bsid',
      'cve_id',
      'cvss_score',
      'epss_percentile',
      'epss_score',
      'epss_top_10_pct',
      'exploit_maturity',
      'has_public_exploit',
      'ics_relevant',
      'kev_flagged',
      'patch_status',
      'poc_available',
      'primary_product',
      'primary_vendor',
      'published_at',
      'severity',
      'title',
      'vendor_count',
    ]);
    assert.deepEqual(c, {
      cve_id: 'CVE-2023-28489',
      bsid: 'BS-2023-028489-C',
      title: 'Command injection in SICAM A8000 web server',
      severity: 'CRITICAL',
      cvss_score: 9.8,
      bcs_score: 9.8,
      epss_score: 0.2,
      epss_percentile: 0.95,
      epss_top_10_pct: true,
      kev_flagged: false,
      exploit_maturity: 'NONE',
      poc_available: false,
      has_public_exploit: false,
      patch_status: 'varies_by_product',
      ics_relevant: true,
      primary_vendor: 'Siemens',
      primary_product: 'SICAM A8000',
      vendor_count: 1,
      published_at: '2023-04-11T10:00:00.000Z',
      _links: { self: '/api/v1/cves/CVE-2023-28489', html: 'http://vulnintel.test/cve/CVE-2023-28489' },
    });
    assert.equal(body.api.version, '1.0.0');
    assert.equal(body.meta.corpus_size, DOCS.length);
    assert.deepEqual(body.filters_applied, { q: 'CVE-2023-28489' });
  });

  test('default order is newest first, CVEs without a date last', async () => {
    const { data: body } = await apiClient(t.app).GET('/api/v1/cves');
    assert.ok(body);
    assert.deepEqual(ids(body), [
      'CVE-2024-9124',
      'CVE-2024-2229',
      'CVE-2023-33235',
      'CVE-2023-28489',
      'CVE-2022-46361',
      'CVE-2021-44228',
      'CVE-2025-0001',
    ]);
    assert.deepEqual(body.pagination, {
      total: 7,
      page: 1,
      per_page: 10,
      pages: 1,
      has_next: false,
      has_prev: false,
      count: 7,
    });
  });
});

describe('filters', () => {
  const cases: [string, string[]][] = [
    ['severity=CRITICAL', ['CVE-2023-28489', 'CVE-2021-44228']],
    ['severity=LOW,MEDIUM', ['CVE-2024-9124', 'CVE-2024-2229']],
    ['cvss_min=7&cvss_max=9.8', ['CVE-2023-33235', 'CVE-2023-28489', 'CVE-2022-46361']],
    ['cvss_min=10', ['CVE-2021-44228']],
    ['bcs_min=9.9', ['CVE-2022-46361', 'CVE-2021-44228']],
    ['bcs_max=5.4', ['CVE-2024-9124', 'CVE-2024-2229', 'CVE-2025-0001']],
    ['kev=true', ['CVE-2022-46361', 'CVE-2021-44228']],
    ['kev=false&severity=CRITICAL', ['CVE-2023-28489']],
    ['vendor=siemens', ['CVE-2024-2229', 'CVE-2023-28489']],
    ['vendor=Siemens', ['CVE-2024-2229', 'CVE-2023-28489']],
    ['vendor=siemens%20ag', ['CVE-2024-2229', 'CVE-2023-28489']],
    ['vendor=nobody', []],
    ['protocol=modbus', ['CVE-2024-2229', 'CVE-2023-28489']],
    ['protocol=dnp3', ['CVE-2022-46361']],
    ['protocol=Modbus', ['CVE-2024-2229', 'CVE-2023-28489']],
    ['protocol=DNP3', ['CVE-2022-46361']],
    ['unpatched=true', ['CVE-2024-9124', 'CVE-2023-33235', 'CVE-2023-28489', 'CVE-2022-46361', 'CVE-2025-0001']],
    ['unpatched=false', ['CVE-2024-2229', 'CVE-2021-44228']],
    ['has_exploit=true', ['CVE-2023-33235', 'CVE-2021-44228']],
    ['has_exploit=false&vendor=moxa', ['CVE-2024-2229']],
    ['patch_status=patched', ['CVE-2024-2229', 'CVE-2021-44228']],
    ['patch_status=partial', ['CVE-2023-28489']],
    ['patch_status=unknown', ['CVE-2024-9124', 'CVE-2023-33235', 'CVE-2022-46361', 'CVE-2025-0001']],
    [
      'patch_status=unpatched',
      ['CVE-2024-9124', 'CVE-2023-33235', 'CVE-2023-28489', 'CVE-2022-46361', 'CVE-2025-0001'],
    ],
    ['patch_status=partial&unpatched=false', []],
    ['date_from=2023-04-11&date_to=2024-03-15', ['CVE-2024-2229', 'CVE-2023-33235', 'CVE-2023-28489']],
    ['date_to=2021-12-10', ['CVE-2021-44228']],
    ['date_from=2024-10-02', []],
    ['severity=CRITICAL&protocol=http&patch_status=partial', ['CVE-2023-28489']],
  ];
  for (const [qs, want] of cases) {
    test(qs, async () => {
      const { status, body } = await get(`/api/v1/cves?${qs}`);
      assert.equal(status, 200, JSON.stringify(body));
      assert.deepEqual(ids(body), want);
      assert.equal(body.pagination.total, want.length);
    });
  }

  test('protocol in any case: filters_applied echoes the lower-case name', async () => {
    const { body } = await get('/api/v1/cves?protocol=OPC-UA');
    assert.deepEqual(body.filters_applied, { protocol: 'opc-ua' });
  });

  test('sort_by orders', async () => {
    assert.deepEqual(ids((await get('/api/v1/cves?sort_by=cvss')).body), [
      'CVE-2021-44228',
      'CVE-2023-28489',
      'CVE-2022-46361',
      'CVE-2023-33235',
      'CVE-2024-2229',
      'CVE-2024-9124',
      'CVE-2025-0001',
    ]);
    assert.deepEqual(ids((await get('/api/v1/cves?sort_by=epss')).body), [
      'CVE-2021-44228',
      'CVE-2025-0001',
      'CVE-2022-46361',
      'CVE-2023-28489',
      'CVE-2023-33235',
      'CVE-2024-2229',
      'CVE-2024-9124',
    ]);
    assert.deepEqual(ids((await get('/api/v1/cves?sort_by=date&severity=CRITICAL')).body), [
      'CVE-2023-28489',
      'CVE-2021-44228',
    ]);
  });

  test('q searches id, vendor, product and text; ranked by relevance', async () => {
    // Title match (weight B) ranks above a description-only match (weight C).
    assert.deepEqual(ids((await get('/api/v1/cves?q=log%20library')).body), ['CVE-2021-44228', 'CVE-2024-9124']);
    assert.deepEqual(ids((await get('/api/v1/cves?q=honeywell')).body), ['CVE-2022-46361']);
    assert.deepEqual(ids((await get('/api/v1/cves?q=SICAM')).body), ['CVE-2023-28489']);
    assert.deepEqual(ids((await get('/api/v1/cves?q=injection')).body).sort(), ['CVE-2023-28489', 'CVE-2023-33235']);
    assert.deepEqual(ids((await get('/api/v1/cves?q=nothing-matches-this')).body), []);
  });

  test('an exact CVE id comes first', async () => {
    const { body } = await get('/api/v1/cves?q=CVE-2024-9124');
    assert.equal(body.data[0].cve_id, 'CVE-2024-9124');
    const lower = await get('/api/v1/cves?q=cve-2024-9124');
    assert.equal(lower.body.data[0].cve_id, 'CVE-2024-9124');
    // Without the prefix, as people type it: the same answer.
    const bare = await get('/api/v1/cves?q=2024-9124');
    assert.deepEqual(ids(bare.body), ids(lower.body));
    assert.equal(bare.body.data[0].cve_id, 'CVE-2024-9124');
    assert.deepEqual(bare.body.filters_applied, { q: '2024-9124' });
  });
});

describe('validation', () => {
  test('unknown parameter → 400 UNKNOWN_PARAMETER listing every accepted parameter', async () => {
    const { status, body } = await get('/api/v1/cves?limit=5');
    assert.equal(status, 400);
    assert.equal(body.error.code, 'UNKNOWN_PARAMETER');
    assert.deepEqual(body.error.detail.unknown, ['limit']);
    assert.deepEqual([...body.error.detail.accepted].sort(), [
      'bcs_max',
      'bcs_min',
      'cvss_max',
      'cvss_min',
      'date_from',
      'date_to',
      'has_exploit',
      'kev',
      'page',
      'patch_status',
      'per_page',
      'protocol',
      'q',
      'ranked',
      'severity',
      'sort_by',
      'unpatched',
      'vendor',
    ]);
  });

  const bad: [string, string, string][] = [
    ['severity=critical', 'query.severity', 'value_error.str.regex'],
    ['severity=CRITICAL,', 'query.severity', 'value_error.str.regex'],
    ['severity=URGENT', 'query.severity', 'value_error.str.regex'],
    ['cvss_min=-0.1', 'query.cvss_min', 'value_error.number.not_ge'],
    ['cvss_max=10.1', 'query.cvss_max', 'value_error.number.not_le'],
    ['cvss_min=high', 'query.cvss_min', 'type_error.number'],
    ['bcs_min=11', 'query.bcs_min', 'value_error.number.not_le'],
    ['bcs_max=-1', 'query.bcs_max', 'value_error.number.not_ge'],
    ['cvss_min=8&cvss_max=7', 'query.cvss_min', 'value_error.range'],
    ['bcs_min=5&bcs_max=4.9', 'query.bcs_min', 'value_error.range'],
    ['kev=yes', 'query.kev', 'type_error.boolean'],
    ['kev=1', 'query.kev', 'type_error.boolean'],
    ['unpatched=0', 'query.unpatched', 'type_error.boolean'],
    ['kev=TRUE', 'query.kev', 'type_error.boolean'],
    ['unpatched=maybe', 'query.unpatched', 'type_error.boolean'],
    ['has_exploit=2', 'query.has_exploit', 'type_error.boolean'],
    ['ranked=perhaps', 'query.ranked', 'type_error.boolean'],
    ['patch_status=fixed', 'query.patch_status', 'type_error.enum'],
    ['protocol=zigbee', 'query.protocol', 'type_error.enum'],
    ['sort_by=name', 'query.sort_by', 'type_error.enum'],
    ['date_from=2024-13-01', 'query.date_from', 'value_error.str.regex'],
    ['date_to=yesterday', 'query.date_to', 'value_error.str.regex'],
    ['date_from=0000-01-01', 'query.date_from', 'value_error.str.regex'],
    ['date_to=0000-02-29', 'query.date_to', 'value_error.str.regex'],
    ['date_from=2024-05-02&date_to=2024-05-01', 'query.date_from', 'value_error.range'],
    ['page=0', 'query.page', 'value_error.number.not_ge'],
    ['page=x', 'query.page', 'type_error.integer'],
    ['per_page=0', 'query.per_page', 'value_error.number.not_ge'],
    ['per_page=101', 'query.per_page', 'value_error.number.not_le'],
    ['q=', 'query.q', 'value_error.any_str.min_length'],
    ['q=%20%20', 'query.q', 'value_error.any_str.min_length'],
    ['vendor=%20', 'query.vendor', 'value_error.any_str.min_length'],
    ['vendor=', 'query.vendor', 'value_error.any_str.min_length'],
    ['cvss_max=%20', 'query.cvss_max', 'type_error.number'],
    ['cvss_min=%09', 'query.cvss_min', 'type_error.number'],
    ['cvss_min=0x5', 'query.cvss_min', 'type_error.number'],
    ['bcs_min=0b1', 'query.bcs_min', 'type_error.number'],
    ['page=0x2', 'query.page', 'type_error.integer'],
    ['page=%202', 'query.page', 'type_error.integer'],
    ['per_page=5%20', 'query.per_page', 'type_error.integer'],
  ];
  test('a bad severity says what is accepted, not the pattern', async () => {
    const { body } = await get('/api/v1/cves?severity=critical');
    assert.deepEqual(body.error.detail, [
      {
        field: 'query.severity',
        type: 'value_error.str.regex',
        message: 'must be CRITICAL, HIGH, MEDIUM or LOW (upper case), or several of them separated by commas',
      },
    ]);
  });

  for (const [qs, field, type] of bad) {
    test(`${qs} → 422 on ${field}`, async () => {
      const { status, body } = await get(`/api/v1/cves?${qs}`);
      assert.equal(status, 422, JSON.stringify(body));
      assert.equal(body.error.code, 'VALIDATION_ERROR');
      assert.equal(body.error.action, 'fix_input');
      const item = body.error.detail.find((d: { field: string }) => d.field === field);
      assert.ok(item, `no error for ${field}: ${JSON.stringify(body.error.detail)}`);
      assert.equal(item.type, type);
      assert.equal(typeof item.message, 'string');
      if (qs.includes('=0000-')) assert.equal(item.message, 'year 0000 does not exist; dates start at 0001-01-01');
      if (qs.includes('=2024-13-01')) assert.equal(item.message, 'must be a date as YYYY-MM-DD');
    });
  }

  test('a number must be written in decimal: blank, hex or binary text is a type error, not 0 or its value', async () => {
    // Ajv's coercion alone would read " " as 0 (cvss_max=%20 listed only the CVSS-0 CVEs) and 0x5 as 5 (rows of `bad` above).
    const blank = await get('/api/v1/cves?cvss_max=%20');
    assert.deepEqual(blank.body.error.detail, [
      { field: 'query.cvss_max', message: 'must be number', type: 'type_error.number' },
    ]);
    // Only the type error on a loosely written field, not also the range error of the number it was read as.
    const both = await get('/api/v1/cves?cvss_min=0x10&bcs_min=11');
    assert.deepEqual(both.body.error.detail.map((d: { field: string; type: string }) => [d.field, d.type]).sort(), [
      ['query.bcs_min', 'value_error.number.not_le'],
      ['query.cvss_min', 'type_error.number'],
    ]);
    // Decimal forms stay accepted: sign, fraction, exponent.
    const okay = await get('/api/v1/cves?cvss_min=.5&cvss_max=%2B9.&page=1e0&per_page=2.0');
    assert.equal(okay.status, 200, JSON.stringify(okay.body));
    assert.deepEqual(okay.body.filters_applied, { cvss_min: 0.5, cvss_max: 9 });
    assert.equal(okay.body.pagination.per_page, 2);
  });

  test('a repeated parameter → one entry on its field, the type error (an enum gets no second, enum entry)', async () => {
    for (const [qs, field] of [
      ['protocol=modbus&protocol=dnp3', 'query.protocol'],
      ['sort_by=cvss&sort_by=cvss', 'query.sort_by'],
      ['patch_status=patched&patch_status=unknown', 'query.patch_status'],
      ['q=a&q=b', 'query.q'],
    ]) {
      const { status, body } = await get(`/api/v1/cves?${qs}`);
      assert.equal(status, 422, qs);
      assert.deepEqual(body.error.detail, [{ field, message: 'must be string', type: 'type_error.string' }], qs);
    }
  });

  test('several bad values → one 422 with one entry per field', async () => {
    const { status, body } = await get('/api/v1/cves?severity=x&kev=x&sort_by=x');
    assert.equal(status, 422);
    assert.deepEqual(body.error.detail.map((d: { field: string }) => d.field).sort(), [
      'query.kev',
      'query.severity',
      'query.sort_by',
    ]);
  });
});

describe('page size caps and paging', () => {
  test('anonymous callers are clamped to 10 per page', async () => {
    const many = Array.from({ length: 25 }, (_, i) =>
      buildCve({
        id: `CVE-2019-${String(1000 + i)}`,
        vendors: [{ slug: 'bulk', name: 'Bulk' }],
        published: `2019-01-${String(1 + i).padStart(2, '0')}T00:00:00Z`,
      }),
    );
    await seedCves(t.store, many);
    const { body } = await get('/api/v1/cves?vendor=bulk&per_page=50');
    assert.equal(body.pagination.per_page, 10);
    assert.equal(body.data.length, 10);
    assert.equal(body.pagination.total, 25);
    assert.equal(body.pagination.pages, 3);
    assert.equal(body.pagination.has_next, true);
  });

  test('Free keys are clamped to 10; paid tiers get up to 100 and reach every result by paging', async () => {
    const free = await seedOrg(t.store, { tier: 'free' });
    const r1 = await get('/api/v1/cves?vendor=bulk&per_page=100', free.auth);
    assert.equal(r1.body.pagination.per_page, 10);
    assert.equal(r1.body.data.length, 10);

    const pro = await seedOrg(t.store, { tier: 'standard' });
    const r2 = await get('/api/v1/cves?vendor=bulk&per_page=100', pro.auth);
    assert.equal(r2.body.pagination.per_page, 100);
    assert.equal(r2.body.data.length, 25);

    const seen: string[] = [];
    for (let page = 1; ; page++) {
      const r = await get(`/api/v1/cves?vendor=bulk&per_page=7&page=${page}`, pro.auth);
      assert.equal(r.body.pagination.page, page);
      assert.equal(r.body.pagination.has_prev, page > 1);
      seen.push(...ids(r.body));
      if (!r.body.pagination.has_next) break;
    }
    assert.equal(seen.length, 25);
    assert.equal(new Set(seen).size, 25);
    assert.equal(seen[0], 'CVE-2019-1024');
    assert.equal(seen[24], 'CVE-2019-1000');
  });

  test('a page past the end is empty with the exact total', async () => {
    const { body } = await get('/api/v1/cves?vendor=bulk&page=9');
    assert.deepEqual(body.data, []);
    assert.equal(body.pagination.total, 25);
    assert.equal(body.pagination.count, 0);
    assert.equal(body.pagination.has_next, false);
  });
});

describe('ranked=true', () => {
  test('requires authentication (401 AUTH_REQUIRED)', async () => {
    const { status, body } = await get('/api/v1/cves?ranked=true');
    assert.equal(status, 401);
    assert.equal(body.error.code, 'AUTH_REQUIRED');
  });

  test("orders watched vendors/protocols of the caller's organization first, then BCS; never another org's", async () => {
    const a = await seedOrg(t.store, { name: 'Rank A', tier: 'professional' });
    const b = await seedOrg(t.store, { name: 'Rank B', tier: 'professional' });
    await addWatch(t.store.db, a.orgId, 'vendor', 'moxa');
    await addWatch(t.store.db, b.orgId, 'protocol', 'dnp3');
    const base = '/api/v1/cves?ranked=true&date_from=2020-01-01';
    const ra = await get(base, a.auth);
    assert.equal(ra.status, 200);
    // Moxa's two CVEs first (by BCS: 7.2 then 5.4), then the rest by BCS (ties: newest first).
    assert.deepEqual(ids(ra.body), [
      'CVE-2023-33235',
      'CVE-2024-2229',
      'CVE-2022-46361',
      'CVE-2021-44228',
      'CVE-2023-28489',
      'CVE-2024-9124',
    ]);
    const rb = await get(base, b.auth);
    assert.deepEqual(ids(rb.body), [
      'CVE-2022-46361',
      'CVE-2021-44228',
      'CVE-2023-28489',
      'CVE-2023-33235',
      'CVE-2024-2229',
      'CVE-2024-9124',
    ]);
    // No watchlist: BCS only.
    const c = await seedOrg(t.store, { name: 'Rank C', tier: 'professional' });
    const rc = await get(base, c.auth);
    assert.deepEqual(ids(rc.body), [
      'CVE-2022-46361',
      'CVE-2021-44228',
      'CVE-2023-28489',
      'CVE-2023-33235',
      'CVE-2024-2229',
      'CVE-2024-9124',
    ]);
    assert.equal(rc.body.filters_applied.ranked, true);
  });
});

describe('key kinds', () => {
  test('partner keys may list; trial keys get 403 TRIAL_SCOPE', async () => {
    const o = await seedOrg(t.store, { tier: 'professional' });
    const partner = await seedKey(t.store, o.orgId, o.memberId, { kind: 'partner', scopes: ['read'] });
    const trial = await seedKey(t.store, o.orgId, o.memberId, { kind: 'trial' });
    const p = await get('/api/v1/cves?kev=true', partner.auth);
    assert.equal(p.status, 200);
    assert.deepEqual(ids(p.body), ['CVE-2022-46361', 'CVE-2021-44228']);
    const tr = await get('/api/v1/cves', trial.auth);
    assert.equal(tr.status, 403);
    assert.equal(tr.body.error.code, 'TRIAL_SCOPE');
    const bad = await get('/api/v1/cves', { authorization: 'Bearer nonsense' });
    assert.equal(bad.status, 401);
  });
});
