import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { evalHost } from './fixture-index.ts';
import {
  COMPARATORS,
  DEFAULT_PAGE_SIZE,
  OPTION_NAMES,
  SORTS,
  filterCves,
  fixSummary,
  parseViewOptions,
  publicCve,
  viewHost,
  type OptionError,
  type ViewMemo,
  type ViewOptions,
} from '../../../src/domain/windows/view.ts';
import type { CveSignals, FixGroup, HostEvaluation, Sortable } from '../../../src/domain/windows/evaluate.ts';
import type { SortKeys } from '../../../src/domain/windows/priority.ts';

const base: ViewOptions = {
  include_cleared: false,
  sort: 'priority',
  confirmed_only: false,
  known_exploited_only: false,
  fix_available_only: false,
  cve_page: null,
  cve_page_size: null,
};
const sig = (kev: boolean, epss: number, bcs: number, published: string): CveSignals => ({
  kev,
  epss,
  bcs,
  cvss: null,
  hasExploit: kev,
  publishedAt: published,
  references: null,
});
const SIGNALS: Record<string, CveSignals> = {
  'CVE-2026-41108': sig(true, 0.9, 9.1, '2026-06-09T00:00:00Z'),
  'CVE-2026-40409': sig(false, 0.5, 5.0, '2026-06-10T00:00:00Z'),
};
const host = () =>
  evalHost(
    {
      asset_id: 'v1',
      os_product: 'Windows Server 2019 Standard',
      edition_id: 'ServerStandard',
      os_build: '10.0.17763.8389',
      architecture: 'x64',
      installation_type: 'Server',
    },
    '2026-07-10',
    SIGNALS,
  );

test('default view: cleared left out of cves[], counts still cover every CVE, priority order', () => {
  const e = host();
  const v = viewHost(e, base);
  assert.equal(v.counts.cleared + v.counts.confirmed_open + v.counts.needs_review, e.items.length);
  assert.ok(v.cves.every((c) => c.status !== 'cleared (patched)'));
  assert.equal(v.cves.length, v.counts.confirmed_open + v.counts.needs_review);
  // KEV first among the open CVEs, with a plain-language reason; no internal keys leak.
  assert.equal(v.cves[0].cve_id, 'CVE-2026-41108');
  assert.equal(v.cves[0].priority_rank, 1);
  assert.equal(v.cves[0].known_exploited, true);
  assert.match(
    v.cves[0].priority_reason,
    /^Open on this host: build 10\.0\.17763\.8389 is below the fixed build 10\.0\.17763\.8880\. Known exploited \(CISA KEV\)\./,
  );
  assert.equal('_k' in v.cves[0], false);
  assert.equal(v.cves[0].fix.available, true);
  assert.equal(v.cves[0].source, 'https://api.msrc.microsoft.com/cvrf/v3.0/cvrf/2026-Jun');
  assert.equal(v.cves[0].references.nvd_url, 'https://nvd.nist.gov/vuln/detail/CVE-2026-41108');
  assert.deepEqual(
    v.cves[0].references.vendor_advisories.map((r) => r.url),
    ['https://msrc.microsoft.com/update-guide/en-US/vulnerability/CVE-2026-41108'],
  );
  for (let i = 1; i < v.cves.length; i++) assert.ok(v.cves[i - 1].priority_rank < v.cves[i].priority_rank);
});

test('the four sorts order as specified', () => {
  const e = host();
  const all = { ...base, include_cleared: true };
  const score = viewHost(e, { ...all, sort: 'score' }).cves;
  const firstCleared = score.findIndex((c) => c.status !== 'confirmed open');
  assert.ok(
    score.slice(firstCleared).every((c) => c.status !== 'confirmed open'),
    'confirmed open first',
  );
  const open = score.slice(0, firstCleared).map((c) => c.cve_id);
  assert.deepEqual(
    open,
    [...open].sort((a, b) =>
      COMPARATORS.score(
        { cve_id: a, status: 'confirmed open', known_exploited: false, _k: null as never },
        { cve_id: b, status: 'confirmed open', known_exploited: false, _k: null as never },
      ),
    ),
  );
  const exploit = viewHost(e, { ...all, sort: 'exploit' }).cves;
  assert.equal(exploit[0].cve_id, 'CVE-2026-41108');
  const i = exploit.findIndex((c) => c.cve_id === 'CVE-2026-40409');
  assert.ok(
    exploit.slice(0, i).every((c) => c.known_exploited),
    'known-exploited (KEV or Microsoft) first',
  );
  assert.ok(
    exploit.slice(i + 1).every((c) => !c.known_exploited),
    'then the highest EPSS',
  );
  const newest = viewHost(e, { ...all, sort: 'newest' }).cves;
  assert.equal(newest[0].cve_id, 'CVE-2026-40409');
});

test('filters apply before paging; pages concatenate to the full list', () => {
  const e = host();
  fc.assert(
    fc.property(
      fc.constantFrom('priority', 'score', 'exploit', 'newest'),
      fc.boolean(),
      fc.boolean(),
      fc.integer({ min: 1, max: 400 }),
      (sort, include_cleared, confirmed_only, size) => {
        const o = { ...base, sort: sort as ViewOptions['sort'], include_cleared, confirmed_only };
        const full = viewHost(e, o).cves.map((c) => c.cve_id);
        const got: string[] = [];
        for (let page = 1; ; page++) {
          const v = viewHost(e, { ...o, cve_page: page, cve_page_size: size });
          assert.equal(v.cves_page!.total, full.length);
          assert.equal(v.cves_page!.total_unfiltered, e.items.length);
          got.push(...v.cves.map((c) => c.cve_id));
          if (!v.cves_page!.has_more) break;
        }
        assert.deepEqual(got, full);
      },
    ),
    { numRuns: 25 },
  );
  const kev = viewHost(e, { ...base, known_exploited_only: true }).cves;
  assert.deepEqual(kev.map((c) => c.cve_id).includes('CVE-2026-41108'), true);
  assert.ok(kev.every((c) => c.known_exploited));
  assert.ok(viewHost(e, { ...base, confirmed_only: true }).cves.every((c) => c.status === 'confirmed open'));
  assert.ok(viewHost(e, { ...base, fix_available_only: true }).cves.every((c) => c.fix.available));
});

test('options: JSON typed values; text values for CSV/query; unknown sort → error', () => {
  const j = parseViewOptions({ sort: 'exploit', cve_page_size: 50 }, { fromText: false, includeClearedDefault: false });
  assert.deepEqual(j.ok && j.options, { ...base, sort: 'exploit', cve_page_size: 50 });
  const t = parseViewOptions(
    { include_cleared: 'false', cve_page: '2' },
    { fromText: true, includeClearedDefault: true },
  );
  assert.deepEqual(t.ok && t.options, { ...base, include_cleared: false, cve_page: 2 });
  assert.equal(parseViewOptions({}, { fromText: true, includeClearedDefault: true }).ok && true, true);
  const bad = parseViewOptions(
    { sort: 'severity', cve_page_size: 1001, include_cleared: 'true', extra: 1 },
    { fromText: false, includeClearedDefault: false },
  );
  assert.equal(bad.ok, false);
  assert.deepEqual(!bad.ok && bad.errors.map((x) => x.field).sort(), [
    'cve_page_size',
    'extra',
    'include_cleared',
    'sort',
  ]);
});

test('fix_summary merges the same fix across hosts and keeps the top 10', () => {
  const a = host();
  const b = evalHost(
    {
      asset_id: 'v2',
      os_product: 'Windows Server 2019 Standard',
      edition_id: 'ServerStandard',
      os_build: '10.0.17763.8755',
      architecture: 'x64',
      installation_type: 'Server',
    },
    '2026-07-10',
    SIGNALS,
  );
  const s = fixSummary([a, b]);
  assert.ok(s.length <= 10);
  const lcu = s.find((x) => x.fix.includes('KB5094123'))!;
  assert.deepEqual(lcu.asset_ids, ['v1', 'v2']);
  assert.equal(lcu.product, 'Windows Server 2019');
  const ga = a.fix_groups.find((g) => g.kb === 'KB5094123')!;
  const gb = b.fix_groups.find((g) => g.kb === 'KB5094123')!;
  assert.equal(lcu.counts.total, ga.counts.total + gb.counts.total);
  assert.deepEqual(
    s.map((x) => x.rank),
    s.map((_, i) => i + 1),
  );
  // The fixtures hold Feb, May and June 2026: the host (Feb LCU) misses the May and June fixes.
  assert.ok(ga.kbs_covered.includes('KB5087538'), 'older per-CVE LCUs are covered by the newest');
  assert.ok(!ga.kbs_covered.includes('KB5094123'));
});

// ---- rule by rule ---------------------------------------------------------------------------------------
// Options, sorts, filters, paging and the fix summary of spec §4.2, rule by rule. Option errors are asserted whole
// (field, message, type); the sorts on hand-made keys (one case per tie-breaker), paging and the memo on a real
// evaluation (Windows Server 2019 at the February 2026 build against the MSRC documents of test/fixtures/msrc).

const DEFAULTS: ViewOptions = {
  include_cleared: false,
  sort: 'priority',
  confirmed_only: false,
  known_exploited_only: false,
  fix_available_only: false,
  cve_page: null,
  cve_page_size: null,
};
const JSON_OPTS = { fromText: false, includeClearedDefault: false };
const TEXT_OPTS = { fromText: true, includeClearedDefault: true };

const BOOL = (field: string): OptionError => ({ field, message: 'must be a boolean', type: 'type_error.boolean' });
const SORT = (field = 'sort'): OptionError => ({
  field,
  message: 'sort must be one of priority, score, exploit, newest',
  type: 'type_error.enum',
});
const PAGE = (field = 'cve_page'): OptionError => ({
  field,
  message: 'cve_page must be an integer from 1 to 100000',
  type: 'value_error',
});
const SIZE = (field = 'cve_page_size'): OptionError => ({
  field,
  message: 'cve_page_size must be an integer from 1 to 1000',
  type: 'value_error',
});

function options(
  input: Record<string, unknown>,
  o: { fromText: boolean; includeClearedDefault: boolean; prefix?: string } = JSON_OPTS,
): ViewOptions {
  const r = parseViewOptions(input, o);
  if (!r.ok) assert.fail(`refused: ${JSON.stringify(r.errors)}`);
  return r.options;
}
function optionErrors(
  input: Record<string, unknown>,
  o: { fromText: boolean; includeClearedDefault: boolean; prefix?: string } = JSON_OPTS,
): OptionError[] {
  const r = parseViewOptions(input, o);
  if (r.ok) assert.fail(`accepted: ${JSON.stringify(input)}`);
  return r.errors;
}

describe('parseViewOptions', () => {
  test('the published names and defaults', () => {
    assert.deepEqual([...SORTS], ['priority', 'score', 'exploit', 'newest']);
    assert.deepEqual(
      [...OPTION_NAMES],
      [
        'include_cleared',
        'sort',
        'confirmed_only',
        'known_exploited_only',
        'fix_available_only',
        'cve_page',
        'cve_page_size',
      ],
    );
    assert.equal(DEFAULT_PAGE_SIZE, 100);
    assert.deepEqual(options({}), DEFAULTS);
    // include_cleared: false for JSON, true for the CSV upload (its caller's default)
    assert.deepEqual(options({}, TEXT_OPTS), { ...DEFAULTS, include_cleared: true });
  });

  test('JSON: typed values are taken as sent', () => {
    assert.deepEqual(
      options({
        include_cleared: true,
        sort: 'newest',
        confirmed_only: true,
        known_exploited_only: true,
        fix_available_only: true,
        cve_page: 3,
        cve_page_size: 25,
      }),
      {
        include_cleared: true,
        sort: 'newest',
        confirmed_only: true,
        known_exploited_only: true,
        fix_available_only: true,
        cve_page: 3,
        cve_page_size: 25,
      },
    );
    assert.deepEqual(options({ include_cleared: false }, { fromText: false, includeClearedDefault: true }), DEFAULTS);
    for (const s of SORTS) assert.equal(options({ sort: s }).sort, s);
  });

  test('JSON: text for a boolean or a number is a type error; an empty sort is not a sort', () => {
    assert.deepEqual(
      optionErrors({
        include_cleared: 'true',
        confirmed_only: 1,
        known_exploited_only: null,
        fix_available_only: 'no',
      }),
      [BOOL('include_cleared'), BOOL('confirmed_only'), BOOL('known_exploited_only'), BOOL('fix_available_only')],
    );
    assert.deepEqual(optionErrors({ sort: '' }), [SORT()]);
    assert.deepEqual(optionErrors({ cve_page: '2', cve_page_size: '10' }), [PAGE(), SIZE()]);
    assert.deepEqual(optionErrors({ cve_page: 1.5, cve_page_size: 2.5 }), [PAGE(), SIZE()]);
    assert.deepEqual(optionErrors({ cve_page: null }), [PAGE()]);
  });

  test('text: booleans as true/1/yes and false/0/no in any case and spacing; empty keeps the default', () => {
    for (const t of ['true', ' TRUE ', '1', 'Yes'])
      assert.equal(options({ confirmed_only: t }, TEXT_OPTS).confirmed_only, true, t);
    for (const f of ['false', 'False ', '0', 'NO'])
      assert.equal(options({ include_cleared: f }, TEXT_OPTS).include_cleared, false, f);
    assert.equal(options({ include_cleared: '' }, TEXT_OPTS).include_cleared, true);
    assert.equal(options({ include_cleared: '  ' }, TEXT_OPTS).include_cleared, true);
    assert.equal(options({ include_cleared: true }, TEXT_OPTS).include_cleared, true);
    assert.equal(options({ include_cleared: false }, TEXT_OPTS).include_cleared, false);
    for (const bad of ['maybe', 'on', '2', 1])
      assert.deepEqual(optionErrors({ fix_available_only: bad }, TEXT_OPTS), [BOOL('fix_available_only')], String(bad));
  });

  test('text: numbers as digits (trimmed); empty keeps paging off', () => {
    assert.deepEqual(options({ cve_page: ' 2 ', cve_page_size: '1000' }, TEXT_OPTS), {
      ...DEFAULTS,
      include_cleared: true,
      cve_page: 2,
      cve_page_size: 1000,
    });
    assert.deepEqual(options({ cve_page: '', cve_page_size: ' ', sort: '' }, TEXT_OPTS), {
      ...DEFAULTS,
      include_cleared: true,
    });
    assert.equal(options({ cve_page: 4 }, TEXT_OPTS).cve_page, 4);
    for (const bad of ['2.0', '-1', '+1', '1e2', 'two', '0x10', '2 3']) {
      assert.deepEqual(optionErrors({ cve_page: bad }, TEXT_OPTS), [PAGE()], bad);
    }
    assert.deepEqual(optionErrors({ cve_page: true, cve_page_size: false }, TEXT_OPTS), [PAGE(), SIZE()]);
  });

  test('boundaries: cve_page from 1 to 100000; cve_page_size from 1 to 1000', () => {
    assert.equal(options({ cve_page: 1 }).cve_page, 1);
    assert.equal(options({ cve_page: 100000 }).cve_page, 100000);
    assert.deepEqual(optionErrors({ cve_page: 100001 }), [PAGE()]);
    assert.deepEqual(optionErrors({ cve_page: 1e308 }), [PAGE()]);
    assert.deepEqual(optionErrors({ cve_page: 0 }), [PAGE()]);
    assert.deepEqual(optionErrors({ cve_page: -3 }), [PAGE()]);
    assert.equal(options({ cve_page_size: 1 }).cve_page_size, 1);
    assert.equal(options({ cve_page_size: 1000 }).cve_page_size, 1000);
    assert.deepEqual(optionErrors({ cve_page_size: 0 }), [SIZE()]);
    assert.deepEqual(optionErrors({ cve_page_size: 1001 }), [SIZE()]);
    assert.deepEqual(optionErrors({ cve_page: '0', cve_page_size: '1001' }, TEXT_OPTS), [PAGE(), SIZE()]);
  });

  test('sort: only the four names, exactly spelled', () => {
    for (const bad of ['Priority', 'severity', ' score', 7, ['score'], null])
      assert.deepEqual(optionErrors({ sort: bad }), [SORT()], String(bad));
    assert.deepEqual(optionErrors({ sort: 'cvss' }, TEXT_OPTS), [SORT()]);
  });

  test('unknown options first, then the booleans, sort, page, page size; every field prefixed', () => {
    const o = { fromText: true, includeClearedDefault: true, prefix: 'options.' };
    assert.deepEqual(
      optionErrors(
        {
          cve_page_size: '0',
          cve_page: 'x',
          sort: 'x',
          fix_available_only: 'x',
          include_cleared: 'x',
          page: 1,
          limit: 2,
        },
        o,
      ),
      [
        { field: 'options.page', message: 'unknown option', type: 'unknown_option' },
        { field: 'options.limit', message: 'unknown option', type: 'unknown_option' },
        BOOL('options.include_cleared'),
        BOOL('options.fix_available_only'),
        SORT('options.sort'),
        PAGE('options.cve_page'),
        SIZE('options.cve_page_size'),
      ],
    );
    assert.deepEqual(optionErrors({ extra: 1 }), [
      { field: 'extra', message: 'unknown option', type: 'unknown_option' },
    ]);
  });
});

// ---- sorts and filters on hand-made keys ----------------------------------------------------------------

const K: SortKeys = {
  kev: false,
  exploit: false,
  fixTier: 0,
  bcs: null,
  cvss: null,
  epss: null,
  published: null,
  fixAvailable: true,
};
const item = (cve_id: string, over: Partial<Sortable> & { k?: Partial<SortKeys> } = {}): Sortable => ({
  cve_id,
  status: over.status ?? 'confirmed open',
  known_exploited: over.known_exploited ?? false,
  _k: { ...K, ...over.k },
});
const ids = (list: Sortable[]) => list.map((c) => c.cve_id);
const sorted = (name: keyof typeof COMPARATORS, list: Sortable[]) => ids([...list].sort(COMPARATORS[name]));

describe('COMPARATORS', () => {
  test('priority is the §4.2 priority order (status, KEV, exploit, fix tier, BCS/CVSS/EPSS, CVE id)', () => {
    assert.deepEqual(
      sorted('priority', [
        item('CVE-2026-5', { status: 'cleared (patched)', k: { kev: true } }),
        item('CVE-2026-4', { status: 'needs review' }),
        item('CVE-2026-3', { k: { cvss: 9.8 } }),
        item('CVE-2026-2', { k: { kev: true } }),
      ]),
      ['CVE-2026-2', 'CVE-2026-3', 'CVE-2026-4', 'CVE-2026-5'],
    );
  });

  test('score: confirmed open first, then CVE id by year and number (not as text)', () => {
    assert.deepEqual(
      sorted('score', [
        item('CVE-2026-10000', { status: 'needs review' }),
        item('CVE-2026-10000'),
        item('CVE-2026-9999', { status: 'cleared (patched)', k: { kev: true, cvss: 10 } }),
        item('CVE-2025-50000'),
        item('CVE-2026-9999'),
      ]),
      ['CVE-2025-50000', 'CVE-2026-9999', 'CVE-2026-10000', 'CVE-2026-9999', 'CVE-2026-10000'],
    );
    // needs review and cleared are one tier: CVE id only
    assert.deepEqual(
      sorted('score', [
        item('CVE-2026-2', { status: 'needs review' }),
        item('CVE-2026-1', { status: 'cleared (patched)' }),
      ]),
      ['CVE-2026-1', 'CVE-2026-2'],
    );
  });

  test('exploit: KEV, then exploit available, then EPSS, then CVSS (unknown last), then CVE id', () => {
    assert.deepEqual(
      sorted('exploit', [
        item('CVE-2026-1'),
        item('CVE-2026-2', { k: { cvss: 5 } }),
        item('CVE-2026-3', { k: { cvss: 9 } }),
        item('CVE-2026-4', { k: { epss: 0 } }),
        item('CVE-2026-5', { k: { epss: 0.4, cvss: 1 } }),
        item('CVE-2026-6', { k: { exploit: true } }),
        item('CVE-2026-7', { k: { kev: true } }),
        item('CVE-2026-8', { k: { kev: true, exploit: true } }),
        item('CVE-2026-9', { status: 'cleared (patched)', k: { epss: 0.9 } }),
      ]),
      [
        'CVE-2026-8',
        'CVE-2026-7',
        'CVE-2026-6',
        'CVE-2026-9',
        'CVE-2026-5',
        'CVE-2026-4',
        'CVE-2026-3',
        'CVE-2026-2',
        'CVE-2026-1',
      ],
    );
  });

  test('newest: published date, newest first, unknown last; same date: higher CVE id first', () => {
    assert.deepEqual(
      sorted('newest', [
        item('CVE-2026-1', { k: { published: null } }),
        item('CVE-2026-2', { k: { published: '2026-05-12T07:00:00.000Z' } }),
        item('CVE-2026-3', { k: { published: '2026-06-09T07:00:00.000Z' } }),
        item('CVE-2026-10', { k: { published: '2026-05-12T07:00:00.000Z' } }),
        item('CVE-2026-9', { k: { published: null } }),
      ]),
      ['CVE-2026-3', 'CVE-2026-10', 'CVE-2026-2', 'CVE-2026-9', 'CVE-2026-1'],
    );
  });
});

describe('filterCves', () => {
  const list = [
    item('CVE-2026-1'),
    item('CVE-2026-2', { status: 'needs review', known_exploited: true }),
    item('CVE-2026-3', { status: 'cleared (patched)', known_exploited: true }),
    item('CVE-2026-4', { known_exploited: true, k: { fixAvailable: false } }),
    item('CVE-2026-5', { status: 'needs review', k: { fixAvailable: false } }),
  ];

  test('cleared CVEs are left out unless include_cleared', () => {
    assert.deepEqual(ids(filterCves(list, DEFAULTS)), ['CVE-2026-1', 'CVE-2026-2', 'CVE-2026-4', 'CVE-2026-5']);
    assert.deepEqual(ids(filterCves(list, { ...DEFAULTS, include_cleared: true })), [
      'CVE-2026-1',
      'CVE-2026-2',
      'CVE-2026-3',
      'CVE-2026-4',
      'CVE-2026-5',
    ]);
  });

  test('each filter alone, and together', () => {
    const all = { ...DEFAULTS, include_cleared: true };
    assert.deepEqual(ids(filterCves(list, { ...all, confirmed_only: true })), ['CVE-2026-1', 'CVE-2026-4']);
    assert.deepEqual(ids(filterCves(list, { ...all, known_exploited_only: true })), [
      'CVE-2026-2',
      'CVE-2026-3',
      'CVE-2026-4',
    ]);
    assert.deepEqual(ids(filterCves(list, { ...all, fix_available_only: true })), [
      'CVE-2026-1',
      'CVE-2026-2',
      'CVE-2026-3',
    ]);
    assert.deepEqual(ids(filterCves(list, { ...all, known_exploited_only: true, fix_available_only: true })), [
      'CVE-2026-2',
      'CVE-2026-3',
    ]);
    assert.deepEqual(ids(filterCves(list, { ...all, confirmed_only: true, known_exploited_only: true })), [
      'CVE-2026-4',
    ]);
    assert.deepEqual(ids(filterCves(list, { ...all, confirmed_only: true, fix_available_only: true })), ['CVE-2026-1']);
  });
});

// ---- viewHost on a real evaluation ---------------------------------------------------------------------

const SERVER_2019 = {
  asset_id: 'v1',
  os_product: 'Windows Server 2019 Standard',
  edition_id: 'ServerStandard',
  os_build: '10.0.17763.8389',
  architecture: 'x64',
  installation_type: 'Server',
};

describe('viewHost', () => {
  test('default view: every open CVE in priority order, the host fields kept, internal fields dropped', () => {
    const e = evalHost(SERVER_2019);
    assert.deepEqual(e.counts, { confirmed_open: 145, cleared: 282, needs_review: 5 });
    const v = viewHost(e, DEFAULTS);
    assert.equal(v.cves.length, 150);
    assert.deepEqual(
      v.cves.map((c) => c.priority_rank),
      Array.from({ length: 150 }, (_, i) => i + 1),
    );
    assert.deepEqual(
      v.cves.slice(0, 3).map((c) => c.cve_id),
      ['CVE-2026-41089', 'CVE-2026-44815', 'CVE-2026-47291'],
    );
    assert.equal('cves_page' in v, false);
    for (const k of ['items', 'data_as_of', 'os_build']) assert.equal(k in v, false, k);
    assert.deepEqual(Object.keys(v).sort(), [
      'asset_id',
      'candidate_products',
      'counts',
      'cves',
      'end_of_life',
      'fix_groups',
      'labels',
      'map_note',
      'microsoft_product',
      'patch_resolved',
      'warnings',
    ]);
    assert.equal(v.asset_id, 'v1');
    assert.equal(v.microsoft_product, e.microsoft_product);
    assert.equal(v.fix_groups, e.fix_groups);
    assert.equal(
      v.cves.some((c) => '_k' in c),
      false,
    );
    // the evaluation itself is not reordered by a view
    const before = e.items.map((i) => i.cve_id);
    viewHost(e, { ...DEFAULTS, sort: 'score', include_cleared: true });
    assert.deepEqual(
      e.items.map((i) => i.cve_id),
      before,
    );
  });

  test('include_cleared shows all 432, ranks are positions in the full priority order', () => {
    const e = evalHost(SERVER_2019);
    const v = viewHost(e, { ...DEFAULTS, include_cleared: true });
    assert.equal(v.cves.length, 432);
    assert.deepEqual(
      v.cves.map((c) => c.priority_rank),
      Array.from({ length: 432 }, (_, i) => i + 1),
    );
    const open = viewHost(e, { ...DEFAULTS, confirmed_only: true });
    assert.equal(open.cves.length, 145);
    assert.deepEqual(
      open.cves.map((c) => c.priority_rank),
      Array.from({ length: 145 }, (_, i) => i + 1),
    );
  });

  test('a non-priority sort reorders the view; ranks stay those of the priority order', () => {
    const e = evalHost(SERVER_2019);
    const v = viewHost(e, { ...DEFAULTS, sort: 'score' });
    // score: open first, then by CVE id (the 2022 and 2025 CVEs still open on this build come first)
    assert.deepEqual(
      v.cves.slice(0, 3).map((c) => c.cve_id),
      ['CVE-2022-37966', 'CVE-2025-54518', 'CVE-2026-8863'],
    );
    const byId = new Map(viewHost(e, DEFAULTS).cves.map((c) => [c.cve_id, c.priority_rank]));
    assert.deepEqual(
      v.cves.map((c) => c.priority_rank),
      v.cves.map((c) => byId.get(c.cve_id)),
    );
    assert.deepEqual(
      v.cves.slice(0, 3).map((c) => c.priority_rank),
      [145, 144, 23],
    );
  });

  test('paging: page and size default to 1 and 100; has_more until the last item', () => {
    const e = evalHost(SERVER_2019);
    const full = viewHost(e, DEFAULTS).cves.map((c) => c.cve_id);
    const p1 = viewHost(e, { ...DEFAULTS, cve_page_size: 100 });
    assert.deepEqual(
      p1.cves.map((c) => c.cve_id),
      full.slice(0, 100),
    );
    assert.deepEqual(p1.cves_page, { page: 1, page_size: 100, total: 150, total_unfiltered: 432, has_more: true });
    const p2 = viewHost(e, { ...DEFAULTS, cve_page: 2 });
    assert.deepEqual(
      p2.cves.map((c) => c.cve_id),
      full.slice(100),
    );
    assert.deepEqual(p2.cves_page, { page: 2, page_size: 100, total: 150, total_unfiltered: 432, has_more: false });
    assert.deepEqual(p2.cves.map((c) => c.priority_rank).slice(0, 2), [101, 102]);
    // exactly at the end (3 × 50 = 150): no more; one short (149 of 150): more
    assert.equal(viewHost(e, { ...DEFAULTS, cve_page: 3, cve_page_size: 50 }).cves_page!.has_more, false);
    assert.equal(viewHost(e, { ...DEFAULTS, cve_page: 1, cve_page_size: 149 }).cves_page!.has_more, true);
    assert.equal(viewHost(e, { ...DEFAULTS, cve_page: 1, cve_page_size: 150 }).cves_page!.has_more, false);
    const past = viewHost(e, { ...DEFAULTS, cve_page: 4, cve_page_size: 50 });
    assert.deepEqual(past.cves, []);
    assert.deepEqual(past.cves_page, { page: 4, page_size: 50, total: 150, total_unfiltered: 432, has_more: false });
  });

  test('a shared memo: a second host with the same items gets the same list without sorting again', () => {
    const e = evalHost(SERVER_2019);
    const memo: ViewMemo = new Map();
    const paged = { ...DEFAULTS, cve_page: 2, cve_page_size: 10 };
    const a = viewHost(e, paged, memo);
    assert.equal(memo.size, 1);
    const twin = { ...e, asset_id: 'v2' } as HostEvaluation;
    const b = viewHost(twin, paged, memo);
    assert.equal(b.asset_id, 'v2');
    assert.equal(b.cves, a.cves);
    assert.deepEqual(b.cves_page, { page: 2, page_size: 10, total: 150, total_unfiltered: 432, has_more: true });
    for (const k of ['items', 'data_as_of', 'os_build']) assert.equal(k in b, false, k);
    assert.deepEqual(Object.keys(b).sort(), Object.keys(a).sort());
    // not paged: the memo entry carries no page, and neither does the view
    const m2: ViewMemo = new Map();
    const c = viewHost(e, DEFAULTS, m2);
    const d = viewHost({ ...e, asset_id: 'v3' } as HostEvaluation, DEFAULTS, m2);
    assert.equal(d.cves, c.cves);
    assert.equal('cves_page' in d, false);
    assert.deepEqual(Object.keys(d).sort(), Object.keys(c).sort());
  });

  test('publicCve drops the sort keys and gives the same object for the same result', () => {
    const e = evalHost(SERVER_2019);
    const v = viewHost(e, { ...DEFAULTS, cve_page_size: 1 });
    assert.equal(v.cves.length, 1);
    const fake = { cve_id: 'CVE-2026-1', status: 'confirmed open', _k: K } as unknown as Parameters<
      typeof publicCve
    >[0];
    const p = publicCve(fake);
    assert.deepEqual(p, { cve_id: 'CVE-2026-1', status: 'confirmed open' });
    assert.equal(publicCve(fake), p);
  });
});

// ---- fix summary on hand-made groups ----------------------------------------------------------------

const group = (fix: string, over: Partial<FixGroup> & { c?: Partial<FixGroup['counts']> } = {}): FixGroup => ({
  fix,
  fix_type: over.fix_type ?? 'kb',
  kb: over.kb ?? null,
  kbs_covered: [],
  cve_ids: [],
  counts: { total: 1, confirmed: 1, known_exploited: 0, exploit_available: 0, ...over.c },
  highest_score: over.highest_score === undefined ? null : over.highest_score,
  group_rank: 1,
});
const evaluation = (
  asset_id: string,
  product: string | null,
  groups: FixGroup[],
  candidates: string[] | null = null,
): HostEvaluation => ({
  asset_id,
  microsoft_product: product,
  candidate_products: candidates,
  patch_resolved: true,
  end_of_life: false,
  map_note: null,
  labels: [],
  counts: { confirmed_open: 0, cleared: 0, needs_review: 0 },
  items: [],
  fix_groups: groups,
  warnings: [],
  data_as_of: null,
  os_build: null,
});

describe('fixSummary', () => {
  test('the same fix for the same product is merged: hosts listed once, counts summed, highest score kept', () => {
    const s = fixSummary([
      evaluation('h1', 'Windows Server 2019', [
        group('Install KB1', {
          c: { total: 3, confirmed: 2, known_exploited: 1, exploit_available: 1 },
          highest_score: 7.5,
        }),
      ]),
      evaluation('h2', 'Windows Server 2019', [
        group('Install KB1', {
          c: { total: 4, confirmed: 4, known_exploited: 0, exploit_available: 2 },
          highest_score: 9.8,
        }),
      ]),
      evaluation('h1', 'Windows Server 2019', [
        group('Install KB1', {
          c: { total: 1, confirmed: 0, known_exploited: 0, exploit_available: 0 },
          highest_score: null,
        }),
      ]),
      evaluation('h3', 'Windows Server 2019', [group('Install KB1', { highest_score: 8 })]),
    ]);
    assert.deepEqual(s, [
      {
        rank: 1,
        fix: 'Install KB1',
        product: 'Windows Server 2019',
        asset_ids: ['h1', 'h2', 'h3'],
        counts: { total: 9, confirmed: 7, known_exploited: 1, exploit_available: 3 },
        highest_score: 9.8,
      },
    ]);
  });

  test('the highest score starts from the first known one', () => {
    const s = fixSummary([
      evaluation('h1', 'P', [group('F', { highest_score: null })]),
      evaluation('h2', 'P', [group('F', { highest_score: 0 })]),
      evaluation('h3', 'P', [group('F', { highest_score: null })]),
    ]);
    assert.equal(s[0].highest_score, 0);
    assert.equal(
      fixSummary([
        evaluation('h1', 'P', [group('F', { highest_score: 5 })]),
        evaluation('h2', 'P', [group('F', { highest_score: 4 })]),
      ])[0].highest_score,
      5,
    );
  });

  test('product: the Microsoft product, else the candidates joined with " | ", else null; the same fix of two products stays apart', () => {
    const s = fixSummary([
      evaluation(
        'h1',
        null,
        [group('Install KB1')],
        ['Windows 10 Version 22H2 for x64-based Systems', 'Windows 11 Version 23H2 for x64-based Systems'],
      ),
      evaluation('h2', null, [group('Install KB1')]),
      evaluation('h3', 'Windows Server 2019', [group('Install KB1')]),
    ]);
    assert.deepEqual(
      s.map((x) => [x.product, x.asset_ids]),
      [
        ['Windows 10 Version 22H2 for x64-based Systems | Windows 11 Version 23H2 for x64-based Systems', ['h1']],
        [null, ['h2']],
        ['Windows Server 2019', ['h3']],
      ],
    );
    assert.deepEqual(
      s.map((x) => x.rank),
      [1, 2, 3],
    );
  });

  test('order: the fix-group order first (exploit tier, fix type, confirmed, score, total, fix), then more hosts first', () => {
    const s = fixSummary([
      evaluation('h1', 'P', [
        group('B esu', { fix_type: 'esu', c: { known_exploited: 1 } }),
        group('C lone'),
        group('D shared'),
      ]),
      evaluation('h2', 'P', [
        group('D shared', { c: { total: 0, confirmed: 0 } }),
        group('A kev', { c: { known_exploited: 1 } }),
      ]),
    ]);
    assert.deepEqual(
      s.map((x) => x.fix),
      ['A kev', 'B esu', 'C lone', 'D shared'],
    );
    // equal by the group order: the fix shared by more hosts first
    const t = fixSummary([
      evaluation('h1', 'P', [group('A one', { c: { total: 2, confirmed: 2 } })]),
      evaluation('h2', 'Q', [group('A one', { c: { total: 1, confirmed: 1 } })]),
      evaluation('h3', 'Q', [group('A one', { c: { total: 1, confirmed: 1 } })]),
    ]);
    assert.deepEqual(
      t.map((x) => [x.product, x.asset_ids.length, x.rank]),
      [
        ['Q', 2, 1],
        ['P', 1, 2],
      ],
    );
  });

  test('top 10 by default, or as asked; ranks 1..n; the fix type is not shown', () => {
    const groups = Array.from({ length: 11 }, (_, i) => group(`Fix ${String(i).padStart(2, '0')}`));
    const s = fixSummary([evaluation('h1', 'P', groups)]);
    assert.equal(s.length, 10);
    assert.deepEqual(
      s.map((x) => x.fix),
      groups.slice(0, 10).map((g) => g.fix),
    );
    assert.deepEqual(
      s.map((x) => x.rank),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    assert.equal('fix_type' in s[0], false);
    assert.equal(fixSummary([evaluation('h1', 'P', groups.slice(0, 10))]).length, 10);
    assert.deepEqual(
      fixSummary([evaluation('h1', 'P', groups)], 2).map((x) => x.fix),
      ['Fix 00', 'Fix 01'],
    );
    assert.deepEqual(fixSummary([]), []);
  });

  test('on real evaluations: each fix of Server 2019 is one entry for both hosts, the known-exploited one first', () => {
    const a = evalHost(SERVER_2019);
    const b = evalHost({ ...SERVER_2019, asset_id: 'v2', os_build: '10.0.17763.8755' });
    const s = fixSummary([a, b]);
    assert.deepEqual(
      s.map((x) => [x.rank, x.fix.match(/KB\d+|^No update/)![0], x.asset_ids.join()]),
      [
        [1, 'KB5039217', 'v1,v2'],
        [2, 'KB5094123', 'v1,v2'],
        [3, 'KB5055519', 'v1,v2'],
        [4, 'KB5062557', 'v1,v2'],
        [5, 'KB5023702', 'v1,v2'],
        [6, 'No update', 'v1,v2'],
      ],
    );
    assert.deepEqual(s[0].counts, { total: 2, confirmed: 0, known_exploited: 2, exploit_available: 2 });
    const lcu = s[1];
    assert.equal(
      lcu.fix,
      'Install KB5094123, the latest cumulative update for Windows Server 2019 (build 10.0.17763.8880)',
    );
    assert.deepEqual(lcu.asset_ids, ['v1', 'v2']);
    assert.equal(lcu.product, 'Windows Server 2019');
    const ga = a.fix_groups.find((g) => g.kb === 'KB5094123')!;
    const gb = b.fix_groups.find((g) => g.kb === 'KB5094123')!;
    assert.deepEqual(lcu.counts, {
      total: ga.counts.total + gb.counts.total,
      confirmed: ga.counts.confirmed + gb.counts.confirmed,
      known_exploited: ga.counts.known_exploited + gb.counts.known_exploited,
      exploit_available: ga.counts.exploit_available + gb.counts.exploit_available,
    });
  });
});
