// sage_priority and the named match (src/domain/alerts.ts): each rule at its boundary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  alertEmail,
  alertPayloadFor,
  bestMatch,
  deliveryStatusOf,
  sagePriority,
  SAGE_PRIORITIES,
  type EmailAlertLine,
  type MatchCandidate,
  type PriorityFacts,
} from '../../src/domain/alerts.ts';
import { alertsStatus } from '../../src/domain/health.ts';
import { truncateSummary } from '../../src/domain/cve-view.ts';

const QUIET: PriorityFacts = {
  kev: false,
  exploit_maturity: 'NONE',
  bcs: 3.9,
  cvss: 3.9,
  epss_percentile: 0.4999,
  patch_available: false,
  asset_match: false,
};
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
    kev: fc.boolean(),
    exploit_maturity: fc.constantFrom('NONE', 'POC', 'FUNCTIONAL', 'WEAPONIZED'),
    bcs: fc.integer({ min: 0, max: 100 }).map((x) => x / 10),
    cvss: fc.option(fc.integer({ min: 0, max: 100 }).map((x) => x / 10)),
    epss_percentile: fc.option(fc.double({ min: 0, max: 1, noNaN: true })),
    patch_available: fc.boolean(),
    asset_match: fc.boolean(),
  }) as fc.Arbitrary<PriorityFacts>;
  fc.assert(
    fc.property(facts, (f) => {
      const base = rank(sagePriority(f));
      assert.ok(rank(sagePriority({ ...f, kev: true })) <= base, 'KEV');
      assert.ok(rank(sagePriority({ ...f, asset_match: true })) <= base, 'asset match');
      assert.ok(rank(sagePriority({ ...f, bcs: Math.min(10, f.bcs + 1) })) <= base, 'BCS');
    }),
    { numRuns: 1000 },
  );
});

test('bestMatch: the CVE itself, then an asset, a product, a vendor, a protocol; ties by name', () => {
  assert.equal(bestMatch([]), null);
  assert.deepEqual(
    bestMatch([
      { entity_type: 'protocol', entity_name: 'Modbus' },
      { entity_type: 'vendor', entity_name: 'Siemens' },
      { entity_type: 'product', entity_name: 'Siemens SICAM A8000' },
    ]),
    { entity_type: 'product', entity_name: 'Siemens SICAM A8000' },
  );
  assert.equal(
    bestMatch([
      { entity_type: 'vendor', entity_name: 'Siemens' },
      { entity_type: 'cve', entity_name: 'CVE-2024-1' },
    ])!.entity_type,
    'cve',
  );
  assert.equal(
    bestMatch([
      { entity_type: 'vendor', entity_name: 'Siemens' },
      { entity_type: 'vendor', entity_name: 'Moxa' },
    ])!.entity_name,
    'Moxa',
  );
  assert.equal(
    bestMatch([
      { entity_type: 'vendor', entity_name: 'Siemens' },
      { entity_type: 'environment', entity_name: 'Plant 1' },
    ])!.entity_type,
    'environment',
  );
});

test('bestMatch: the first candidate stays best unless a later one is more specific, or as specific with a smaller name', () => {
  const cve = { entity_type: 'cve', entity_name: 'CVE-2024-3400' } as const;
  const moxa = { entity_type: 'vendor', entity_name: 'Moxa' } as const;
  const siemens = { entity_type: 'vendor', entity_name: 'Siemens' } as const;
  const zeta = { entity_type: 'product', entity_name: 'Zeta Gateway' } as const;
  const abb = { entity_type: 'vendor', entity_name: 'ABB' } as const;
  assert.equal(bestMatch([cve, moxa]), cve);
  assert.equal(bestMatch([moxa, siemens]), moxa, 'a tie keeps the smaller name, whichever comes first');
  assert.equal(bestMatch([siemens, moxa]), moxa);
  assert.equal(bestMatch([zeta, abb]), zeta, 'a smaller name does not beat a more specific type');
  assert.equal(bestMatch([abb, zeta]), zeta);
  const again: MatchCandidate = { entity_type: 'vendor', entity_name: 'Moxa' };
  assert.equal(bestMatch([moxa, again]), moxa, 'an equal name does not replace the best');
  assert.equal(bestMatch([{ entity_type: 'protocol', entity_name: 'Modbus' }, moxa, zeta, cve, abb]), cve);
  assert.equal(bestMatch([moxa]), moxa);
});

test('deliveryStatusOf: no webhook, any failure, any delivery, else skipped', () => {
  assert.equal(deliveryStatusOf([]), 'no_webhooks');
  assert.equal(deliveryStatusOf(['failed']), 'failed');
  assert.equal(deliveryStatusOf(['delivered', 'failed', 'skipped']), 'failed');
  assert.equal(deliveryStatusOf(['skipped', 'delivered']), 'delivered');
  assert.equal(deliveryStatusOf(['delivered']), 'delivered');
  assert.equal(deliveryStatusOf(['skipped', 'skipped']), 'skipped');
});

const FOOTER = '\n\nYou receive this because of your notification preferences (Account → Notifications).\n';
const LINE_A: EmailAlertLine = {
  cve_id: 'CVE-2024-3400',
  title: 'PAN-OS GlobalProtect command injection',
  sage_priority: 'PATCH NOW',
  cvss_score: 10,
  kev_flagged: true,
  url: 'https://vulnintel.test/cve/CVE-2024-3400',
  reasons: ['added to KEV', 'EPSS percentile 45 → 97'],
  watchlist_match: { entity_type: 'vendor', entity_name: 'Palo Alto Networks' },
};
const LINE_B: EmailAlertLine = {
  cve_id: 'CVE-2023-28489',
  title: 'SICAM A8000 command injection',
  sage_priority: 'MONITOR',
  cvss_score: null,
  kev_flagged: false,
  url: 'https://vulnintel.test/cve/CVE-2023-28489',
  watchlist_match: { entity_type: 'product', entity_name: 'Siemens SICAM A8000' },
};

test('alertEmail instant: subject with priority and CVE; the block line by line', () => {
  assert.deepEqual(alertEmail('instant', [LINE_A]), {
    subject: '[Vulnintel] PATCH NOW: CVE-2024-3400',
    text:
      'CVE-2024-3400 — PATCH NOW (CISA KEV), CVSS 10\n  PAN-OS GlobalProtect command injection\n  Matched: vendor Palo Alto Networks\n' +
      '  Why: added to KEV; EPSS percentile 45 → 97\n  https://vulnintel.test/cve/CVE-2024-3400' +
      FOOTER,
  });
  assert.deepEqual(alertEmail('instant', [LINE_B]), {
    subject: '[Vulnintel] MONITOR: CVE-2023-28489',
    text:
      'CVE-2023-28489 — MONITOR, CVSS n/a\n  SICAM A8000 command injection\n  Matched: product Siemens SICAM A8000\n' +
      '  https://vulnintel.test/cve/CVE-2023-28489' +
      FOOTER,
  });
  assert.equal(
    alertEmail('instant', [{ ...LINE_B, cvss_score: 0, reasons: [] }])
      .text.split('\n')
      .slice(0, 4)
      .join('|'),
    'CVE-2023-28489 — MONITOR, CVSS 0|  SICAM A8000 command injection|  Matched: product Siemens SICAM A8000|  https://vulnintel.test/cve/CVE-2023-28489',
  );
});

test('alertEmail digest: count in the subject and the first line (singular at one), blocks separated by a blank line', () => {
  const one = alertEmail('daily_digest', [LINE_B]);
  assert.equal(one.subject, '[Vulnintel] Daily digest: 1 alert');
  assert.equal(
    one.text,
    '1 alert since your last digest:\n\nCVE-2023-28489 — MONITOR, CVSS n/a\n  SICAM A8000 command injection\n' +
      '  Matched: product Siemens SICAM A8000\n  https://vulnintel.test/cve/CVE-2023-28489' +
      FOOTER,
  );
  const two = alertEmail('daily_digest', [LINE_A, LINE_B]);
  assert.equal(two.subject, '[Vulnintel] Daily digest: 2 alerts');
  assert.equal(
    two.text,
    `2 alerts since your last digest:\n\n${alertEmail('instant', [LINE_A]).text.replace(FOOTER, '')}\n\n` +
      `${alertEmail('instant', [LINE_B]).text.replace(FOOTER, '')}${FOOTER}`,
  );
  assert.ok(two.text.includes('https://vulnintel.test/cve/CVE-2024-3400\n\nCVE-2023-28489 — MONITOR'));
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

test('alertPayloadFor: the AI texts per plan (spec §2.8), as GET /api/v1/cves/{id} shows them; identifiers untouched', () => {
  const summary = `${'word '.repeat(60)}end.`;
  type Data = {
    cve_id: string;
    title: string;
    executive_summary: string | null;
    mitigation: string | null;
    causal_boundary: string | null;
    virtual_patch: string | null;
    reasons: string[];
  };
  const p: { event: string; version: string; timestamp: string; data: Data } = {
    event: 'cve.alert',
    version: '1.0',
    timestamp: '2026-11-21T12:15:00Z',
    data: {
      cve_id: 'CVE-2024-3400',
      title: 'T',
      executive_summary: summary,
      mitigation: 'Patch now.',
      causal_boundary: null,
      virtual_patch: 'alert tcp any any',
      reasons: ['added to KEV'],
    },
  };
  for (const tier of ['professional', 'api', 'enterprise'] as const) assert.equal(alertPayloadFor(p, tier), p, tier);
  for (const tier of ['free', 'standard', null] as const) {
    const v = alertPayloadFor(p, tier);
    assert.deepEqual<typeof p>(
      v,
      { ...p, data: { ...p.data, executive_summary: truncateSummary(summary), mitigation: null, virtual_patch: null } },
      String(tier),
    );
    assert.ok(v.data.executive_summary!.endsWith('…'));
  }
  assert.equal(p.data.mitigation, 'Patch now.', 'the stored payload is not changed');
  assert.deepEqual(alertPayloadFor({ data: { executive_summary: null, mitigation: null } }, 'standard'), {
    data: { executive_summary: null, mitigation: null },
  });
});
