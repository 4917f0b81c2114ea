// The verdict rules of domain/correlate.ts on ranges shaped as the readers produce them. The CVE 5 case is the
// real record CVE-2020-36695 (CISA Vulnrichment, /work/shared/data/cve5), its affected[] entry for Hitachi Device
// Manager written out as the range the CVE 5 reader yields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rangeRows, verdict, verdictStatus, matchRow, type Asset, type RangeRow } from '../../src/domain/correlate.ts';
import type { AffectedRange } from '../../src/domain/ranges.ts';
import { readFileSync } from 'node:fs';
import { cve5RecordFrom } from '../../src/ingest/cve5.ts';
import { fixture, readAll } from '../helpers/feeds.ts';

const base: AffectedRange = {
  source: 'nvd',
  vendor: 'abb',
  product: 'symphony_plus_s+_operations',
  cpe: 'cpe:2.3:a:abb:symphony_plus_s\\+_operations:*:*:*:*:*:*:*:*',
  status: 'affected',
  version: null,
  start: null,
  end: null,
  versionType: null,
  changes: [],
  defaultStatus: null,
  fixedIn: null,
  runningOn: null,
  text: null,
};
function decide(asset: Asset, ranges: AffectedRange[], sourceKey = '') {
  const rows = rangeRows([{ source: ranges[0].source, source_key: sourceKey, ranges }]);
  const matched = rows.map((row) => ({ row, match: matchRow(asset, row)! })).filter((m) => m.match);
  assert.ok(matched.length, 'the asset matches the ranges');
  return verdict(asset, matched);
}
const abb = (version: string | null): Asset => ({ vendor: 'ABB', product: 'Symphony Plus S+ Operations', version });

test('bounds: inside, at the exclusive end, below the start', () => {
  const r = [{ ...base, start: { version: '3.0', inclusive: true }, end: { version: '3.3', inclusive: false } }];
  assert.equal(decide(abb('3.2.9'), r).status, 'affected');
  assert.equal(decide(abb('3.3'), r).status, 'not_affected');
  assert.equal(decide(abb('2.9'), r).status, 'not_affected');
  assert.equal(decide(abb('3.0'), r).status, 'affected');
});

test('sources disagree on the same version: needs_review naming both', () => {
  const v = decide(abb('3.1'), [
    { ...base, start: { version: '3.0', inclusive: true }, end: { version: '3.3', inclusive: false } },
    { ...base, source: 'csaf', status: 'unaffected', version: '3.1', cpe: null },
  ]);
  assert.equal(v.status, 'needs_review');
  assert.match(v.reason, /sources disagree/);
});

test('running on a platform the asset does not name: needs_review; naming it: affected', () => {
  const r = [
    {
      ...base,
      vendor: 'siemens',
      product: 'cp-8031_firmware',
      cpe: 'cpe:2.3:o:siemens:cp-8031_firmware:*:*:*:*:*:*:*:*',
      end: { version: '5.0', inclusive: false },
      runningOn: ['cpe:2.3:h:siemens:cp-8031:-:*:*:*:*:*:*:*'],
    },
  ];
  const onDevice = decide({ vendor: 'Siemens', product: 'CP-8031', version: '4.0' }, r);
  assert.equal(onDevice.status, 'affected');
  const onlyFw = decide(
    {
      vendor: 'Siemens',
      product: 'CP-8031 firmware',
      version: '4.0',
      cpe: 'cpe:2.3:o:siemens:cp-8031_firmware:4.0:*:*:*:*:*:*:*',
    },
    [{ ...r[0], runningOn: ['cpe:2.3:h:siemens:cp-8050:-:*:*:*:*:*:*:*'] }],
  );
  assert.equal(onlyFw.status, 'needs_review');
  assert.match(onlyFw.reason, /running on cpe:2\.3:h:siemens:cp-8050/);
});

test('unknown version: affected only when every version is affected, else needs_review', () => {
  assert.equal(decide(abb(null), [base]).status, 'affected');
  const v = decide(abb(null), [{ ...base, end: { version: '3.3', inclusive: false } }]);
  assert.equal(v.status, 'needs_review');
  assert.match(v.reason, /version unknown/);
});

test('CVE 5 changes[] and custom versions (CVE-2020-36695, Hitachi Device Manager): "8.8.5-02" is ordered against other releases only, so 8.8.5-01 is needs_review', () => {
  const hitachi: AffectedRange = {
    ...base,
    source: 'cve5',
    vendor: 'Hitachi',
    product: 'Hitachi Device Manager',
    cpe: null,
    start: { version: '0', inclusive: true },
    end: { version: '8.8.5-02', inclusive: false },
    versionType: 'custom',
    changes: [{ at: '8.8.5-02', status: 'unaffected' }],
    defaultStatus: 'unaffected',
  };
  const v = decide(
    { vendor: 'Hitachi, Ltd.', product: 'Device Manager', version: '8.8.5-01' },
    [hitachi].map((r) => ({ ...r, product: 'Device Manager' })),
  );
  assert.equal(v.status, 'needs_review');
  // Release 8.8.4 is before release 8.8.5 whatever the revisions after the hyphen mean.
  assert.equal(
    decide(
      { vendor: 'Hitachi, Ltd.', product: 'Device Manager', version: '8.8.4-01' },
      [hitachi].map((r) => ({ ...r, product: 'Device Manager' })),
    ).status,
    'affected',
  );
  assert.equal(
    decide(
      { vendor: 'Hitachi, Ltd.', product: 'Device Manager', version: '8.8.6-00' },
      [hitachi].map((r) => ({ ...r, product: 'Device Manager' })),
    ).status,
    'not_affected',
  );
  assert.match(v.reason, /cannot be ordered with certainty/);
  // The same shape with orderable spellings: changes[] turns the status at its version.
  const semver = {
    ...hitachi,
    product: 'Device Manager',
    end: null,
    changes: [{ at: '8.8.5', status: 'unaffected' as const }],
  };
  assert.equal(decide({ vendor: 'Hitachi', product: 'Device Manager', version: '8.8.4' }, [semver]).status, 'affected');
  assert.equal(
    decide({ vendor: 'Hitachi', product: 'Device Manager', version: '8.8.5' }, [semver]).status,
    'not_affected',
  );
});

test('free text range: needs_review "version range not machine-readable"', () => {
  const v = decide(
    { vendor: 'ABB', product: 'S+ Operations', version: '3.3 SP1' },
    [{ ...base, source: 'csaf' as const, cpe: null, product: 'S+ Operations', text: '< 3.3 SP1 3.x' }],
    'ICSA-23-068-03',
  );
  assert.equal(v.status, 'needs_review');
  assert.match(v.reason, /version range not machine-readable: "< 3.3 SP1 3.x"/);
});

// The one-pass verdict and the status-only verdictStatus against the rule written as a sort (the form verdict had
// before the one-pass rewrite): every field of the verdict, on generated range sets of several sources, statuses,
// bounds, texts and changes, for assets with and without a version.
test('property: verdict equals the sorted-rule oracle; verdictStatus equals its status', async () => {
  const fc = (await import('fast-check')).default;
  const {
    rangeAnswer,
    verdictStatus,
    describe: describeRange,
    sourceLabel,
  } = await import('../../src/domain/correlate.ts');
  const { compareVersions } = await import('../../src/domain/versions.ts');
  const CONF = { exact: 0, normalised: 1, family: 2, variant: 3, member: 4 } as const;
  const SRC = { cve5: 0, csaf: 1, nvd: 2 } as const;
  type RV = ReturnType<typeof rangeAnswer>;
  const better = (a: RV, b: RV) =>
    CONF[a.match.confidence] - CONF[b.match.confidence] ||
    SRC[a.row.source] - SRC[b.row.source] ||
    a.row.ord - b.row.ord;
  const at = (d: RV) => `${sourceLabel(d.row.source)}${d.row.source_key ? ` ${d.row.source_key}` : ''}`;
  // A variant's, a family member's or a bare line name's range says nothing certain of the asset's product.
  const indirect = (x: RV) =>
    x.match.confidence === 'variant' || x.match.confidence === 'member' || x.match.broad === true;
  function oracle(asset: Asset, matched: Parameters<typeof verdict>[1]) {
    // Only the lowest tier present counts: rows naming the asset's product, then member (and broad-line) rows, then git
    // commit ranges.
    const tierOf = (m: (typeof matched)[number]) =>
      m.row.range.versionType === 'git' ? 2 : m.match.confidence === 'member' || m.match.broad ? 1 : 0;
    const lowest = Math.min(...matched.map(tierOf));
    const considered = matched.filter((m) => tierOf(m) === lowest);
    const all = considered.map((m) => rangeAnswer(asset, m.row, m.match)).sort(better);
    const verdictOf = (o: { status: string; reason: string; d: RV; fixed: string | null }) => ({
      ...o,
      match: all[0].match,
    });
    const affected = all.filter((x) => x.answer === 'in' && x.status === 'affected');
    const unaffected = all.filter((x) => x.answer === 'in' && x.status === 'unaffected');
    const review = all.filter((x) => x.answer === 'review');
    const fixedOf = (d: RV) =>
      d.row.range.fixedIn ??
      all.find((x) => x.row.range.fixedIn && x.row.range.status === 'affected')?.row.range.fixedIn ??
      null;
    // In an affected range: the fix of a range holding the version (its affected, or a variant's or member's review),
    // else a fix above the version (any, the version unknown).
    const stated = all.filter((x) => x.row.range.fixedIn && x.row.range.status === 'affected');
    const holds = (x: RV) =>
      (x.answer === 'in' && x.status === 'affected') ||
      (x.answer === 'review' && indirect(x) && /^version .* is in /.test(x.note ?? ''));
    const ahead = (x: RV) =>
      !asset.version || [1, 'needs_review'].includes(compareVersions(x.row.range.fixedIn!, asset.version));
    const neededOf = (d: RV) =>
      d.row.range.fixedIn ?? (stated.find(holds) ?? stated.find(ahead))?.row.range.fixedIn ?? null;
    if (affected.length && unaffected.length)
      return verdictOf({
        status: 'needs_review',
        reason: `sources disagree: ${at(affected[0])} states ${describeRange(affected[0].row.range)} affected, ${at(unaffected[0])} states ${describeRange(unaffected[0].row.range)} not affected`,
        d: affected[0],
        fixed: neededOf(affected[0]),
      });
    // "Every version" is the only affected claim and an affected range with versions (matched as the product itself)
    // leaves the version out: the sources disagree.
    const every = (r: AffectedRange) => !r.version && !r.start && !r.end && !r.changes.length && !r.text;
    const out = all.filter((x) => x.answer === 'out' && x.row.range.status === 'affected' && !indirect(x));
    if (affected.length && affected.every((x) => every(x.row.range)) && out.length) {
      return verdictOf({
        status: 'needs_review',
        reason: `sources disagree: ${at(affected[0])} states every version affected, ${at(out[0])} states ${describeRange(out[0].row.range)} affected and version ${asset.version} is outside it`,
        d: affected[0],
        fixed: affected[0].row.range.fixedIn ?? out[0].row.range.fixedIn ?? fixedOf(affected[0]),
      });
    }
    if (affected.length)
      return verdictOf({
        status: 'affected',
        reason: `${asset.version ? `version ${asset.version} is in ${describeRange(affected[0].row.range)}` : 'every version is affected'} (${at(affected[0])})`,
        d: affected[0],
        fixed: neededOf(affected[0]),
      });
    // A CVE record entry (vendor, product, CPE) whose default status is affected, every listed version of which leaves
    // the version out: affected when it lists unaffected ranges only (the fix: the lowest unaffected start above the
    // version), else its first row is a review, "affected by default".
    const entries = new Map<string, RV[]>();
    for (const x of all) {
      const r = x.row.range;
      if (r.defaultStatus !== 'affected' || x.row.source !== 'cve5' || indirect(x)) continue;
      const k = `${r.vendor}|${r.product}|${r.cpe}`;
      entries.set(k, [...(entries.get(k) ?? []), x]);
    }
    const outEntries = [...entries.values()].filter((xs) => xs.every((x) => x.answer === 'out'));
    const unaffectedRows = (xs: RV[]) => xs.filter((x) => x.row.range.status === 'unaffected');
    const complete = (xs: RV[]) =>
      unaffectedRows(xs).length > 0 && unaffectedRows(xs).every((x) => x.row.range.start || x.row.range.end);
    const firstComplete = outEntries.filter(complete).sort((a, b) => better(a[0], b[0]))[0];
    if (firstComplete) {
      const row = firstComplete[0].row;
      const starts = unaffectedRows(firstComplete)
        .map((x) => x.row.range.start?.version)
        .filter((x): x is string => !!x && !!asset.version && compareVersions(x, asset.version) === 1);
      // The lowest (in list order where two cannot be ordered: the first kept).
      const fix = starts.reduce<string | null>(
        (lo, x) => (lo === null || compareVersions(x, lo) === -1 ? x : lo),
        null,
      );
      const reason = unaffected.length
        ? `sources disagree: the ${sourceLabel(row.source)} lists version ${asset.version} in none of its unaffected ranges for "${row.range.product}" and states every other version affected, ${at(unaffected[0])} states ${describeRange(unaffected[0].row.range)} not affected`
        : `version ${asset.version} is outside every range the ${sourceLabel(row.source)} lists as not affected for "${row.range.product}"${fix ? ` (the next fix: ${fix})` : ''}, and it states every other version affected (its default status)`;
      const d: RV = { ...firstComplete[0], answer: 'out', status: 'affected', note: null };
      return verdictOf({
        status: unaffected.length ? 'needs_review' : 'affected',
        reason,
        d,
        fixed: fix ?? neededOf(d),
      });
    }
    const byDefault = outEntries.map((xs): RV => ({
      ...xs[0],
      answer: 'review',
      status: 'affected',
      note: `version ${asset.version} is outside every version the ${sourceLabel(xs[0].row.source)} lists for "${xs[0].row.range.product}" (closest: ${describeRange(xs[0].row.range)}), and its default status for versions it does not list is affected`,
    }));
    const reviews = [...review, ...byDefault].sort(better);
    if (reviews.length)
      return verdictOf({
        status: 'needs_review',
        reason: reviews[0].note ?? 'cannot be decided with certainty',
        d: reviews[0],
        fixed: neededOf(reviews[0]),
      });
    const d = unaffected[0] ?? all[0];
    return verdictOf({
      status: 'not_affected',
      reason: unaffected.length
        ? `${at(d)} states ${describeRange(d.row.range)} not affected`
        : `version ${asset.version} is outside every stated range (closest: ${describeRange(d.row.range)}, ${at(d)})`,
      d,
      fixed: fixedOf(d),
    });
  }
  const ver = fc.constantFrom('1.0', '2.0', '2.9.2', 'V2.9.2', '3.0', '3.1-beta', '10.0', '4.0 SP1');
  // Bounds may be branch patterns too ("2.*", "2.9.*").
  const boundVer = fc.oneof(
    { weight: 4, arbitrary: ver },
    { weight: 1, arbitrary: fc.constantFrom('2.*', '2.9.*', '3.0.*') },
  );
  // Half the bounds and versions absent, so ranges of every version come often.
  const bound = fc.option(fc.record({ version: boundVer, inclusive: fc.boolean() }), { nil: null, freq: 2 });
  const range = fc
    .record(
      {
        source: fc.constantFrom('nvd', 'cve5', 'csaf'),
        status: fc.constantFrom('affected', 'affected', 'unaffected', 'unaffected', 'unknown'),
        version: fc.option(ver, { nil: null, freq: 2 }),
        start: bound,
        end: bound,
        text: fc.oneof(
          { weight: 9, arbitrary: fc.constant(null) },
          { weight: 1, arbitrary: fc.constantFrom('all versions before V3', 'prior to 2.0') },
        ),
        fixedIn: fc.option(ver, { nil: null }),
        cpe: fc.constantFrom(base.cpe, null),
        // A range of a variant of the asset's product (matched `variant`) or of a product of the family the asset names
        // (matched `member`): at most needs_review.
        // A bare line name ("symphony": matched `family`, broad): at most needs_review, and only when no row names the
        // asset's product.
        product: fc.constantFrom(
          base.product,
          base.product,
          `${base.product} (EU)`,
          `${base.product}_console`,
          'symphony',
        ),
        // Git commit ranges count only when no other row is stated.
        versionType: fc.constantFrom(null, null, null, 'git'),
        changes: fc.array(fc.record({ at: ver, status: fc.constantFrom('affected', 'unaffected') }), { maxLength: 2 }),
        // CVE record entries whose default status is affected (their versions listed unaffected, say).
        defaultStatus: fc.constantFrom(null, null, 'affected', 'unaffected'),
      },
      { noNullPrototype: true },
    )
    .map((r) => ({ ...base, ...r }) as AffectedRange);
  fc.assert(
    fc.property(
      fc.array(range, { minLength: 1, maxLength: 6 }),
      fc.option(ver, { nil: null }),
      fc.constantFrom('', 'ICSA-24-001-01'),
      (ranges, version, key) => {
        const asset = abb(version);
        const rows = rangeRows([{ source: 'mixed', source_key: key, ranges }]);
        const matched = rows.map((row) => ({ row, match: matchRow(asset, row)! })).filter((m) => m.match);
        if (!matched.length) return;
        const v = verdict(asset, matched);
        const o = oracle(asset, matched);
        assert.deepEqual(
          [v.status, v.reason, v.deciding.row.ord, v.deciding.answer, v.deciding.note, v.fixed_version, v.match],
          [o.status, o.reason, o.d.row.ord, o.d.answer, o.d.note, o.fixed, o.match],
        );
        assert.equal(verdictStatus(asset, matched), v.status);
      },
    ),
    { numRuns: 400 },
  );
});

// Two real Apache Tomcat records (CISA Vulnrichment, test/fixtures/cve5): the CNA names the vendor "Apache Software
// Foundation" and the product "Apache Tomcat"; CISA-ADP (CVE-2024-34750) adds the CPE spelling apache / tomcat.
// An asset typed either way meets both spellings (docs/correlation.md §2 "One organisation"); the milestone
// versions (9.0.0-M1, 9.0.0.M1) and the CNA's "A to B" texts order with certainty.
test('Apache Tomcat on real CVE records: two spellings of one table vendor, milestones and "A to B" ranges', () => {
  const records = ['CVE-2024-34750', 'CVE-2018-8034'].map((id) =>
    cve5RecordFrom(JSON.parse(readFileSync(fixture('cve5', `${id}.json`), 'utf8'))),
  );
  const verdictOf = (id: string, asset: Asset) => {
    const rec = records.find((r) => r.cve_id === id)!;
    const rows = rangeRows([{ source: rec.source, source_key: rec.source_key, ranges: rec.ranges }]);
    const matched = rows.map((row) => ({ row, match: matchRow(asset, row)! })).filter((m) => m.match);
    return {
      vendors: [...new Set(matched.map((m) => m.row.vendor_slug))].sort(),
      v: matched.length ? verdict(asset, matched) : null,
    };
  };
  for (const vendor of ['Apache', 'Apache Software Foundation']) {
    const tomcat = (version: string): Asset => ({ vendor, product: 'Tomcat', version });
    // CVE-2024-34750: 9.0.0-M1 ≤ v ≤ 9.0.89 (CNA "Apache Software Foundation") and 9.0.0-m1 ≤ v ≤ 9.0.89 (ADP, CPE
    // vendor apache): both rows match, under the one slug the alias table gives both spellings.
    const a = verdictOf('CVE-2024-34750', tomcat('9.0.50'));
    assert.deepEqual(a.vendors, ['apache'], vendor);
    assert.equal(a.v?.status, 'affected', vendor);
    assert.equal(verdictOf('CVE-2024-34750', tomcat('9.0.89')).v?.status, 'affected', `${vendor}: the inclusive end`);
    assert.equal(verdictOf('CVE-2024-34750', tomcat('9.0.90')).v?.status, 'not_affected', `${vendor}: past the end`);
    // The 11.0 milestone range (11.0.0-M1 to 11.0.0-M20) orders 9.0.x with certainty: below it.
    assert.equal(
      verdictOf('CVE-2024-34750', tomcat('11.0.0-M20')).v?.status,
      'affected',
      `${vendor}: the last milestone`,
    );
    assert.equal(
      verdictOf('CVE-2024-34750', tomcat('11.0.0-M21')).v?.status,
      'not_affected',
      `${vendor}: the next milestone`,
    );
    // CVE-2018-8034: "9.0.0.M1 to 9.0.9", "8.5.0 to 8.5.31", …: both ends included.
    assert.equal(verdictOf('CVE-2018-8034', tomcat('9.0.9')).v?.status, 'affected', `${vendor}: 9.0.9`);
    assert.equal(verdictOf('CVE-2018-8034', tomcat('9.0.10')).v?.status, 'not_affected', `${vendor}: 9.0.10`);
    assert.equal(verdictOf('CVE-2018-8034', tomcat('9.0.0.M5')).v?.status, 'affected', `${vendor}: a milestone inside`);
    assert.equal(verdictOf('CVE-2018-8034', tomcat('8.5.32')).v?.status, 'not_affected', `${vendor}: 8.5.32`);
  }
  // Another organisation's product of the same name does not match.
  assert.equal(
    verdictOf('CVE-2024-34750', { vendor: 'Eclipse Foundation', product: 'Tomcat', version: '9.0.50' }).v,
    null,
  );
});

test('one organisation under two vendor spellings outside the alias table, on a real CVE record (gVectors, CVE-2023-46310)', () => {
  // CNA "gVectors Team" / "wpDiscuz" <= 7.6.10 (changes: 7.6.11 unaffected); CISA-ADP cpe gvectors:wpdiscuz <= 7.6.10.
  const rec = cve5RecordFrom(JSON.parse(readFileSync(fixture('cve5', 'CVE-2023-46310.json'), 'utf8')));
  const rows = rangeRows([{ source: rec.source, source_key: rec.source_key, ranges: rec.ranges }]);
  assert.deepEqual(rows.map((r) => `${r.vendor_slug}/${r.product_key}`).sort(), [
    'gvectors/wpdiscuz',
    'gvectorsteam/wpdiscuz',
  ]);
  for (const vendor of ['gVectors', 'gVectors Team']) {
    const at = (version: string) => {
      const asset: Asset = { vendor, product: 'wpDiscuz', version };
      const matched = rows.map((row) => ({ row, match: matchRow(asset, row)! })).filter((m) => m.match);
      assert.equal(matched.length, 2, `${vendor}: both spellings match`);
      return verdict(asset, matched).status;
    };
    assert.equal(at('7.6.10'), 'affected', `${vendor}: the inclusive end`);
    assert.equal(at('7.6.11'), 'not_affected', `${vendor}: the fix`);
  }
});

test('SAP on a real CVE record: the CNA\'s "SAP_SE" and the CPE vendor sap are one vendor (CVE-2024-27898)', () => {
  const rec = cve5RecordFrom(JSON.parse(readFileSync(fixture('cve5', 'CVE-2024-27898.json'), 'utf8')));
  const rows = rangeRows([{ source: rec.source, source_key: rec.source_key, ranges: rec.ranges }]);
  // "SE" is a company form and SAP a table vendor: the CNA's "SAP NetWeaver" and the CPE's netweaver are one key.
  assert.deepEqual(
    rows.map((r) => `${r.vendor_slug}/${r.product_key}`),
    ['sap/netweaver', 'sap/netweaver'],
  );
  for (const [vendor, product] of [
    ['SAP', 'NetWeaver'],
    ['SAP SE', 'SAP NetWeaver'],
    ['sap_se', 'netweaver'],
  ]) {
    const asset: Asset = { vendor, product, version: '7.50' };
    const matched = rows.map((row) => ({ row, match: matchRow(asset, row)! })).filter((m) => m.match);
    assert.equal(matched.length, 2, `${vendor} / ${product}`);
    assert.equal(verdict(asset, matched).status, 'affected', `${vendor} / ${product}`);
    assert.equal(verdict({ ...asset, version: '7.40' }, matched).status, 'not_affected', `${vendor} / ${product} 7.40`);
  }
});

/**
 * A range of a less specific match (`kind`: a variant of the asset's product, a product of its family) stated not
 * affected is no claim about the asset: with the asset's own product affected below `end`, the verdict is affected.
 */
function assertNoClaim(asset: Asset, other: AffectedRange, own: string, end: string, kind: 'variant' | 'member'): void {
  const rows = rangeRows([
    {
      source: 'csaf',
      source_key: 'ICSA-00-000-00',
      ranges: [
        { ...other, status: 'unaffected', end: null, fixedIn: null },
        { ...other, product: own, end: { version: end, inclusive: false } },
      ],
    },
  ]);
  const both = matchedRows(asset, rows);
  assert.deepEqual(
    both.map((x) => x.match.confidence),
    [kind, 'exact'],
  );
  assert.equal(verdict(asset, both).status, 'affected');
}

/** Each row with its match for the asset (every row is expected to match). */
const matchedRows = (a: Asset, rs: ReturnType<typeof rangeRows>) =>
  rs.map((row) => ({ row, match: matchRow(a, row)! }));

// Variants (docs/correlation.md §2 "Variants"): the CISA advisory ICSA-24-284-01 names the product with its order
// number, "SIMATIC Drive Controller CPU 1504D TF (6ES7615-4DF10-0AB0)", affected below V3.1.4.
test("a source naming a variant of the asset's product: a variant match, at most needs_review, never a claim of not affected", () => {
  const DRIVE = 'SIMATIC Drive Controller CPU 1504D TF (6ES7615-4DF10-0AB0)';
  const variant: AffectedRange = {
    ...base,
    source: 'csaf',
    vendor: 'Siemens',
    product: DRIVE,
    cpe: null,
    end: { version: 'V3.1.4', inclusive: false },
    fixedIn: 'V3.1.4',
  };
  const plain = (version: string | null): Asset => ({
    vendor: 'Siemens AG',
    product: 'SIMATIC Drive Controller CPU 1504D TF',
    version,
  });
  const rows = rangeRows([{ source: 'csaf', source_key: 'ICSA-24-284-01', ranges: [variant] }]);
  assert.equal(rows[0].base_key, 'simatic drive controller cpu 1504d tf');
  const m = matchRow(plain('V3.1.3'), rows[0]);
  assert.deepEqual(m, {
    confidence: 'variant',
    basis:
      'the source names a variant of "SIMATIC Drive Controller CPU 1504D TF": "SIMATIC Drive Controller CPU 1504D TF (6ES7615-4DF10-0AB0)" (vendor siemens); which variant the asset is decides',
  });
  const inside = verdict(plain('V3.1.3'), [{ row: rows[0], match: m! }]);
  assert.equal(inside.status, 'needs_review');
  assert.equal(inside.reason, `version V3.1.3 is in < V3.1.4 for the variant "${DRIVE}"; the asset names no variant`);
  assert.equal(inside.fixed_version, 'V3.1.4');
  assert.equal(verdictStatus(plain('V3.1.3'), [{ row: rows[0], match: m! }]), 'needs_review');
  // Outside the variant's range: outside for every variant.
  assert.equal(verdict(plain('V3.1.4'), [{ row: rows[0], match: m! }]).status, 'not_affected');
  // The nameplate with the order number matches the product itself: affected.
  const full = { ...plain('V3.1.3'), product: DRIVE };
  assert.equal(verdict(full, [{ row: rows[0], match: matchRow(full, rows[0])! }]).status, 'affected');
  // A variant stated not affected is no claim about the asset: another source's affected range decides.
  assertNoClaim(plain('V3.1.3'), variant, 'SIMATIC Drive Controller CPU 1504D TF', 'V3.1.4', 'variant');
  // Another product: no match. A less specific nameplate names the family: a member match (below), not a variant.
  assert.equal(matchRow({ ...plain('V3.1.3'), product: 'SIMATIC Drive Controller CPU 1507D TF' }, rows[0]), null);
  assert.equal(matchRow({ ...plain('V3.1.3'), product: 'SIMATIC Drive Controller' }, rows[0])?.confidence, 'member');
});

// Members (docs/correlation.md §2 "Members"): a nameplate that names a product family ("SIMATIC S7-1500", as
// inventories often list PLCs) meets the CVEs stated for the family's products, each at most needs_review.
test('an asset naming a product family: a member match for its products, at most needs_review, never a claim of not affected', () => {
  const CPU = 'SIMATIC S7-1500 CPU 1511-1 PN';
  const cpu: AffectedRange = {
    ...base,
    source: 'csaf',
    vendor: 'Siemens',
    product: CPU,
    cpe: null,
    end: { version: 'V2.9.2', inclusive: false },
    fixedIn: 'V2.9.2',
  };
  const rows = rangeRows([{ source: 'csaf', source_key: 'ICSA-23-017-03', ranges: [cpu] }]);
  const family = (version: string | null, product = 'SIMATIC S7-1500'): Asset => ({
    vendor: 'Siemens AG',
    product,
    version,
  });
  const m = matchRow(family('V2.8'), rows[0]);
  assert.deepEqual(m, {
    confidence: 'member',
    basis: `"SIMATIC S7-1500" names a product family; the source names its product "${CPU}" (vendor siemens); which product the asset is decides`,
  });
  const inside = verdict(family('V2.8'), [{ row: rows[0], match: m! }]);
  assert.equal(inside.status, 'needs_review');
  assert.equal(
    inside.reason,
    `version V2.8 is in < V2.9.2 for "${CPU}", one product of the family "SIMATIC S7-1500" the asset names; which product the asset is decides`,
  );
  assert.equal(inside.fixed_version, 'V2.9.2');
  assert.equal(verdictStatus(family('V2.8'), [{ row: rows[0], match: m! }]), 'needs_review');
  // At the fix and past it the product's range does not cover the version: not affected as far as it goes.
  assert.equal(verdict(family('V2.9.2'), [{ row: rows[0], match: m! }]).status, 'not_affected');
  // No version: needs_review, as for the product itself.
  assert.match(
    verdict(family(null), [{ row: rows[0], match: matchRow(family(null), rows[0])! }]).reason,
    /^version unknown/,
  );
  // A product of the family stated not affected is no claim about the asset; the asset's own product decides.
  assertNoClaim(family('V2.8'), cpu, 'SIMATIC S7-1500', 'V3.0', 'member');
  // And when the asset's own product is stated outside its range, a family product's affected range does not turn
  // the verdict into a review: the row naming the asset decides.
  const own = rangeRows([
    {
      source: 'csaf',
      source_key: 'ICSA-23-017-03',
      ranges: [cpu, { ...cpu, product: 'SIMATIC S7-1500', end: { version: 'V2.0', inclusive: false } }],
    },
  ]);
  const mixed = matchedRows(family('V2.8'), own);
  assert.deepEqual(
    mixed.map((x) => x.match.confidence),
    ['member', 'exact'],
  );
  assert.equal(verdict(family('V2.8'), mixed).status, 'not_affected');
  assert.equal(verdictStatus(family('V2.8'), mixed), 'not_affected');
  // The other way round is a family match as before: the source's family covers the asset's product.
  const fam = rangeRows([
    { source: 'csaf', source_key: 'ICSA-23-017-03', ranges: [{ ...cpu, product: 'SIMATIC S7-1500' }] },
  ]);
  assert.equal(matchRow(family('V2.8', CPU), fam[0])?.confidence, 'family');
  // Boundaries: one word names no family ("SIMATIC" would take every SIMATIC product); two words do; a key that is
  // not a whole-word prefix ("S7-150"), another vendor, or the same words in another order: no match.
  assert.equal(matchRow(family('V2.8', 'SIMATIC'), rows[0]), null);
  assert.equal(matchRow(family('V2.8', 'SIMATIC S7'), rows[0])?.confidence, 'member');
  assert.equal(matchRow(family('V2.8', 'SIMATIC S7-150'), rows[0]), null);
  assert.equal(matchRow({ vendor: 'Schneider Electric', product: 'SIMATIC S7-1500' }, rows[0]), null);
  assert.equal(matchRow(family('V2.8', 'S7-1500 SIMATIC'), rows[0]), null);
});

test('isMemberKey: a whole-word prefix of at least MEMBER_MIN_WORDS words, shorter than the member', async () => {
  const { isMemberKey, MEMBER_MIN_WORDS } = await import('../../src/domain/product-match.ts');
  assert.equal(MEMBER_MIN_WORDS, 2);
  assert.equal(isMemberKey('simatic s7 1500', 'simatic s7 1500 cpu 1511 1 pn'), true);
  assert.equal(isMemberKey('windows 10', 'windows 10 version 22h2'), true);
  assert.equal(isMemberKey('simatic', 'simatic s7 1500'), false);
  assert.equal(isMemberKey('simatic s7 1500', 'simatic s7 1500'), false);
  assert.equal(isMemberKey('simatic s7 150', 'simatic s7 1500 cpu'), false);
  assert.equal(isMemberKey('simatic s7 1500', 'simatic s7 1500 '), false);
  assert.equal(isMemberKey('simatic s7', 'simatic s7 1500'), true);
  // A member naming a release of the family belongs to it for an asset of that release, or of no stated version.
  assert.equal(isMemberKey('windows 10', 'windows 10 version 1607', '1607'), true);
  assert.equal(isMemberKey('windows 10', 'windows 10 version 1607 for x64 based systems', 'Version 1607'), true);
  assert.equal(isMemberKey('windows 10', 'windows 10 version 1607', '22H2'), false);
  assert.equal(isMemberKey('windows 10', 'windows 10 version 1607', null), true);
  assert.equal(isMemberKey('simatic s7 1500', 'simatic s7 1500 cpu 1511 1 pn', 'V2.9.2'), true);
});

// ICSA-22-034-01 (test/fixtures/csaf): Log4Shell in Johnson Controls PowerManage, stated as ">= 4.0 | <= 4.8" and
// fixed in 4.10. The interval is read as bounds: kept as text, every version would answer needs_review.
test('a CISA interval ">= 4.0 | <= 4.8" decides: inside affected, at both ends, past the end not affected', async () => {
  const items = await readAll(fixture('csaf', 'icsa-22-034-01.json'));
  const rec = items.flatMap((i) => (i.kind === 'cve' && i.record.cve_id === 'CVE-2021-44228' ? [i.record] : []))[0];
  const rows = rangeRows([{ source: rec.source, source_key: rec.source_key, ranges: rec.ranges }]);
  const pm = rows.find((r) => r.range.product === 'PowerManage')!;
  assert.deepEqual(
    [pm.range.start, pm.range.end, pm.range.text],
    [{ version: '4.0', inclusive: true }, { version: '4.8', inclusive: true }, null],
  );
  const at = (version: string) => {
    const asset: Asset = { vendor: 'Johnson Controls', product: 'PowerManage', version };
    return verdict(
      asset,
      rows.map((row) => ({ row, match: matchRow(asset, row)! })).filter((m) => m.match),
    );
  };
  assert.deepEqual(
    ['3.9', '4.0', '4.5', '4.8', '4.10'].map((v) => at(v).status),
    ['not_affected', 'affected', 'affected', 'affected', 'not_affected'],
  );
  assert.equal(at('4.5').reason, 'version 4.5 is in >= 4.0, <= 4.8 (CISA advisory ICSA-22-034-01)');
  assert.equal(at('4.5').fixed_version, '4.10');
});

test('a CISA product_version named "vers:all/*" is every version: affected at any version and with none (ICSA-17-227-01)', async () => {
  const items = await readAll(fixture('csaf', 'icsa-17-227-01.json'));
  const rec = items.flatMap((i) => (i.kind === 'cve' && i.record.cve_id === 'CVE-2017-12705' ? [i.record] : []))[0];
  assert.equal(rec.ranges?.[0].version, 'vers:all/*', 'the reader keeps the branch as the advisory names it');
  const rows = rangeRows([{ source: rec.source, source_key: rec.source_key, ranges: rec.ranges }]);
  const webop = rows.find((r) => r.range.product === 'WebOP')!;
  assert.deepEqual(
    [webop.range.version, webop.range.start, webop.range.end, webop.range.text, webop.range.fixedIn],
    [null, null, null, null, null],
  );
  const at = (version: string | null) => {
    const asset: Asset = { vendor: 'Advantech', product: 'WebOP', version };
    return verdict(
      asset,
      rows.map((row) => ({ row, match: matchRow(asset, row)! })).filter((m) => m.match),
    );
  };
  assert.deepEqual(
    ['2.1.0', 'V9', null].map((v) => at(v).status),
    ['affected', 'affected', 'affected'],
  );
  assert.equal(at('2.1.0').reason, 'version 2.1.0 is in all versions (CISA advisory ICSA-17-227-01)');
});

test("other vers: strings given as a version are read as their range; a fixed leaf's range string is no fixed version", () => {
  const csaf = (
    version: string,
    status: AffectedRange['status'] = 'affected',
    fixedIn: string | null = null,
  ): AffectedRange => ({ ...base, source: 'csaf', cpe: null, status, version, fixedIn });
  const [lt, exact, text, fixedAll] = rangeRows([
    {
      source: 'csaf',
      source_key: 'X',
      ranges: [
        csaf('vers:intdot/<V3.1.4'),
        csaf('vers:intdot/2.0', 'unaffected', 'vers:intdot/2.0'),
        csaf('vers:generic/!=1.0'),
        csaf('vers:all/*', 'unaffected', 'vers:all/*'),
      ],
    },
  ]).map((r) => r.range);
  assert.deepEqual([lt.version, lt.start, lt.end], [null, null, { version: 'V3.1.4', inclusive: false }]);
  assert.deepEqual([exact.version, exact.fixedIn], ['2.0', '2.0']);
  assert.deepEqual([text.version, text.text], [null, 'vers:generic/!=1.0']);
  assert.deepEqual([fixedAll.version, fixedAll.fixedIn], [null, null]);
  // A plain version is left as it is.
  assert.equal(rangeRows([{ source: 'csaf', source_key: 'X', ranges: [csaf('V2.9.2')] }])[0].range.version, 'V2.9.2');
});

// CVE-2023-28252 (Windows CLFS, known exploited): NVD's configuration names `windows_server_2019:-` (no version, so
// every version), the Microsoft CNA's record "10.0.0 up to < 10.0.17763.4252". A patched build must not read as
// affected on NVD's word alone.
test('"every version" from one source against a range with versions that leaves the build out: needs_review (CVE-2023-28252, Windows Server 2019)', async () => {
  const records = [
    ...(await readAll(fixture('nvd', 'CVE-2023-28252.json'))),
    ...(await readAll(fixture('cve5', 'CVE-2023-28252.json'))),
  ].flatMap((i) => (i.kind === 'cve' && i.record.cve_id === 'CVE-2023-28252' ? [i.record] : []));
  assert.deepEqual(records.map((r) => r.source).sort(), ['cve5', 'nvd']);
  const rows = rangeRows(records.map((r) => ({ source: r.source, source_key: r.source_key, ranges: r.ranges })));
  const at = (version: string | null) => {
    const asset: Asset = { vendor: 'Microsoft', product: 'Windows Server 2019', version };
    const matched = rows.map((row) => ({ row, match: matchRow(asset, row)! })).filter((m) => m.match);
    return { v: verdict(asset, matched), status: verdictStatus(asset, matched) };
  };
  const patched = at('10.0.17763.4974');
  assert.equal(patched.v.status, 'needs_review');
  assert.equal(patched.status, 'needs_review');
  assert.equal(
    patched.v.reason,
    'sources disagree: NVD CPE configuration states every version affected, CVE record states >= 10.0.0, < 10.0.17763.4252 affected and version 10.0.17763.4974 is outside it',
  );
  assert.equal(patched.v.deciding.row.source, 'nvd');
  // Below the fix both say affected; the CVE record's range decides (the stronger source).
  const old = at('10.0.17763.4131');
  assert.deepEqual([old.v.status, old.status, old.v.deciding.row.source], ['affected', 'affected', 'cve5']);
  // At the fix boundary (exclusive end): outside the CVE record's range.
  assert.equal(at('10.0.17763.4252').status, 'needs_review');
  // No version: NVD's every version decides (the CVE record's range cannot be applied).
  assert.deepEqual(
    [at(null).v.status, at(null).v.reason],
    ['affected', 'every version is affected (NVD CPE configuration)'],
  );
});

// CVE-2024-21762 (test/fixtures/cve5, CISA Vulnrichment): Fortinet's record states FortiOS affected per release branch
// (7.2.0 to 7.2.6 inclusive, …) with no fix; CISA-ADP adds one `fortios` CPE interval per branch ending at its fix
// (6.0.0 to < 6.2.16, …, 7.2.0 to < 7.2.7, 7.4.0 to < 7.4.3). The fixed version for a FortiOS 7.2.4 is the fix of the
// range that holds 7.2.4 (7.2.7), not the first fix any range states (6.2.16, a downgrade); a fix at or below the
// asset's version is never the one an affected asset needs.
test('fixed_version: the fix of the range holding the version, never one at or below it (CVE-2024-21762, FortiOS)', () => {
  const rec = cve5RecordFrom(JSON.parse(readFileSync(fixture('cve5', 'CVE-2024-21762.json'), 'utf8')));
  const rows = rangeRows([{ source: rec.source, source_key: rec.source_key, ranges: rec.ranges }]);
  const at = (version: string | null) => {
    const asset: Asset = { vendor: 'Fortinet', product: 'FortiOS', version };
    return verdict(
      asset,
      rows.map((row) => ({ row, match: matchRow(asset, row)! })).filter((m) => m.match),
    );
  };
  const v = at('7.2.4');
  assert.equal(v.status, 'affected');
  assert.equal(v.reason, 'version 7.2.4 is in >= 7.2.0, <= 7.2.6 (CVE record)');
  assert.equal(v.deciding.row.range.fixedIn, null, 'the CNA range that decides states no fix');
  assert.equal(v.fixed_version, '7.2.7');
  assert.deepEqual(
    ['6.2.5', '6.4.0', '7.0.13', '7.4.1'].map((x) => at(x).fixed_version),
    ['6.2.16', '6.4.15', '7.0.14', '7.4.3'],
  );
  // An unknown version: any stated fix (the first, as before); not affected: unchanged.
  assert.equal(at(null).fixed_version, '6.2.16');
  assert.equal(at('7.2.7').status, 'not_affected');
});

// CVE-2024-23897 (test/fixtures/cve5, CISA Vulnrichment; KEV): the Jenkins Project CNA lists only unaffected versions
// (< 1.606, >= 2.442, 2.426.3 up to 2.426.*, 2.440.1 up to 2.440.*) with defaultStatus "affected", CISA-ADP the same
// with numeric ends (2.427, 2.441). Every version the entries do not list is affected by their default: a Jenkins LTS
// 2.426.2 is affected, neither not_affected ("outside every stated range") nor needs_review: the entry states its
// unaffected versions as ranges only, so its list is the whole account.
test('a CVE record entry whose default status is affected: a version outside its unaffected ranges is affected, with the next fix (CVE-2024-23897)', () => {
  const rec = cve5RecordFrom(JSON.parse(readFileSync(fixture('cve5', 'CVE-2024-23897.json'), 'utf8')));
  const rows = rangeRows([{ source: rec.source, source_key: rec.source_key, ranges: rec.ranges }]);
  const at = (version: string | null, only = rows) => {
    const asset: Asset = { vendor: 'Jenkins', product: 'Jenkins', version };
    const matched = only.map((row) => ({ row, match: matchRow(asset, row)! })).filter((m) => m.match);
    const v = verdict(asset, matched);
    assert.equal(verdictStatus(asset, matched), v.status, version ?? 'null');
    return v;
  };
  const lts = at('2.426.2');
  assert.deepEqual([lts.status, lts.fixed_version], ['affected', '2.426.3']);
  assert.equal(
    lts.reason,
    'version 2.426.2 is outside every range the CVE record lists as not affected for "Jenkins" (the next fix: 2.426.3), and it states every other version affected (its default status)',
  );
  assert.deepEqual([lts.deciding.answer, lts.deciding.status], ['out', 'affected']);
  // The next fix is the lowest unaffected start above the version: 2.440.1 for a weekly 2.430, 2.442 for 2.441.
  assert.deepEqual(
    ['1.606', '2.430', '2.441'].map((x) => [at(x).status, at(x).fixed_version]),
    [
      ['affected', '2.426.3'],
      ['affected', '2.440.1'],
      ['affected', '2.442'],
    ],
  );
  // An entry that also lists a single unaffected version (AMD's "RomePI 1.0.0.C" in CVE-2021-26344 means that
  // firmware and later) is not a whole account: outside it, the default is a review, never "not affected".
  const cna = rows.filter((r) => r.range.product === 'Jenkins' && r.range.vendor === 'Jenkins Project');
  const lone = rangeRows([
    {
      source: rec.source,
      source_key: rec.source_key,
      ranges: [...cna.map((r) => r.range), { ...cna[0].range, start: null, end: null, version: '2.427' }],
    },
  ]);
  const review = at('2.426.2', lone);
  assert.equal(review.status, 'needs_review');
  assert.equal(
    review.reason,
    'version 2.426.2 is outside every version the CVE record lists for "Jenkins" (closest: < 1.606), and its default status for versions it does not list is affected',
  );
  assert.deepEqual([review.deciding.answer, review.deciding.status], ['review', 'affected']);
  // Without unaffected rows at all (an entry listing only affected ranges, default affected): a review too.
  const onlyAffected = rangeRows([
    {
      source: rec.source,
      source_key: rec.source_key,
      ranges: [{ ...cna[0].range, status: 'affected', start: null, end: { version: '2.0', inclusive: false } }],
    },
  ]);
  assert.equal(at('2.426.2', onlyAffected).status, 'needs_review');
  // Listed unaffected: not affected, the branch ends ("2.426.3" to "2.426.*") included: the whole branch from its fix
  // (the comparator orders "2.426.*"; without that 2.426.3, 2.440.1 and 2.442 would be reviews).
  assert.deepEqual(
    ['1.605', '2.426.3', '2.426.17', '2.440.1', '2.442', '2.500'].map((x) => at(x).status),
    ['not_affected', 'not_affected', 'not_affected', 'not_affected', 'not_affected', 'not_affected'],
  );
  assert.equal(at('2.426.3').reason, 'CVE record states >= 2.426.3, < 2.426.* not affected');
  assert.equal(at('1.605').reason, 'CVE record states < 1.606 not affected');
});

// CVE-2021-47432 (test/fixtures/cve5, CISA Vulnrichment): the Linux kernel CNA states git commit ranges per stable
// branch in one entry (defaultStatus unaffected), and the releases in another: "6.1.64" to "6.1.*", "6.5.13" to
// "6.5.*", "6.6.3" to "6.6.*" and "6.7" on unaffected, defaultStatus affected.
test('Linux kernel records: the release rows decide (branch ends "6.1.*"), the git commit ranges count only alone (CVE-2021-47432)', () => {
  const rec = cve5RecordFrom(JSON.parse(readFileSync(fixture('cve5', 'CVE-2021-47432.json'), 'utf8')));
  const rows = rangeRows([{ source: rec.source, source_key: rec.source_key, ranges: rec.ranges }]);
  assert.deepEqual(
    rows.map((r) => r.range.versionType),
    ['git', 'git', 'git', 'git', 'custom', 'custom', 'custom', 'original_commit_for_fix'],
  );
  const at = (version: string, only?: (r: RangeRow) => boolean) => {
    const asset: Asset = { vendor: 'Linux', product: 'Linux', version };
    const matched = rows.filter((r) => !only || only(r)).map((row) => ({ row, match: matchRow(asset, row)! }));
    const v = verdict(asset, matched);
    assert.equal(verdictStatus(asset, matched), v.status, version);
    return v;
  };
  // Inside a stable branch from its fix, and mainline from 6.7: not affected.
  for (const [version, range] of [
    ['6.1.64', '>= 6.1.64, <= 6.1.*'],
    ['6.1.120', '>= 6.1.64, <= 6.1.*'],
    ['6.6.3', '>= 6.6.3, <= 6.6.*'],
    ['6.7', '>= 6.7'],
    ['6.12.1', '>= 6.7'],
  ]) {
    const v = at(version);
    assert.deepEqual([v.status, v.reason], ['not_affected', `CVE record states ${range} not affected`], version);
  }
  // Below the branch's fix, or a branch the record does not list: outside every unaffected range, so affected by the
  // entry's default, with the next fix; never the git rows' "cannot be ordered".
  for (const [version, fix] of [
    ['6.1.63', '6.1.64'],
    ['6.2.10', '6.5.13'],
    ['5.15.100', '6.1.64'],
  ]) {
    const v = at(version);
    assert.deepEqual(
      [v.status, v.fixed_version, v.reason],
      [
        'affected',
        fix,
        `version ${version} is outside every range the CVE record lists as not affected for "Linux" (the next fix: ${fix}), and it states every other version affected (its default status)`,
      ],
      version,
    );
  }
  // The git ranges alone: a review that says why.
  const git = at('6.1.120', (r) => r.range.versionType === 'git');
  assert.deepEqual(
    [git.status, git.reason],
    ['needs_review', 'version 6.1.120 cannot be ordered with certainty against >= 1da177e4c3f4, < 784d01f9bbc2'],
  );
});

// CVE-2022-22060 (test/fixtures/cve5, CISA Vulnrichment): Qualcomm names the line "Snapdragon" as the product and its 71
// chipsets and platforms as `versions[]`. Each is a product of its own, affected in every version; the line itself
// only under the condition that the asset is one of them.
test('Qualcomm on a real record: chipsets listed as versions are products, the bare line "Snapdragon" needs review', () => {
  const rec = cve5RecordFrom(JSON.parse(readFileSync(fixture('cve5', 'CVE-2022-22060.json'), 'utf8')));
  // The CNA's 72 (one per chipset and the line); CISA-ADP's 59 `*_firmware` CPE ranges beside them say the same.
  const cna = rec.ranges!.filter((r) => r.vendor === 'Qualcomm, Inc.');
  assert.equal(cna.length, 72);
  assert.equal(cna.filter((r) => r.version || r.start || r.end || r.text).length, 0);
  const rows = rangeRows([{ source: rec.source, source_key: rec.source_key, ranges: rec.ranges! }]);
  const verdictOf = (product: string, version: string | null) => {
    const asset: Asset = { vendor: 'Qualcomm', product, version };
    const matched = rows.map((row) => ({ row, match: matchRow(asset, row)! })).filter((m) => m.match);
    return matched.length ? verdict(asset, matched) : null;
  };
  for (const chip of ['QCA6574AU', 'FastConnect 6900', 'Snapdragon 865 5G Mobile Platform', 'WSA8835']) {
    const v = verdictOf(chip, '1.0')!;
    assert.equal(v.status, 'affected', chip);
    assert.equal(v.deciding.row.range.product, chip);
  }
  assert.equal(verdictOf('QCA6574AU firmware', null)!.status, 'affected');
  // Not listed: QCA6574 (the record lists QCA6574A and QCA6574AU), FastConnect 6100.
  assert.equal(verdictOf('QCA6574', '1.0'), null);
  assert.equal(verdictOf('FastConnect 6100', '1.0'), null);
  // The line alone, whatever its version (a chipset name in the version field included): needs review, with the list.
  for (const version of ['1.0', 'QCA6574AU', null]) {
    const v = verdictOf('Snapdragon', version)!;
    assert.equal(v.status, 'needs_review', String(version));
  }
  assert.match(
    verdictOf('Snapdragon', '1.0')!.reason,
    /only under a condition: "only the chipsets and platforms the record lists as affected: 315 5G IoT Modem, AR8035, .*, … \(71 in all\)"/,
  );
});

// CVE-2024-20267 (test/fixtures/cve5, CISA Vulnrichment): Cisco lists the 205 affected NX-OS releases one by one, over
// several trains ("6.0(2)A3(1)", "7.0(3)F3(3)", "7.0(3)I7(5a)") and plain releases ("9.3(7a)", "10.2(3t)").
test('Cisco NX-OS on a real record: an exact list over trains decides; two trains are different releases', () => {
  const rec = cve5RecordFrom(JSON.parse(readFileSync(fixture('cve5', 'CVE-2024-20267.json'), 'utf8')));
  const rows = rangeRows([{ source: rec.source, source_key: rec.source_key, ranges: rec.ranges! }]);
  const verdictOf = (version: string) => {
    const asset: Asset = { vendor: 'Cisco', product: 'Cisco NX-OS Software', version };
    return verdict(
      asset,
      rows.map((row) => ({ row, match: matchRow(asset, row)! })).filter((m) => m.match),
    );
  };
  for (const v of ['7.0(3)I7(5a)', '6.0(2)A3(1)', '7.0(3)F3(3)', '9.3(7a)', '10.2(3t)', '10.4(1)'])
    assert.equal(verdictOf(v).status, 'affected', v);
  // Listed neighbours that are not in the list: I7(11) after I7(10), F3(6) in the F3 train, 9.3(13) after 9.3(12).
  for (const v of ['7.0(3)I7(11)', '7.0(3)F3(6)', '9.3(13)', '10.4(2)']) {
    const d = verdictOf(v);
    assert.equal(d.status, 'not_affected', v);
    assert.match(d.reason, /outside every stated range/);
  }
  // A release the Cisco grammars do not read stays undecided.
  assert.equal(verdictOf('7.0.3.I7.5').status, 'needs_review');
});
