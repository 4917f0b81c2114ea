// Evaluation of one Windows host against the index: spec §4.2 rules 1–8 with the traps of
// windows-engine.md (§6.2 cumulative, §5 legacy, §7 condensed table). Pure: the date and the CVE corpus
// signals (KEV, EPSS, BCS, exploit availability, references) are passed in.
import type { OsBuild } from './build.ts';
import type { CveMeta, EvaluationIndex, Fix, KbInfo, ProductCve, ProductIndex } from './evaluation-index.ts';
import { lifecycleState, type LifecycleState } from './lifecycle.ts';
import { matchHost, type ProductMatch } from './match.ts';
import type { WindowsProduct } from './products.ts';
import type { HostWarning, WindowsHost } from './validate.ts';
import { isCveId } from '../cve-id.ts';

export type CveStatus = 'confirmed open' | 'cleared (patched)' | 'needs review';
export type FixType = 'kb' | 'esu' | 'none';

export interface ReferenceLink { url: string; tags: string[]; provided_by: string }
export interface ReferencesOut {
  nvd_url: string;
  cve_org_url: string;
  vendor_advisories: ReferenceLink[];
  cisa_ics_advisories: { advisory_id: string; url: string | null; title: string; published: string | null }[];
  other_references: ReferenceLink[];
  other_references_total: number;
}

/** What the CVE corpus knows about a CVE (ingest branch); absent for CVEs not in the corpus. */
export interface CveSignals {
  kev: boolean;
  epss: number | null;
  bcs: number | null;
  cvss: number | null;
  hasExploit: boolean;
  publishedAt: string | null;
  references: ReferencesOut | null;
}
export type SignalLookup = (cve: string) => CveSignals | undefined;

/** Keys the sorts need; stored with the result, never serialised to clients. */
export interface SortKeys {
  kev: boolean;
  exploit: boolean;
  fixTier: 0 | 1 | 2;
  bcs: number | null;
  cvss: number | null;
  epss: number | null;
  published: string | null;
  fixAvailable: boolean;
}

export interface CveResult {
  cve_id: string;
  status: CveStatus;
  fixed_build: string | null;
  kb: string | null;
  source: string | null;
  severity: string | null;
  known_exploited: boolean;
  note: string | null;
  priority_rank: number;
  priority_reason: string;
  fix: { available: boolean; action: string; source: string | null; derived: boolean };
  references: ReferencesOut;
  _k: SortKeys;
}

export interface FixGroup {
  fix: string;
  fix_type: FixType;
  kb: string | null;
  kbs_covered: string[];
  cve_ids: string[];
  counts: { total: number; confirmed: number; known_exploited: number; exploit_available: number };
  highest_score: number | null;
  group_rank: number;
}

export const LABEL = {
  noBuild: 'product-level (no build)',
  needsRevision: 'needs revision',
  notMapped: 'product-level (not mapped)',
  editionMissing: 'resolved by build; edition not supplied',
  endOfLife: 'end of life',
} as const;

// ---- per CVE on one product ---------------------------------------------------------------------------

interface Verdict {
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

const PREPARED = new WeakMap<ProductIndex, Prepared[]>();

export function prepared(pi: ProductIndex): Prepared[] {
  let list = PREPARED.get(pi);
  if (list) return list;
  list = [];
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
      m0: [...mrs, ...sos].map((f) => month(pi, f.kb)).filter((x): x is string => x !== null).sort()[0] ?? null,
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
  PREPARED.set(pi, list);
  return list;
}

/** The build-only decisions most CVEs take, kept small so the engine optimises it (hot loop). */
function cumulativeFast(p: Prepared, ctx: HostCtx): Verdict | null {
  const hostUbr = ctx.build!.ubr!;
  const listed = ctx.kbs !== null && ctx.kbs.size > 0;
  if (p.lcu) {
    for (let i = 0; i < p.hot.length; i++) if (p.hot[i].build!.ubr === hostUbr) return null;
    const fixUbr = p.lcu.build!.ubr!;
    const byBuild = hostUbr >= fixUbr;
    if (listed) {
      const sum = ctx.sum!;
      let listHas = (sum.maxUbr !== null && sum.maxUbr >= fixUbr) || (p.lcuMonth !== null && sum.maxMonthNoBuild !== null && sum.maxMonthNoBuild > p.lcuMonth);
      if (!listHas) for (const k of p.fixKbs) if (ctx.kbs!.has(k)) { listHas = true; break; }
      // A disagreement between build and KB list is decided (and explained) by the full path.
      if (byBuild !== listHas && (!byBuild || sum.newestLcu !== null)) return null;
    }
    return byBuild ? p.vClear : p.vOpen;
  }
  if (p.seriesFix && !listed) {
    if (p.clearAt && p.clearAt.build!.ubr! <= hostUbr) return p.vClear;
    if (p.openBelow && p.openBelow.build!.ubr! > hostUbr) return p.vOpen;
  }
  return null;
}

function cumulative(pi: ProductIndex, p: Prepared, ctx: HostCtx): Verdict {
  const hostUbr = ctx.build!.ubr!;
  const kbs = ctx.kbs;
  if (p.lcu) {
    const main = p.lcu;
    const fixUbr = main.build!.ubr!;
    const byBuild = hostUbr >= fixUbr;
    let byHotpatch: Fix | undefined;
    for (let i = 0; i < p.hot.length; i++) if (p.hot[i].build!.ubr === hostUbr) byHotpatch = p.hot[i];
    // Fast path (most CVEs on most hosts): build-only decision, shared verdict objects.
    if (!byHotpatch && (kbs === null || kbs.size === 0)) return byBuild ? p.vClear! : p.vOpen!;
    const m = p.lcuMonth;
    const v = p.vOpen!;
    if (kbs && kbs.size > 0) {
      const sum = ctx.sum!;
      let listHas = (sum.maxUbr !== null && sum.maxUbr >= fixUbr) || (m !== null && sum.maxMonthNoBuild !== null && sum.maxMonthNoBuild > m);
      if (!listHas) for (const k of p.fixKbs) if (kbs.has(k)) { listHas = true; break; }
      if (!byBuild && !byHotpatch && listHas) {
        return { ...v, status: 'needs review', note: `build ${ctx.build!.text} is below the fixed build ${main.build!.text}, but the KB list contains ${main.kb} or a later cumulative update`, why: 'the build and the KB list disagree' };
      }
      if (byBuild && !byHotpatch && !listHas && sum.newestLcu) {
        return { ...v, status: 'needs review', note: `build ${ctx.build!.text} is at or above the fixed build ${main.build!.text}, but the newest cumulative update in the KB list (${sum.newestLcu.kb}) is older than the fix ${main.kb}`, why: 'the build and the KB list disagree' };
      }
    }
    if (byBuild) return p.vClear!;
    if (byHotpatch) return { ...v, status: 'cleared (patched)', note: null, why: `the host is on hotpatch ${byHotpatch.kb} (build ${byHotpatch.build!.text}), which Microsoft lists as fixing this CVE` };
    return p.vOpen!;
  }

  // Before mid-2021 MSRC gives no FixedBuild (trap 8): place the fix KB in the product's own LCU series by
  // month and compare with the nearest LCUs whose build is known.
  const seriesFix = p.seriesFix;
  if (seriesFix && p.clearAt && p.clearAt.build!.ubr! <= hostUbr) return p.vClear!;
  if (seriesFix && p.openBelow && p.openBelow.build!.ubr! > hostUbr) return p.vOpen!;
  const base = { fixType: 'kb' as FixType, derived: false };
  if (seriesFix) {
    const m = month(pi, seriesFix.kb)!;
    const v = { ...base, fixedBuild: null, kb: seriesFix.kb, fixClass: 'lcu' as const, fixMonth: m, fixUrl: seriesFix.url, derived: true };
    const clearedBy = p.clearAt && p.clearAt.build!.ubr! <= hostUbr ? p.clearAt : undefined;
    if (clearedBy) return p.vClear!;
    const openBy = p.openBelow && p.openBelow.build!.ubr! > hostUbr ? p.openBelow : undefined;
    if (openBy) return p.vOpen!;
    if (kbs && [...kbs].some((k) => k === seriesFix.kb || (pi.kbs.get(k)?.inSeries && (pi.kbs.get(k)!.month ?? '') > m))) {
      return { ...v, status: 'cleared (patched)', note: null, why: `the KB list contains ${seriesFix.kb} or a later cumulative update` };
    }
    return { ...v, status: 'needs review', note: `Microsoft gives no fixed build for ${seriesFix.kb} (${m}) and no build-known update brackets build ${ctx.build!.text}`, why: 'no fixed build to compare' };
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
const WHY_BUILD = '\u0000build';
const WHY_BELOW = '\u0000below';
const WHY_SERIES_CLEAR = '\u0000series-clear';
const WHY_SERIES_OPEN = '\u0000series-open';

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

// ---- a host -----------------------------------------------------------------------------------------

function monthOf(date: string): string {
  return date.slice(0, 7);
}

function hostCtx(host: WindowsHost, match: ProductMatch, product: WindowsProduct, pi: ProductIndex, today: string): { ctx: HostCtx; life: LifecycleState | null } {
  const life = lifecycleState(product.lifecycle, host.edition_id, host.esu_enrolled, today);
  let installableUntil: string | null = null;
  let afterLimit: 'esu' | 'none' = 'esu';
  if (life && today > life.eol && !life.inEsu) {
    if (host.esu_enrolled === true || life.esuEnd === null) {
      // Enrolled but ESU over, or no ESU programme at all: nothing after the end can be installed.
      installableUntil = monthOf(host.esu_enrolled === true && life.esuEnd ? life.esuEnd : life.eol);
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
  if (v.fixType === 'kb' && ctx.installableUntil && v.fixMonth && v.fixMonth > ctx.installableUntil) return { ...v, fixType: ctx.afterLimit };
  return v;
}

const NVD = (cve: string) => `https://nvd.nist.gov/vuln/detail/${cve}`;
const CVE_ORG = (cve: string) => `https://www.cve.org/CVERecord?id=${cve}`;

function referencesFor(meta: CveMeta, sig: CveSignals | undefined): ReferencesOut {
  const base: ReferencesOut = sig?.references
    ? { ...sig.references, vendor_advisories: [...sig.references.vendor_advisories] }
    : { nvd_url: NVD(meta.cve), cve_org_url: CVE_ORG(meta.cve), vendor_advisories: [], cisa_ics_advisories: [], other_references: [], other_references_total: 0 };
  // The Windows vendor's advisory pages: the MSRC page the document links, plus Microsoft-domain advisories
  // already in the corpus (no link is constructed).
  const ms = base.vendor_advisories.filter((r) => /(^|\.)microsoft\.com$/i.test(hostOf(r.url)));
  if (meta.advisoryUrl && !ms.some((r) => r.url === meta.advisoryUrl)) ms.unshift({ url: meta.advisoryUrl, tags: ['Vendor Advisory'], provided_by: 'msrc' });
  base.vendor_advisories = ms;
  return base;
}

function hostOf(url: string): string {
  try { return new URL(url).hostname; } catch { return ''; }
}

function fixAction(v: Verdict, productName: string): string {
  if (v.fixType === 'none') {
    return v.kb ? `No installable update for this edition after end of support; upgrade to a supported Windows version (Microsoft's fix is ${v.kb})` : 'No update from Microsoft for this product; apply mitigations or upgrade';
  }
  const what = v.fixClass === 'lcu' ? 'cumulative update' : v.fixClass === 'rollup' ? 'monthly rollup, or its Security Only update' : v.fixClass === 'ssu' ? 'servicing stack update' : v.fixClass === 'standalone' ? 'standalone security update' : 'update';
  const build = v.fixedBuild ? `, build ${v.fixedBuild}` : '';
  if (v.fixType === 'esu') return `ESU required: ${v.kb} (${what}${build}) was released after end of support for ${productName}; enrol in Extended Security Updates or upgrade the OS`;
  if (v.fixClass === 'lcu') return `Install ${v.kb} (${what}${build}) or any later cumulative update for ${productName}`;
  if (v.fixClass === 'rollup') return `Install ${v.kb} (${what}${build}) or any later monthly rollup for ${productName}`;
  return `Install ${v.kb} (${what}${build}) for ${productName}`;
}

function whyText(v: Verdict, buildText: string | null, p: Prepared): string {
  if (v.why === WHY_SERIES_CLEAR) {
    const k = p.clearAt!;
    return `build ${buildText} includes ${k.kb} (${k.month}, build ${k.build!.text}), a cumulative update released in or after the month of ${v.kb} (${v.fixMonth}); Microsoft gives no fixed build for this CVE`;
  }
  if (v.why === WHY_SERIES_OPEN) {
    const k = p.openBelow!;
    return `build ${buildText} is below ${k.kb} (${k.month}, build ${k.build!.text}), so it lacks ${v.kb} (${v.fixMonth}); Microsoft gives no fixed build for this CVE`;
  }
  if (v.why === WHY_BUILD) return `build ${buildText} is at or above the fixed build ${v.fixedBuild}${v.derived ? ' (Microsoft\'s row gives another product\'s KB; corrected by a reviewed override)' : ''}`;
  if (v.why === WHY_BELOW) return `build ${buildText} is below the fixed build ${v.fixedBuild}${v.derived ? ' (Microsoft\'s row gives another product\'s KB; corrected by a reviewed override)' : ''}`;
  return v.why;
}

function priorityReason(v: Verdict, why: string, sig: CveSignals | undefined, severity: string | null, k: SortKeys): string {
  const parts: string[] = [];
  if (v.status === 'confirmed open') parts.push(`Open on this host: ${why}.`);
  else if (v.status === 'needs review') parts.push(`Needs review: ${v.note ?? why}.`);
  else parts.push(`Patched: ${why}.`);
  if (k.kev) parts.push(sig?.kev ? 'Known exploited (CISA KEV).' : 'Microsoft reports exploitation.');
  else if (k.exploit) parts.push('Public exploit or proof of concept available.');
  if (v.status !== 'cleared (patched)') {
    if (v.fixType === 'esu') parts.push(`The fix ${v.kb} came after end of support: it needs Extended Security Updates (ESU) or an OS upgrade.`);
    else if (v.fixType === 'none') parts.push(v.kb ? `No installable fix for this edition (${v.kb} needs a supported version).` : 'No fix from Microsoft.');
    else if (v.kb) parts.push(`Fix: ${v.kb}.`);
  }
  parts.push(`${severity ? `${severity} severity` : 'Severity not rated'}${k.cvss !== null ? `, CVSS ${k.cvss}` : ''}${k.epss !== null ? `, EPSS ${k.epss}` : ''}.`);
  return parts.join(' ');
}

const STATUS_ORDER: Record<CveStatus, number> = { 'confirmed open': 0, 'needs review': 1, 'cleared (patched)': 2 };

function desc(a: number | null, b: number | null): number {
  return (b ?? -1) - (a ?? -1);
}

/** What the sorts and filters need: a rendered CVE or a not-yet-rendered item. */
export interface Sortable { cve_id: string; status: CveStatus; known_exploited: boolean; _k: SortKeys }

/** Spec §4.2 sort "priority". */
export function comparePriority(a: Sortable, b: Sortable): number {
  return STATUS_ORDER[a.status] - STATUS_ORDER[b.status]
    || Number(b._k.kev) - Number(a._k.kev)
    || Number(b._k.exploit) - Number(a._k.exploit)
    || a._k.fixTier - b._k.fixTier
    || staticOrder(a._k, b._k)
    || compareCveId(a.cve_id, b.cve_id);
}

function staticOrder(a: SortKeys, b: SortKeys): number {
  return desc(a.bcs, b.bcs) || desc(a.cvss, b.cvss) || desc(a.epss, b.epss);
}

export function compareCveId(a: string, b: string): number {
  const pa = a.split('-');
  const pb = b.split('-');
  return Number(pa[1]) - Number(pb[1]) || Number(pa[2]) - Number(pb[2]) || a.localeCompare(b);
}

/** One CVE on one host, not yet rendered: rendering (texts, references) happens only for CVEs returned. */
export interface CveItem extends Sortable {
  /** Set when candidate products disagree (the item's status then differs from its verdict). */
  note?: string;
  p: Prepared;
  v: Verdict;
  sig: CveSignals | undefined;
  productName: string;
}

const RENDERED = new WeakMap<CveItem, { build: string | null; rank: number; r: CveResult }>();
const RANKS = new WeakMap<CveItem[], Map<CveItem, number>>();

/** priority_rank of an item on a host: its position in the host's priority order (1 = first). */
export function rankOf(ordered: CveItem[], it: CveItem): number {
  let m = RANKS.get(ordered);
  if (!m) {
    m = new Map();
    for (let i = 0; i < ordered.length; i++) m.set(ordered[i], i + 1);
    RANKS.set(ordered, m);
  }
  return m.get(it) ?? 0;
}

/** Render an item into the §2.7 per-CVE object. `buildText` is the host's os_build. */
export function renderCve(it: CveItem, buildText: string | null, rank: number): CveResult {
  // Items are shared by hosts with the same facts: render each once.
  const hit = RENDERED.get(it);
  if (hit && hit.build === buildText && hit.rank === rank) return hit.r;
  const r = renderFresh(it, buildText, rank);
  RENDERED.set(it, { build: buildText, rank, r });
  return r;
}

function renderFresh(it: CveItem, buildText: string | null, rank: number): CveResult {
  const { p, v, sig } = it;
  const why = whyText(v, buildText, p);
  return {
    cve_id: it.cve_id,
    status: it.status,
    fixed_build: v.fixedBuild,
    kb: v.kb,
    source: p.pc.meta.cvrfUrl,
    severity: p.pc.severity,
    known_exploited: it.known_exploited,
    note: it.status === v.status ? v.note : it.note ?? v.note,
    priority_rank: rank,
    priority_reason: it.status === v.status ? priorityReason(v, why, sig, p.pc.severity, it._k) : `Needs review: ${it.note}.`,
    fix: { available: it._k.fixAvailable, action: fixAction(v, it.productName), source: v.fixUrl, derived: v.derived },
    references: referencesFor(p.pc.meta, sig),
    _k: it._k,
  };
}

interface GroupAcc { fix: string; fix_type: FixType; kb: string | null; covered: Set<string>; cves: CveItem[] }

function fixGroups(pi: ProductIndex, items: CveItem[], ctx: HostCtx): FixGroup[] {
  const groups = new Map<string, GroupAcc>();
  const add = (key: string, fix: string, type: FixType, kb: string | null, r: CveItem, perCveKb: string | null) => {
    let g = groups.get(key);
    if (!g) { g = { fix, fix_type: type, kb, covered: new Set(), cves: [] }; groups.set(key, g); }
    g.cves.push(r);
    if (perCveKb && perCveKb !== kb) g.covered.add(perCveKb);
  };
  const limit = ctx.installableUntil;
  const installable = (k: KbInfo) => (limit === null || (k.month !== null && k.month <= limit)) && !ctx.kbs?.has(k.kb);
  const lcuTarget = [...pi.lcuSeries].filter((k) => k.build?.ubr != null && installable(k)).sort((a, b) => a.build!.ubr! - b.build!.ubr!).pop() ?? null;
  const mrTarget = [...pi.mrSeries].filter(installable).pop() ?? null;
  const newestAny = pi.product.servicing === 'cumulative'
    ? [...pi.lcuSeries].filter((k) => k.build?.ubr != null).sort((a, b) => a.build!.ubr! - b.build!.ubr!).pop() ?? null
    : pi.mrSeries[pi.mrSeries.length - 1] ?? null;
  const name = pi.product.name;
  for (const r of items) {
    if (r.status === 'cleared (patched)') continue;
    const v = r.v;
    if (v.fixType === 'none') {
      add('none', v.kb ? `Upgrade to a supported Windows version: no installable update for ${name} after its end of support` : `No update from Microsoft for ${name}: apply mitigations or upgrade`, 'none', null, r, v.kb);
      continue;
    }
    if (v.fixType === 'esu') {
      const kb = newestAny?.kb ?? v.kb;
      add('esu', `ESU required (or upgrade the OS): enrol ${name} in Extended Security Updates and install ${kb}`, 'esu', kb, r, v.kb);
      continue;
    }
    if (!v.kb) continue;
    if (v.fixClass === 'lcu' && lcuTarget) {
      const fixUbr = v.fixedBuild ? Number(v.fixedBuild.split('.')[3]) : null;
      const coveredByTarget = fixUbr === null
        ? (v.fixMonth !== null && lcuTarget.month !== null && v.fixMonth <= lcuTarget.month)
        : fixUbr <= lcuTarget.build!.ubr!;
      if (coveredByTarget) {
        add(`kb:${lcuTarget.kb}`, `Install ${lcuTarget.kb}, the latest cumulative update for ${name} (build ${lcuTarget.build!.text})`, 'kb', lcuTarget.kb, r, v.kb);
        continue;
      }
    }
    if (v.fixClass === 'rollup' && mrTarget && (v.fixMonth === null || mrTarget.month === null || v.fixMonth <= mrTarget.month)) {
      add(`kb:${mrTarget.kb}`, `Install ${mrTarget.kb}, the newest monthly rollup ${name} can install (${mrTarget.month})`, 'kb', mrTarget.kb, r, v.kb);
      continue;
    }
    if (ctx.kbs?.has(v.kb)) {
      // Rule 6: a KB already installed is never recommended.
      add(`review:${v.kb}`, `${v.kb} is already installed but the CVE is not cleared: review the host`, 'none', null, r, v.kb);
      continue;
    }
    const label = v.fixClass === 'ssu' ? 'servicing stack update' : v.fixClass === 'standalone' ? 'standalone security update' : v.fixClass === 'lcu' ? 'cumulative update' : v.fixClass === 'rollup' ? 'monthly rollup' : 'update';
    add(`kb:${v.kb}`, `Install ${v.kb} (${label}) for ${name}`, 'kb', v.kb, r, null);
  }
  const out: FixGroup[] = [...groups.values()].map((g) => ({
    fix: g.fix,
    fix_type: g.fix_type,
    kb: g.kb,
    kbs_covered: [...g.covered].sort(),
    cve_ids: g.cves.map((c) => c.cve_id),
    counts: {
      total: g.cves.length,
      confirmed: g.cves.filter((c) => c.status === 'confirmed open').length,
      known_exploited: g.cves.filter((c) => c.known_exploited).length,
      exploit_available: g.cves.filter((c) => c._k.exploit).length,
    },
    highest_score: g.cves.reduce<number | null>((m, c) => (c._k.cvss !== null && (m === null || c._k.cvss > m) ? c._k.cvss : m), null),
    group_rank: 0,
  }));
  return rankGroups(out);
}

const FIX_TYPE_ORDER: Record<FixType, number> = { kb: 0, esu: 1, none: 2 };
function exploitTier(c: FixGroup['counts']): number {
  return c.known_exploited > 0 ? 0 : c.exploit_available > 0 ? 1 : 2;
}

/** Rule 7: ESU groups rank below installable fixes of the same exploit tier. */
export function compareGroups(a: Pick<FixGroup, 'counts' | 'fix_type' | 'highest_score' | 'fix'>, b: Pick<FixGroup, 'counts' | 'fix_type' | 'highest_score' | 'fix'>): number {
  return exploitTier(a.counts) - exploitTier(b.counts)
    || FIX_TYPE_ORDER[a.fix_type] - FIX_TYPE_ORDER[b.fix_type]
    || b.counts.confirmed - a.counts.confirmed
    || desc(a.highest_score, b.highest_score)
    || b.counts.total - a.counts.total
    || a.fix.localeCompare(b.fix);
}

function rankGroups(groups: FixGroup[]): FixGroup[] {
  groups.sort(compareGroups);
  groups.forEach((g, i) => { g.group_rank = i + 1; });
  return groups;
}

/**
 * One evaluation run (a call): the index, the corpus signals, the date, and per-product caches of the
 * host-independent sort order, so 200 hosts of the same product share the work.
 */
interface StaticEntry {
  p: Prepared; k: SortKeys; sig: CveSignals | undefined; kt: SortKeys[];
  /** Items for the shared build-only verdicts, reused by every host of the run (no allocation per host). */
  iClear?: CveItem; iOpen?: CveItem;
}

/**
 * The static order per product depends only on the index and the corpus signals: it is kept as long as the
 * same signal lookup (same cache generation) is passed, so its shared items, and their rendered forms,
 * survive from one call to the next.
 */
const STATIC_ORDER = new WeakMap<SignalLookup, WeakMap<ProductIndex, StaticEntry[]>>();

export class EvaluationRun {
  private order: WeakMap<ProductIndex, StaticEntry[]>;
  constructor(readonly ix: EvaluationIndex, readonly signals: SignalLookup, readonly today: string) {
    let o = STATIC_ORDER.get(signals);
    if (!o) { o = new WeakMap(); STATIC_ORDER.set(signals, o); }
    this.order = o;
  }

  /** CVEs of a product in the static part of the priority order (known-exploited, exploit, BCS, CVSS, EPSS, id). */
  staticOrder(pi: ProductIndex): StaticEntry[] {
    let list = this.order.get(pi);
    if (list) return list;
    list = prepared(pi).map((p) => {
      const sig = this.signals(p.pc.meta.cve);
      const kev = (sig?.kev ?? false) || p.pc.meta.exploited;
      const k: SortKeys = {
        kev, exploit: (sig?.hasExploit ?? false) || kev, fixTier: 0, bcs: sig?.bcs ?? null,
        cvss: sig?.cvss ?? p.pc.cvssScore ?? p.pc.meta.cvssScore, epss: sig?.epss ?? null,
        published: sig?.publishedAt ?? p.pc.meta.publishedAt, fixAvailable: false,
      };
      // One frozen key object per fix tier, shared by every host of the run.
      const kt = [0, 1, 2].map((t) => ({ ...k, fixTier: t as 0 | 1 | 2, fixAvailable: t !== 2 }));
      return { p, k, sig, kt };
    });
    list.sort((a, b) => Number(b.k.kev) - Number(a.k.kev) || Number(b.k.exploit) - Number(a.k.exploit) || staticOrder(a.k, b.k) || a.p.idKey - b.p.idKey);
    this.order.set(pi, list);
    return list;
  }

  private memo = new Map<string, HostEvaluation>();

  /**
   * Hosts with the same facts (product name, edition, build, architecture, installation type, KB list, ESU)
   * get the same result: a fleet has many hosts on one patch level, so each distinct host is evaluated once
   * per run and the others share its (read-only) items and groups.
   */
  evaluate(host: WindowsHost, warnings: HostWarning[]): HostEvaluation {
    const key = [host.os_product, host.edition_id, host.os_build, host.architecture, host.installation_type,
      host.installed_kbs === null ? '-' : [...host.installed_kbs].sort().join(';'), host.esu_enrolled].join('|');
    const hit = this.memo.get(key);
    if (hit) return { ...hit, asset_id: host.asset_id, warnings };
    const e = evaluateWith(this, host, warnings);
    this.memo.set(key, e);
    return e;
  }
}

export interface HostEvaluation {
  asset_id: string;
  microsoft_product: string | null;
  candidate_products: string[] | null;
  patch_resolved: boolean;
  end_of_life: boolean;
  map_note: string | null;
  labels: string[];
  counts: { confirmed_open: number; cleared: number; needs_review: number };
  /** Every CVE in priority order (priority_rank = position + 1); views filter, sort, page and render them. */
  items: CveItem[];
  fix_groups: FixGroup[];
  warnings: HostWarning[];
  /** Newest revision date of the MSRC documents behind this host's results. */
  data_as_of: string | null;
  os_build: string | null;
}

function evaluateWith(run: EvaluationRun, host: WindowsHost, warnings: HostWarning[]): HostEvaluation {
  const { ix, today } = run;
  const match = matchHost(host);
  const labels: string[] = [];
  const notes = [...match.notes];
  if (match.level === 'no_build') labels.push(LABEL.noBuild);
  if (match.level === 'revision') labels.push(LABEL.needsRevision);
  const products = match.products.filter((p) => ix.products.has(p.id));
  if (match.products.length > 0 && products.length === 0) notes.push(`no Microsoft security data for ${match.products.map((p) => p.name).join('; ')}`);
  if (products.length === 0) {
    labels.push(LABEL.notMapped);
    return {
      asset_id: host.asset_id, microsoft_product: null, candidate_products: null, patch_resolved: false, end_of_life: false,
      map_note: notes.join('; ') || 'not mapped to a Microsoft product', labels, counts: { confirmed_open: 0, cleared: 0, needs_review: 0 },
      items: [], fix_groups: [], warnings, data_as_of: null, os_build: host.os_build,
    };
  }
  // Legacy Windows is resolved by its KB list: without one the host is not patch-resolved (spec §2.6).
  const patchResolved = match.level === 'build' && (products[0].servicing === 'cumulative' || host.installed_kbs !== null);
  if (patchResolved && products.length > 1) labels.push(LABEL.editionMissing);

  // Evaluate on every candidate; with several, a CVE whose status differs between them needs review.
  const perProduct = products.map((prod) => {
    const pi = ix.products.get(prod.id)!;
    const { ctx, life } = hostCtx(host, match, prod, pi, today);
    const items: CveItem[] = [];
    for (const entry of run.staticOrder(pi)) {
      const { p, k, sig, kt } = entry;
      const v = verdictFor(pi, p, ctx);
      if (v === p.vClear && v !== null) {
        items.push(entry.iClear ??= { cve_id: p.pc.meta.cve, status: v.status, known_exploited: k.kev, p, v, sig, productName: prod.name, _k: kt[v.kb === null ? 2 : 0] });
        continue;
      }
      if (v === p.vOpen && v !== null) {
        items.push(entry.iOpen ??= { cve_id: p.pc.meta.cve, status: v.status, known_exploited: k.kev, p, v, sig, productName: prod.name, _k: kt[v.kb === null ? 2 : 0] });
        continue;
      }
      const tier = v.kb === null || v.fixType === 'none' ? 2 : v.fixType === 'esu' ? 1 : 0;
      items.push({ cve_id: p.pc.meta.cve, status: v.status, known_exploited: k.kev, p, v, sig, productName: prod.name, _k: kt[tier] });
    }
    return { pi, ctx, life, items };
  });
  const first = perProduct[0];
  let items = first.items;
  if (perProduct.length > 1) {
    const byCve = new Map<string, CveItem>();
    const merged: CveItem[] = [];
    for (const { items: its } of perProduct) {
      for (const it of its) {
        const prev = byCve.get(it.cve_id);
        if (!prev) { byCve.set(it.cve_id, it); merged.push(it); continue; }
        if (prev.status !== it.status && prev.status !== 'needs review') {
          // Items may be shared with other hosts: replace, never mutate.
          const i = merged.indexOf(prev);
          const copy: CveItem = { ...prev };
          merged[i] = copy;
          byCve.set(it.cve_id, copy);
          copy.status = 'needs review';
          copy.note = `status differs between the candidate products (${products.map((x) => x.name).join('; ')}); supply edition_id and installation_type`;
        }
      }
    }
    items = merged;
  }
  // Bucket by (status, exploit class, fix tier): the static order inside each bucket completes the
  // priority order in linear time.
  const buckets: CveItem[][] = Array.from({ length: 27 }, () => []);
  for (const it of items) {
    const ex = it._k.kev ? 0 : it._k.exploit ? 1 : 2;
    buckets[STATUS_ORDER[it.status] * 9 + ex * 3 + it._k.fixTier].push(it);
  }
  const ordered: CveItem[] = [];
  for (const b of buckets) for (const it of b) ordered.push(it);
  // Candidates merge in product order, so the static order is restored by a sort only then.
  if (perProduct.length > 1) ordered.sort(comparePriority);
  const counts = { confirmed_open: 0, cleared: 0, needs_review: 0 };
  for (let i = 0; i < ordered.length; i++) {
    const it = ordered[i];
    if (it.status === 'confirmed open') counts.confirmed_open++;
    else if (it.status === 'cleared (patched)') counts.cleared++;
    else counts.needs_review++;
  }
  const eol = perProduct.every((pp) => pp.life?.endOfLife === true);
  if (eol) labels.push(LABEL.endOfLife);
  // The lifecycle dates used go into map_note when they matter (past end of support, or in ESU), for audit.
  if (first.life && today > first.life.eol) notes.push(`lifecycle: ${first.life.note}`);
  let asOf: string | null = null;
  for (const pp of perProduct) if (pp.pi.dataAsOf && (!asOf || pp.pi.dataAsOf > asOf)) asOf = pp.pi.dataAsOf;
  return {
    asset_id: host.asset_id,
    microsoft_product: products.length === 1 ? products[0].name : null,
    candidate_products: products.length > 1 ? products.map((x) => x.name) : null,
    patch_resolved: patchResolved,
    end_of_life: eol,
    map_note: notes.length ? notes.join('; ') : null,
    labels,
    counts,
    items: ordered,
    fix_groups: fixGroups(first.pi, ordered, first.ctx),
    warnings,
    data_as_of: asOf,
    os_build: host.os_build,
  };
}

/** Evaluate one validated host. `today` is the evaluation date (YYYY-MM-DD) from the injected clock. */
export function evaluateHost(ix: EvaluationIndex, host: WindowsHost, warnings: HostWarning[], signals: SignalLookup, today: string): HostEvaluation {
  return new EvaluationRun(ix, signals, today).evaluate(host, warnings);
}
