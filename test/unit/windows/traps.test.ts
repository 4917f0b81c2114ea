// The traps of windows-engine.md, each checked on the real MSRC documents in test/fixtures/msrc.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cveOf, evalHost, fixtureIndex } from './fixture-index.ts';
import { viewHost } from '../../../src/domain/windows/view.ts';
import { renderCve } from '../../../src/domain/windows/render.ts';
import { validateHost } from '../../../src/domain/windows/validate.ts';
import { isCveId } from '../../../src/domain/cve-id.ts';

const JUNE_CVE = 'CVE-2026-41108'; // June 2026, listed for 2012 R2, 1809/2019, 22H2, 24H2 and Server 2025
const ALL = {
  include_cleared: true,
  sort: 'priority',
  confirmed_only: false,
  known_exploited_only: false,
  fix_available_only: false,
  cve_page: null,
  cve_page_size: null,
} as const;

const client = (build: string, extra: Record<string, unknown> = {}) => ({
  asset_id: 'c1',
  os_product: 'Windows 10 Pro',
  edition_id: 'Professional',
  os_build: build,
  architecture: 'x64',
  installation_type: 'Client',
  ...extra,
});
const server = (product: string, build: string, extra: Record<string, unknown> = {}) => ({
  asset_id: 's1',
  os_product: product,
  edition_id: 'ServerStandard',
  os_build: build,
  architecture: 'x64',
  installation_type: 'Server',
  ...extra,
});

test('Windows 11 24H2, 23H2 and 22H2 are told apart by build, although all report "Windows 10"', () => {
  const h24 = evalHost(client('10.0.26100.8457'));
  const h23 = evalHost(client('10.0.22631.7219'));
  const h22 = evalHost(client('10.0.22621.4169'));
  assert.equal(h24.microsoft_product, 'Windows 11 Version 24H2 for x64-based Systems');
  assert.equal(h23.microsoft_product, 'Windows 11 Version 23H2 for x64-based Systems');
  assert.equal(h22.microsoft_product, 'Windows 11 Version 22H2 for x64-based Systems');
  assert.match(h24.map_note ?? '', /ProductName says Windows 10/);
  // The same June CVE: 24H2 at the May LCU is open and needs the 24H2 KB; 23H2 at the June LCU is patched.
  const c24 = cveOf(h24, 'CVE-2026-50507');
  assert.equal(c24.status, 'confirmed open');
  assert.equal(c24.v.kb, 'KB5094126');
  assert.equal(c24.v.fixedBuild, '10.0.26100.8655');
  const c23 = cveOf(h23, 'CVE-2026-50507');
  assert.equal(c23.status, 'cleared (patched)');
  assert.equal(c23.v.kb, 'KB5093998');
  // 22H2 shares the 22621/22631 UBR stream: the June row for 22H2 names the 23H2 LCU build, compared by UBR.
  const c22 = cveOf(h22, 'CVE-2026-50508');
  assert.equal(c22.status, 'confirmed open');
  assert.equal(c22.v.fixedBuild, '10.0.22631.7219');
  assert.ok(!h22.items.some((i) => i.cve_id === 'CVE-2026-50507'), 'a CVE not listed for 22H2 is not returned');
});

test('Server 2025 and Windows 11 24H2 share build 26100 but not their 2026 UBR lines', () => {
  const srv = evalHost(server('Windows Server 2025 Standard', '10.0.26100.8655'));
  const cli = evalHost(client('10.0.26100.8655'));
  assert.equal(srv.microsoft_product, 'Windows Server 2025');
  assert.equal(cli.microsoft_product, 'Windows 11 Version 24H2 for x64-based Systems');
  // A server on a client-line UBR lacks every 2026 server fix; the client is patched.
  const s = cveOf(srv, JUNE_CVE);
  assert.equal(s.status, 'confirmed open');
  assert.equal(s.v.kb, 'KB5094125');
  assert.equal(s.v.fixedBuild, '10.0.26100.32995');
  assert.equal(cveOf(cli, JUNE_CVE).status, 'cleared (patched)');
  const g = srv.fix_groups.find((x) => x.fix_type === 'kb' && x.kb === 'KB5094125');
  assert.ok(g, 'the server is told to install the server LCU');
  assert.ok(!srv.fix_groups.some((x) => x.kb === 'KB5094126'), 'never the client KB');
});

test('override: CVE-2026-50507 gives Server 2025 the client KB; a May-2026 server is not cleared by it', () => {
  const ix = fixtureIndex();
  assert.deepEqual(ix.overridesApplied, ['msrc-2026-jun-cve-2026-50507-server2025']);
  const core = evalHost(
    server('Windows Server 2025 Datacenter', '10.0.26100.32860', {
      installation_type: 'Server Core',
      edition_id: 'ServerDatacenter',
    }),
  );
  assert.equal(core.microsoft_product, 'Windows Server 2025 (Server Core installation)');
  const c = cveOf(core, 'CVE-2026-50507');
  assert.equal(c.status, 'confirmed open');
  assert.equal(c.v.kb, 'KB5094125');
  assert.equal(c.v.derived, true);
  const r = viewHost(core, ALL).cves.find((x) => x.cve_id === 'CVE-2026-50507')!;
  assert.equal(r.fix.derived, true);
  assert.match(r.priority_reason, /reviewed override/);
  // The KB5094126 client LCU is not part of the Server 2025 series.
  assert.equal(ix.products.get('12436')!.kbs.get('KB5094126')?.inSeries ?? false, false);
});

test('17763: Enterprise LTSC is supported to 2029, Pro ended 2020-11-10; same fixes, different lifecycle', () => {
  const ltsc = evalHost(
    client('10.0.17763.8755', { edition_id: 'EnterpriseS', os_product: 'Windows 10 Enterprise LTSC 2019' }),
  );
  const pro = evalHost(client('10.0.17763.8755'));
  assert.equal(ltsc.microsoft_product, 'Windows 10 Version 1809 for x64-based Systems');
  assert.equal(ltsc.end_of_life, false);
  assert.ok(!ltsc.labels.includes('end of life'));
  assert.equal(pro.end_of_life, true);
  assert.ok(pro.labels.includes('end of life'));
  assert.match(pro.map_note ?? '', /support end 2020-11-10/);
  assert.equal(cveOf(ltsc, JUNE_CVE).status, 'confirmed open');
  assert.equal(cveOf(ltsc, JUNE_CVE).v.fixType, 'kb');
  // No ESU exists for 1809 Pro: the June fix is not installable for it.
  assert.equal(cveOf(pro, JUNE_CVE).v.fixType, 'none');
  assert.ok(ltsc.fix_groups.some((g) => g.kb === 'KB5094123' && g.fix_type === 'kb'));
  assert.ok(pro.fix_groups.some((g) => g.fix_type === 'none' && g.cve_ids.includes(JUNE_CVE)));
});

test('a fixed build revised after release: CVE-2024-38063 on Server 2019 uses the September KB inside the August document', () => {
  const aug = evalHost(server('Windows Server 2019 Standard', '10.0.17763.6189'));
  const c = cveOf(aug, 'CVE-2024-38063');
  assert.equal(c.v.kb, 'KB5043050');
  assert.equal(c.v.fixedBuild, '10.0.17763.6293');
  assert.equal(c.status, 'confirmed open');
  assert.equal(c.p.pc.meta.docId, '2024-Aug');
  assert.equal(
    cveOf(evalHost(server('Windows Server 2019 Standard', '10.0.17763.6293')), 'CVE-2024-38063').status,
    'cleared (patched)',
  );
});

test('hotpatch: a host exactly on the hotpatch UBR is patched, below the LCU and off it is open', () => {
  const h = (b: string) => cveOf(evalHost(client(b, { edition_id: 'Enterprise' })), 'CVE-2026-21533');
  const onHot = h('10.0.26200.7781');
  assert.equal(onHot.status, 'cleared (patched)');
  assert.equal(onHot.v.kb, 'KB5077181', 'the LCU stays the per-CVE kb');
  assert.match(onHot.v.why, /hotpatch KB5077212/);
  assert.equal(h('10.0.26200.7780').status, 'confirmed open');
  assert.equal(h('10.0.26200.7782').status, 'confirmed open');
  assert.equal(h('10.0.26200.7840').status, 'cleared (patched)');
  // Nov 2022: the Server 2022 hotpatch UBR sat above the LCU.
  const azure = (b: string) =>
    cveOf(
      evalHost(server('Windows Server 2022 Datacenter: Azure Edition', b, { edition_id: 'ServerTurbine' })),
      'CVE-2022-41073',
    );
  assert.equal(azure('10.0.20348.1251').status, 'cleared (patched)');
  assert.equal(azure('10.0.20348.1248').status, 'confirmed open');
  assert.equal(azure('10.0.20348.1248').v.fixedBuild, '10.0.20348.1249');
});

test('legacy: a later monthly rollup clears an older CVE; a Security Only KB clears its own month only', () => {
  const base = { os_product: 'Windows Server 2012 R2 Standard', kb_source: 'Get-HotFix', esu_enrolled: 'yes' };
  const later = evalHost(server('x', '6.3.9600.23228', { ...base, installed_kbs: ['KB5094041'] }));
  assert.equal(later.microsoft_product, 'Windows Server 2012 R2');
  assert.equal(later.patch_resolved, true);
  const c = cveOf(later, 'CVE-2022-41073');
  assert.equal(c.status, 'cleared (patched)');
  assert.equal(c.v.derived, true);
  assert.match(c.v.why, /later monthly rollup/);
  // Security Only of Nov 2022 (build .20670, one below the rollup's .20671) clears the CVE: no build false positive.
  const so = evalHost(server('x', '6.3.9600.20670', { ...base, installed_kbs: ['KB5020010'] }));
  assert.equal(cveOf(so, 'CVE-2022-41073').status, 'cleared (patched)');
  assert.equal(cveOf(so, JUNE_CVE).status, 'confirmed open');
  // Nothing relevant installed and the build below the fix: open, grouped under the newest rollup.
  const old = evalHost(server('x', '6.3.9600.20600', { ...base, installed_kbs: ['KB4534297'] }));
  const o = cveOf(old, 'CVE-2022-41073');
  assert.equal(o.status, 'confirmed open');
  const g = old.fix_groups.find((x) => x.cve_ids.includes('CVE-2022-41073'))!;
  assert.equal(g.kb, 'KB5094041');
  assert.ok(g.kbs_covered.includes('KB5020023'));
});

test('legacy: the build and the KB list disagreeing gives needs review', () => {
  const h = evalHost(
    server('Windows Server 2012 R2 Standard', '6.3.9600.23228', {
      installed_kbs: ['KB4534297'],
      kb_source: 'Get-HotFix',
      esu_enrolled: 'yes',
    }),
  );
  const c = cveOf(h, 'CVE-2022-41073');
  assert.equal(c.status, 'needs review');
  assert.match(c.v.note ?? '', /at or above the fixed build 6\.3\.9600\.20670/);
});

test('legacy host with no KB list: needs review and not patch-resolved', () => {
  const h = evalHost(server('Windows Server 2012 R2 Standard', '6.3.9600.23228', { esu_enrolled: 'yes' }));
  assert.equal(h.patch_resolved, false);
  assert.equal(h.counts.cleared, 0);
  // Every CVE with a fix needs review; only CVEs Microsoft publishes no update for stay open.
  for (const it of h.items) assert.equal(it.status, it.v.kb ? 'needs review' : 'confirmed open', it.cve_id);
  assert.ok(h.counts.needs_review > 100);
  assert.match(cveOf(h, JUNE_CVE).v.note ?? '', /KB list/);
});

test('ESU: a 2012 R2 host not enrolled gets fixes after end of support as ESU; enrolled, they are installable', () => {
  const rec = { installed_kbs: ['KB5020023'], kb_source: 'Get-HotFix' };
  const no = evalHost(server('Windows Server 2012 R2 Standard', '6.3.9600.20671', { ...rec, esu_enrolled: 'no' }));
  const yes = evalHost(server('Windows Server 2012 R2 Standard', '6.3.9600.20671', { ...rec, esu_enrolled: 'yes' }));
  assert.equal(no.end_of_life, true);
  assert.equal(yes.end_of_life, false, 'within the ESU period (to 2026-10-13)');
  assert.equal(cveOf(no, JUNE_CVE).status, 'confirmed open');
  assert.equal(cveOf(no, JUNE_CVE).v.fixType, 'esu');
  assert.equal(cveOf(yes, JUNE_CVE).v.fixType, 'kb');
  const esu = no.fix_groups.find((g) => g.fix_type === 'esu')!;
  assert.equal(esu.kb, 'KB5094041');
  assert.ok(esu.cve_ids.includes(JUNE_CVE));
  // Rule 7: ESU groups rank below installable fixes of the same exploit tier.
  for (const kb of no.fix_groups.filter((g) => g.fix_type === 'kb')) {
    const tier = (g: typeof kb) => (g.counts.known_exploited > 0 ? 0 : g.counts.exploit_available > 0 ? 1 : 2);
    if (tier(kb) === tier(esu)) assert.ok(kb.group_rank < esu.group_rank);
  }
  const r = viewHost(no, ALL).cves.find((c) => c.cve_id === JUNE_CVE)!;
  assert.match(r.priority_reason, /ESU/);
  assert.match(r.priority_reason, /KB5094041/);
  assert.equal(r.fix.available, true, 'ESU-required fixes count as available');
  // After the ESU period ends, enrolment no longer keeps it supported.
  const late = evalHost(
    server('Windows Server 2012 R2 Standard', '6.3.9600.20671', { ...rec, esu_enrolled: 'yes' }),
    '2026-11-01',
  );
  assert.equal(late.end_of_life, true);
});

test('a host past end of life (Windows 10 22H2 Pro, consumer ESU) as of the injected date', () => {
  const rec = client('10.0.19045.7291');
  assert.equal(evalHost(rec, '2025-10-01').end_of_life, false);
  const after = evalHost(rec, '2026-07-10');
  assert.equal(after.end_of_life, true);
  assert.equal(cveOf(after, JUNE_CVE).v.fixType, 'esu');
  const enrolled = evalHost({ ...rec, esu_enrolled: 'yes' }, '2026-07-10');
  assert.equal(enrolled.end_of_life, false);
  assert.equal(cveOf(enrolled, JUNE_CVE).v.fixType, 'kb');
  assert.equal(
    evalHost({ ...rec, esu_enrolled: 'yes' }, '2026-10-14').end_of_life,
    true,
    'consumer ESU ends 2026-10-13',
  );
});

test('arm64 maps to the ARM64 product; a 32-bit Windows 11 does not exist', () => {
  const arm = evalHost(client('10.0.26100.8457', { architecture: 'arm64' }));
  assert.equal(arm.microsoft_product, 'Windows 11 Version 24H2 for ARM64-based Systems');
  assert.equal(cveOf(arm, 'CVE-2026-50507').status, 'confirmed open');
  const x86 = evalHost(client('10.0.26100.8457', { architecture: 'x86' }));
  assert.equal(x86.microsoft_product, null);
  assert.deepEqual(x86.labels, ['product-level (not mapped)']);
  assert.match(x86.map_note ?? '', /no 32-bit Windows 11/);
  assert.equal(x86.items.length, 0);
});

test('needs revision: a three-part build is accepted with a warning and stays product-level', () => {
  const v = validateHost({ ...client('10.0.17763'), collected_at: '2026-07-01T00:00:00Z' });
  assert.ok(v.ok);
  assert.deepEqual(v.ok && v.warnings, ['needs_revision']);
  const h = evalHost(server('Windows Server 2019 Standard', '10.0.17763'));
  assert.deepEqual(h.warnings, ['needs_revision']);
  assert.ok(h.labels.includes('needs revision'));
  assert.equal(h.patch_resolved, false);
  assert.equal(h.microsoft_product, 'Windows Server 2019');
  assert.equal(h.counts.needs_review, h.items.length);
  assert.ok(h.items.length > 100);
});

test('a bare "Windows": refused without a build; with one it stays product-level (rule 4), the build naming the product', () => {
  const v = validateHost({
    asset_id: 'b1',
    os_product: 'Windows',
    edition_id: '',
    os_build: '',
    architecture: 'x64',
    collected_at: '2026-07-01T00:00:00Z',
  });
  assert.equal(v.ok, false);
  assert.deepEqual(!v.ok && v.errors.map((e) => e.code), ['bare_windows']);
  const h = evalHost({
    asset_id: 'b2',
    os_product: 'Windows',
    edition_id: 'Professional',
    os_build: '10.0.19045.7417',
    architecture: 'x64',
  });
  assert.equal(h.microsoft_product, 'Windows 10 Version 22H2 for x64-based Systems');
  assert.equal(h.patch_resolved, false);
  assert.ok(h.labels.includes('product-level (bare product name)'));
  const nob = evalHost({
    asset_id: 'b3',
    os_product: 'Windows Server 2019 Datacenter',
    edition_id: 'ServerDatacenter',
    os_build: '',
    architecture: 'x64',
    installation_type: 'Server',
  });
  assert.deepEqual(nob.labels, ['product-level (no build)']);
  assert.equal(nob.patch_resolved, false);
  assert.equal(nob.microsoft_product, 'Windows Server 2019');
});

test('edition missing on a shared build: candidates, and a CVE whose status differs between them needs review', () => {
  const h = evalHost({
    asset_id: 'e1',
    os_product: 'Windows 11 Enterprise',
    edition_id: '',
    os_build: '10.0.26100.8655',
    architecture: 'x64',
    installation_type: '',
  });
  assert.equal(h.microsoft_product, null);
  assert.deepEqual(h.candidate_products, [
    'Windows 11 Version 24H2 for x64-based Systems',
    'Windows Server 2025',
    'Windows Server 2025 (Server Core installation)',
  ]);
  assert.ok(h.labels.includes('resolved by build; edition not supplied'));
  assert.match(h.map_note ?? '', /edition not supplied/);
  const c = cveOf(h, JUNE_CVE);
  assert.equal(c.status, 'needs review');
  assert.match(c.note ?? '', /candidate products/);
});

test('Server Core and Desktop Experience are different products with the same KBs', () => {
  const core = evalHost(
    server('Windows Server 2019 Standard', '10.0.17763.8755', { installation_type: 'Server Core' }),
  );
  const desk = evalHost(server('Windows Server 2019 Standard', '10.0.17763.8755'));
  assert.equal(core.microsoft_product, 'Windows Server 2019 (Server Core installation)');
  assert.equal(desk.microsoft_product, 'Windows Server 2019');
  assert.equal(cveOf(core, JUNE_CVE).v.kb, cveOf(desk, JUNE_CVE).v.kb);
});

test('cumulative: a KB list holding the fix while the build says open gives needs review', () => {
  const h = evalHost(
    server('Windows Server 2019 Standard', '10.0.17763.8755', {
      installed_kbs: ['KB5094123'],
      kb_source: 'Get-HotFix',
    }),
  );
  const c = cveOf(h, JUNE_CVE);
  assert.equal(c.status, 'needs review');
  assert.match(c.v.note ?? '', /KB list contains KB5094123/);
  // The group never recommends a KB that is already installed, and neither does the CVE's own fix action.
  assert.ok(!h.fix_groups.some((g) => g.kb === 'KB5094123'));
  assert.equal(
    renderCve(c, h.os_build, 1).fix.action,
    'KB5094123 is already installed but the CVE is not cleared: review the host',
  );
  // The same build without the KB list: the item shared by the build's hosts says to install it.
  const bare = cveOf(evalHost(server('Windows Server 2019 Standard', '10.0.17763.8755')), JUNE_CVE);
  assert.equal(bare.status, 'confirmed open');
  assert.match(renderCve(bare, '10.0.17763.8755', 1).fix.action, /^Install KB5094123 /);
});

test('before mid-2021 (no FixedBuild): the fix KB is placed in the LCU series by month', () => {
  const h = evalHost(server('Windows Server 2019 Standard', '10.0.17763.2061'));
  const c = cveOf(h, 'CVE-2020-0601');
  assert.equal(c.status, 'cleared (patched)');
  assert.equal(c.v.kb, 'KB4534273');
  assert.equal(c.v.fixedBuild, null);
  assert.equal(c.v.derived, true);
  // PrintNightmare's out-of-band update replaces a series LCU, so its build is authoritative.
  const pn = cveOf(evalHost(server('Windows Server 2019 Standard', '10.0.17763.2028')), 'CVE-2021-34527');
  assert.equal(pn.v.kb, 'KB5004947');
  assert.equal(pn.status, 'confirmed open');
});

test('counts cover every CVE; microsoft data date is the newest document behind the product', () => {
  const h = evalHost(server('Windows Server 2019 Standard', '10.0.17763.8755'));
  assert.equal(h.counts.confirmed_open + h.counts.cleared + h.counts.needs_review, h.items.length);
  assert.equal(h.data_as_of, '2026-07-05T14:46:17.000Z');
  assert.ok(
    h.items.every((i) => isCveId(i.cve_id)),
    'ADV advisories are not CVEs',
  );
  const ranks = viewHost(h, ALL).cves.map((c) => c.priority_rank);
  assert.deepEqual(
    ranks,
    ranks.map((_, i) => i + 1),
  );
});

test('edition missing on 26100 ("Windows 10 Pro"): a CVE Microsoft lists only for Server 2025 needs review, never confirmed open', () => {
  const h = evalHost({
    asset_id: 'e2',
    os_product: 'Windows 10 Pro',
    edition_id: '',
    os_build: '10.0.26100.8655',
    architecture: 'x64',
    installation_type: '',
  });
  // CVE-2026-41089 is listed for Server 2025 (open below KB5087539's build) and not for Windows 11 24H2.
  const only = cveOf(h, 'CVE-2026-41089');
  assert.equal(only.v.status, 'confirmed open');
  assert.equal(only.productName, 'Windows Server 2025');
  assert.equal(only.status, 'needs review');
  assert.equal(
    only.note,
    'listed by Microsoft for Windows Server 2025; Windows Server 2025 (Server Core installation) but not for Windows 11 Version 24H2 for x64-based Systems, and the edition decides which this host is; supply edition_id and installation_type',
  );
  assert.equal(h.counts.confirmed_open, 0);
  assert.equal(h.items.filter((i) => i.status === 'confirmed open').length, 0);
  // A CVE cleared on every candidate that lists it stays cleared (the host needs nothing for it either way).
  assert.equal(cveOf(h, 'CVE-2024-43461').status, 'cleared (patched)');
  // Each candidate's updates are titled with its own product: Server 2025's KB is never called a Windows 11 fix.
  const titles = h.fix_groups.map((g) => [g.kb, g.fix]);
  assert.deepEqual(titles[0], [
    'KB5094125',
    'Install KB5094125, the latest cumulative update for Windows Server 2025 or Windows Server 2025 (Server Core installation) (build 10.0.26100.32995)',
  ]);
  assert.ok(h.fix_groups[0].cve_ids.includes('CVE-2026-41089'));
  for (const g of h.fix_groups) {
    if (g.kb === 'KB5094125' || g.kb === 'KB5087539') assert.doesNotMatch(g.fix, /Windows 11/);
  }
  // The host is at Windows 11's June build: no group offers Windows 11's June update again.
  assert.ok(!h.fix_groups.some((g) => g.kb === 'KB5094126'));
});

test("edition missing on 26100 at a shared 2025 build: open on every candidate stays open, and a note names each candidate's update", () => {
  const h = evalHost({
    asset_id: 'e3',
    os_product: 'Windows 10 Pro',
    edition_id: '',
    os_build: '10.0.26100.6899',
    architecture: 'x64',
    installation_type: '',
  });
  const c = cveOf(h, 'CVE-2026-21510');
  assert.equal(c.status, 'confirmed open');
  assert.equal(
    c.note,
    'the update differs between the candidate products (KB5077181 for Windows 11 Version 24H2 for x64-based Systems; KB5075899 for Windows Server 2025 and Windows Server 2025 (Server Core installation)); supply edition_id and installation_type',
  );
  // One group per candidate line, each naming its products; a CVE open on both is in both.
  const server = h.fix_groups.find((g) => g.kb === 'KB5094125')!;
  const client = h.fix_groups.find((g) => g.kb === 'KB5094126')!;
  assert.match(server.fix, /for Windows Server 2025 or Windows Server 2025 \(Server Core installation\)/);
  assert.match(client.fix, /for Windows 11 Version 24H2 for x64-based Systems/);
  assert.ok(server.cve_ids.includes('CVE-2026-21510') && client.cve_ids.includes('CVE-2026-21510'));
  assert.equal(client.counts.total, 194);
  assert.equal(server.counts.total, 205);
  assert.ok(
    server.group_rank < client.group_rank,
    'equal in confirmed CVEs, the group with more CVEs in all ranks first',
  );
});
