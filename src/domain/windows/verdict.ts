// The verdict rules of spec §4.2 (rules 1–8) for one CVE on one product of one host, with the traps of
// windows-engine.md (§6.2 cumulative, §5 legacy, §7 condensed table). Pure. The host-independent facts of a
// (product, CVE) pair are prepared once (`prepareProduct`, cached in caches.ts); the host's KB list is read
// once per host (`hostCtx`). Texts that explain a verdict to the reader are written later (wording.ts): a
// verdict carries either its own short reason or one of the WHY_* markers.
import { looksLikeOsBuild, type OsBuild } from './build.ts';
import type { Fix, KbInfo, ProductCve, ProductIndex } from './evaluation-index.ts';
import { lifecycleState, type LifecycleState } from './lifecycle.ts';
import type { ProductMatch } from './match.ts';
import type { WindowsProduct } from './products.ts';
import type { WindowsHost } from './validate.ts';
import { isCveId } from '../cve-id.ts';

export type CveStatus = 'confirmed open' | 'cleared (patched)' | 'needs review';
export type FixType = 'kb' | 'esu' | 'none';

export interface Verdict {
  status: CveStatus;
  fixedBuild: string | null;
  kb: string | null;
  note: string | null;
  fixClass: 'lcu' | 'rollup' | 'ssu' | 'standalone' | 'other' | null;
  fixMonth: string | null;
  fixUrl: string | null;
  derived: boolean;
  why: string;
  fixType: FixType;
  /** The listed KB a legacy decision rests on (for the rendered reason). */
  ref?: string;
}


export interface HostCtx {
  host: WindowsHost;
  build: OsBuild | null;
  kbs: Set<string> | null;
  /** Last month (YYYY-MM) whose fixes the host can install without ESU; null = no limit. */
  installableUntil: string | null;
  /** What a fix after installableUntil needs: an ESU enrolment, or nothing helps (no programme / ended). */
  afterLimit: 'esu' | 'none';
  level: ProductMatch['level'];
  /** The host's KB list seen through the product's series, computed once per host (null: no list). */
  sum: KbSummary | null;
}

/** What the host's KB list says about the product's series: computed once per host, used for every CVE. */
interface KbSummary {
  /** Highest UBR among the listed KBs of the LCU series that have a build. */
  maxUbr: number | null;
  /** Latest month among the listed series KBs without a build (pre-2021 LCUs). */
  maxMonthNoBuild: string | null;
  /** Newest listed LCU (by month), for messages; null when none is listed. */
  newestLcu: KbInfo | null;
  /** Newest listed Monthly Rollup of the product. */
  newestMr: KbInfo | null;
  /** KB → the listed KB whose Supercedence chain replaces it. */
  superseded: Map<string, string>;
  /** The reason text of "cleared by a later rollup", built once per host. */
  laterMrWhy?: string;
}

function kbSummary(pi: ProductIndex, kbs: Set<string>): KbSummary {
  const s: KbSummary = { maxUbr: null, maxMonthNoBuild: null, newestLcu: null, newestMr: null, superseded: new Map() };
  for (const k of kbs) {
    const info = pi.kbs.get(k);
    if (!info) continue;
    if (info.inSeries && info.kind === 'security_update') {
      // Stryker disable next-line EqualityOperator: on equal builds or months the assignment writes the same value
      if (info.build?.ubr != null) { if (s.maxUbr === null || info.build.ubr > s.maxUbr) s.maxUbr = info.build.ubr; } else if (info.month && (!s.maxMonthNoBuild || info.month > s.maxMonthNoBuild)) s.maxMonthNoBuild = info.month;
      if (!s.newestLcu || (info.month ?? '') > (s.newestLcu.month ?? '')) s.newestLcu = info;
    }
    if (info.inSeries && info.kind === 'monthly_rollup' && (!s.newestMr || (info.month ?? '') > (s.newestMr.month ?? ''))) s.newestMr = info;
    // Supercedence is free text and only a hint (trap 14): followed here for legacy KB lists (spec rule 2).
    const stack = [...info.supersedes];
    let steps = 0;
    while (stack.length > 0 && steps++ < 500) {
      const x = stack.pop()!;
      if (s.superseded.has(x) || kbs.has(x)) continue;
      s.superseded.set(x, k);
      for (const y of pi.kbs.get(x)?.supersedes ?? []) stack.push(y);
    }
  }
  return s;
}

const month = (pi: ProductIndex, kb: string | null): string | null => (kb ? pi.kbs.get(kb)?.month ?? null : null);

/** An LCU-equivalent fix: in the product's series, or an out-of-band update that replaces a series LCU. */
function isCumulativeFix(pi: ProductIndex, f: Fix): boolean {
  if (f.kind !== 'security_update' || !f.kb || !f.build) return false;
  if (pi.kbs.get(f.kb)?.inSeries) return true;
  // Stryker disable next-line OptionalChaining: inSeries is true only on a KB the index holds, so the second lookup's optional chaining never meets undefined
  return f.supersedes.some((s) => pi.kbs.get(s)?.inSeries === true && pi.kbs.get(s)?.kind === 'security_update');
}

/** Per (product, CVE) facts that do not depend on the host: computed once per product and cached. */
export interface Prepared {
  pc: ProductCve;
  /** Numeric CVE order key (year, then number) for fast sorting. */
  idKey: number;
  /** Cumulative: the authoritative LCU (highest UBR among LCU-equivalent fixes). */
  lcu: Fix | null;
  lcuMonth: string | null;
  hot: Fix[];
  /** KBs that clear the CVE when listed: LCU-equivalents and hotpatches. */
  fixKbs: Set<string>;
  /** Cumulative, pre-2021: the series LCU without a FixedBuild. */
  seriesFix: Fix | null;
  odd: Fix | null;
  ssu: Fix | null;
  /** Legacy facts. */
  legacyFixes: Fix[];
  legacyFixKbs: Set<string>;
  rollupFix: Fix | null;
  m0: string | null;
  minFix: OsBuild | null;
  /** Pre-2021 series fix: the build-known LCU with the lowest UBR released in or after the fix month. */
  clearAt: KbInfo | null;
  /** ... and the build-known LCU with the highest UBR released in or before the fix month. */
  openBelow: KbInfo | null;
  /** Shared, immutable verdicts for the common build-only outcomes (no allocation per host). */
  vClear: Verdict | null;
  vOpen: Verdict | null;
}

/** The host-independent facts of every CVE of a product (uncached: use `prepared` from caches.ts). */
export function prepareProduct(pi: ProductIndex): Prepared[] {
  const list: Prepared[] = [];
  for (const pc of pi.cves.values()) {
    // ADV advisories and malformed ids are not CVEs.
    if (!isCveId(pc.meta.cve)) continue;
    const fixes = pc.fixes.filter((f) => f.kind !== 'ssu');
    const lcuAll = fixes.filter((f) => isCumulativeFix(pi, f));
    const lcu = lcuAll.length ? lcuAll.reduce((a, b) => (b.build!.ubr! > a.build!.ubr! ? b : a)) : null;
    const hot = fixes.filter((f) => f.kind === 'hotpatch' && f.build !== null);
    const legacyFixes = fixes.filter((f) => f.kb !== null);
    const mrs = legacyFixes.filter((f) => f.kind === 'monthly_rollup');
    const sos = legacyFixes.filter((f) => f.kind === 'security_only');
    const builds = [...mrs, ...sos].map((f) => f.build).filter((b): b is OsBuild => b !== null);
    const [, y, n] = pc.meta.cve.split('-');
    list.push({
      pc,
      idKey: Number(y) * 1e8 + Number(n),
      lcu,
      lcuMonth: month(pi, lcu?.kb ?? null),
      hot,
      fixKbs: new Set([...lcuAll, ...hot].map((f) => f.kb!).filter((k) => k !== null)),
      seriesFix: fixes.find((f) => f.kb && f.kind === 'security_update' && pi.kbs.get(f.kb)?.inSeries) ?? null,
      odd: fixes.find((f) => f.kb && (f.build || f.kind === 'security_update')) ?? fixes.find((f) => f.kb) ?? null,
      ssu: pc.fixes.find((f) => f.kind === 'ssu' && f.kb) ?? null,
      legacyFixes,
      legacyFixKbs: new Set(legacyFixes.map((f) => f.kb!)),
      rollupFix: mrs[0] ?? sos[0] ?? null,
      // Stryker disable next-line ConditionalExpression,MethodExpression: null sorts as "null", after every month, so filtering nulls out or not leaves the same first month
      m0: [...mrs, ...sos].map((f) => month(pi, f.kb)).filter((x): x is string => x !== null).sort()[0] ?? null,
      // Stryker disable next-line EqualityOperator: only legacy products reach minFix, and their builds share one build number: equal UBRs pick the same build
      minFix: builds.length ? builds.reduce((a, b) => (b.ubr! < a.ubr! ? b : a)) : null,
      clearAt: null,
      openBelow: null,
      vClear: null,
      vOpen: null,
    });
    const last = list[list.length - 1];
    if (!last.lcu && last.seriesFix) {
      const m = month(pi, last.seriesFix.kb)!;
      for (const k of pi.lcuSeries) {
        if (k.build?.ubr == null) continue;
        if (k.month! >= m && (!last.clearAt || k.build.ubr < last.clearAt.build!.ubr!)) last.clearAt = k;
        if (k.month! <= m && (!last.openBelow || k.build.ubr > last.openBelow.build!.ubr!)) last.openBelow = k;
      }
      const sv = { fixedBuild: null, kb: last.seriesFix.kb, fixClass: 'lcu' as const, fixMonth: m, fixUrl: last.seriesFix.url, derived: true, fixType: 'kb' as FixType, note: null };
      last.vClear = ({ ...sv, status: 'cleared (patched)', why: WHY_SERIES_CLEAR });
      last.vOpen = ({ ...sv, status: 'confirmed open', why: WHY_SERIES_OPEN });
    }
    if (last.lcu) {
      const lv = {
        fixedBuild: last.lcu.build!.text, kb: last.lcu.kb, fixClass: 'lcu' as const, fixMonth: last.lcuMonth, fixUrl: last.lcu.url,
        derived: last.lcu.overrideId !== null, fixType: 'kb' as FixType, note: null,
      };
      last.vClear = ({ ...lv, status: 'cleared (patched)', why: WHY_BUILD });
      last.vOpen = ({ ...lv, status: 'confirmed open', why: WHY_BELOW });
    }
  }
  return list;
}

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
function cumulativeFast(p: Prepared, ctx: HostCtx): Verdict | null {
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
function cumulative(pi: ProductIndex, p: Prepared, ctx: HostCtx): Verdict {
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
        return { ...v, status: 'needs review', note: `build ${ctx.build!.text} is below the fixed build ${main.build!.text}, but the KB list contains ${main.kb} or a later cumulative update`, why: 'the build and the KB list disagree' };
      }
      const newestLcu = ctx.sum!.newestLcu;
      // Stryker disable next-line ConditionalExpression,LogicalOperator: reached only on a hotpatch build or a KB list that disagrees with the build, where the mutated conditions agree
      if (byBuild && !listHas && newestLcu) {
        return { ...v, status: 'needs review', note: `build ${ctx.build!.text} is at or above the fixed build ${main.build!.text}, but the newest cumulative update in the KB list (${newestLcu.kb}) is older than the fix ${main.kb}`, why: 'the build and the KB list disagree' };
      }
    }
    if (byBuild) return p.vClear!;
    // Stryker disable next-line ConditionalExpression: reached only on a hotpatch build or a KB list that disagrees with the build, where the mutated conditions agree
    if (byHotpatch) return { ...v, status: 'cleared (patched)', note: null, why: `the host is on hotpatch ${byHotpatch.kb} (build ${byHotpatch.build!.text}), which Microsoft lists as fixing this CVE` };
    return p.vOpen!;
  }

  const seriesFix = p.seriesFix;
  if (seriesFix) {
    const b = bracketed(p, hostUbr);
    if (b) return b;
    const m = month(pi, seriesFix.kb)!;
    const v = { fixType: 'kb' as FixType, fixedBuild: null, kb: seriesFix.kb, fixClass: 'lcu' as const, fixMonth: m, fixUrl: seriesFix.url, derived: true };
    if (kbs && [...kbs].some((k) => k === seriesFix.kb || (pi.kbs.get(k)?.inSeries && (pi.kbs.get(k)!.month ?? '') > m))) {
      return { ...v, status: 'cleared (patched)', note: null, why: `the KB list contains ${seriesFix.kb} or a later cumulative update` };
    }
    return { ...v, status: 'needs review', note: `Microsoft gives no fixed build for ${seriesFix.kb} (${m}) and no build-known update brackets build ${ctx.build!.text}`, why: 'no fixed build to compare' };
  }

  const base = { fixType: 'kb' as FixType };
  // Rule 1 on a hotpatch's build: MSRC sometimes lists a month's fix for a product only as its hotpatch (2024-Oct:
  // CVE-2024-43516 on Windows 11 24H2 names KB5046696, build 26100.2240, and no cumulative update). The build is
  // on the product's own line (validated), and every later update of the line includes its fixes: a host at or
  // above it is cleared. Below it, the OS build cannot tell (the month's cumulative update may carry the fix).
  let passed: Fix | null = null;
  for (const h of p.hot) if (h.build!.ubr! <= hostUbr && (!passed || h.build!.ubr! > passed.build!.ubr!)) passed = h;
  if (passed) {
    return {
      ...base, status: 'cleared (patched)', fixedBuild: passed.build!.text, kb: passed.kb, fixClass: 'other', fixMonth: month(pi, passed.kb),
      fixUrl: passed.url, derived: false, note: null,
      why: `build ${ctx.build!.text} is at or above the build of hotpatch ${passed.kb} (${passed.build!.text}), and every later update of this build line includes its fixes`,
    };
  }
  const anyFix = p.odd;
  if (anyFix) {
    const kind = anyFix.kind;
    const v = {
      ...base, fixedBuild: anyFix.build?.text ?? null, kb: anyFix.kb, fixClass: (kind === 'standalone' ? 'standalone' : 'other') as Verdict['fixClass'],
      fixMonth: month(pi, anyFix.kb), fixUrl: anyFix.url, derived: false,
    };
    if (kbs?.has(anyFix.kb!)) return { ...v, status: 'cleared (patched)', note: null, why: `the KB list contains ${anyFix.kb}` };
    const what = anyFix.build
      ? `${anyFix.kb} (build ${anyFix.build.text}) is not one of this product's monthly cumulative updates (for example a Safe OS/WinRE, Secure Boot or other separate update)`
      : anyFix.rawBuild && looksLikeOsBuild(anyFix.rawBuild)
        // Microsoft's row names a build of another product line (CVE-2022-2601: KB5055528, 10.0.22621.5189, listed
        // for Windows 11 24H2 x64, whose builds are 26100): a data error at the source, not a build to compare with.
        ? `${anyFix.kb} (${anyFix.subType ?? 'no SubType'}) is listed with fixed build ${anyFix.rawBuild}, which is not a build of this product's line`
        : `${anyFix.kb} (${anyFix.subType ?? 'no SubType'}${anyFix.rawBuild ? `, version ${anyFix.rawBuild}` : ''}) carries no OS build`;
    return { ...v, status: 'needs review', note: `${what}; the OS build cannot confirm it. Check that ${anyFix.kb} is installed`, why: 'the fix is not a cumulative update' };
  }
  const ssu = p.ssu;
  if (ssu) {
    return {
      ...base, status: kbs?.has(ssu.kb!) ? 'cleared (patched)' : 'needs review', fixedBuild: null, kb: ssu.kb, fixClass: 'ssu', fixMonth: month(pi, ssu.kb),
      fixUrl: ssu.url, derived: false, note: kbs?.has(ssu.kb!) ? null : `Microsoft lists only the servicing stack update ${ssu.kb}; check that it is installed`, why: 'servicing stack update',
    };
  }
  return noFix();
}


/** Markers for the two commonest reasons; the text is written when the CVE is rendered. */
export const WHY_BUILD = '\u0000build';
export const WHY_BELOW = '\u0000below';
export const WHY_SERIES_CLEAR = '\u0000series-clear';
export const WHY_SERIES_OPEN = '\u0000series-open';

function noFix(): Verdict {
  return {
    status: 'confirmed open', fixedBuild: null, kb: null, note: null, fixClass: null, fixMonth: null, fixUrl: null, derived: false,
    why: 'Microsoft lists this product as affected and publishes no update for it', fixType: 'none',
  };
}

function legacy(pi: ProductIndex, p: Prepared, ctx: HostCtx): Verdict {
  const fixes = p.legacyFixes;
  if (fixes.length === 0 && !p.ssu) return noFix();
  const rollupFix = p.rollupFix;
  const main = rollupFix ?? fixes[0] ?? p.ssu!;
  const m0 = p.m0 ?? month(pi, main.kb);
  const minFix = p.minFix;
  const fixClass: Verdict['fixClass'] = rollupFix ? 'rollup' : main.kind === 'ssu' ? 'ssu' : main.kind === 'standalone' ? 'standalone' : 'other';
  const mr = fixes.find((f) => f.kind === 'monthly_rollup');
  const v = {
    fixType: 'kb' as FixType, fixedBuild: (mr?.build ?? minFix)?.text ?? null, kb: main.kb, fixClass, fixMonth: m0, fixUrl: main.url,
  };
  const kbs = ctx.kbs;
  if (!kbs) {
    return { ...v, derived: false, status: 'needs review', note: 'legacy Windows is resolved by its KB list, and none was collected', why: 'no KB list' };
  }
  const fixKbs = p.legacyFixKbs;
  const sum = ctx.sum!;
  let clearedBy: string | null = null;
  let derived = false;
  for (const k of fixKbs) if (kbs.has(k)) { clearedBy = `the KB list contains ${k}`; break; }
  if (!clearedBy && m0 && main.kind !== 'ssu' && sum.newestMr && sum.newestMr.month! > m0) {
    // A later Monthly Rollup of the same product includes every earlier one (trap 12; spec rule 2); Security
    // Only does not. Standalone OS security updates from before the rollup model (Oct 2016) were folded into
    // the rollups, which Microsoft made fully cumulative, so a later rollup counts for them too.
    clearedBy = sum.laterMrWhy ??= `the KB list contains ${sum.newestMr.kb}, a later monthly rollup (${sum.newestMr.month})`;
    derived = true;
  }
  if (!clearedBy) {
    for (const k of fixKbs) {
      const by = sum.superseded.get(k);
      if (by) { clearedBy = `the KB list contains ${by}, which Microsoft lists as replacing the fix`; derived = true; break; }
    }
  }
  const hostUbr = ctx.build?.ubr ?? null;
  if (minFix && hostUbr !== null) {
    if (clearedBy && hostUbr < minFix.ubr!) {
      return { ...v, derived, status: 'needs review', note: `${clearedBy}, but build ${ctx.build!.text} is below the fixed build ${minFix.text}`, why: 'the build and the KB list disagree' };
    }
    if (!clearedBy && hostUbr >= minFix.ubr!) {
      return { ...v, derived, status: 'needs review', note: `build ${ctx.build!.text} is at or above the fixed build ${minFix.text}, but the KB list has neither ${[...fixKbs].join(', ')} nor a later monthly rollup`, why: 'the build and the KB list disagree' };
    }
  }
  if (clearedBy) {
    return { fixType: 'kb', fixedBuild: v.fixedBuild, kb: v.kb, fixClass: v.fixClass, fixMonth: v.fixMonth, fixUrl: v.fixUrl, derived, status: 'cleared (patched)', note: null, why: clearedBy };
  }
  return {
    ...v, derived, status: 'confirmed open', note: null,
    why: `the KB list has neither ${[...fixKbs].join(' nor ')} nor a later monthly rollup`,
  };
}


function monthOf(date: string): string {
  return date.slice(0, 7);
}

export function hostCtx(host: WindowsHost, match: ProductMatch, product: WindowsProduct, pi: ProductIndex, today: string): { ctx: HostCtx; life: LifecycleState | null } {
  const life = lifecycleState(product.lifecycle, host.edition_id, host.esu_enrolled, today);
  let installableUntil: string | null = null;
  let afterLimit: 'esu' | 'none' = 'esu';
  if (life && today > life.eol && !life.inEsu) {
    if (host.esu_enrolled === true || life.esuEnd === null) {
      // Enrolled but ESU over, or no ESU programme at all: nothing after the end can be installed.
      installableUntil = monthOf(life.esuEnd ?? life.eol);
      afterLimit = 'none';
    } else {
      installableUntil = monthOf(life.eol);
      afterLimit = 'esu';
    }
  }
  return {
    ctx: {
      host, build: match.build, kbs: host.installed_kbs ? new Set(host.installed_kbs) : null, installableUntil, afterLimit, level: match.level,
      sum: host.installed_kbs ? kbSummary(pi, new Set(host.installed_kbs)) : null,
    },
    life,
  };
}

export function verdictFor(pi: ProductIndex, p: Prepared, ctx: HostCtx): Verdict {
  let v: Verdict;
  if (ctx.level !== 'build') {
    const pc = p.pc;
    const f = p.lcu ?? p.rollupFix ?? p.seriesFix ?? pc.fixes.find((x) => x.kb);
    const why = ctx.level === 'revision'
      ? 'os_build has no revision (UBR), so the patch level is unknown'
      : ctx.level === 'bare_name'
        ? 'os_product is only "Windows": the host stays product-level, so the build is not compared'
        : 'no os_build: only the product is known';
    v = {
      status: 'needs review', fixedBuild: f?.build?.text ?? null, kb: f?.kb ?? null, note: why,
      fixClass: f ? (f.kind === 'monthly_rollup' || f.kind === 'security_only' ? 'rollup' : f.kind === 'security_update' ? 'lcu' : 'other') : null,
      fixMonth: month(pi, f?.kb ?? null), fixUrl: f?.url ?? null, derived: false, why, fixType: f ? 'kb' : 'none',
    };
  } else {
    v = pi.product.servicing === 'cumulative' ? (cumulativeFast(p, ctx) ?? cumulative(pi, p, ctx)) : legacy(pi, p, ctx);
  }
  // Rule 2/7: a fix released after the end of support needs ESU (or cannot be had at all).
  // Stryker disable next-line ConditionalExpression,LogicalOperator: only kb verdicts carry a fix month, so the other guards change nothing
  if (v.fixType === 'kb' && ctx.installableUntil && v.fixMonth && v.fixMonth > ctx.installableUntil) return { ...v, fixType: ctx.afterLimit };
  return v;
}
