// sage_priority and the named match (src/domain/alerts.ts): each rule at its boundary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { bestMatch, sagePriority, SAGE_PRIORITIES, type PriorityFacts } from '../../src/domain/alerts.ts';
import { alertsStatus } from '../../src/domain/health.ts';

const QUIET: PriorityFacts = { kev: false, exploit_maturity: 'NONE', bcs: 3.9, cvss: 3.9, epss_percentile: 0.4999, patch_available: false, asset_match: false };
const p = (o: Partial<PriorityFacts>) => sagePriority({ ...QUIET, ...o });

test('PATCH NOW: KEV or WEAPONIZED with BCS ≥ 9 or an asset match; CVSS 10 + PoC + no fix', () => {
  assert.equal(p({ kev: true, exploit_maturity: 'WEAPONIZED', bcs: 9 }), 'PATCH NOW');
  assert.equal(p({ kev: true, exploit_maturity: 'WEAPONIZED', bcs: 8.9 }), 'PATCH NEXT');
  assert.equal(p({ kev: true, bcs: 5, asset_match: true }), 'PATCH NOW');
  assert.equal(p({ exploit_maturity: 'WEAPONIZED', bcs: 9.5 }), 'PATCH NOW', 'WEAPONIZED without the KEV flag');
  assert.equal(p({ kev: true, bcs: 10, patch_available: true }), 'PATCH NOW', 'a fix lowers nothing for KEV');
  assert.equal(p({ cvss: 10, bcs: 7, exploit_maturity: 'POC' }), 'PATCH NOW');
  assert.equal(p({ cvss: 10, bcs: 7, exploit_maturity: 'POC', patch_available: true }), 'MONITOR');
  assert.equal(p({ cvss: 9.9, bcs: 7, exploit_maturity: 'POC' }), 'MONITOR');
  assert.equal(p({ cvss: 10, bcs: 7, exploit_maturity: 'NONE' }), 'MONITOR');
});

test('PATCH NEXT: KEV; BCS ≥ 8 + functional exploit; EPSS ≥ 0.90 + BCS ≥ 7; asset match + BCS ≥ 9', () => {
  assert.equal(p({ kev: true, bcs: 2 }), 'PATCH NEXT');
  assert.equal(p({ bcs: 8, exploit_maturity: 'FUNCTIONAL' }), 'PATCH NEXT');
  assert.equal(p({ bcs: 7.9, exploit_maturity: 'FUNCTIONAL' }), 'MONITOR');
  assert.equal(p({ bcs: 8, exploit_maturity: 'POC' }), 'MONITOR');
  assert.equal(p({ bcs: 7, epss_percentile: 0.9 }), 'PATCH NEXT');
  assert.equal(p({ bcs: 7, epss_percentile: 0.8999 }), 'MONITOR');
  assert.equal(p({ bcs: 6.9, epss_percentile: 0.99 }), 'MONITOR');
  assert.equal(p({ bcs: 9, asset_match: true }), 'PATCH NEXT');
  assert.equal(p({ bcs: 8.9, asset_match: true }), 'MONITOR');
});

test('MONITOR: BCS ≥ 4, a PoC, EPSS ≥ the median, or an asset match; otherwise IGNORE', () => {
  assert.equal(p({}), 'IGNORE');
  assert.equal(p({ bcs: 4 }), 'MONITOR');
  assert.equal(p({ exploit_maturity: 'POC' }), 'MONITOR');
  assert.equal(p({ epss_percentile: 0.5 }), 'MONITOR');
  assert.equal(p({ epss_percentile: null }), 'IGNORE');
  assert.equal(p({ asset_match: true }), 'MONITOR');
  assert.equal(p({ cvss: null }), 'IGNORE');
});

test('properties: more evidence never lowers the priority', () => {
  const rank = (x: string) => SAGE_PRIORITIES.indexOf(x as (typeof SAGE_PRIORITIES)[number]);
  const facts = fc.record({
    kev: fc.boolean(), exploit_maturity: fc.constantFrom('NONE', 'POC', 'FUNCTIONAL', 'WEAPONIZED'),
    bcs: fc.integer({ min: 0, max: 100 }).map((x) => x / 10), cvss: fc.option(fc.integer({ min: 0, max: 100 }).map((x) => x / 10)),
    epss_percentile: fc.option(fc.double({ min: 0, max: 1, noNaN: true })), patch_available: fc.boolean(), asset_match: fc.boolean(),
  }) as fc.Arbitrary<PriorityFacts>;
  fc.assert(fc.property(facts, (f) => {
    const base = rank(sagePriority(f));
    assert.ok(rank(sagePriority({ ...f, kev: true })) <= base, 'KEV');
    assert.ok(rank(sagePriority({ ...f, asset_match: true })) <= base, 'asset match');
    assert.ok(rank(sagePriority({ ...f, bcs: Math.min(10, f.bcs + 1) })) <= base, 'BCS');
  }), { numRuns: 1000 });
});

test('bestMatch: the CVE itself, then an asset, a product, a vendor, a protocol; ties by name', () => {
  assert.equal(bestMatch([]), null);
  assert.deepEqual(bestMatch([
    { entity_type: 'protocol', entity_name: 'Modbus' }, { entity_type: 'vendor', entity_name: 'Siemens' },
    { entity_type: 'product', entity_name: 'Siemens SICAM A8000' },
  ]), { entity_type: 'product', entity_name: 'Siemens SICAM A8000' });
  assert.equal(bestMatch([{ entity_type: 'vendor', entity_name: 'Siemens' }, { entity_type: 'cve', entity_name: 'CVE-2024-1' }])!.entity_type, 'cve');
  assert.equal(bestMatch([{ entity_type: 'vendor', entity_name: 'Siemens' }, { entity_type: 'vendor', entity_name: 'Moxa' }])!.entity_name, 'Moxa');
  assert.equal(bestMatch([{ entity_type: 'vendor', entity_name: 'Siemens' }, { entity_type: 'environment', entity_name: 'Plant 1' }])!.entity_type, 'environment');
});

test('health services.alerts from the latest run: never_run, operational, stale after 45 minutes, stalled after 10 running', () => {
  const now = new Date('2026-11-21T12:00:00Z');
  const ago = (m: number) => new Date(now.getTime() - m * 60_000);
  assert.equal(alertsStatus(null, now), 'never_run');
  assert.equal(alertsStatus({ status: 'completed', started_at: ago(46), finished_at: ago(45) }, now), 'operational');
  assert.equal(alertsStatus({ status: 'completed', started_at: ago(46), finished_at: ago(45.01) }, now), 'stale');
  assert.equal(alertsStatus({ status: 'running', started_at: ago(9.99), finished_at: null }, now), 'operational');
  assert.equal(alertsStatus({ status: 'running', started_at: ago(10), finished_at: null }, now), 'stalled');
});
