// The English text of the Windows results: labels, why a CVE has its status, the fix to install, the
// priority reason and the fix-group titles. The rules (verdict.ts) decide; this file only words it.
import type { Prepared } from './prepared.ts';
import { WHY_BELOW, WHY_BUILD, WHY_SERIES_CLEAR, WHY_SERIES_OPEN, type Verdict } from './verdict-facts.ts';
import type { SortKeys } from './priority.ts';
import type { CveSignals } from './evaluate.ts';

export const LABEL = {
  noBuild: 'product-level (no build)',
  bareName: 'product-level (bare product name)',
  needsRevision: 'needs revision',
  notMapped: 'product-level (not mapped)',
  editionMissing: 'resolved by build; edition not supplied',
  endOfLife: 'end of life',
} as const;

const FIX_CLASS_NOUN: Record<NonNullable<Verdict['fixClass']>, string> = {
  lcu: 'cumulative update',
  rollup: 'monthly rollup',
  ssu: 'servicing stack update',
  standalone: 'standalone security update',
  other: 'update',
};

function fixClassNoun(c: Verdict['fixClass']): string {
  return FIX_CLASS_NOUN[c ?? 'other'];
}

/** Titles of the fix groups (fix-groups.ts), `name` being the Microsoft product name. */
export const GROUP_TEXT = {
  upgrade: (name: string) =>
    `Upgrade to a supported Windows version: no installable update for ${name} after its end of support`,
  noUpdate: (name: string) => `No update from Microsoft for ${name}: apply mitigations or upgrade`,
  esu: (name: string, kb: string | null) =>
    `ESU required (or upgrade the OS): enrol ${name} in Extended Security Updates and install ${kb}`,
  latestLcu: (name: string, kb: string, build: string) =>
    `Install ${kb}, the latest cumulative update for ${name} (build ${build})`,
  newestRollup: (name: string, kb: string, month: string | null) =>
    `Install ${kb}, the newest monthly rollup ${name} can install (${month})`,
  alreadyInstalled: (kb: string) => `${kb} is already installed but the CVE is not cleared: review the host`,
  install: (name: string, kb: string, c: Verdict['fixClass']) => `Install ${kb} (${fixClassNoun(c)}) for ${name}`,
};

/** The month (YYYY-MM) of the last Security Only updates. */
export const LAST_SECURITY_ONLY_MONTH = '2023-10';

/** The per-CVE fix text; `installed`: the host's KB list holds `v.kb` (worded as the fix group words it). */
export function fixAction(v: Verdict, productName: string, installed = false): string {
  if (installed && v.kb) return GROUP_TEXT.alreadyInstalled(v.kb);
  if (v.fixType === 'none') {
    return v.kb
      ? `No installable update for this edition after end of support; upgrade to a supported Windows version (Microsoft's fix is ${v.kb})`
      : 'No update from Microsoft for this product; apply mitigations or upgrade';
  }
  // Only a row of another product's update (cross-product.ts) leaves a kb fix without a KB of this product.
  if (!v.kb)
    return `Microsoft names no update of ${productName} for this CVE, only another product's (see the note): check with Microsoft which update fixes it`;
  // Microsoft released the last Security Only updates in October 2023 (reference trap 12): a later fix is the
  // monthly rollup alone.
  const what =
    v.fixClass !== 'rollup'
      ? fixClassNoun(v.fixClass)
      : v.fixMonth !== null && v.fixMonth > LAST_SECURITY_ONLY_MONTH
        ? 'monthly rollup'
        : 'monthly rollup, or its Security Only update';
  const build = v.fixedBuild ? `, build ${v.fixedBuild}` : '';
  if (v.fixType === 'esu')
    return `ESU required: ${v.kb} (${what}${build}) was released after end of support for ${productName}; enrol in Extended Security Updates or upgrade the OS`;
  if (v.fixClass === 'lcu')
    return `Install ${v.kb} (${what}${build}) or any later cumulative update for ${productName}`;
  if (v.fixClass === 'rollup')
    return `Install ${v.kb} (${what}${build}) or any later monthly rollup for ${productName}`;
  return `Install ${v.kb} (${what}${build}) for ${productName}`;
}

export function whyText(v: Verdict, buildText: string | null, p: Prepared): string {
  if (v.why === WHY_SERIES_CLEAR) {
    const k = p.clearAt!;
    return `build ${buildText} includes ${k.kb} (${k.month}, build ${k.build!.text}), a cumulative update released in or after the month of ${v.kb} (${v.fixMonth}); Microsoft gives no fixed build for this CVE`;
  }
  if (v.why === WHY_SERIES_OPEN) {
    const k = p.openBelow!;
    return `build ${buildText} is below ${k.kb} (${k.month}, build ${k.build!.text}), so it lacks ${v.kb} (${v.fixMonth}); Microsoft gives no fixed build for this CVE`;
  }
  const override = v.derived ? " (Microsoft's row gives another product's KB; corrected by a reviewed override)" : '';
  if (v.why === WHY_BUILD) return `build ${buildText} is at or above the fixed build ${v.fixedBuild}${override}`;
  if (v.why === WHY_BELOW) return `build ${buildText} is below the fixed build ${v.fixedBuild}${override}`;
  return v.why;
}

export function priorityReason(
  v: Verdict,
  why: string,
  sig: CveSignals | undefined,
  severity: string | null,
  k: SortKeys,
): string {
  const parts: string[] = [];
  if (v.status === 'confirmed open') parts.push(`Open on this host: ${why}.`);
  else if (v.status === 'needs review') parts.push(`Needs review: ${v.note ?? why}.`);
  else parts.push(`Patched: ${why}.`);
  if (k.kev) parts.push(sig?.kev ? 'Known exploited (CISA KEV).' : 'Microsoft reports exploitation.');
  else if (k.exploit) parts.push('Public exploit or proof of concept available.');
  if (v.status !== 'cleared (patched)') {
    if (v.fixType === 'esu')
      parts.push(
        `The fix ${v.kb} came after end of support: it needs Extended Security Updates (ESU) or an OS upgrade.`,
      );
    else if (v.fixType === 'none')
      parts.push(
        v.kb ? `No installable fix for this edition (${v.kb} needs a supported version).` : 'No fix from Microsoft.',
      );
    else if (v.kb) parts.push(`Fix: ${v.kb}.`);
  }
  parts.push(
    `${severity ? `${severity} severity` : 'Severity not rated'}${k.cvss !== null ? `, CVSS ${k.cvss}` : ''}${k.epss !== null ? `, EPSS ${k.epss}` : ''}.`,
  );
  return parts.join(' ');
}
