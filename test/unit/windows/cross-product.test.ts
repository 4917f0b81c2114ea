// Microsoft's cross-product rows (windows-engine.md trap 10; src/domain/windows/cross-product.ts), on real CVRF
// documents read into an index of their own (test/fixtures/msrc-cross plus 2024-Aug, 2026-May and 2026-Jun of
// test/fixtures/msrc): a row naming another product's update or build is never confirmed open or cleared on it, even
// with a build or KB list that would decide; the note carries the evidence; a row of the product's own line decides as
// before; a reviewed override decides and says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { readMsrcFile } from '../../../src/ingest/msrc.ts';
import {
  IndexBuilder,
  type EvaluationIndex,
  type Fix,
  type KbInfo,
  type ProductIndex,
} from '../../../src/domain/windows/evaluation-index.ts';
import { EvaluationRun } from '../../../src/domain/windows/evaluate.ts';
import { validateHost } from '../../../src/domain/windows/validate.ts';
import { viewHost } from '../../../src/domain/windows/view.ts';
import { foreignEvidence, OWNER_MIN_ROWS } from '../../../src/domain/windows/cross-product.ts';
import { WINDOWS_PRODUCTS } from '../../../src/domain/windows/products.ts';
import { FIXTURE_DIR } from './fixture-index.ts';

const CROSS_DIR = fileURLToPath(new URL('../../fixtures/msrc-cross', import.meta.url));
const FILES = [
  `${CROSS_DIR}/2022-Aug.xml.gz`,
  `${CROSS_DIR}/2022-Oct.xml.gz`,
  `${CROSS_DIR}/2023-May.xml.gz`,
  `${CROSS_DIR}/2024-Jul.xml.gz`,
  `${FIXTURE_DIR}/2024-Aug.xml.gz`,
  `${FIXTURE_DIR}/2026-May.xml.gz`,
  `${FIXTURE_DIR}/2026-Jun.xml.gz`,
];
const DOCS = FILES.map((f) => readMsrcFile(f));
const indexes = new Map<string, EvaluationIndex>();
function index(withOverrides: boolean): EvaluationIndex {
  const key = String(withOverrides);
  if (!indexes.has(key)) {
    const b = new IndexBuilder(new Map());
    for (const d of DOCS) b.add(d);
    indexes.set(key, b.finish(withOverrides ? undefined : []));
  }
  return indexes.get(key)!;
}
const ALL = {
  include_cleared: true,
  sort: 'priority',
  confirmed_only: false,
  known_exploited_only: false,
  fix_available_only: false,
  cve_page: null,
  cve_page_size: null,
} as const;

function run(ix: EvaluationIndex, rec: Record<string, unknown>) {
  const v = validateHost({ display_version: '', collected_at: '2026-07-01T08:00:00Z', architecture: 'x64', ...rec });
  if (!v.ok) throw new Error(JSON.stringify(v.errors));
  const e = new EvaluationRun(ix, () => undefined, '2026-07-10').evaluate(v.host, v.warnings);
  return { e, view: viewHost(e, ALL) };
}
const server2025 = (build: string, extra: Record<string, unknown> = {}) => ({
  asset_id: 'srv25-a1',
  os_product: 'Windows Server 2025 Standard',
  edition_id: 'ServerStandard',
  installation_type: 'Server',
  os_build: build,
  ...extra,
});
const rowsOf = (ix: EvaluationIndex, pid: string, cve: string) => ix.products.get(pid)!.cves.get(cve)!.fixes;

test('Server 2025 served the client update for CVE-2026-50507: needs review on any build or KB list, with the evidence', () => {
  const ix = index(false);
  const row = rowsOf(ix, '12436', 'CVE-2026-50507').find((f) => f.kb === 'KB5094126')!;
  assert.deepEqual(row.foreign, {
    product: 'Windows 11 Version 24H2 for x64-based Systems',
    month: '2026-06',
    build: '10.0.26100.8655',
    ownKb: 'KB5094125',
  });
  // Taken literally the May-2026 server (26100.32860 >= 8655) would be cleared; a server listing the client KB too.
  for (const host of [
    server2025('10.0.26100.32860'),
    server2025('10.0.26100.100'),
    server2025('10.0.26100.32860', { installed_kbs: ['KB5094126'], kb_source: 'Get-HotFix' }),
  ]) {
    const { e, view } = run(ix, host);
    const it = e.items.find((i) => i.cve_id === 'CVE-2026-50507')!;
    assert.equal(it.status, 'needs review', host.os_build);
    const c = view.cves.find((x) => x.cve_id === 'CVE-2026-50507')!;
    assert.equal(c.kb, null, "the client KB is never this server's fix");
    assert.equal(c.fixed_build, null);
    assert.match(
      c.note ?? '',
      /Microsoft lists KB5094126 with fixed build 10\.0\.26100\.8655 for Windows Server 2025, which is an update of Windows 11 Version 24H2 for x64-based Systems \(2026-06, build 10\.0\.26100\.8655\); this product's own update of that month is KB5094125/,
    );
    assert.match(c.fix.action, /names no update of Windows Server 2025/);
    assert.ok(!e.fix_groups.some((g) => g.kb === 'KB5094126'), 'no fix group recommends the client KB');
  }
  // The same document's other June CVEs on Server 2025 name its own update and decide by build (the other side).
  const { e } = run(ix, server2025('10.0.26100.32995'));
  const own = e.items.filter((i) => i.cve_id !== 'CVE-2026-50507' && i.v.kb === 'KB5094125');
  assert.ok(own.length > 10, `${own.length} June CVEs on the server's own update`);
  assert.ok(own.every((i) => i.status === 'cleared (patched)'));
  // And Windows 11 24H2, whose update KB5094126 is, decides CVE-2026-50507 by build.
  const { e: client } = run(ix, {
    asset_id: 'w11-a1',
    os_product: 'Windows 10 Pro',
    edition_id: 'Professional',
    installation_type: 'Client',
    os_build: '10.0.26100.8655',
  });
  assert.equal(client.items.find((i) => i.cve_id === 'CVE-2026-50507')!.status, 'cleared (patched)');
});

test('the reviewed override decides CVE-2026-50507 on Server 2025 and says so', () => {
  const ix = index(true);
  assert.deepEqual(ix.overridesApplied, ['msrc-2026-jun-cve-2026-50507-server2025']);
  assert.ok(!rowsOf(ix, '12436', 'CVE-2026-50507').some((f) => f.foreign), "the overridden row is the server's own");
  const { view } = run(ix, server2025('10.0.26100.32860'));
  const c = view.cves.find((x) => x.cve_id === 'CVE-2026-50507')!;
  assert.deepEqual([c.status, c.kb, c.fix.derived], ['confirmed open', 'KB5094125', true]);
  assert.match(c.priority_reason, /corrected by a reviewed override/);
});

test('a fixed build of another line (CVE-2022-2601 on Windows 11 24H2: 10.0.22621.5189): a KB list holding it clears nothing', () => {
  const ix = index(false);
  const row = rowsOf(ix, '12390', 'CVE-2022-2601').find((f) => f.kb === 'KB5055528')!;
  assert.equal(row.foreign?.product, 'Windows 11 Version 22H2 for x64-based Systems');
  const { view } = run(ix, {
    asset_id: 'w11-b1',
    os_product: 'Windows 10 Pro',
    edition_id: 'Professional',
    installation_type: 'Client',
    os_build: '10.0.26100.1457',
    installed_kbs: ['KB5055528'],
    kb_source: 'Get-HotFix',
  });
  const c = view.cves.find((x) => x.cve_id === 'CVE-2022-2601')!;
  assert.equal(c.status, 'needs review');
  assert.match(
    c.note ?? '',
    /KB5055528 with fixed build 10\.0\.22621\.5189 .* a build of Windows 11 Version 22H2 for x64-based Systems, not of this product's line/,
  );
});

test('legacy: CVE-2022-34689 gives Windows 7 the Windows 10 1607 update next to its own; a later rollup does not clear it on a guess', () => {
  const ix = index(false);
  const rows = rowsOf(ix, '10047', 'CVE-2022-34689');
  assert.deepEqual(rows.find((f) => f.kb === 'KB5016622')!.foreign, {
    product: 'Windows 10 Version 1607 for x64-based Systems',
    month: '2022-08',
    build: '10.0.14393.5291',
    ownKb: 'KB5016676',
  });
  assert.equal(rows.find((f) => f.kb === 'KB5016679')!.foreign, null, "Windows 7's own Security Only update");
  // The October 2022 monthly rollup of Windows 7 would clear an ordinary August CVE.
  const { view } = run(ix, {
    asset_id: 'w7-c1',
    os_product: 'Windows 7 Enterprise',
    edition_id: 'Enterprise',
    installation_type: 'Client',
    architecture: 'x86',
    os_build: '6.1.7601.26174',
    installed_kbs: ['KB5018454'],
    kb_source: 'Get-HotFix',
    esu_enrolled: 'yes',
  });
  const c = view.cves.find((x) => x.cve_id === 'CVE-2022-34689')!;
  assert.equal(c.status, 'needs review');
  assert.equal(c.kb, 'KB5016679', "the fix named is the product's own");
  assert.match(c.note ?? '', /update of Windows 10 Version 1607 .*Microsoft also lists KB5016679 for this product/);
  // The same host's other August-2022 CVEs (Windows 7's rollup KB5016676, build 6.1.7601.26065) are cleared by it.
  const ordinary = view.cves.filter((x) => x.kb === 'KB5016676');
  assert.ok(ordinary.length > 10, `${ordinary.length} August CVEs`);
  assert.ok(
    ordinary.every(
      (x) => x.status === 'cleared (patched)' && /a later monthly rollup \(2022-10\)/.test(x.priority_reason),
    ),
  );
  assert.deepEqual(view.counts, { confirmed_open: 0, cleared: 70, needs_review: 1 });
});

test("rows of the product's own line are not foreign: a shared Secure Boot update, a same-line update cited on a sibling", () => {
  const ix = index(false);
  // CVE-2023-24932 lists for 1809 ARM64 the July-2024 update of the 1809 line, which its x64 sibling's series holds.
  const arm = rowsOf(ix, '11570', 'CVE-2023-24932').find((f) => f.kb === 'KB5040430')!;
  assert.equal(arm.foreign, null);
  assert.ok(ix.products.get('11569')!.kbs.get('KB5040430')!.inSeries);
  // KB5012170 (Secure Boot DBX) appears in several Windows 10 series with a handful of rows: not an owner's update.
  for (const pid of ['10482', '10483', '11923']) {
    for (const pc of ix.products.get(pid)?.cves.values() ?? [])
      for (const f of pc.fixes) if (f.kb === 'KB5012170') assert.equal(f.foreign, null, `${pid} ${pc.meta.cve}`);
  }
});

// The rule's boundaries on hand-made products: citation count of the owner, and the same line.
function pi(pid: string, kbs: Partial<KbInfo>[], series: string[]): ProductIndex {
  const infos = new Map(
    kbs.map((k) => [
      k.kb!,
      { kind: 'security_update', month: null, build: null, rows: 1, supersedes: [], inSeries: false, ...k } as KbInfo,
    ]),
  );
  const s = series.map((k) => {
    const i = infos.get(k)!;
    i.inSeries = true;
    return i;
  });
  const product = WINDOWS_PRODUCTS.get(pid)!;
  return {
    product,
    cves: new Map(),
    kbs: infos,
    lcuSeries: product.servicing === 'cumulative' ? s : [],
    mrSeries: product.servicing === 'legacy' ? s : [],
    dataAsOf: null,
  };
}
const fix = (f: Partial<Fix>): Fix => ({
  kb: 'KB1',
  kind: 'security_update',
  subType: 'Security Update',
  rawBuild: null,
  build: null,
  supersedes: [],
  url: null,
  docId: 'd',
  overrideId: null,
  ...f,
});

test('boundaries: the owner must cite the KB at least OWNER_MIN_ROWS times; the same line without an own update that month is not foreign', () => {
  const b = (t: string) => ({ major: '10.0', build: Number(t.split('.')[2]), ubr: Number(t.split('.')[3]), text: t });
  const server = pi(
    '12436',
    [
      { kb: 'KB1', rows: 1 },
      { kb: 'KB2', month: '2026-06', build: b('10.0.26100.32995'), rows: 90 },
    ],
    ['KB2'],
  );
  for (const [rows, want] of [
    [OWNER_MIN_ROWS - 1, null],
    [OWNER_MIN_ROWS, 'Windows 11 Version 24H2 for x64-based Systems'],
  ] as const) {
    const client = pi('12390', [{ kb: 'KB1', month: '2026-06', build: b('10.0.26100.8655'), rows }], ['KB1']);
    const products = new Map([
      ['12436', server],
      ['12390', client],
    ]);
    assert.equal(
      foreignEvidence(server, fix({ rawBuild: '10.0.26100.8655' }), products)?.product ?? null,
      want,
      `owner rows ${rows}`,
    );
  }
  // Same build line and no update of its own that month: the sibling's update is the product's too.
  const lone = pi(
    '12436',
    [
      { kb: 'KB1', rows: 1 },
      { kb: 'KB2', month: '2026-05', rows: 90 },
    ],
    ['KB2'],
  );
  const client = pi('12390', [{ kb: 'KB1', month: '2026-06', build: b('10.0.26100.8655'), rows: 100 }], ['KB1']);
  assert.equal(
    foreignEvidence(
      lone,
      fix({ rawBuild: '10.0.26100.8655' }),
      new Map([
        ['12436', lone],
        ['12390', client],
      ]),
    ),
    null,
  );
  // An overridden row, a row of the product's own series, a servicing stack update: never foreign.
  const products = new Map([
    ['12436', server],
    ['12390', pi('12390', [{ kb: 'KB1', month: '2026-06', rows: 100 }], ['KB1'])],
  ]);
  assert.equal(foreignEvidence(server, fix({ overrideId: 'x' }), products), null);
  assert.equal(foreignEvidence(server, fix({ kb: 'KB2' }), products), null);
  assert.equal(foreignEvidence(server, fix({ kind: 'ssu' }), products), null);
});
