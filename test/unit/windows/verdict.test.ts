// The verdict rules of spec §4.2 (src/domain/windows/verdict.ts) on small product indexes built here by hand, one
// rule and one boundary per case: the host's KB list read through the product's series (kbSummary), the
// host-independent facts of a (product, CVE) pair (prepareProduct), the cumulative path (build, KB list, hotpatch,
// pre-2021 series fix, out-of-series fix, servicing stack update, no fix), the legacy path (KB list, later rollup,
// Supercedence, build cross-check) and the end-of-support limit (rule 2/7). The rows use the real products of
// products.ts; the KB numbers are made up. The same paths on the real MSRC documents: verdict-fixtures.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostCtx, verdictFor } from '../../../src/domain/windows/verdict.ts';
import { prepareProduct, type Prepared } from '../../../src/domain/windows/prepared.ts';
import {
  WHY_BELOW,
  WHY_BUILD,
  WHY_SERIES_CLEAR,
  WHY_SERIES_OPEN,
  type Verdict,
} from '../../../src/domain/windows/verdict-facts.ts';
import type { Fix, KbInfo, ProductCve, ProductIndex } from '../../../src/domain/windows/evaluation-index.ts';
import { WINDOWS_PRODUCTS, type WindowsProduct } from '../../../src/domain/windows/products.ts';
import type { FixKind, OsBuild } from '../../../src/domain/windows/build.ts';
import type { ProductMatch } from '../../../src/domain/windows/match.ts';
import type { WindowsHost } from '../../../src/domain/windows/host-record.ts';

const S2019 = WINDOWS_PRODUCTS.get('11571')!; // Windows Server 2019, cumulative, 10.0.17763
const S2012R2 = WINDOWS_PRODUCTS.get('10483')!; // Windows Server 2012 R2, legacy, 6.3.9600

function osb(p: WindowsProduct, ubr: number | null): OsBuild {
  return { major: p.major, build: p.build, ubr, text: `${p.major}.${p.build}${ubr === null ? '' : `.${ubr}`}` };
}

interface KbSpec {
  kb: string;
  kind: FixKind;
  month: string | null;
  ubr?: number | null;
  inSeries?: boolean;
  supersedes?: string[];
}
interface FixSpec {
  kb: string | null;
  kind: FixKind;
  ubr?: number | null;
  supersedes?: string[];
  subType?: string | null;
  rawBuild?: string | null;
  overrideId?: string | null;
}

function kbInfo(p: WindowsProduct, s: KbSpec): KbInfo {
  return {
    kb: s.kb,
    kind: s.kind,
    month: s.month,
    build: s.ubr == null ? null : osb(p, s.ubr),
    rows: 1,
    supersedes: s.supersedes ?? [],
    inSeries: s.inSeries ?? true,
  };
}

function fix(p: WindowsProduct, s: FixSpec): Fix {
  return {
    kb: s.kb,
    kind: s.kind,
    subType: s.subType ?? null,
    rawBuild: s.rawBuild ?? (s.ubr == null ? null : osb(p, s.ubr).text),
    build: s.ubr == null ? null : osb(p, s.ubr),
    supersedes: s.supersedes ?? [],
    url: s.kb ? `https://support.microsoft.com/help/${s.kb.slice(2)}` : null,
    docId: 'test',
    overrideId: s.overrideId ?? null,
  };
}

function pcOf(cve: string, fixes: Fix[]): ProductCve {
  return {
    meta: {
      cve,
      title: cve,
      description: null,
      publishedAt: null,
      docId: 'test',
      docRevisionDate: null,
      cvrfUrl: null,
      advisoryUrl: null,
      exploited: false,
      publiclyDisclosed: false,
      cwes: [],
      cvssScore: null,
      cvssVector: null,
    },
    severity: 'Important',
    cvssScore: null,
    fixes,
  };
}

function index(p: WindowsProduct, kbs: KbSpec[], cves: Record<string, FixSpec[]>): ProductIndex {
  const infos = kbs.map((k) => kbInfo(p, k));
  const byMonthUbr = (a: KbInfo, b: KbInfo) =>
    (a.month ?? '').localeCompare(b.month ?? '') || (a.build?.ubr ?? 0) - (b.build?.ubr ?? 0);
  return {
    product: p,
    cves: new Map(
      Object.entries(cves).map(([c, fs]) => [
        c,
        pcOf(
          c,
          fs.map((f) => fix(p, f)),
        ),
      ]),
    ),
    kbs: new Map(infos.map((i) => [i.kb, i])),
    lcuSeries: infos.filter((i) => i.inSeries && i.kind === 'security_update').sort(byMonthUbr),
    mrSeries: infos.filter((i) => i.inSeries && i.kind === 'monthly_rollup').sort(byMonthUbr),
    dataAsOf: null,
  };
}

function host(p: WindowsProduct, h: Partial<WindowsHost> = {}): WindowsHost {
  return {
    asset_id: 'h1',
    os_product: p.name,
    edition_id: p.family === 'server' ? 'ServerStandard' : 'Professional',
    display_version: null,
    os_build: null,
    architecture: 'x64',
    installation_type: null,
    installed_kbs: null,
    kb_source: null,
    esu_enrolled: null,
    collected_at: '2026-07-01T08:00:00Z',
    ...h,
  };
}

/** The context of a host on product `p`: `ubr` null = no build known; `level` as the matcher would give it. */
function ctxOf(
  pi: ProductIndex,
  opts: {
    ubr?: number | null;
    kbs?: string[] | null;
    level?: ProductMatch['level'];
    today?: string;
    h?: Partial<WindowsHost>;
    product?: WindowsProduct;
  } = {},
) {
  const p = pi.product;
  const build = opts.ubr === undefined || opts.ubr === null ? null : osb(p, opts.ubr);
  const level = opts.level ?? (build ? 'build' : 'no_build');
  const match: ProductMatch = { products: [p], build, level, notes: [] };
  return hostCtx(
    host(p, { os_build: build?.text ?? null, installed_kbs: opts.kbs ?? null, ...opts.h }),
    match,
    opts.product ?? p,
    pi,
    opts.today ?? '2026-07-10',
  );
}

function prep(pi: ProductIndex, cve: string): Prepared {
  const p = prepareProduct(pi).find((x) => x.pc.meta.cve === cve);
  assert.ok(p, `${cve} prepared`);
  return p;
}

function verdict(pi: ProductIndex, cve: string, opts: Parameters<typeof ctxOf>[1] = {}): Verdict {
  return verdictFor(pi, prep(pi, cve), ctxOf(pi, opts).ctx);
}

const url = (kb: string) => `https://support.microsoft.com/help/${kb.slice(2)}`;

// ---------------------------------------------------------------------------------------------------------------
// A cumulative product (Server 2019) with a build-known LCU series from 2021 and a build-less one before.
const SERIES: KbSpec[] = [
  { kb: 'KB5000001', kind: 'security_update', month: '2020-11', ubr: null },
  { kb: 'KB5000002', kind: 'security_update', month: '2020-12', ubr: null },
  { kb: 'KB5000010', kind: 'security_update', month: '2021-01', ubr: 1700 },
  { kb: 'KB5000011', kind: 'security_update', month: '2021-02', ubr: 1750 },
  { kb: 'KB5000012', kind: 'security_update', month: '2021-03', ubr: 1800 },
  { kb: 'KB5000013', kind: 'security_update', month: '2021-04', ubr: 1850 },
];

test('kbSummary: the highest listed series UBR, the latest build-less month, the newest LCU and rollup, KBs not in the index ignored', () => {
  const pi = index(
    S2019,
    [
      ...SERIES,
      { kb: 'KB5000099', kind: 'security_update', month: '2021-05', ubr: 1900, inSeries: false },
      { kb: 'KB5000050', kind: 'monthly_rollup', month: '2021-02', ubr: null },
      { kb: 'KB5000051', kind: 'monthly_rollup', month: '2021-03', ubr: null },
      { kb: 'KB5000052', kind: 'monthly_rollup', month: '2021-01', ubr: null, inSeries: false },
    ],
    {},
  );
  const none = ctxOf(pi, { ubr: 1800 }).ctx;
  assert.equal(none.kbs, null);
  assert.equal(none.sum, null);
  const empty = ctxOf(pi, { ubr: 1800, kbs: [] }).ctx;
  assert.deepEqual([...empty.kbs!], []);
  assert.deepEqual(empty.sum, {
    maxUbr: null,
    maxMonthNoBuild: null,
    newestLcu: null,
    newestMr: null,
    superseded: new Map(),
  });
  const s = ctxOf(pi, {
    ubr: 1800,
    kbs: [
      'KB5000011',
      'KB5000012',
      'KB5000010',
      'KB5000001',
      'KB5000002',
      'KB5000099',
      'KB9999999',
      'KB5000051',
      'KB5000050',
      'KB5000052',
    ],
  }).ctx.sum!;
  assert.equal(s.maxUbr, 1800, 'highest of 1750, 1800, 1700; the out-of-series 1900 does not count');
  assert.equal(s.maxMonthNoBuild, '2020-12');
  assert.equal(s.newestLcu?.kb, 'KB5000012');
  assert.equal(s.newestMr?.kb, 'KB5000051', 'the out-of-series 2021-01 rollup is not the newest');
  // One LCU alone, and build-less ones listed newest first.
  assert.equal(ctxOf(pi, { ubr: 1, kbs: ['KB5000010'] }).ctx.sum!.maxUbr, 1700);
  const rev = ctxOf(pi, { ubr: 1, kbs: ['KB5000002', 'KB5000001'] }).ctx.sum!;
  assert.deepEqual([rev.maxUbr, rev.maxMonthNoBuild, rev.newestLcu?.kb], [null, '2020-12', 'KB5000002']);
  const rev2 = ctxOf(pi, { ubr: 1, kbs: ['KB5000013', 'KB5000012'] }).ctx.sum!;
  assert.deepEqual([rev2.maxUbr, rev2.newestLcu?.kb], [1850, 'KB5000013']);
  const one = ctxOf(pi, { ubr: 1, kbs: ['KB5000050', 'KB5000051', 'KB5000050'] }).ctx.sum!;
  assert.equal(one.newestMr?.kb, 'KB5000051');
  assert.equal(ctxOf(pi, { ubr: 1, kbs: ['KB5000051', 'KB5000050'] }).ctx.sum!.newestMr?.kb, 'KB5000051');
});

test('kbSummary: a listed KB without month or build, same-month ties (the first listed kept)', () => {
  const pi = index(
    S2019,
    [
      { kb: 'KB5000020', kind: 'security_update', month: null, ubr: null },
      { kb: 'KB5000021', kind: 'security_update', month: '2021-01', ubr: null },
      { kb: 'KB5000022', kind: 'security_update', month: '2021-01', ubr: null },
      { kb: 'KB5000060', kind: 'monthly_rollup', month: null, ubr: null },
      { kb: 'KB5000061', kind: 'monthly_rollup', month: '2021-01', ubr: null },
      { kb: 'KB5000062', kind: 'monthly_rollup', month: '2021-01', ubr: null },
    ],
    {},
  );
  const s = ctxOf(pi, { ubr: 1, kbs: ['KB5000020'] }).ctx.sum!;
  assert.deepEqual([s.maxUbr, s.maxMonthNoBuild, s.newestLcu?.kb], [null, null, 'KB5000020']);
  assert.equal(
    ctxOf(pi, { ubr: 1, kbs: ['KB5000020', 'KB5000021'] }).ctx.sum!.newestLcu?.kb,
    'KB5000021',
    'a dated LCU is newer than one without month',
  );
  const t = ctxOf(pi, { ubr: 1, kbs: ['KB5000021', 'KB5000022', 'KB5000020'] }).ctx.sum!;
  assert.deepEqual([t.maxMonthNoBuild, t.newestLcu?.kb], ['2021-01', 'KB5000021']);
  const m = ctxOf(pi, { ubr: 1, kbs: ['KB5000060', 'KB5000061', 'KB5000062'] }).ctx.sum!;
  assert.equal(m.newestMr?.kb, 'KB5000061');
  const m2 = ctxOf(pi, { ubr: 1, kbs: ['KB5000060'] }).ctx.sum!;
  assert.equal(m2.newestMr?.kb, 'KB5000060');
  const m3 = ctxOf(pi, { ubr: 1, kbs: ['KB5000061', 'KB5000060'] }).ctx.sum!;
  assert.equal(m3.newestMr?.kb, 'KB5000061');
});

test('kbSummary: Supercedence chains are followed from every listed KB, never through a listed one, and stop at 500 steps', () => {
  const pi = index(
    S2012R2,
    [
      { kb: 'KB4000003', kind: 'monthly_rollup', month: '2019-03', supersedes: ['KB4000002', 'KB4000009'] },
      { kb: 'KB4000002', kind: 'monthly_rollup', month: '2019-02', supersedes: ['KB4000001'] },
      { kb: 'KB4000001', kind: 'monthly_rollup', month: '2019-01', supersedes: ['KB4000003', 'KB4000777'] },
      { kb: 'KB4000009', kind: 'security_only', month: '2019-02', supersedes: [] },
      { kb: 'KB4000020', kind: 'security_only', month: '2019-03', supersedes: ['KB4000009', 'KB4000002'] },
    ],
    {},
  );
  const s = ctxOf(pi, { ubr: 1, kbs: ['KB4000003'] }).ctx.sum!;
  // KB4000777 is not in the index: named as replaced, and the chain ends there.
  assert.deepEqual(
    [...s.superseded],
    [
      ['KB4000009', 'KB4000003'],
      ['KB4000002', 'KB4000003'],
      ['KB4000001', 'KB4000003'],
      ['KB4000777', 'KB4000003'],
    ],
  );
  // KB4000002 is listed itself: not replaced, and its own chain is followed from it.
  const t = ctxOf(pi, { ubr: 1, kbs: ['KB4000003', 'KB4000002'] }).ctx.sum!;
  assert.deepEqual(
    [...t.superseded],
    [
      ['KB4000009', 'KB4000003'],
      ['KB4000001', 'KB4000002'],
      ['KB4000777', 'KB4000002'],
    ],
  );
  // The first listed KB that reaches a KB is named.
  const u = ctxOf(pi, { ubr: 1, kbs: ['KB4000020', 'KB4000003'] }).ctx.sum!;
  assert.deepEqual(
    [...u.superseded],
    [
      ['KB4000002', 'KB4000020'],
      ['KB4000001', 'KB4000020'],
      ['KB4000777', 'KB4000020'],
      ['KB4000009', 'KB4000020'],
    ],
  );
  // A chain of 600 KBs: 500 are followed.
  const chain: KbSpec[] = Array.from({ length: 600 }, (_, i) => ({
    kb: `KB${4100000 + i}`,
    kind: 'monthly_rollup' as const,
    month: '2019-01',
    supersedes: [`KB${4100001 + i}`],
  }));
  const long = ctxOf(index(S2012R2, chain, {}), { ubr: 1, kbs: ['KB4100000'] }).ctx.sum!;
  assert.equal(long.superseded.size, 500);
  assert.equal(long.superseded.get('KB4100500'), 'KB4100000');
  assert.equal(long.superseded.has('KB4100501'), false);
});

// Server 2019: the build-known series above, two earlier build-known LCUs, build-less LCUs of 2021, out-of-series KBs.
function cumulativeIndex(): ProductIndex {
  return index(
    S2019,
    [
      { kb: 'KB4999998', kind: 'security_update', month: '2020-09', ubr: 1550 },
      { kb: 'KB4999999', kind: 'security_update', month: '2020-10', ubr: 1600 },
      ...SERIES,
      { kb: 'KB5000003', kind: 'security_update', month: '2021-02', ubr: null },
      { kb: 'KB5000004', kind: 'security_update', month: '2021-01', ubr: null },
      { kb: 'KB5000005', kind: 'security_update', month: '2021-01', ubr: null },
      { kb: 'KB5000006', kind: 'security_update', month: null, ubr: null },
      { kb: 'KB5000008', kind: 'security_update', month: '2020-12', ubr: null },
      {
        kb: 'KB5000090',
        kind: 'security_update',
        month: '2021-03',
        ubr: 1810,
        inSeries: false,
        supersedes: ['KB5000012'],
      },
      { kb: 'KB5000099', kind: 'security_update', month: '2021-05', ubr: 1900, inSeries: false },
      { kb: 'KB5000200', kind: 'hotpatch', month: '2021-03', ubr: 1790, inSeries: false },
      { kb: 'KB5000300', kind: 'ssu', month: '2021-03', ubr: null, inSeries: false },
      { kb: 'KB5000400', kind: 'security_update', month: '2021-03', ubr: 1805, inSeries: false },
      { kb: 'KB5000401', kind: 'standalone', month: '2021-04', ubr: null, inSeries: false },
      { kb: 'KB5000050', kind: 'monthly_rollup', month: '2021-02', ubr: null, inSeries: false },
    ],
    {
      'CVE-2021-1001': [{ kb: 'KB5000012', kind: 'security_update', ubr: 1800 }],
      'CVE-2021-1002': [{ kb: 'KB5000010', kind: 'security_update', ubr: 1700 }],
      'CVE-2021-1003': [
        { kb: 'KB5000012', kind: 'security_update', ubr: 1800 },
        { kb: 'KB5000200', kind: 'hotpatch', ubr: 1790 },
        { kb: 'KB5000201', kind: 'hotpatch', ubr: 1790 },
        { kb: 'KB5000202', kind: 'hotpatch', ubr: null },
        { kb: null, kind: 'hotpatch', ubr: 1795 },
      ],
      'CVE-2020-1004': [{ kb: 'KB5000002', kind: 'security_update', ubr: null }],
      'CVE-2021-1005': [{ kb: 'KB5000005', kind: 'security_update', ubr: null }],
      'CVE-2021-1006': [{ kb: 'KB5000400', kind: 'security_update', ubr: 1805 }],
      'CVE-2021-1007': [
        { kb: 'KB5000401', kind: 'standalone', ubr: null, subType: 'Standalone Security Update', rawBuild: '1.2.3' },
      ],
      'CVE-2021-1008': [{ kb: 'KB5000402', kind: 'other', ubr: null }],
      'CVE-2021-1009': [{ kb: 'KB5000300', kind: 'ssu', ubr: null }],
      'CVE-2021-1010': [
        { kb: null, kind: 'security_update', ubr: 1800 },
        { kb: null, kind: 'ssu', ubr: null },
      ],
      'CVE-2021-1011': [],
      'CVE-2021-1012': [
        { kb: 'KB5000012', kind: 'security_update', ubr: 1800 },
        { kb: 'KB5000090', kind: 'security_update', ubr: 1810, supersedes: ['KB5000012'] },
      ],
      ADV210001: [{ kb: 'KB5000012', kind: 'security_update', ubr: 1800 }],
    },
  );
}

const LCU12 = {
  fixedBuild: '10.0.17763.1800',
  kb: 'KB5000012',
  fixClass: 'lcu',
  fixMonth: '2021-03',
  fixUrl: url('KB5000012'),
  derived: false,
  fixType: 'kb',
  note: null,
} as const;

test('prepareProduct: CVE ids only, the numeric id key, the authoritative LCU, hotpatches, the KBs that clear, the series fix', () => {
  const pi = cumulativeIndex();
  const all = prepareProduct(pi);
  assert.deepEqual(
    all.map((p) => p.pc.meta.cve),
    [...pi.cves.keys()].filter((c) => c.startsWith('CVE-')),
  );
  const a = prep(pi, 'CVE-2021-1001');
  assert.equal(a.idKey, 2021 * 1e8 + 1001);
  assert.equal(prep(pi, 'CVE-2020-1004').idKey, 202000001004);
  assert.deepEqual(
    [a.lcu?.kb, a.lcuMonth, a.hot, [...a.fixKbs], a.seriesFix?.kb, a.odd?.kb, a.ssu],
    ['KB5000012', '2021-03', [], ['KB5000012'], 'KB5000012', 'KB5000012', null],
  );
  assert.deepEqual(a.vClear, { ...LCU12, status: 'cleared (patched)', why: WHY_BUILD });
  assert.deepEqual(a.vOpen, { ...LCU12, status: 'confirmed open', why: WHY_BELOW });
  assert.deepEqual([a.clearAt, a.openBelow], [null, null], 'a build-known LCU needs no bracket');
  // Hotpatches with a build count; the out-of-band update that replaces a series LCU is the authoritative one.
  const h = prep(pi, 'CVE-2021-1003');
  assert.deepEqual(
    h.hot.map((f) => f.kb),
    ['KB5000200', 'KB5000201', null],
    'a hotpatch with a build, even without KB',
  );
  assert.deepEqual([...h.fixKbs], ['KB5000012', 'KB5000200', 'KB5000201']);
  const oob = prep(pi, 'CVE-2021-1012');
  assert.deepEqual(
    [oob.lcu?.kb, oob.lcuMonth, [...oob.fixKbs], oob.seriesFix?.kb],
    ['KB5000090', '2021-03', ['KB5000012', 'KB5000090'], 'KB5000012'],
  );
  assert.equal(oob.vClear?.fixedBuild, '10.0.17763.1810');
  // Out of series, not replacing a series LCU: not cumulative.
  const odd = prep(pi, 'CVE-2021-1006');
  assert.deepEqual(
    [odd.lcu, odd.seriesFix, odd.odd?.kb, [...odd.fixKbs], odd.vClear, odd.vOpen],
    [null, null, 'KB5000400', [], null, null],
  );
  // Rows without a KB are no fix; a servicing stack update is kept apart.
  const nokb = prep(pi, 'CVE-2021-1010');
  assert.deepEqual([nokb.lcu, nokb.odd, nokb.ssu, nokb.legacyFixes, nokb.seriesFix], [null, null, null, [], null]);
  const ssu = prep(pi, 'CVE-2021-1009');
  assert.deepEqual([ssu.ssu?.kb, ssu.odd, ssu.legacyFixes], ['KB5000300', null, []]);
});

test('prepareProduct: equal UBRs keep the first LCU; an override makes the verdict derived; the supersedes rule needs a series security update', () => {
  const pi = index(
    S2019,
    [
      ...SERIES,
      { kb: 'KB5000050', kind: 'monthly_rollup', month: '2021-02', ubr: null },
      {
        kb: 'KB5000091',
        kind: 'security_update',
        month: '2021-03',
        ubr: 1820,
        inSeries: false,
        supersedes: ['KB5000050'],
      },
      {
        kb: 'KB5000092',
        kind: 'security_update',
        month: '2021-03',
        ubr: 1830,
        inSeries: false,
        supersedes: ['KB5000099'],
      },
      { kb: 'KB5000099', kind: 'security_update', month: '2021-02', ubr: 1750, inSeries: false },
    ],
    {
      'CVE-2021-2001': [
        { kb: 'KB5000012', kind: 'security_update', ubr: 1800 },
        { kb: 'KB5000013', kind: 'security_update', ubr: 1800 },
      ],
      'CVE-2021-2002': [{ kb: 'KB5000012', kind: 'security_update', ubr: 1800, overrideId: 'ov-1' }],
      'CVE-2021-2003': [
        { kb: 'KB5000091', kind: 'security_update', ubr: 1820, supersedes: ['KB5000050'] },
        { kb: 'KB5000092', kind: 'security_update', ubr: 1830, supersedes: ['KB5000099', 'KB5000404'] },
      ],
      'CVE-2021-2004': [
        { kb: 'KB5000013', kind: 'security_update', ubr: 1850 },
        { kb: 'KB5000011', kind: 'security_update', ubr: 1750 },
      ],
      'CVE-2021-2005': [{ kb: 'KB5000888', kind: 'security_update', ubr: 1900 }],
    },
  );
  assert.equal(prep(pi, 'CVE-2021-2001').lcu?.kb, 'KB5000012');
  const ov = prep(pi, 'CVE-2021-2002');
  assert.equal(ov.vClear?.derived, true);
  assert.equal(ov.vOpen?.derived, true);
  const no = prep(pi, 'CVE-2021-2003');
  assert.deepEqual([no.lcu, [...no.fixKbs], no.odd?.kb], [null, [], 'KB5000091']);
  assert.equal(prep(pi, 'CVE-2021-2004').lcu?.kb, 'KB5000013', 'the highest UBR, listed first');
  const unknown = prep(pi, 'CVE-2021-2005');
  assert.deepEqual(
    [unknown.lcu, unknown.seriesFix, unknown.odd?.kb],
    [null, null, 'KB5000888'],
    'a security update the index does not know is not cumulative',
  );
});

test('prepareProduct: a pre-2021 series fix is bracketed by the nearest build-known LCUs of its month or later, and of its month or earlier', () => {
  const pi = cumulativeIndex();
  const d = prep(pi, 'CVE-2020-1004'); // KB5000002, 2020-12, no build
  assert.deepEqual(
    [d.lcu, d.seriesFix?.kb, d.clearAt?.kb, d.openBelow?.kb],
    [null, 'KB5000002', 'KB5000010', 'KB4999999'],
  );
  const sv = {
    fixedBuild: null,
    kb: 'KB5000002',
    fixClass: 'lcu',
    fixMonth: '2020-12',
    fixUrl: url('KB5000002'),
    derived: true,
    fixType: 'kb',
    note: null,
  };
  assert.deepEqual(d.vClear, { ...sv, status: 'cleared (patched)', why: WHY_SERIES_CLEAR });
  assert.deepEqual(d.vOpen, { ...sv, status: 'confirmed open', why: WHY_SERIES_OPEN });
  // A fix month that has a build-known LCU itself: that LCU brackets it on both sides.
  const e = prep(pi, 'CVE-2021-1005'); // KB5000005, 2021-01
  assert.deepEqual([e.clearAt?.kb, e.openBelow?.kb], ['KB5000010', 'KB5000010']);
  // No build-known LCU after the fix month: nothing clears by build.
  const late = index(S2019, [...SERIES, { kb: 'KB5000007', kind: 'security_update', month: '2021-06', ubr: null }], {
    'CVE-2021-3001': [{ kb: 'KB5000007', kind: 'security_update' }],
  });
  const l = prep(late, 'CVE-2021-3001');
  assert.deepEqual([l.clearAt, l.openBelow?.kb], [null, 'KB5000013']);
  assert.equal(l.vClear?.why, WHY_SERIES_CLEAR);
});

test('cumulative, by build alone: at the fixed build cleared, one below open (the shared verdict objects); an empty KB list is no list', () => {
  const pi = cumulativeIndex();
  const a = prep(pi, 'CVE-2021-1001');
  const at = ctxOf(pi, { ubr: 1800 }).ctx;
  assert.equal(verdictFor(pi, a, at), a.vClear);
  assert.equal(verdictFor(pi, a, ctxOf(pi, { ubr: 1799 }).ctx), a.vOpen);
  assert.equal(verdictFor(pi, a, ctxOf(pi, { ubr: 1801, kbs: [] }).ctx), a.vClear);
  assert.equal(verdictFor(pi, a, ctxOf(pi, { ubr: 1799, kbs: [] }).ctx), a.vOpen);
  assert.deepEqual(verdict(pi, 'CVE-2021-1001', { ubr: 1799 }), { ...LCU12, status: 'confirmed open', why: WHY_BELOW });
});

test('cumulative, build and KB list: agreement keeps the build verdict, disagreement needs review with the reason', () => {
  const pi = cumulativeIndex();
  const below = (kbs: string[]) => verdict(pi, 'CVE-2021-1001', { ubr: 1799, kbs });
  const above = (kbs: string[]) => verdict(pi, 'CVE-2021-1001', { ubr: 1800, kbs });
  const review = (note: string) => ({
    ...LCU12,
    status: 'needs review',
    note,
    why: 'the build and the KB list disagree',
  });
  const listHas = review(
    'build 10.0.17763.1799 is below the fixed build 10.0.17763.1800, but the KB list contains KB5000012 or a later cumulative update',
  );
  // The fix itself, a later series LCU with a build (at or above the fixed UBR), a build-less LCU of a later month.
  assert.deepEqual(below(['KB5000012']), listHas);
  assert.deepEqual(below(['KB5000013']), listHas);
  // A build-less 2021-02 LCU is not later than the 2021-03 fix.
  assert.deepEqual(below(['KB5000003']), { ...LCU12, status: 'confirmed open', why: WHY_BELOW });
  assert.deepEqual(below(['KB5000011']), { ...LCU12, status: 'confirmed open', why: WHY_BELOW });
  assert.deepEqual(above(['KB5000012']), { ...LCU12, status: 'cleared (patched)', why: WHY_BUILD });
  assert.deepEqual(
    above(['KB5000011']),
    review(
      'build 10.0.17763.1800 is at or above the fixed build 10.0.17763.1800, but the newest cumulative update in the KB list (KB5000011) is older than the fix KB5000012',
    ),
  );
  // CVE-2021-1002 is fixed by KB5000010 (2021-01, build 1700): a build-less LCU of 2021-02 is later, one of 2021-01 is not.
  const jan = {
    fixedBuild: '10.0.17763.1700',
    kb: 'KB5000010',
    fixClass: 'lcu',
    fixMonth: '2021-01',
    fixUrl: url('KB5000010'),
    derived: false,
    fixType: 'kb',
  } as const;
  assert.deepEqual(verdict(pi, 'CVE-2021-1002', { ubr: 1699, kbs: ['KB5000003'] }), {
    ...jan,
    status: 'needs review',
    why: 'the build and the KB list disagree',
    note: 'build 10.0.17763.1699 is below the fixed build 10.0.17763.1700, but the KB list contains KB5000010 or a later cumulative update',
  });
  assert.deepEqual(verdict(pi, 'CVE-2021-1002', { ubr: 1699, kbs: ['KB5000004'] }), {
    ...jan,
    status: 'confirmed open',
    why: WHY_BELOW,
    note: null,
  });
  assert.deepEqual(
    verdict(pi, 'CVE-2021-1002', { ubr: 1699, kbs: ['KB5000006'] }),
    { ...jan, status: 'confirmed open', why: WHY_BELOW, note: null },
    'a build-less LCU without month',
  );
  // A list with no cumulative update of the series cannot contradict the build.
  assert.deepEqual(above(['KB9999999', 'KB5000099']), { ...LCU12, status: 'cleared (patched)', why: WHY_BUILD });
  assert.deepEqual(below(['KB9999999', 'KB5000099']), { ...LCU12, status: 'confirmed open', why: WHY_BELOW });
});

test('cumulative, hotpatch: a host on a listed hotpatch build is cleared (the last listed hotpatch of that build named), whatever its KB list', () => {
  const pi = cumulativeIndex();
  const hot = {
    ...LCU12,
    status: 'cleared (patched)',
    note: null,
    why: 'the host is on hotpatch KB5000201 (build 10.0.17763.1790), which Microsoft lists as fixing this CVE',
  };
  assert.deepEqual(verdict(pi, 'CVE-2021-1003', { ubr: 1790 }), hot);
  assert.deepEqual(verdict(pi, 'CVE-2021-1003', { ubr: 1790, kbs: ['KB5000011'] }), hot);
  assert.deepEqual(verdict(pi, 'CVE-2021-1003', { ubr: 1790, kbs: [] }), hot);
  assert.deepEqual(verdict(pi, 'CVE-2021-1003', { ubr: 1791 }), { ...LCU12, status: 'confirmed open', why: WHY_BELOW });
  assert.deepEqual(verdict(pi, 'CVE-2021-1003', { ubr: 1789 }), { ...LCU12, status: 'confirmed open', why: WHY_BELOW });
  // Off the hotpatch build, a listed hotpatch KB is a fix in the list: the build disagrees.
  assert.deepEqual(verdict(pi, 'CVE-2021-1003', { ubr: 1791, kbs: ['KB5000200'] }), {
    ...LCU12,
    status: 'needs review',
    why: 'the build and the KB list disagree',
    note: 'build 10.0.17763.1791 is below the fixed build 10.0.17763.1800, but the KB list contains KB5000012 or a later cumulative update',
  });
  assert.deepEqual(verdict(pi, 'CVE-2021-1003', { ubr: 1800, kbs: ['KB5000201'] }), {
    ...LCU12,
    status: 'cleared (patched)',
    why: WHY_BUILD,
  });
});

test('cumulative, pre-2021 series fix: bracketed by build, else decided by the KB list, else needs review', () => {
  const pi = cumulativeIndex();
  const d = prep(pi, 'CVE-2020-1004');
  // Bracket: cleared from KB5000010 (1700) up, open below KB4999999 (1600); between, the build cannot say.
  assert.equal(verdictFor(pi, d, ctxOf(pi, { ubr: 1700 }).ctx), d.vClear);
  assert.equal(verdictFor(pi, d, ctxOf(pi, { ubr: 1599 }).ctx), d.vOpen);
  assert.equal(
    verdictFor(pi, d, ctxOf(pi, { ubr: 1700, kbs: ['KB4999998'] }).ctx),
    d.vClear,
    'the bracket wins over the list',
  );
  assert.equal(verdictFor(pi, d, ctxOf(pi, { ubr: 1599, kbs: ['KB5000002'] }).ctx), d.vOpen);
  const sv = {
    fixType: 'kb',
    fixedBuild: null,
    kb: 'KB5000002',
    fixClass: 'lcu',
    fixMonth: '2020-12',
    fixUrl: url('KB5000002'),
    derived: true,
  } as const;
  const review = (b: number) => ({
    ...sv,
    status: 'needs review',
    note: `Microsoft gives no fixed build for KB5000002 (2020-12) and no build-known update brackets build 10.0.17763.${b}`,
    why: 'no fixed build to compare',
  });
  assert.deepEqual(verdict(pi, 'CVE-2020-1004', { ubr: 1600 }), review(1600));
  assert.deepEqual(verdict(pi, 'CVE-2020-1004', { ubr: 1699 }), review(1699));
  assert.deepEqual(
    verdict(pi, 'CVE-2020-1004', { ubr: 1650, kbs: ['KB5000001', 'KB5000099', 'KB9999999', 'KB5000006'] }),
    review(1650),
  );
  assert.deepEqual(
    verdict(pi, 'CVE-2020-1004', { ubr: 1650, kbs: ['KB5000008'] }),
    review(1650),
    'another LCU of the fix month is not later',
  );
  const listed = {
    ...sv,
    status: 'cleared (patched)',
    note: null,
    why: 'the KB list contains KB5000002 or a later cumulative update',
  };
  assert.deepEqual(verdict(pi, 'CVE-2020-1004', { ubr: 1650, kbs: ['KB5000002'] }), listed);
  assert.deepEqual(verdict(pi, 'CVE-2020-1004', { ubr: 1650, kbs: ['KB5000001', 'KB5000003'] }), listed);
  // Same month: at KB5000010 cleared, one below open.
  const e = prep(pi, 'CVE-2021-1005');
  assert.equal(verdictFor(pi, e, ctxOf(pi, { ubr: 1700 }).ctx), e.vClear);
  assert.equal(verdictFor(pi, e, ctxOf(pi, { ubr: 1699 }).ctx), e.vOpen);
});

test('cumulative, a fix outside the series: cleared only by its KB in the list, else needs review naming the KB and why the build cannot tell', () => {
  const pi = cumulativeIndex();
  const base = {
    fixType: 'kb',
    derived: false,
    fixedBuild: '10.0.17763.1805',
    kb: 'KB5000400',
    fixClass: 'other',
    fixMonth: '2021-03',
    fixUrl: url('KB5000400'),
  } as const;
  assert.deepEqual(verdict(pi, 'CVE-2021-1006', { ubr: 1900 }), {
    ...base,
    status: 'needs review',
    why: 'the fix is not a cumulative update',
    note: "KB5000400 (build 10.0.17763.1805) is not one of this product's monthly cumulative updates (for example a Safe OS/WinRE, Secure Boot or other separate update); the OS build cannot confirm it. Check that KB5000400 is installed",
  });
  assert.deepEqual(verdict(pi, 'CVE-2021-1006', { ubr: 1, kbs: ['KB5000400'] }), {
    ...base,
    status: 'cleared (patched)',
    note: null,
    why: 'the KB list contains KB5000400',
  });
  const sa = {
    fixType: 'kb',
    derived: false,
    fixedBuild: null,
    kb: 'KB5000401',
    fixClass: 'standalone',
    fixMonth: '2021-04',
    fixUrl: url('KB5000401'),
  } as const;
  assert.deepEqual(verdict(pi, 'CVE-2021-1007', { ubr: 1900, kbs: ['KB5000400'] }), {
    ...sa,
    status: 'needs review',
    why: 'the fix is not a cumulative update',
    note: 'KB5000401 (Standalone Security Update, version 1.2.3) carries no OS build; the OS build cannot confirm it. Check that KB5000401 is installed',
  });
  assert.deepEqual(verdict(pi, 'CVE-2021-1008', { ubr: 1900 }), {
    fixType: 'kb',
    derived: false,
    fixedBuild: null,
    kb: 'KB5000402',
    fixClass: 'other',
    fixMonth: null,
    fixUrl: url('KB5000402'),
    status: 'needs review',
    why: 'the fix is not a cumulative update',
    note: 'KB5000402 (no SubType) carries no OS build; the OS build cannot confirm it. Check that KB5000402 is installed',
  });
  // The row with a build (or a security update) is the one named, before a build-less one.
  const two = index(S2019, SERIES, {
    'CVE-2021-4001': [
      { kb: 'KB5000401', kind: 'standalone' },
      { kb: 'KB5000403', kind: 'other', ubr: 1805 },
    ],
    'CVE-2021-4002': [
      { kb: 'KB5000401', kind: 'standalone' },
      { kb: 'KB5000404', kind: 'security_update' },
    ],
  });
  assert.equal(prep(two, 'CVE-2021-4001').odd?.kb, 'KB5000403');
  assert.equal(prep(two, 'CVE-2021-4002').odd?.kb, 'KB5000404');
});

test('cumulative, only a servicing stack update, or no update at all', () => {
  const pi = cumulativeIndex();
  const ssu = {
    fixType: 'kb',
    derived: false,
    fixedBuild: null,
    kb: 'KB5000300',
    fixClass: 'ssu',
    fixMonth: '2021-03',
    fixUrl: url('KB5000300'),
    why: 'servicing stack update',
  } as const;
  assert.deepEqual(verdict(pi, 'CVE-2021-1009', { ubr: 1900 }), {
    ...ssu,
    status: 'needs review',
    note: 'Microsoft lists only the servicing stack update KB5000300; check that it is installed',
  });
  assert.deepEqual(verdict(pi, 'CVE-2021-1009', { ubr: 1900, kbs: ['KB5000012'] }), {
    ...ssu,
    status: 'needs review',
    note: 'Microsoft lists only the servicing stack update KB5000300; check that it is installed',
  });
  assert.deepEqual(verdict(pi, 'CVE-2021-1009', { ubr: 1900, kbs: ['KB5000300'] }), {
    ...ssu,
    status: 'cleared (patched)',
    note: null,
  });
  const none = {
    status: 'confirmed open',
    fixedBuild: null,
    kb: null,
    note: null,
    fixClass: null,
    fixMonth: null,
    fixUrl: null,
    derived: false,
    why: 'Microsoft lists this product as affected and publishes no update for it',
    fixType: 'none',
  };
  assert.deepEqual(verdict(pi, 'CVE-2021-1010', { ubr: 1900 }), none);
  assert.deepEqual(verdict(pi, 'CVE-2021-1011', { ubr: 1900, kbs: ['KB5000012'] }), none);
});

test('rule 4/5: without a full build the CVE needs review at product level, naming the fix the build would be compared with', () => {
  const pi = cumulativeIndex();
  const revision = 'os_build has no revision (UBR), so the patch level is unknown';
  assert.deepEqual(verdict(pi, 'CVE-2021-1001', { level: 'revision' }), {
    status: 'needs review',
    fixedBuild: '10.0.17763.1800',
    kb: 'KB5000012',
    note: revision,
    fixClass: 'lcu',
    fixMonth: '2021-03',
    fixUrl: url('KB5000012'),
    derived: false,
    why: revision,
    fixType: 'kb',
  });
  const bare = 'os_product is only "Windows": the host stays product-level, so the build is not compared';
  const b = verdict(pi, 'CVE-2021-1001', { level: 'bare_name', ubr: 1900 });
  assert.deepEqual([b.status, b.note, b.why], ['needs review', bare, bare]);
  const noBuild = 'no os_build: only the product is known';
  const n = verdict(pi, 'CVE-2021-1001', { level: 'no_build', kbs: ['KB5000012'] });
  assert.deepEqual([n.status, n.note, n.why], ['needs review', noBuild, noBuild]);
  // The series fix (no build), an out-of-series update, a servicing stack update, no KB at all.
  assert.deepEqual(verdict(pi, 'CVE-2020-1004', { level: 'no_build' }), {
    status: 'needs review',
    fixedBuild: null,
    kb: 'KB5000002',
    note: noBuild,
    fixClass: 'lcu',
    fixMonth: '2020-12',
    fixUrl: url('KB5000002'),
    derived: false,
    why: noBuild,
    fixType: 'kb',
  });
  const o = verdict(pi, 'CVE-2021-1006', { level: 'no_build' });
  assert.deepEqual([o.kb, o.fixedBuild, o.fixClass, o.fixType], ['KB5000400', '10.0.17763.1805', 'lcu', 'kb']);
  const s = verdict(pi, 'CVE-2021-1009', { level: 'no_build' });
  assert.deepEqual(
    [s.kb, s.fixedBuild, s.fixClass, s.fixMonth, s.fixType],
    ['KB5000300', null, 'other', '2021-03', 'kb'],
  );
  assert.deepEqual(verdict(pi, 'CVE-2021-1010', { level: 'no_build' }), {
    status: 'needs review',
    fixedBuild: null,
    kb: null,
    note: noBuild,
    fixClass: null,
    fixMonth: null,
    fixUrl: null,
    derived: false,
    why: noBuild,
    fixType: 'none',
  });
  // Legacy: the rollup is named (Security Only too), before a series fix; a standalone update is "other".
  const leg = index(S2012R2, [{ kb: 'KB4000102', kind: 'monthly_rollup', month: '2019-02', ubr: 19250 }], {
    'CVE-2019-0001': [
      { kb: 'KB4000500', kind: 'standalone' },
      { kb: 'KB4000102', kind: 'monthly_rollup', ubr: 19250 },
    ],
    'CVE-2019-0002': [{ kb: 'KB4000201', kind: 'security_only', ubr: 19249 }],
    'CVE-2019-0003': [{ kb: 'KB4000500', kind: 'standalone' }],
    'CVE-2019-0004': [
      { kb: 'KB4000600', kind: 'security_update' },
      { kb: 'KB4000201', kind: 'security_only', ubr: 19249 },
    ],
  });
  const r = verdict(leg, 'CVE-2019-0001', { level: 'no_build' });
  assert.deepEqual([r.kb, r.fixedBuild, r.fixClass, r.fixMonth], ['KB4000102', '6.3.9600.19250', 'rollup', '2019-02']);
  assert.deepEqual(
    [
      verdict(leg, 'CVE-2019-0002', { level: 'revision' }).fixClass,
      verdict(leg, 'CVE-2019-0002', { level: 'revision' }).kb,
    ],
    ['rollup', 'KB4000201'],
  );
  assert.deepEqual(
    [
      verdict(leg, 'CVE-2019-0003', { level: 'revision' }).fixClass,
      verdict(leg, 'CVE-2019-0003', { level: 'revision' }).kb,
    ],
    ['other', 'KB4000500'],
  );
  assert.equal(verdict(leg, 'CVE-2019-0004', { level: 'revision' }).kb, 'KB4000201');
  const mixed = index(S2019, SERIES, {
    'CVE-2021-5001': [
      { kb: 'KB5000050', kind: 'monthly_rollup' },
      { kb: 'KB5000012', kind: 'security_update', ubr: 1800 },
    ],
    'CVE-2021-5002': [
      { kb: 'KB5000050', kind: 'monthly_rollup' },
      { kb: 'KB5000002', kind: 'security_update' },
    ],
  });
  assert.equal(verdict(mixed, 'CVE-2021-5001', { level: 'revision' }).kb, 'KB5000012', 'the LCU first');
  assert.equal(
    verdict(mixed, 'CVE-2021-5002', { level: 'revision' }).kb,
    'KB5000050',
    'the rollup before the series fix',
  );
});

test('hostCtx: the last installable month and what a later fix needs, per support end, ESU enrolment and ESU end', () => {
  const pi = index(S2012R2, [], {}); // Server 2012 R2: support end 2023-10-10, ESU end 2026-10-13
  const lim = (today: string, esu: boolean | null, product?: WindowsProduct) => {
    const { ctx, life } = ctxOf(pi, { ubr: 1, today, h: { esu_enrolled: esu }, product });
    return [ctx.installableUntil, ctx.afterLimit, life?.eol ?? null];
  };
  assert.deepEqual(lim('2023-10-10', false), [null, 'esu', '2023-10-10']);
  assert.deepEqual(lim('2023-10-11', false), ['2023-10', 'esu', '2023-10-10']);
  assert.deepEqual(lim('2023-10-11', null), ['2023-10', 'esu', '2023-10-10']);
  assert.deepEqual(lim('2026-10-13', true), [null, 'esu', '2023-10-10'], 'in ESU: no limit');
  assert.deepEqual(lim('2026-10-14', true), ['2026-10', 'none', '2023-10-10'], 'ESU over: nothing after its end');
  const w81 = WINDOWS_PRODUCTS.get('10482')!; // support end 2023-01-10, no ESU programme
  assert.deepEqual(lim('2026-07-10', false, w81), ['2023-01', 'none', '2023-01-10']);
  assert.deepEqual(lim('2026-07-10', true, w81), ['2023-01', 'none', '2023-01-10']);
  assert.deepEqual(lim('2026-07-10', false, { ...S2012R2, lifecycle: 'no-such-row' }), [null, 'esu', null]);
  const ctx = ctxOf(pi, { ubr: 7, kbs: ['KB1234567'], level: 'build' }).ctx;
  assert.deepEqual(
    [ctx.level, ctx.build?.text, [...ctx.kbs!], ctx.host.asset_id],
    ['build', '6.3.9600.7', ['KB1234567'], 'h1'],
  );
});

test('rule 2/7: a fix released after the last installable month needs ESU, or nothing helps; one of that month is installable', () => {
  const pi = index(
    S2012R2,
    [
      { kb: 'KB5031419', kind: 'monthly_rollup', month: '2023-10', ubr: 21620 },
      { kb: 'KB5032249', kind: 'monthly_rollup', month: '2023-11', ubr: 21660 },
      { kb: 'KB5066001', kind: 'monthly_rollup', month: '2026-10', ubr: 22800 },
      { kb: 'KB5068001', kind: 'monthly_rollup', month: '2026-11', ubr: 22850 },
    ],
    {
      'CVE-2023-0001': [{ kb: 'KB5031419', kind: 'monthly_rollup', ubr: 21620 }],
      'CVE-2023-0002': [{ kb: 'KB5032249', kind: 'monthly_rollup', ubr: 21660 }],
      'CVE-2023-0003': [],
      'CVE-2026-0004': [{ kb: 'KB5066001', kind: 'monthly_rollup', ubr: 22800 }],
      'CVE-2026-0005': [{ kb: 'KB5068001', kind: 'monthly_rollup', ubr: 22850 }],
    },
  );
  const at = (cve: string, today: string, esu: boolean | null, level?: ProductMatch['level']) =>
    verdict(pi, cve, { ubr: 21000, kbs: [], today, h: { esu_enrolled: esu }, level });
  assert.equal(at('CVE-2023-0001', '2026-07-10', false).fixType, 'kb');
  assert.equal(at('CVE-2023-0002', '2026-07-10', false).fixType, 'esu');
  assert.equal(at('CVE-2023-0002', '2026-07-10', true).fixType, 'kb', 'enrolled, in ESU');
  assert.equal(
    at('CVE-2023-0002', '2026-10-14', true).fixType,
    'kb',
    'ESU over: fixes up to its end month are installable',
  );
  assert.equal(at('CVE-2026-0004', '2026-10-14', true).fixType, 'kb');
  assert.equal(at('CVE-2026-0005', '2026-10-14', true).fixType, 'none', 'ESU over: a later fix cannot be had');
  assert.equal(at('CVE-2023-0002', '2023-10-10', false).fixType, 'kb', 'before the end of support');
  assert.equal(at('CVE-2023-0002', '2026-07-10', false, 'no_build').fixType, 'esu', 'product level too');
  const v = at('CVE-2023-0002', '2026-07-10', false);
  assert.deepEqual([v.status, v.kb, v.fixMonth], ['confirmed open', 'KB5032249', '2023-11']);
  assert.equal(at('CVE-2023-0003', '2026-07-10', false).fixType, 'none');
});

// Server 2012 R2: rollups of January to March 2019, a Security Only update of February, one that replaces it.
function legacyIndex(): ProductIndex {
  return index(
    S2012R2,
    [
      { kb: 'KB4000101', kind: 'monthly_rollup', month: '2019-01', ubr: 19200 },
      { kb: 'KB4000102', kind: 'monthly_rollup', month: '2019-02', ubr: 19250 },
      { kb: 'KB4000103', kind: 'monthly_rollup', month: '2019-03', ubr: 19300 },
      { kb: 'KB4000201', kind: 'security_only', month: '2019-02', ubr: 19249 },
      { kb: 'KB4000301', kind: 'security_only', month: '2019-04', ubr: 19320, supersedes: ['KB4000201'] },
      { kb: 'KB4000400', kind: 'ssu', month: '2019-02', ubr: null, inSeries: false },
      { kb: 'KB4000500', kind: 'standalone', month: '2016-05', ubr: null, inSeries: false },
      { kb: 'KB4000600', kind: 'other', month: '2019-02', ubr: null, inSeries: false },
    ],
    {
      'CVE-2019-1001': [
        { kb: 'KB4000102', kind: 'monthly_rollup', ubr: 19250 },
        { kb: 'KB4000201', kind: 'security_only', ubr: 19249 },
      ],
      'CVE-2019-1002': [{ kb: 'KB4000400', kind: 'ssu' }],
      'CVE-2019-1003': [{ kb: 'KB4000500', kind: 'standalone' }],
      'CVE-2019-1004': [{ kb: 'KB4000600', kind: 'other' }],
      'CVE-2019-1005': [{ kb: 'KB4000201', kind: 'security_only', ubr: 19249 }],
      'CVE-2019-1006': [
        { kb: 'KB4000103', kind: 'monthly_rollup' },
        { kb: 'KB4000201', kind: 'security_only', ubr: 19249 },
      ],
      'CVE-2019-1007': [],
      'CVE-2019-1008': [{ kb: null, kind: 'monthly_rollup', ubr: 19250 }],
    },
  );
}
const MR102 = {
  fixType: 'kb',
  fixedBuild: '6.3.9600.19250',
  kb: 'KB4000102',
  fixClass: 'rollup',
  fixMonth: '2019-02',
  fixUrl: url('KB4000102'),
} as const;

test('legacy prepared facts: the rollup first, the earliest month of rollup and Security Only, the lowest build', () => {
  const pi = legacyIndex();
  const p = prep(pi, 'CVE-2019-1001');
  assert.deepEqual(
    [p.rollupFix?.kb, p.m0, p.minFix?.text, [...p.legacyFixKbs], p.lcu, p.seriesFix],
    ['KB4000102', '2019-02', '6.3.9600.19249', ['KB4000102', 'KB4000201'], null, null],
  );
  const q = prep(pi, 'CVE-2019-1006');
  assert.deepEqual([q.rollupFix?.kb, q.m0, q.minFix?.text], ['KB4000103', '2019-02', '6.3.9600.19249']);
  const so = prep(pi, 'CVE-2019-1005');
  assert.deepEqual([so.rollupFix?.kb, so.m0, so.minFix?.text], ['KB4000201', '2019-02', '6.3.9600.19249']);
  const sa = prep(pi, 'CVE-2019-1003');
  assert.deepEqual([sa.rollupFix, sa.m0, sa.minFix, [...sa.legacyFixKbs]], [null, null, null, ['KB4000500']]);
  const two = index(S2012R2, [], {
    'CVE-2019-1009': [
      { kb: 'KB4000103', kind: 'monthly_rollup', ubr: 19300 },
      { kb: 'KB4000102', kind: 'monthly_rollup', ubr: 19250 },
      { kb: 'KB4000104', kind: 'monthly_rollup', ubr: 19260 },
    ],
  });
  assert.equal(prep(two, 'CVE-2019-1009').minFix?.text, '6.3.9600.19250');
  assert.equal(prep(two, 'CVE-2019-1009').m0, null, 'months come from the index');
});

test('legacy: no KB list needs review; the fix in the list clears; otherwise open, or needs review when the build says fixed', () => {
  const pi = legacyIndex();
  assert.deepEqual(verdict(pi, 'CVE-2019-1001', { ubr: 19300 }), {
    ...MR102,
    derived: false,
    status: 'needs review',
    note: 'legacy Windows is resolved by its KB list, and none was collected',
    why: 'no KB list',
  });
  assert.deepEqual(verdict(pi, 'CVE-2019-1001', { ubr: 19249, kbs: ['KB4000201'] }), {
    ...MR102,
    derived: false,
    status: 'cleared (patched)',
    note: null,
    why: 'the KB list contains KB4000201',
  });
  assert.deepEqual(verdict(pi, 'CVE-2019-1001', { ubr: 19250, kbs: ['KB4000101', 'KB4000102'] }), {
    ...MR102,
    derived: false,
    status: 'cleared (patched)',
    note: null,
    why: 'the KB list contains KB4000102',
  });
  assert.deepEqual(verdict(pi, 'CVE-2019-1001', { ubr: 19248, kbs: ['KB4000101'] }), {
    ...MR102,
    derived: false,
    status: 'confirmed open',
    note: null,
    why: 'the KB list has neither KB4000102 nor KB4000201 nor a later monthly rollup',
  });
  assert.deepEqual(verdict(pi, 'CVE-2019-1001', { ubr: 19249, kbs: ['KB4000101'] }), {
    ...MR102,
    derived: false,
    status: 'needs review',
    why: 'the build and the KB list disagree',
    note: 'build 6.3.9600.19249 is at or above the fixed build 6.3.9600.19249, but the KB list has neither KB4000102, KB4000201 nor a later monthly rollup',
  });
  assert.deepEqual(verdict(pi, 'CVE-2019-1001', { ubr: 19248, kbs: ['KB4000201'] }), {
    ...MR102,
    derived: false,
    status: 'needs review',
    why: 'the build and the KB list disagree',
    note: 'the KB list contains KB4000201, but build 6.3.9600.19248 is below the fixed build 6.3.9600.19249',
  });
  // No build to compare (a legacy host decided by its list alone).
  assert.equal(verdict(pi, 'CVE-2019-1001', { level: 'build', kbs: ['KB4000102'] }).status, 'cleared (patched)');
  assert.equal(verdict(pi, 'CVE-2019-1001', { level: 'build', kbs: ['KB4000101'] }).status, 'confirmed open');
});

test('legacy: a strictly later monthly rollup of the product clears (derived), and the reason is built once per host', () => {
  const pi = legacyIndex();
  const later = {
    ...MR102,
    derived: true,
    status: 'cleared (patched)',
    note: null,
    why: 'the KB list contains KB4000103, a later monthly rollup (2019-03)',
  };
  assert.deepEqual(verdict(pi, 'CVE-2019-1001', { ubr: 19300, kbs: ['KB4000103'] }), later);
  assert.deepEqual(verdict(pi, 'CVE-2019-1001', { ubr: 19248, kbs: ['KB4000103'] }), {
    ...later,
    status: 'needs review',
    why: 'the build and the KB list disagree',
    note: 'the KB list contains KB4000103, a later monthly rollup (2019-03), but build 6.3.9600.19248 is below the fixed build 6.3.9600.19249',
  });
  // The same host, two CVEs: the second reads the same reason.
  const { ctx } = ctxOf(pi, { ubr: 19300, kbs: ['KB4000103'] });
  assert.equal(verdictFor(pi, prep(pi, 'CVE-2019-1001'), ctx).why, later.why);
  assert.equal(verdictFor(pi, prep(pi, 'CVE-2019-1003'), ctx).why, later.why);
  assert.equal(ctx.sum!.laterMrWhy, later.why);
  // A standalone update of 2016 is folded into the later rollups.
  assert.deepEqual(verdict(pi, 'CVE-2019-1003', { ubr: 19300, kbs: ['KB4000101'] }), {
    fixType: 'kb',
    fixedBuild: null,
    kb: 'KB4000500',
    fixClass: 'standalone',
    fixMonth: '2016-05',
    fixUrl: url('KB4000500'),
    derived: true,
    status: 'cleared (patched)',
    note: null,
    why: 'the KB list contains KB4000101, a later monthly rollup (2019-01)',
  });
  assert.deepEqual(verdict(pi, 'CVE-2019-1003', { ubr: 19300, kbs: [] }), {
    fixType: 'kb',
    fixedBuild: null,
    kb: 'KB4000500',
    fixClass: 'standalone',
    fixMonth: '2016-05',
    fixUrl: url('KB4000500'),
    derived: false,
    status: 'confirmed open',
    note: null,
    why: 'the KB list has neither KB4000500 nor a later monthly rollup',
  });
  const other = verdict(pi, 'CVE-2019-1004', { ubr: 19300, kbs: ['KB4000600'] });
  assert.deepEqual(
    [other.fixClass, other.status, other.why],
    ['other', 'cleared (patched)', 'the KB list contains KB4000600'],
  );
  // A rollup of the fix month itself is not later; the earliest fix month counts (February, not March).
  assert.equal(verdict(pi, 'CVE-2019-1006', { ubr: 19300, kbs: ['KB4000102'] }).status, 'needs review');
  assert.equal(verdict(pi, 'CVE-2019-1006', { ubr: 19240, kbs: ['KB4000102'] }).status, 'confirmed open');
  const mar = verdict(pi, 'CVE-2019-1006', { ubr: 19300, kbs: ['KB4000103'] });
  assert.deepEqual(
    [mar.status, mar.why, mar.fixedBuild],
    ['cleared (patched)', 'the KB list contains KB4000103', '6.3.9600.19249'],
  );
});

test('legacy: a listed update that Microsoft lists as replacing the fix clears it (derived); a servicing stack update alone is not folded into rollups', () => {
  const pi = legacyIndex();
  assert.deepEqual(verdict(pi, 'CVE-2019-1005', { ubr: 19320, kbs: ['KB4000301'] }), {
    fixType: 'kb',
    fixedBuild: '6.3.9600.19249',
    kb: 'KB4000201',
    fixClass: 'rollup',
    fixMonth: '2019-02',
    fixUrl: url('KB4000201'),
    derived: true,
    status: 'cleared (patched)',
    note: null,
    why: 'the KB list contains KB4000301, which Microsoft lists as replacing the fix',
  });
  const ssu = {
    fixType: 'kb',
    fixedBuild: null,
    kb: 'KB4000400',
    fixClass: 'ssu',
    fixMonth: '2019-02',
    fixUrl: url('KB4000400'),
    derived: false,
  } as const;
  assert.deepEqual(verdict(pi, 'CVE-2019-1002', { ubr: 19300, kbs: ['KB4000103'] }), {
    ...ssu,
    status: 'confirmed open',
    note: null,
    why: 'the KB list has neither  nor a later monthly rollup',
  });
  assert.deepEqual(verdict(pi, 'CVE-2019-1002', { ubr: 19300 }), {
    ...ssu,
    status: 'needs review',
    note: 'legacy Windows is resolved by its KB list, and none was collected',
    why: 'no KB list',
  });
  const none = verdict(pi, 'CVE-2019-1007', { ubr: 19300, kbs: ['KB4000103'] });
  assert.deepEqual([none.status, none.fixType, none.kb], ['confirmed open', 'none', null]);
  assert.equal(verdict(pi, 'CVE-2019-1008', { ubr: 19300, kbs: [] }).fixType, 'none', 'a row without KB is no fix');
});

test('UBR 0 is a build, not "no build"; a listed LCU of exactly the fixed UBR holds the fix', () => {
  const pi = index(
    S2019,
    [
      { kb: 'KB5000030', kind: 'security_update', month: '2021-01', ubr: 0 },
      { kb: 'KB5000031', kind: 'security_update', month: '2021-01', ubr: null },
      { kb: 'KB5000012', kind: 'security_update', month: '2021-03', ubr: 1800 },
      { kb: 'KB5000016', kind: 'security_update', month: '2021-03', ubr: 1800 },
    ],
    {
      'CVE-2021-6001': [{ kb: 'KB5000030', kind: 'security_update', ubr: 0 }],
      'CVE-2021-6002': [{ kb: 'KB5000012', kind: 'security_update', ubr: 1800 }],
    },
  );
  assert.equal(ctxOf(pi, { ubr: 5, kbs: ['KB5000030'] }).ctx.sum!.maxUbr, 0);
  // Fixed at UBR 0: every build is at or above it; a list with only a build-less LCU of the same month says older.
  const v = verdict(pi, 'CVE-2021-6001', { ubr: 5, kbs: ['KB5000031'] });
  assert.deepEqual([v.status, v.why], ['needs review', 'the build and the KB list disagree']);
  // KB5000016 is another LCU with the fixed UBR 1800 (a re-release): the list holds the fix, the build does not.
  const w = verdict(pi, 'CVE-2021-6002', { ubr: 1799, kbs: ['KB5000016'] });
  assert.deepEqual(
    [w.status, w.note],
    [
      'needs review',
      'build 10.0.17763.1799 is below the fixed build 10.0.17763.1800, but the KB list contains KB5000012 or a later cumulative update',
    ],
  );
});

test('the series bracket takes the lowest UBR at or after the fix month and the highest at or before it, not the nearest by month; ties keep the earlier', () => {
  const pi = index(
    S2019,
    [
      { kb: 'KB5000040', kind: 'security_update', month: '2020-10', ubr: 1650 },
      { kb: 'KB5000041', kind: 'security_update', month: '2020-11', ubr: 1600 },
      { kb: 'KB5000042', kind: 'security_update', month: '2020-12', ubr: null },
      { kb: 'KB5000043', kind: 'security_update', month: '2021-01', ubr: 1750 },
      { kb: 'KB5000044', kind: 'security_update', month: '2021-02', ubr: 1700 },
      { kb: 'KB5000045', kind: 'security_update', month: '2021-03', ubr: 1700 },
      { kb: 'KB5000046', kind: 'security_update', month: '2020-09', ubr: 1650 },
    ],
    { 'CVE-2020-7001': [{ kb: 'KB5000042', kind: 'security_update' }] },
  );
  const p = prep(pi, 'CVE-2020-7001');
  assert.deepEqual([p.clearAt?.kb, p.openBelow?.kb], ['KB5000044', 'KB5000046']);
});

test('a hotpatch build at or above the fixed build is cleared by the build (on real data: verdict-fixtures.test.ts)', () => {
  const hotAbove = index(S2019, SERIES, {
    'CVE-2021-8001': [
      { kb: 'KB5000012', kind: 'security_update', ubr: 1800 },
      { kb: 'KB5000210', kind: 'hotpatch', ubr: 1810 },
    ],
  });
  assert.deepEqual(verdict(hotAbove, 'CVE-2021-8001', { ubr: 1810 }), {
    ...LCU12,
    status: 'cleared (patched)',
    why: WHY_BUILD,
  });
});

test("legacy: the fixed build is the monthly rollup's even when Security Only is listed first; a later rollup is named before a replacing update", () => {
  const pi = legacyIndex();
  const order = index(S2012R2, [{ kb: 'KB4000201', kind: 'security_only', month: '2019-02', ubr: 19249 }], {
    'CVE-2019-1011': [
      { kb: 'KB4000201', kind: 'security_only', ubr: 19249 },
      { kb: 'KB4000102', kind: 'monthly_rollup', ubr: 19250 },
    ],
  });
  const v = verdict(order, 'CVE-2019-1011', { ubr: 19300 });
  assert.deepEqual([v.fixedBuild, v.kb, v.fixClass], ['6.3.9600.19250', 'KB4000102', 'rollup']);
  const both = verdict(pi, 'CVE-2019-1005', { ubr: 19320, kbs: ['KB4000103', 'KB4000301'] });
  assert.deepEqual(
    [both.status, both.derived, both.why],
    ['cleared (patched)', true, 'the KB list contains KB4000103, a later monthly rollup (2019-03)'],
  );
});
