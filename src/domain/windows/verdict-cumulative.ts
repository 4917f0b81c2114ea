// The verdict rules of spec §4.2 for cumulative servicing (Windows 10 and later, Server 2016 and later): the
// build against the fixed build, hotpatches, the KB list, and pre-2021 fixes placed by month (windows-engine.md
// §6.2). Pure; domain/windows/verdict.ts chooses the path.
import { looksLikeOsBuild } from './build.ts';
import type { Fix, ProductIndex } from './evaluation-index.ts';
import type { Prepared } from './prepared.ts';
import { month, noFix, type HostCtx, type Verdict } from './verdict-facts.ts';

/**
 * Rule 1 read from a KB list: the list holds the fix (or a hotpatch for it), a cumulative update of the series
 * at or above the fixed build, or a build-less (pre-2021) cumulative update of a later month.
 */
function listHasFix(p: Prepared, ctx: HostCtx, fixUbr: number): boolean {
  const sum = ctx.sum!;
  if (sum.maxUbr !== null && sum.maxUbr >= fixUbr) return true;
  // Stryker disable next-line ConditionalExpression,LogicalOperator: a month compared with null is false, so the null guards only narrow the type
  if (p.lcuMonth !== null && sum.maxMonthNoBuild !== null && sum.maxMonthNoBuild > p.lcuMonth) return true;
  for (const k of p.fixKbs) if (ctx.kbs!.has(k)) return true;
  return false;
}

/** The hotpatch whose build the host is exactly on, if any (the last listed wins). */
function hotpatchAt(p: Prepared, hostUbr: number): Fix | undefined {
  let hit: Fix | undefined;
  for (let i = 0; i < p.hot.length; i++) if (p.hot[i].build!.ubr === hostUbr) hit = p.hot[i];
  return hit;
}

/**
 * Before mid-2021 MSRC gives no FixedBuild (trap 8): the fix KB is placed in the product's own LCU series by
 * month and compared with the nearest LCUs whose build is known. Null when no such LCU brackets the build.
 */
function bracketed(p: Prepared, hostUbr: number): Verdict | null {
  if (p.clearAt && p.clearAt.build!.ubr! <= hostUbr) return p.vClear;
  if (p.openBelow && p.openBelow.build!.ubr! > hostUbr) return p.vOpen;
  return null;
}

/** The build-only decisions most CVEs take, kept small so the engine optimises it (hot loop). */
// Stryker disable next-line BlockStatement: cumulativeFast is a shortcut: with no answer (undefined, like null) cumulative() reaches the same verdict objects
export function cumulativeFast(p: Prepared, ctx: HostCtx): Verdict | null {
  const hostUbr = ctx.build!.ubr!;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: cumulativeFast is a shortcut: a null answer sends cumulative() to the same verdict objects
  const listed = ctx.kbs !== null && ctx.kbs.size > 0;
  // Stryker disable next-line BlockStatement,ConditionalExpression: cumulativeFast is a shortcut: a null answer sends cumulative() to the same verdict objects
  if (p.lcu) {
    // Stryker disable next-line ConditionalExpression: cumulativeFast is a shortcut: a null answer sends cumulative() to the same verdict objects
    for (let i = 0; i < p.hot.length; i++) if (p.hot[i].build!.ubr === hostUbr) return null;
    const fixUbr = p.lcu.build!.ubr!;
    const byBuild = hostUbr >= fixUbr;
    // A disagreement between build and KB list is decided (and explained) by the full path.
    // Stryker disable next-line ConditionalExpression: cumulativeFast is a shortcut: a null answer sends cumulative() to the same verdict objects
    if (listed && byBuild !== listHasFix(p, ctx, fixUbr) && (!byBuild || ctx.sum!.newestLcu !== null)) return null;
    return byBuild ? p.vClear : p.vOpen;
  }
  // Stryker disable next-line BooleanLiteral,ConditionalExpression,LogicalOperator: cumulativeFast is a shortcut: a null answer sends cumulative() to the same verdict objects
  if (p.seriesFix && !listed) return bracketed(p, hostUbr);
  return null;
}

/** The full cumulative path: only for what `cumulativeFast` left undecided (hotpatch, KB list, no LCU). */
export function cumulative(pi: ProductIndex, p: Prepared, ctx: HostCtx): Verdict {
  const hostUbr = ctx.build!.ubr!;
  const kbs = ctx.kbs;
  if (p.lcu) {
    const main = p.lcu;
    const fixUbr = main.build!.ubr!;
    const byBuild = hostUbr >= fixUbr;
    const byHotpatch = hotpatchAt(p, hostUbr);
    const v = p.vOpen!;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator: reached only on a hotpatch build or a KB list that disagrees with the build, where the mutated conditions agree
    if (kbs && kbs.size > 0 && !byHotpatch) {
      const listHas = listHasFix(p, ctx, fixUbr);
      // Stryker disable next-line LogicalOperator: reached only on a hotpatch build or a KB list that disagrees with the build, where the mutated conditions agree
      if (!byBuild && listHas) {
        return {
          ...v,
          status: 'needs review',
          note: `build ${ctx.build!.text} is below the fixed build ${main.build!.text}, but the KB list contains ${main.kb} or a later cumulative update`,
          why: 'the build and the KB list disagree',
        };
      }
      const newestLcu = ctx.sum!.newestLcu;
      // Stryker disable next-line ConditionalExpression,LogicalOperator: reached only on a hotpatch build or a KB list that disagrees with the build, where the mutated conditions agree
      if (byBuild && !listHas && newestLcu) {
        return {
          ...v,
          status: 'needs review',
          note: `build ${ctx.build!.text} is at or above the fixed build ${main.build!.text}, but the newest cumulative update in the KB list (${newestLcu.kb}) is older than the fix ${main.kb}`,
          why: 'the build and the KB list disagree',
        };
      }
    }
    if (byBuild) return p.vClear!;
    // Stryker disable next-line ConditionalExpression: reached only on a hotpatch build or a KB list that disagrees with the build, where the mutated conditions agree
    if (byHotpatch)
      return {
        ...v,
        status: 'cleared (patched)',
        note: null,
        why: `the host is on hotpatch ${byHotpatch.kb} (build ${byHotpatch.build!.text}), which Microsoft lists as fixing this CVE`,
      };
    return p.vOpen!;
  }

  const seriesFix = p.seriesFix;
  if (seriesFix) {
    const b = bracketed(p, hostUbr);
    if (b) return b;
    const m = month(pi, seriesFix.kb)!;
    const v = {
      fixType: 'kb' as const,
      fixedBuild: null,
      kb: seriesFix.kb,
      fixClass: 'lcu' as const,
      fixMonth: m,
      fixUrl: seriesFix.url,
      derived: true,
    };
    if (
      kbs &&
      [...kbs].some((k) => k === seriesFix.kb || (pi.kbs.get(k)?.inSeries && (pi.kbs.get(k)!.month ?? '') > m))
    ) {
      return {
        ...v,
        status: 'cleared (patched)',
        note: null,
        why: `the KB list contains ${seriesFix.kb} or a later cumulative update`,
      };
    }
    return {
      ...v,
      status: 'needs review',
      note: `Microsoft gives no fixed build for ${seriesFix.kb} (${m}) and no build-known update brackets build ${ctx.build!.text}`,
      why: 'no fixed build to compare',
    };
  }

  const base = { fixType: 'kb' as const };
  // Rule 1 on a hotpatch's build: MSRC sometimes lists a month's fix for a product only as its hotpatch (2024-Oct:
  // CVE-2024-43516 on Windows 11 24H2 names KB5046696, build 26100.2240, and no cumulative update). The build is
  // on the product's own line (validated), and every later update of the line includes its fixes: a host at or
  // above it is cleared. Below it, the OS build cannot tell (the month's cumulative update may carry the fix).
  let passed: Fix | null = null;
  for (const h of p.hot) if (h.build!.ubr! <= hostUbr && (!passed || h.build!.ubr! > passed.build!.ubr!)) passed = h;
  if (passed) {
    return {
      ...base,
      status: 'cleared (patched)',
      fixedBuild: passed.build!.text,
      kb: passed.kb,
      fixClass: 'other',
      fixMonth: month(pi, passed.kb),
      fixUrl: passed.url,
      derived: false,
      note: null,
      why: `build ${ctx.build!.text} is at or above the build of hotpatch ${passed.kb} (${passed.build!.text}), and every later update of this build line includes its fixes`,
    };
  }
  const anyFix = p.odd;
  if (anyFix) {
    const fixClass: Verdict['fixClass'] = anyFix.kind === 'standalone' ? 'standalone' : 'other';
    const v = {
      ...base,
      fixedBuild: anyFix.build?.text ?? null,
      kb: anyFix.kb,
      fixClass,
      fixMonth: month(pi, anyFix.kb),
      fixUrl: anyFix.url,
      derived: false,
    };
    if (kbs?.has(anyFix.kb!))
      return { ...v, status: 'cleared (patched)', note: null, why: `the KB list contains ${anyFix.kb}` };
    const what = anyFix.build
      ? `${anyFix.kb} (build ${anyFix.build.text}) is not one of this product's monthly cumulative updates (for example a Safe OS/WinRE, Secure Boot or other separate update)`
      : anyFix.rawBuild && looksLikeOsBuild(anyFix.rawBuild)
        ? // Microsoft's row names a build of another product line (CVE-2022-2601: KB5055528, 10.0.22621.5189, listed
          // for Windows 11 24H2 x64, whose builds are 26100): a data error at the source, not a build to compare with.
          `${anyFix.kb} (${anyFix.subType ?? 'no SubType'}) is listed with fixed build ${anyFix.rawBuild}, which is not a build of this product's line`
        : `${anyFix.kb} (${anyFix.subType ?? 'no SubType'}${anyFix.rawBuild ? `, version ${anyFix.rawBuild}` : ''}) carries no OS build`;
    return {
      ...v,
      status: 'needs review',
      note: `${what}; the OS build cannot confirm it. Check that ${anyFix.kb} is installed`,
      why: 'the fix is not a cumulative update',
    };
  }
  const ssu = p.ssu;
  if (ssu) {
    return {
      ...base,
      status: kbs?.has(ssu.kb!) ? 'cleared (patched)' : 'needs review',
      fixedBuild: null,
      kb: ssu.kb,
      fixClass: 'ssu',
      fixMonth: month(pi, ssu.kb),
      fixUrl: ssu.url,
      derived: false,
      note: kbs?.has(ssu.kb!)
        ? null
        : `Microsoft lists only the servicing stack update ${ssu.kb}; check that it is installed`,
      why: 'servicing stack update',
    };
  }
  return noFix();
}
