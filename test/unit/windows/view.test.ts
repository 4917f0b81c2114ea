import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { evalHost } from './fixture-index.ts';
import { COMPARATORS, fixSummary, parseViewOptions, viewHost, type ViewOptions } from '../../../src/domain/windows/view.ts';
import type { CveSignals } from '../../../src/domain/windows/evaluate.ts';

const base: ViewOptions = { include_cleared: false, sort: 'priority', confirmed_only: false, known_exploited_only: false, fix_available_only: false, cve_page: null, cve_page_size: null };
const sig = (kev: boolean, epss: number, bcs: number, published: string): CveSignals => ({ kev, epss, bcs, cvss: null, hasExploit: kev, publishedAt: published, references: null });
const SIGNALS: Record<string, CveSignals> = {
  'CVE-2026-41108': sig(true, 0.9, 9.1, '2026-06-09T00:00:00Z'),
  'CVE-2026-40409': sig(false, 0.5, 5.0, '2026-06-10T00:00:00Z'),
};
const host = () => evalHost({ asset_id: 'v1', os_product: 'Windows Server 2019 Standard', edition_id: 'ServerStandard', os_build: '10.0.17763.8389', architecture: 'x64', installation_type: 'Server' }, '2026-07-10', SIGNALS);

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
  assert.match(v.cves[0].priority_reason, /^Open on this host: build 10\.0\.17763\.8389 is below the fixed build 10\.0\.17763\.8880\. Known exploited \(CISA KEV\)\./);
  assert.equal('_k' in v.cves[0], false);
  assert.equal(v.cves[0].fix.available, true);
  assert.equal(v.cves[0].source, 'https://api.msrc.microsoft.com/cvrf/v3.0/cvrf/2026-Jun');
  assert.equal(v.cves[0].references.nvd_url, 'https://nvd.nist.gov/vuln/detail/CVE-2026-41108');
  assert.deepEqual(v.cves[0].references.vendor_advisories.map((r) => r.url), ['https://msrc.microsoft.com/update-guide/en-US/vulnerability/CVE-2026-41108']);
  for (let i = 1; i < v.cves.length; i++) assert.ok(v.cves[i - 1].priority_rank < v.cves[i].priority_rank);
});

test('the four sorts order as specified', () => {
  const e = host();
  const all = { ...base, include_cleared: true };
  const score = viewHost(e, { ...all, sort: 'score' }).cves;
  const firstCleared = score.findIndex((c) => c.status !== 'confirmed open');
  assert.ok(score.slice(firstCleared).every((c) => c.status !== 'confirmed open'), 'confirmed open first');
  const open = score.slice(0, firstCleared).map((c) => c.cve_id);
  assert.deepEqual(open, [...open].sort((a, b) => COMPARATORS.score({ cve_id: a, status: 'confirmed open', known_exploited: false, _k: null as never }, { cve_id: b, status: 'confirmed open', known_exploited: false, _k: null as never })));
  const exploit = viewHost(e, { ...all, sort: 'exploit' }).cves;
  assert.equal(exploit[0].cve_id, 'CVE-2026-41108');
  const i = exploit.findIndex((c) => c.cve_id === 'CVE-2026-40409');
  assert.ok(exploit.slice(0, i).every((c) => c.known_exploited), 'known-exploited (KEV or Microsoft) first');
  assert.ok(exploit.slice(i + 1).every((c) => !c.known_exploited), 'then the highest EPSS');
  const newest = viewHost(e, { ...all, sort: 'newest' }).cves;
  assert.equal(newest[0].cve_id, 'CVE-2026-40409');
});

test('filters apply before paging; pages concatenate to the full list', () => {
  const e = host();
  fc.assert(fc.property(
    fc.constantFrom('priority', 'score', 'exploit', 'newest'), fc.boolean(), fc.boolean(), fc.integer({ min: 1, max: 400 }),
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
  ), { numRuns: 25 });
  const kev = viewHost(e, { ...base, known_exploited_only: true }).cves;
  assert.deepEqual(kev.map((c) => c.cve_id).includes('CVE-2026-41108'), true);
  assert.ok(kev.every((c) => c.known_exploited));
  assert.ok(viewHost(e, { ...base, confirmed_only: true }).cves.every((c) => c.status === 'confirmed open'));
  assert.ok(viewHost(e, { ...base, fix_available_only: true }).cves.every((c) => c.fix.available));
});

test('options: JSON typed values; text values for CSV/query; unknown sort → error', () => {
  const j = parseViewOptions({ sort: 'exploit', cve_page_size: 50 }, { fromText: false, includeClearedDefault: false });
  assert.deepEqual(j.ok && j.options, { ...base, sort: 'exploit', cve_page_size: 50 });
  const t = parseViewOptions({ include_cleared: 'false', cve_page: '2' }, { fromText: true, includeClearedDefault: true });
  assert.deepEqual(t.ok && t.options, { ...base, include_cleared: false, cve_page: 2 });
  assert.equal(parseViewOptions({}, { fromText: true, includeClearedDefault: true }).ok && true, true);
  const bad = parseViewOptions({ sort: 'severity', cve_page_size: 1001, include_cleared: 'true', extra: 1 }, { fromText: false, includeClearedDefault: false });
  assert.equal(bad.ok, false);
  assert.deepEqual(!bad.ok && bad.errors.map((x) => x.field).sort(), ['cve_page_size', 'extra', 'include_cleared', 'sort']);
});

test('fix_summary merges the same fix across hosts and keeps the top 10', () => {
  const a = host();
  const b = evalHost({ asset_id: 'v2', os_product: 'Windows Server 2019 Standard', edition_id: 'ServerStandard', os_build: '10.0.17763.8755', architecture: 'x64', installation_type: 'Server' }, '2026-07-10', SIGNALS);
  const s = fixSummary([a, b]);
  assert.ok(s.length <= 10);
  const lcu = s.find((x) => x.fix.includes('KB5094123'))!;
  assert.deepEqual(lcu.asset_ids, ['v1', 'v2']);
  assert.equal(lcu.product, 'Windows Server 2019');
  const ga = a.fix_groups.find((g) => g.kb === 'KB5094123')!;
  const gb = b.fix_groups.find((g) => g.kb === 'KB5094123')!;
  assert.equal(lcu.counts.total, ga.counts.total + gb.counts.total);
  assert.deepEqual(s.map((x) => x.rank), s.map((_, i) => i + 1));
  // The fixtures hold Feb, May and June 2026: the host (Feb LCU) misses the May and June fixes.
  assert.ok(ga.kbs_covered.includes('KB5087538'), 'older per-CVE LCUs are covered by the newest');
  assert.ok(!ga.kbs_covered.includes('KB5094123'));
});
