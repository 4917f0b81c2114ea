// diffCve (src/domain/changes.ts): every rule at its boundary, and the properties that hold for any pair of facts.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  describeChange,
  diffCve,
  diffRanges,
  epssBand,
  EPSS_THRESHOLDS,
  factsOf,
  RANGE_LINES_MAX,
  rangeLine,
  type ChangeFacts,
  type CveChange,
} from '../../src/domain/changes.ts';
import type { AffectedRange } from '../../src/domain/ranges.ts';
import { buildCve } from '../helpers/cve-docs.ts';

const BASE: ChangeFacts = {
  cvss_score: 7.5,
  cvss_version: '3.1',
  severity: 'HIGH',
  kev: false,
  kev_added_at: null,
  epss_percentile: 0.4,
  exploit_maturity: 'NONE',
  patch_status: 'unknown',
  patch_available: false,
  vendor_advisories: ['https://v.example/a'],
  cisa_advisories: ['ICSA-23-103-07'],
};
const kinds = (b: ChangeFacts | null, a: ChangeFacts | null) => diffCve(b, a).map((c) => c.kind);
const withF = (o: Partial<ChangeFacts>): ChangeFacts => ({ ...BASE, ...o });

describe('diffCve', () => {
  test('identical facts: nothing', () => {
    assert.deepEqual(diffCve(BASE, { ...BASE, vendor_advisories: [...BASE.vendor_advisories] }), []);
  });

  test('new and removed CVEs: one change each, with the headline values', () => {
    const n = diffCve(null, withF({ kev: true }));
    assert.deepEqual(
      n.map((c) => c.kind),
      ['new_cve'],
    );
    assert.equal(n[0].before, null);
    assert.deepEqual(n[0].after, {
      cvss_score: 7.5,
      severity: 'HIGH',
      kev: true,
      epss_percentile: 0.4,
      exploit_maturity: 'NONE',
      patch_status: 'unknown',
    });
    assert.deepEqual(kinds(BASE, null), ['cve_removed']);
    assert.deepEqual(diffCve(null, null), []);
  });

  test('KEV: added and removed, with the date', () => {
    const c = diffCve(BASE, withF({ kev: true, kev_added_at: '2024-05-01T00:00:00Z' }));
    assert.deepEqual(c, [
      {
        kind: 'kev_added',
        before: { kev: false, kev_added_at: null },
        after: { kev: true, kev_added_at: '2024-05-01T00:00:00Z' },
      },
    ]);
    assert.equal(describeChange(c[0]), 'added to KEV');
    assert.deepEqual(kinds(withF({ kev: true }), BASE), ['kev_removed']);
  });

  test('EPSS: each threshold crossed up and down is a change; a move inside a band is not', () => {
    for (const th of EPSS_THRESHOLDS) {
      const below = th - 0.0001;
      assert.deepEqual(
        kinds(withF({ epss_percentile: below }), withF({ epss_percentile: th })),
        ['epss_threshold'],
        `up to ${th}`,
      );
      assert.deepEqual(
        kinds(withF({ epss_percentile: th }), withF({ epss_percentile: below })),
        ['epss_threshold'],
        `down from ${th}`,
      );
      assert.deepEqual(
        kinds(withF({ epss_percentile: th }), withF({ epss_percentile: th + 0.0001 })),
        [],
        `inside the band from ${th}`,
      );
    }
    assert.deepEqual(kinds(withF({ epss_percentile: 0.1 }), withF({ epss_percentile: 0.4999 })), []);
    assert.deepEqual(kinds(withF({ epss_percentile: 0.96 }), withF({ epss_percentile: 1 })), []);
    // Two bands at once is one change.
    const c = diffCve(withF({ epss_percentile: 0.45 }), withF({ epss_percentile: 0.92 }));
    assert.deepEqual(c, [
      { kind: 'epss_threshold', before: { epss_percentile: 0.45, band: 0 }, after: { epss_percentile: 0.92, band: 3 } },
    ]);
    assert.equal(describeChange(c[0]), 'EPSS percentile 45 → 92');
  });

  test('EPSS: a first score below the median is noise; at the median it is a change; losing a high score is a change', () => {
    assert.deepEqual(kinds(withF({ epss_percentile: null }), withF({ epss_percentile: 0.4999 })), []);
    assert.deepEqual(kinds(withF({ epss_percentile: null }), withF({ epss_percentile: 0.5 })), ['epss_threshold']);
    assert.deepEqual(kinds(withF({ epss_percentile: 0.3 }), withF({ epss_percentile: null })), []);
    assert.deepEqual(kinds(withF({ epss_percentile: 0.8 }), withF({ epss_percentile: null })), ['epss_threshold']);
    assert.equal(epssBand(null), null);
    assert.deepEqual([0, 0.4999, 0.5, 0.75, 0.8999, 0.9, 0.95, 1].map(epssBand), [0, 0, 1, 2, 2, 3, 4, 4]);
  });

  test('CVSS: score, version or card severity', () => {
    const c = diffCve(BASE, withF({ cvss_score: 9.8, severity: 'CRITICAL' }));
    assert.deepEqual(c, [
      {
        kind: 'cvss_changed',
        before: { cvss_score: 7.5, cvss_version: '3.1', severity: 'HIGH' },
        after: { cvss_score: 9.8, cvss_version: '3.1', severity: 'CRITICAL' },
      },
    ]);
    assert.equal(describeChange(c[0]), 'CVSS 7.5 → 9.8 (HIGH → CRITICAL)');
    assert.deepEqual(kinds(BASE, withF({ cvss_score: 7.6 })), ['cvss_changed']);
    assert.deepEqual(kinds(BASE, withF({ cvss_version: '4.0' })), ['cvss_changed']);
    assert.deepEqual(
      kinds(withF({ cvss_score: null, severity: null }), withF({ cvss_score: null, severity: 'HIGH' })),
      ['cvss_changed'],
      'a vendor rating appears',
    );
    assert.equal(
      describeChange(diffCve(withF({ cvss_score: null, severity: null }), BASE)[0]),
      'CVSS none → 7.5 (not scored → HIGH)',
    );
  });

  test('exploit maturity: every step up is a change, any step down is not', () => {
    const order = ['NONE', 'POC', 'FUNCTIONAL', 'WEAPONIZED'] as const;
    for (let i = 0; i < order.length; i++) {
      for (let j = 0; j < order.length; j++) {
        const k = kinds(withF({ exploit_maturity: order[i] }), withF({ exploit_maturity: order[j] }));
        assert.deepEqual(k, j > i ? ['exploit_maturity_up'] : [], `${order[i]} → ${order[j]}`);
      }
    }
  });

  test('patch: status or fix availability; "fix available" reads as such', () => {
    const c = diffCve(BASE, withF({ patch_status: 'patched', patch_available: true }));
    assert.deepEqual(
      c.map((x) => x.kind),
      ['patch_changed'],
    );
    assert.equal(describeChange(c[0]), 'fix available');
    assert.deepEqual(kinds(BASE, withF({ patch_status: 'varies_by_product' })), ['patch_changed']);
    assert.equal(
      describeChange(diffCve(BASE, withF({ patch_status: 'varies_by_product' }))[0]),
      'patch status unknown → varies_by_product',
    );
    assert.deepEqual(kinds(BASE, withF({ patch_available: true })), ['patch_changed']);
  });

  test('advisories: a new vendor URL or CISA id is a change, listing only the new ones; a removal is not', () => {
    const c = diffCve(
      BASE,
      withF({
        vendor_advisories: ['https://v.example/a', 'https://v.example/b'],
        cisa_advisories: ['ICSA-23-103-07', 'ICSA-24-001-01'],
      }),
    );
    assert.deepEqual(c, [
      {
        kind: 'advisory_added',
        before: { vendor_advisories: 1, cisa_advisories: 1 },
        after: { vendor_advisories: ['https://v.example/b'], cisa_advisories: ['ICSA-24-001-01'] },
      },
    ]);
    assert.equal(describeChange(c[0]), 'new CISA advisory ICSA-24-001-01; 1 new vendor advisory');
    assert.deepEqual(kinds(BASE, withF({ vendor_advisories: [], cisa_advisories: [] })), []);
  });

  test('exploit maturity up: before and after values, and its sentence', () => {
    const c = diffCve(BASE, withF({ exploit_maturity: 'FUNCTIONAL' }));
    assert.deepEqual(c, [
      { kind: 'exploit_maturity_up', before: { exploit_maturity: 'NONE' }, after: { exploit_maturity: 'FUNCTIONAL' } },
    ]);
    assert.equal(describeChange(c[0]), 'exploit maturity NONE → FUNCTIONAL');
  });

  test('describeChange: one sentence per kind', () => {
    assert.equal(describeChange(diffCve(null, BASE)[0]), 'new CVE');
    assert.equal(describeChange(diffCve(BASE, null)[0]), 'removed from the corpus');
    assert.equal(describeChange(diffCve(withF({ kev: true }), BASE)[0]), 'removed from KEV');
    assert.equal(
      describeChange(diffCve(withF({ epss_percentile: null }), withF({ epss_percentile: 0.5 }))[0]),
      'EPSS percentile none → 50',
    );
    assert.equal(
      describeChange(diffCve(withF({ epss_percentile: 0.955 }), withF({ epss_percentile: null }))[0]),
      'EPSS percentile 96 → none',
    );
    assert.equal(
      describeChange(diffCve(BASE, withF({ cvss_score: 7.6 }))[0]),
      'CVSS 7.5 → 7.6',
      'the same severity is not repeated',
    );
    assert.equal(
      describeChange(diffCve(BASE, withF({ cvss_score: null, severity: null }))[0]),
      'CVSS 7.5 → none (HIGH → not scored)',
    );
    assert.equal(
      describeChange(
        diffCve(withF({ patch_available: true }), withF({ patch_status: 'patched', patch_available: true }))[0],
      ),
      'patch status unknown → patched',
      'a fix that was already there is not "fix available"',
    );
    assert.equal(
      describeChange(diffCve(withF({ patch_status: 'patched', patch_available: true }), BASE)[0]),
      'patch status patched → unknown',
    );
  });

  test('describeChange advisories: CISA ids listed, vendor advisories counted (singular at one), empty parts left out', () => {
    const two = diffCve(
      BASE,
      withF({ vendor_advisories: ['https://v.example/a', 'https://v.example/b', 'https://v.example/c'] }),
    )[0];
    assert.equal(describeChange(two), '2 new vendor advisories');
    const cisa = diffCve(BASE, withF({ cisa_advisories: ['ICSA-23-103-07', 'ICSA-24-001-01', 'ICSA-24-002-02'] }))[0];
    assert.equal(describeChange(cisa), 'new CISA advisory ICSA-24-001-01, ICSA-24-002-02');
    const bare = (after: Record<string, unknown> | null): CveChange => ({
      kind: 'advisory_added',
      before: null,
      after,
    });
    assert.equal(describeChange(bare({ cisa_advisories: ['ICSA-24-001-01'] })), 'new CISA advisory ICSA-24-001-01');
    assert.equal(describeChange(bare({ vendor_advisories: ['https://v.example/b'] })), '1 new vendor advisory');
    assert.equal(describeChange(bare(null)), '');
  });

  test('several changes at once come in the documented order', () => {
    const after = withF({
      kev: true,
      epss_percentile: 0.97,
      cvss_score: 9.8,
      severity: 'CRITICAL',
      exploit_maturity: 'WEAPONIZED',
      patch_status: 'patched',
      patch_available: true,
      cisa_advisories: ['X-1', 'ICSA-23-103-07'],
    });
    assert.deepEqual(kinds(BASE, after), [
      'kev_added',
      'epss_threshold',
      'cvss_changed',
      'exploit_maturity_up',
      'patch_changed',
      'advisory_added',
    ]);
  });

  test('factsOf reads the document (sorted, de-duplicated advisory lists)', () => {
    const d = buildCve({ id: 'CVE-2024-0001', cvss: 9.1, kev: true, percentile: 0.93, patch: 'patched' });
    d.references.vendor_advisories = [
      { url: 'https://z.example', tags: [], provided_by: 'nvd' },
      { url: 'https://a.example', tags: [], provided_by: 'nvd' },
      { url: 'https://a.example', tags: [], provided_by: 'csaf' },
    ];
    d.references.cisa_ics_advisories = [{ advisory_id: 'ICSA-24-002-01', url: null, title: 't', published: null }];
    assert.deepEqual(factsOf(d), {
      cvss_score: 9.1,
      cvss_version: '3.1',
      severity: 'CRITICAL',
      kev: true,
      kev_added_at: '2024-05-01T00:00:00Z',
      epss_percentile: 0.93,
      exploit_maturity: 'WEAPONIZED',
      patch_status: 'patched',
      patch_available: true,
      vendor_advisories: ['https://a.example', 'https://z.example'],
      cisa_advisories: ['ICSA-24-002-01'],
    });
  });

  test('properties: a CVE compared with itself never changes; every change carries before and after; summaries are non-empty', () => {
    const facts = fc.record({
      cvss_score: fc.option(fc.integer({ min: 0, max: 100 }).map((x) => x / 10)),
      cvss_version: fc.constantFrom(null, '3.1', '4.0'),
      severity: fc.constantFrom(null, 'LOW', 'MEDIUM', 'HIGH', 'CRITICAL'),
      kev: fc.boolean(),
      kev_added_at: fc.constantFrom(null, '2024-01-01T00:00:00Z'),
      epss_percentile: fc.option(fc.double({ min: 0, max: 1, noNaN: true })),
      exploit_maturity: fc.constantFrom('NONE', 'POC', 'FUNCTIONAL', 'WEAPONIZED'),
      patch_status: fc.constantFrom('patched', 'unknown', 'varies_by_product'),
      patch_available: fc.boolean(),
      vendor_advisories: fc.uniqueArray(fc.constantFrom('https://a', 'https://b', 'https://c')).map((x) => x.sort()),
      cisa_advisories: fc.uniqueArray(fc.constantFrom('ICSA-1', 'ICSA-2')).map((x) => x.sort()),
    }) as fc.Arbitrary<ChangeFacts>;
    fc.assert(
      fc.property(facts, facts, (a, b) => {
        assert.deepEqual(diffCve(a, { ...a }), []);
        const cs = diffCve(a, b);
        assert.equal(new Set(cs.map((c) => c.kind)).size, cs.length, 'one change per kind');
        for (const c of cs) {
          assert.ok(c.before !== null && c.after !== null);
          assert.ok(describeChange(c).length > 0);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('diffRanges', () => {
  const r = (o: Partial<AffectedRange>): AffectedRange =>
    ({
      source: 'csaf',
      vendor: 'Siemens',
      product: 'SIMATIC S7-1500',
      cpe: null,
      status: 'affected',
      version: null,
      start: null,
      end: { version: 'V2.9.2', inclusive: false },
      changes: [],
      text: null,
      fixedIn: null,
      runningOn: null,
      ...o,
    }) as AffectedRange;
  const a = r({});
  const b = r({ product: 'SIMATIC S7-1200', end: { version: 'V4.6', inclusive: false } });

  test('the same ranges, unchanged or in another order or stated twice: no change', () => {
    assert.equal(diffRanges([a, b], [a, b]), null);
    assert.equal(diffRanges([a, b], [b, a]), null);
    assert.equal(diffRanges([a, b], [b, { ...a, source: 'nvd' }, a]), null);
    assert.equal(diffRanges([], []), null);
  });

  test('a product range added or removed: the line on its side, with counts', () => {
    assert.deepEqual(diffRanges([a], [a, b]), {
      kind: 'ranges_changed',
      before: { ranges: [], removed: 0, total: 1 },
      after: { ranges: ['Siemens SIMATIC S7-1200: < V4.6'], added: 1, total: 2 },
    });
    assert.deepEqual(diffRanges([a, b], [b])!.before, {
      ranges: ['Siemens SIMATIC S7-1500: < V2.9.2'],
      removed: 1,
      total: 2,
    });
    assert.equal(describeChange(diffRanges([a], [a, b])!), 'affected versions changed');
  });

  test('a changed bound, fixed version or status: old line before, new line after', () => {
    const bound = diffRanges([a], [r({ end: { version: 'V2.9.2', inclusive: true } })])!;
    assert.deepEqual(
      [bound.before!.ranges, bound.after!.ranges],
      [['Siemens SIMATIC S7-1500: < V2.9.2'], ['Siemens SIMATIC S7-1500: <= V2.9.2']],
    );
    const fixed = diffRanges([a], [r({ fixedIn: 'V2.9.2' })])!;
    assert.deepEqual(fixed.after!.ranges, ['Siemens SIMATIC S7-1500: < V2.9.2, fixed in V2.9.2']);
    const status = diffRanges([a], [r({ status: 'unaffected' })])!;
    assert.deepEqual(status.after!.ranges, ['Siemens SIMATIC S7-1500: < V2.9.2, unaffected']);
    const start = diffRanges([a], [r({ start: { version: 'V2.0', inclusive: true } })])!;
    assert.deepEqual(start.after!.ranges, ['Siemens SIMATIC S7-1500: >= V2.0, < V2.9.2']);
  });

  test('rangeLine: status, fixed version and platforms joined by ", "; platforms by " or "', () => {
    assert.equal(
      rangeLine(r({ status: 'unaffected', fixedIn: 'V2.9.2' })),
      'Siemens SIMATIC S7-1500: < V2.9.2, unaffected, fixed in V2.9.2',
    );
    assert.equal(
      rangeLine(r({ runningOn: ['cpe:2.3:h:siemens:a:-', 'cpe:2.3:h:siemens:b:-'] })),
      'Siemens SIMATIC S7-1500: < V2.9.2, running on cpe:2.3:h:siemens:a:- or cpe:2.3:h:siemens:b:-',
    );
    assert.equal(rangeLine(r({ runningOn: [] })), 'Siemens SIMATIC S7-1500: < V2.9.2');
    assert.equal(rangeLine(r({})), 'Siemens SIMATIC S7-1500: < V2.9.2');
  });

  test('changed lines are sorted on each side, whatever the input order', () => {
    const c = diffRanges([r({ product: 'Z' }), r({ product: 'B' })], [r({ product: 'Y' }), r({ product: 'A' })])!;
    assert.deepEqual(c.before!.ranges, ['Siemens B: < V2.9.2', 'Siemens Z: < V2.9.2']);
    assert.deepEqual(c.after!.ranges, ['Siemens A: < V2.9.2', 'Siemens Y: < V2.9.2']);
  });

  test('removed lines are capped too', () => {
    const many = Array.from({ length: RANGE_LINES_MAX + 1 }, (_, i) =>
      r({ version: `1.${String(i).padStart(2, '0')}`, end: null }),
    );
    const c = diffRanges(many, [])!;
    assert.equal((c.before!.ranges as string[]).length, RANGE_LINES_MAX);
    assert.deepEqual(
      [c.before!.removed, c.before!.total, c.after!.total],
      [RANGE_LINES_MAX + 1, RANGE_LINES_MAX + 1, 0],
    );
    assert.equal((c.before!.ranges as string[])[RANGE_LINES_MAX - 1], 'Siemens SIMATIC S7-1500: 1.49');
    assert.equal(
      (diffRanges(many.slice(1), [])!.before!.ranges as string[]).length,
      RANGE_LINES_MAX,
      'exactly the cap: all kept',
    );
  });

  test('lines are capped per side; the counts stay whole', () => {
    const many = Array.from({ length: RANGE_LINES_MAX + 5 }, (_, i) => r({ version: `1.${i}`, end: null }));
    const c = diffRanges([], many)!;
    assert.equal((c.after!.ranges as string[]).length, RANGE_LINES_MAX);
    assert.equal(c.after!.added, RANGE_LINES_MAX + 5);
  });
});
