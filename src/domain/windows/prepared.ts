// The host-independent facts of a (product, CVE) pair for the verdict rules (domain/windows/verdict.ts): prepared
// once per product and cached in caches.ts. Pure.
import type { OsBuild } from './build.ts';
import type { Fix, KbInfo, ProductCve, ProductIndex } from './evaluation-index.ts';
import { isCveId } from '../cve-id.ts';
import { foreignNote } from './cross-product.ts';
import { month, WHY_BELOW, WHY_BUILD, WHY_SERIES_CLEAR, WHY_SERIES_OPEN, type Verdict } from './verdict-facts.ts';

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
  /** Rows naming another product's KB or build (trap 10): set aside, and the CVE needs review (vForeign). */
  foreign: Fix[];
  vForeign: Verdict | null;
}

const FIX_CLASS: Record<Fix['kind'], Verdict['fixClass']> = {
  security_update: 'lcu',
  monthly_rollup: 'rollup',
  security_only: 'rollup',
  hotpatch: 'other',
  ssu: 'ssu',
  standalone: 'standalone',
  other: 'other',
};

/** The verdict of a CVE whose rows name another product's update: never open or cleared on it (cross-product.ts). */
function foreignVerdict(pi: ProductIndex, p: Prepared): Verdict {
  const own = p.lcu ?? p.rollupFix ?? p.seriesFix ?? p.odd ?? null;
  return {
    status: 'needs review',
    fixedBuild: own?.build?.text ?? null,
    kb: own?.kb ?? null,
    fixClass: own ? FIX_CLASS[own.kind] : null,
    fixMonth: month(pi, own?.kb ?? null),
    fixUrl: own?.url ?? null,
    derived: false,
    fixType: 'kb',
    note: foreignNote(pi.product.name, p.foreign, own),
    why: "Microsoft's row names another product's update",
  };
}

/** The host-independent facts of every CVE of a product (uncached: use `prepared` from caches.ts). */
export function prepareProduct(pi: ProductIndex): Prepared[] {
  const list: Prepared[] = [];
  for (const pc of pi.cves.values()) {
    // ADV advisories and malformed ids are not CVEs.
    if (!isCveId(pc.meta.cve)) continue;
    const fixes = pc.fixes.filter((f) => f.kind !== 'ssu' && !f.foreign);
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
      // Stryker disable ConditionalExpression,MethodExpression: null sorts as "null", after every month, so filtering nulls out or not leaves the same first month
      m0:
        [...mrs, ...sos]
          .map((f) => month(pi, f.kb))
          .filter((x): x is string => x !== null)
          .sort()[0] ?? null,
      // Stryker restore ConditionalExpression,MethodExpression
      // Stryker disable next-line EqualityOperator: only legacy products reach minFix, and their builds share one build number: equal UBRs pick the same build
      minFix: builds.length ? builds.reduce((a, b) => (b.ubr! < a.ubr! ? b : a)) : null,
      clearAt: null,
      openBelow: null,
      vClear: null,
      vOpen: null,
      foreign: pc.fixes.filter((f) => f.foreign),
      vForeign: null,
    });
    const last = list[list.length - 1];
    if (!last.lcu && last.seriesFix) {
      const m = month(pi, last.seriesFix.kb)!;
      for (const k of pi.lcuSeries) {
        if (k.build?.ubr == null) continue;
        if (k.month! >= m && (!last.clearAt || k.build.ubr < last.clearAt.build!.ubr!)) last.clearAt = k;
        if (k.month! <= m && (!last.openBelow || k.build.ubr > last.openBelow.build!.ubr!)) last.openBelow = k;
      }
      const sv = {
        fixedBuild: null,
        kb: last.seriesFix.kb,
        fixClass: 'lcu' as const,
        fixMonth: m,
        fixUrl: last.seriesFix.url,
        derived: true,
        fixType: 'kb' as const,
        note: null,
      };
      last.vClear = { ...sv, status: 'cleared (patched)', why: WHY_SERIES_CLEAR };
      last.vOpen = { ...sv, status: 'confirmed open', why: WHY_SERIES_OPEN };
    }
    if (last.lcu) {
      const lv = {
        fixedBuild: last.lcu.build!.text,
        kb: last.lcu.kb,
        fixClass: 'lcu' as const,
        fixMonth: last.lcuMonth,
        fixUrl: last.lcu.url,
        derived: last.lcu.overrideId !== null,
        fixType: 'kb' as const,
        note: null,
      };
      last.vClear = { ...lv, status: 'cleared (patched)', why: WHY_BUILD };
      last.vOpen = { ...lv, status: 'confirmed open', why: WHY_BELOW };
    }
    if (last.foreign.length > 0) last.vForeign = foreignVerdict(pi, last);
  }
  return list;
}
