// The verdict rules of spec §4.2 for legacy servicing (monthly rollups and security-only updates, windows-engine.md
// §5): decided by the host's KB list, with the build as a cross-check. Pure; domain/windows/verdict.ts chooses the path.
import type { ProductIndex } from './evaluation-index.ts';
import type { Prepared } from './prepared.ts';
import { month, noFix, type HostCtx, type Verdict } from './verdict-facts.ts';

export function legacy(pi: ProductIndex, p: Prepared, ctx: HostCtx): Verdict {
  const fixes = p.legacyFixes;
  if (fixes.length === 0 && !p.ssu) return noFix();
  const rollupFix = p.rollupFix;
  const main = rollupFix ?? fixes[0] ?? p.ssu!;
  const m0 = p.m0 ?? month(pi, main.kb);
  const minFix = p.minFix;
  const fixClass: Verdict['fixClass'] = rollupFix
    ? 'rollup'
    : main.kind === 'ssu'
      ? 'ssu'
      : main.kind === 'standalone'
        ? 'standalone'
        : 'other';
  const mr = fixes.find((f) => f.kind === 'monthly_rollup');
  const v = {
    fixType: 'kb' as const,
    fixedBuild: (mr?.build ?? minFix)?.text ?? null,
    kb: main.kb,
    fixClass,
    fixMonth: m0,
    fixUrl: main.url,
  };
  const kbs = ctx.kbs;
  if (!kbs) {
    return {
      ...v,
      derived: false,
      status: 'needs review',
      note: 'legacy Windows is resolved by its KB list, and none was collected',
      why: 'no KB list',
    };
  }
  const fixKbs = p.legacyFixKbs;
  const sum = ctx.sum!;
  let clearedBy: string | null = null;
  let derived = false;
  for (const k of fixKbs)
    if (kbs.has(k)) {
      clearedBy = `the KB list contains ${k}`;
      break;
    }
  if (!clearedBy && m0 && main.kind !== 'ssu' && sum.newestMr && sum.newestMr.month! > m0) {
    // A later Monthly Rollup of the same product includes every earlier one (trap 12; spec rule 2); Security
    // Only does not. Standalone OS security updates from before the rollup model (Oct 2016) were folded into
    // the rollups, which Microsoft made fully cumulative, so a later rollup counts for them too.
    clearedBy =
      sum.laterMrWhy ??= `the KB list contains ${sum.newestMr.kb}, a later monthly rollup (${sum.newestMr.month})`;
    derived = true;
  }
  if (!clearedBy) {
    for (const k of fixKbs) {
      const by = sum.superseded.get(k);
      if (by) {
        clearedBy = `the KB list contains ${by}, which Microsoft lists as replacing the fix`;
        derived = true;
        break;
      }
    }
  }
  const hostUbr = ctx.build?.ubr ?? null;
  if (minFix && hostUbr !== null) {
    if (clearedBy && hostUbr < minFix.ubr!) {
      return {
        ...v,
        derived,
        status: 'needs review',
        note: `${clearedBy}, but build ${ctx.build!.text} is below the fixed build ${minFix.text}`,
        why: 'the build and the KB list disagree',
      };
    }
    if (!clearedBy && hostUbr >= minFix.ubr!) {
      return {
        ...v,
        derived,
        status: 'needs review',
        note: `build ${ctx.build!.text} is at or above the fixed build ${minFix.text}, but the KB list has neither ${[...fixKbs].join(', ')} nor a later monthly rollup`,
        why: 'the build and the KB list disagree',
      };
    }
  }
  if (clearedBy) {
    return {
      fixType: 'kb',
      fixedBuild: v.fixedBuild,
      kb: v.kb,
      fixClass: v.fixClass,
      fixMonth: v.fixMonth,
      fixUrl: v.fixUrl,
      derived,
      status: 'cleared (patched)',
      note: null,
      why: clearedBy,
    };
  }
  return {
    ...v,
    derived,
    status: 'confirmed open',
    note: null,
    why: `the KB list has neither ${[...fixKbs].join(' nor ')} nor a later monthly rollup`,
  };
}
