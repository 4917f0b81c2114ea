// The verdict rules of domain/correlate.ts on ranges shaped as the readers produce them. The CVE 5 case is the
// real record CVE-2020-36695 (CISA Vulnrichment, /work/shared/data/cve5), its affected[] entry for Hitachi Device
// Manager written out as the range the CVE 5 reader yields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rangeRows, verdict, matchRow, type Asset } from '../../src/domain/correlate.ts';
import type { AffectedRange } from '../../src/domain/ranges.ts';

const base: AffectedRange = {
  source: 'nvd', vendor: 'abb', product: 'symphony_plus_s+_operations', cpe: 'cpe:2.3:a:abb:symphony_plus_s\\+_operations:*:*:*:*:*:*:*:*',
  status: 'affected', version: null, start: null, end: null, versionType: null, changes: [], defaultStatus: null, fixedIn: null, runningOn: null, text: null,
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
  const r = [{ ...base, vendor: 'siemens', product: 'cp-8031_firmware', cpe: 'cpe:2.3:o:siemens:cp-8031_firmware:*:*:*:*:*:*:*:*', end: { version: '5.0', inclusive: false }, runningOn: ['cpe:2.3:h:siemens:cp-8031:-:*:*:*:*:*:*:*'] }];
  const onDevice = decide({ vendor: 'Siemens', product: 'CP-8031', version: '4.0' }, r);
  assert.equal(onDevice.status, 'affected');
  const onlyFw = decide({ vendor: 'Siemens', product: 'CP-8031 firmware', version: '4.0', cpe: 'cpe:2.3:o:siemens:cp-8031_firmware:4.0:*:*:*:*:*:*:*' }, [{ ...r[0], runningOn: ['cpe:2.3:h:siemens:cp-8050:-:*:*:*:*:*:*:*'] }]);
  assert.equal(onlyFw.status, 'needs_review');
  assert.match(onlyFw.reason, /running on cpe:2\.3:h:siemens:cp-8050/);
});

test('unknown version: affected only when every version is affected, else needs_review', () => {
  assert.equal(decide(abb(null), [base]).status, 'affected');
  const v = decide(abb(null), [{ ...base, end: { version: '3.3', inclusive: false } }]);
  assert.equal(v.status, 'needs_review');
  assert.match(v.reason, /version unknown/);
});

test('CVE 5 changes[] and custom versions (CVE-2020-36695, Hitachi Device Manager): "8.8.5-02" cannot be ordered, so needs_review', () => {
  const hitachi: AffectedRange = {
    ...base, source: 'cve5', vendor: 'Hitachi', product: 'Hitachi Device Manager', cpe: null, start: { version: '0', inclusive: true },
    end: { version: '8.8.5-02', inclusive: false }, versionType: 'custom', changes: [{ at: '8.8.5-02', status: 'unaffected' }], defaultStatus: 'unaffected',
  };
  const v = decide({ vendor: 'Hitachi, Ltd.', product: 'Device Manager', version: '8.8.4-01' }, [hitachi].map((r) => ({ ...r, product: 'Device Manager' })));
  assert.equal(v.status, 'needs_review');
  assert.match(v.reason, /cannot be ordered with certainty/);
  // The same shape with orderable spellings: changes[] turns the status at its version.
  const semver = { ...hitachi, product: 'Device Manager', end: null, changes: [{ at: '8.8.5', status: 'unaffected' as const }] };
  assert.equal(decide({ vendor: 'Hitachi', product: 'Device Manager', version: '8.8.4' }, [semver]).status, 'affected');
  assert.equal(decide({ vendor: 'Hitachi', product: 'Device Manager', version: '8.8.5' }, [semver]).status, 'not_affected');
});

test('free text range: needs_review "version range not machine-readable"', () => {
  const v = decide({ vendor: 'ABB', product: 'S+ Operations', version: '3.3 SP1' }, [{ ...base, source: 'csaf' as const, cpe: null, product: 'S+ Operations', text: '< 3.3 SP1 3.x' }], 'ICSA-23-068-03');
  assert.equal(v.status, 'needs_review');
  assert.match(v.reason, /version range not machine-readable: "< 3.3 SP1 3.x"/);
});
