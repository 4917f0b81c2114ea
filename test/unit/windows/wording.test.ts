// The English of the Windows results (src/domain/windows/wording.ts), sentence by sentence: the fix action per fix
// type and class, why a CVE has its status (build, below, the series rules, an override), the priority reason's
// parts in order, and the fix-group titles. The rules decide elsewhere; these sentences are what users read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GROUP_TEXT, LABEL, fixAction, priorityReason, whyText } from '../../../src/domain/windows/wording.ts';
import {
  WHY_BELOW,
  WHY_BUILD,
  WHY_SERIES_CLEAR,
  WHY_SERIES_OPEN,
  type Verdict,
} from '../../../src/domain/windows/verdict-facts.ts';
import type { Prepared } from '../../../src/domain/windows/prepared.ts';
import type { SortKeys } from '../../../src/domain/windows/priority.ts';

const v = (o: Partial<Verdict> = {}): Verdict => ({
  status: 'confirmed open',
  fixedBuild: '10.0.17763.6293',
  kb: 'KB5043050',
  note: null,
  fixClass: 'lcu',
  fixMonth: '2024-09',
  fixUrl: null,
  derived: false,
  why: WHY_BELOW,
  fixType: 'kb',
  ...o,
});
const keys = (o: Partial<SortKeys> = {}): SortKeys => ({
  kev: false,
  exploit: false,
  fixTier: 0,
  bcs: 5,
  cvss: 9.8,
  epss: 0.42,
  published: null,
  fixAvailable: true,
  ...o,
});
const NO_P = {} as Prepared;
const WS = 'Windows Server 2019';

test('fix action: cumulative update, monthly rollup, standalone and other classes, ESU, no installable update', () => {
  assert.equal(
    fixAction(v(), WS),
    'Install KB5043050 (cumulative update, build 10.0.17763.6293) or any later cumulative update for Windows Server 2019',
  );
  // Security Only updates were released up to October 2023: a rollup of that month or before names it, a later one not.
  assert.equal(
    fixAction(v({ fixClass: 'rollup', fixedBuild: null, fixMonth: '2023-10' }), 'Windows Server 2012 R2'),
    'Install KB5043050 (monthly rollup, or its Security Only update) or any later monthly rollup for Windows Server 2012 R2',
  );
  assert.equal(
    fixAction(v({ fixClass: 'rollup', fixedBuild: null, fixMonth: '2023-11' }), 'Windows Server 2012 R2'),
    'Install KB5043050 (monthly rollup) or any later monthly rollup for Windows Server 2012 R2',
  );
  assert.equal(
    fixAction(v({ fixClass: 'rollup', fixedBuild: null, fixMonth: null }), 'Windows Server 2012 R2'),
    'Install KB5043050 (monthly rollup, or its Security Only update) or any later monthly rollup for Windows Server 2012 R2',
  );
  assert.equal(
    fixAction(v({ fixClass: 'standalone' }), WS),
    'Install KB5043050 (standalone security update, build 10.0.17763.6293) for Windows Server 2019',
  );
  assert.equal(
    fixAction(v({ fixClass: 'ssu', fixedBuild: null }), WS),
    'Install KB5043050 (servicing stack update) for Windows Server 2019',
  );
  assert.equal(
    fixAction(v({ fixClass: null, fixedBuild: null }), WS),
    'Install KB5043050 (update) for Windows Server 2019',
  );
  assert.equal(
    fixAction(v({ fixType: 'esu', fixClass: 'rollup', fixedBuild: null }), 'Windows Server 2012'),
    'ESU required: KB5043050 (monthly rollup) was released after end of support for Windows Server 2012; enrol in Extended Security Updates or upgrade the OS',
  );
  assert.equal(
    fixAction(v({ fixType: 'none' }), WS),
    "No installable update for this edition after end of support; upgrade to a supported Windows version (Microsoft's fix is KB5043050)",
  );
  assert.equal(
    fixAction(v({ fixType: 'none', kb: null }), WS),
    'No update from Microsoft for this product; apply mitigations or upgrade',
  );
});

test("why: at or above, below, an override, the series rules, and a rule's own sentence", () => {
  assert.equal(
    whyText(v({ why: WHY_BUILD }), '10.0.17763.6400', NO_P),
    'build 10.0.17763.6400 is at or above the fixed build 10.0.17763.6293',
  );
  assert.equal(whyText(v(), '10.0.17763.6054', NO_P), 'build 10.0.17763.6054 is below the fixed build 10.0.17763.6293');
  assert.equal(
    whyText(v({ derived: true }), '10.0.17763.6054', NO_P),
    "build 10.0.17763.6054 is below the fixed build 10.0.17763.6293 (Microsoft's row gives another product's KB; corrected by a reviewed override)",
  );
  const k = { kb: 'KB5044277', month: '2024-10', build: { text: '10.0.17763.6414' } };
  assert.equal(
    whyText(v({ why: WHY_SERIES_CLEAR }), '10.0.17763.6500', { clearAt: k } as unknown as Prepared),
    'build 10.0.17763.6500 includes KB5044277 (2024-10, build 10.0.17763.6414), a cumulative update released in or after the month of KB5043050 (2024-09); Microsoft gives no fixed build for this CVE',
  );
  assert.equal(
    whyText(v({ why: WHY_SERIES_OPEN }), '10.0.17763.6000', { openBelow: k } as unknown as Prepared),
    'build 10.0.17763.6000 is below KB5044277 (2024-10, build 10.0.17763.6414), so it lacks KB5043050 (2024-09); Microsoft gives no fixed build for this CVE',
  );
  assert.equal(whyText(v({ why: 'the KB list names it' }), null, NO_P), 'the KB list names it');
});

test('priority reason: status sentence, exploitation, the fix, then severity and scores, in that order', () => {
  const why = 'build 10.0.17763.6054 is below the fixed build 10.0.17763.6293';
  assert.equal(
    priorityReason(v(), why, { kev: true } as never, 'Critical', keys({ kev: true })),
    `Open on this host: ${why}. Known exploited (CISA KEV). Fix: KB5043050. Critical severity, CVSS 9.8, EPSS 0.42.`,
  );
  assert.equal(
    priorityReason(v(), why, undefined, 'Important', keys({ kev: true, cvss: null, epss: null })),
    `Open on this host: ${why}. Microsoft reports exploitation. Fix: KB5043050. Important severity.`,
  );
  assert.equal(
    priorityReason(
      v({ status: 'needs review', note: 'the build fits two editions' }),
      why,
      undefined,
      null,
      keys({ exploit: true }),
    ),
    'Needs review: the build fits two editions. Public exploit or proof of concept available. Fix: KB5043050. Severity not rated, CVSS 9.8, EPSS 0.42.',
  );
  assert.equal(
    priorityReason(v({ status: 'needs review' }), why, undefined, null, keys()),
    `Needs review: ${why}. Fix: KB5043050. Severity not rated, CVSS 9.8, EPSS 0.42.`,
  );
  assert.equal(
    priorityReason(v({ status: 'cleared (patched)' }), why, undefined, 'Low', keys({ epss: null })),
    `Patched: ${why}. Low severity, CVSS 9.8.`,
  );
  assert.equal(
    priorityReason(v({ fixType: 'esu' }), why, undefined, 'Low', keys({ cvss: null, epss: null })),
    `Open on this host: ${why}. The fix KB5043050 came after end of support: it needs Extended Security Updates (ESU) or an OS upgrade. Low severity.`,
  );
  assert.equal(
    priorityReason(v({ fixType: 'none' }), why, undefined, 'Low', keys({ cvss: null, epss: null })),
    `Open on this host: ${why}. No installable fix for this edition (KB5043050 needs a supported version). Low severity.`,
  );
  assert.equal(
    priorityReason(v({ fixType: 'none', kb: null }), why, undefined, 'Low', keys({ cvss: null, epss: null })),
    `Open on this host: ${why}. No fix from Microsoft. Low severity.`,
  );
  assert.equal(
    priorityReason(v({ kb: null }), why, undefined, 'Low', keys({ cvss: null, epss: 0 })),
    `Open on this host: ${why}. Low severity, EPSS 0.`,
  );
});

test('fix-group titles and labels', () => {
  assert.equal(
    GROUP_TEXT.upgrade('Windows 7'),
    'Upgrade to a supported Windows version: no installable update for Windows 7 after its end of support',
  );
  assert.equal(
    GROUP_TEXT.noUpdate(WS),
    'No update from Microsoft for Windows Server 2019: apply mitigations or upgrade',
  );
  assert.equal(
    GROUP_TEXT.esu('Windows Server 2012', 'KB5044342'),
    'ESU required (or upgrade the OS): enrol Windows Server 2012 in Extended Security Updates and install KB5044342',
  );
  assert.equal(
    GROUP_TEXT.latestLcu(WS, 'KB5044277', '10.0.17763.6414'),
    'Install KB5044277, the latest cumulative update for Windows Server 2019 (build 10.0.17763.6414)',
  );
  assert.equal(
    GROUP_TEXT.newestRollup('Windows Server 2012 R2', 'KB5044343', '2024-10'),
    'Install KB5044343, the newest monthly rollup Windows Server 2012 R2 can install (2024-10)',
  );
  assert.equal(
    GROUP_TEXT.alreadyInstalled('KB5044277'),
    'KB5044277 is already installed but the CVE is not cleared: review the host',
  );
  assert.equal(
    GROUP_TEXT.install(WS, 'KB5005112', 'ssu'),
    'Install KB5005112 (servicing stack update) for Windows Server 2019',
  );
  assert.equal(GROUP_TEXT.install(WS, 'KB5005112', null), 'Install KB5005112 (update) for Windows Server 2019');
  assert.deepEqual(LABEL, {
    noBuild: 'product-level (no build)',
    bareName: 'product-level (bare product name)',
    needsRevision: 'needs revision',
    notMapped: 'product-level (not mapped)',
    editionMissing: 'resolved by build; edition not supplied',
    endOfLife: 'end of life',
  });
});
