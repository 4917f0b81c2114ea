// The verdict rules of spec §4.2 (rules 1–8) for one CVE on one product of one host, with the traps of
// windows-engine.md (§6.2 cumulative, §5 legacy, §7 condensed table). Pure. The host-independent facts of a
// (product, CVE) pair are prepared once (`prepareProduct`, cached in caches.ts); the host's KB list is read
// once per host (`hostCtx`). Texts that explain a verdict to the reader are written later (wording.ts): a
// verdict carries either its own short reason or one of the WHY_* markers.
// Parts: verdict-facts.ts (the shapes and markers), prepared.ts (the host-independent facts), verdict-cumulative.ts
// and verdict-legacy.ts (the two servicing models); this file reads the host once and chooses the path.
import type { ProductIndex } from './evaluation-index.ts';
import { lifecycleState, type LifecycleState } from './lifecycle.ts';
import type { ProductMatch } from './match.ts';
import type { WindowsProduct } from './products.ts';
import type { WindowsHost } from './host-record.ts';
import type { Prepared } from './prepared.ts';
import { cumulative, cumulativeFast } from './verdict-cumulative.ts';
import { legacy } from './verdict-legacy.ts';
import { month, type HostCtx, type KbSummary, type Verdict } from './verdict-facts.ts';

function kbSummary(pi: ProductIndex, kbs: Set<string>): KbSummary {
  const s: KbSummary = { maxUbr: null, maxMonthNoBuild: null, newestLcu: null, newestMr: null, superseded: new Map() };
  for (const k of kbs) {
    const info = pi.kbs.get(k);
    if (!info) continue;
    if (info.inSeries && info.kind === 'security_update') {
      // Stryker disable EqualityOperator: on equal builds or months the assignment writes the same value
      if (info.build?.ubr != null) {
        if (s.maxUbr === null || info.build.ubr > s.maxUbr) s.maxUbr = info.build.ubr;
      } else if (info.month && (!s.maxMonthNoBuild || info.month > s.maxMonthNoBuild)) s.maxMonthNoBuild = info.month;
      // Stryker restore EqualityOperator
      if (!s.newestLcu || (info.month ?? '') > (s.newestLcu.month ?? '')) s.newestLcu = info;
    }
    if (
      info.inSeries &&
      info.kind === 'monthly_rollup' &&
      (!s.newestMr || (info.month ?? '') > (s.newestMr.month ?? ''))
    )
      s.newestMr = info;
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

function monthOf(date: string): string {
  return date.slice(0, 7);
}

export function hostCtx(
  host: WindowsHost,
  match: ProductMatch,
  product: WindowsProduct,
  pi: ProductIndex,
  today: string,
): { ctx: HostCtx; life: LifecycleState | null } {
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
      host,
      build: match.build,
      kbs: host.installed_kbs ? new Set(host.installed_kbs) : null,
      installableUntil,
      afterLimit,
      level: match.level,
      sum: host.installed_kbs ? kbSummary(pi, new Set(host.installed_kbs)) : null,
    },
    life,
  };
}

export function verdictFor(pi: ProductIndex, p: Prepared, ctx: HostCtx): Verdict {
  let v: Verdict;
  if (p.vForeign) {
    // A row of another product's update (trap 10) decides nothing, whatever the build or KB list says.
    v = p.vForeign;
  } else if (ctx.level !== 'build') {
    const pc = p.pc;
    const f = p.lcu ?? p.rollupFix ?? p.seriesFix ?? pc.fixes.find((x) => x.kb);
    const why =
      ctx.level === 'revision'
        ? 'os_build has no revision (UBR), so the patch level is unknown'
        : ctx.level === 'bare_name'
          ? 'os_product is only "Windows": the host stays product-level, so the build is not compared'
          : 'no os_build: only the product is known';
    v = {
      status: 'needs review',
      fixedBuild: f?.build?.text ?? null,
      kb: f?.kb ?? null,
      note: why,
      fixClass: f
        ? f.kind === 'monthly_rollup' || f.kind === 'security_only'
          ? 'rollup'
          : f.kind === 'security_update'
            ? 'lcu'
            : 'other'
        : null,
      fixMonth: month(pi, f?.kb ?? null),
      fixUrl: f?.url ?? null,
      derived: false,
      why,
      fixType: f ? 'kb' : 'none',
    };
  } else {
    v = pi.product.servicing === 'cumulative' ? (cumulativeFast(p, ctx) ?? cumulative(pi, p, ctx)) : legacy(pi, p, ctx);
  }
  // Rule 2/7: a fix released after the end of support needs ESU (or cannot be had at all).
  // Stryker disable next-line ConditionalExpression,LogicalOperator: only kb verdicts carry a fix month, so the other guards change nothing
  if (v.fixType === 'kb' && ctx.installableUntil && v.fixMonth && v.fixMonth > ctx.installableUntil)
    return { ...v, fixType: ctx.afterLimit };
  return v;
}
