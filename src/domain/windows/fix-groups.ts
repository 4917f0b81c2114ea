// Fix grouping (spec §4.2 rules 6 and 7): the open CVEs of a host gathered under the one update that fixes
// them (the newest installable cumulative update or rollup, an ESU enrolment, or nothing), ranked.
import type { KbInfo, ProductIndex } from './evaluation-index.ts';
import type { FixType, HostCtx } from './verdict-facts.ts';
import type { CveItem } from './evaluate.ts';
import { desc, exploitClass } from './priority.ts';
import { GROUP_TEXT } from './wording.ts';

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

/** A group before ranking: its title, update and CVEs (candidateFixGroups in evaluate.ts merges drafts). */
export interface GroupDraft {
  fix: string;
  fix_type: FixType;
  kb: string | null;
  covered: Set<string>;
  cves: CveItem[];
}

export function fixGroups(pi: ProductIndex, items: CveItem[], ctx: HostCtx): FixGroup[] {
  return finishGroups(draftGroups(pi, items, ctx, pi.product.name));
}

/** The groups of the CVEs not cleared in `items`, titled with `name` for the product (not yet counted or ranked). */
export function draftGroups(pi: ProductIndex, items: CveItem[], ctx: HostCtx, name: string): GroupDraft[] {
  const groups = new Map<string, GroupDraft>();
  const add = (key: string, fix: string, type: FixType, kb: string | null, r: CveItem, perCveKb: string | null) => {
    let g = groups.get(key);
    if (!g) {
      g = { fix, fix_type: type, kb, covered: new Set(), cves: [] };
      groups.set(key, g);
    }
    g.cves.push(r);
    if (perCveKb && perCveKb !== kb) g.covered.add(perCveKb);
  };
  const limit = ctx.installableUntil;
  const installable = (k: KbInfo) => (limit === null || (k.month !== null && k.month <= limit)) && !ctx.kbs?.has(k.kb);
  const lcuTarget =
    [...pi.lcuSeries]
      .filter((k) => k.build?.ubr != null && installable(k))
      .sort((a, b) => a.build!.ubr! - b.build!.ubr!)
      .pop() ?? null;
  const mrTarget = [...pi.mrSeries].filter(installable).pop() ?? null;
  const newestAny =
    pi.product.servicing === 'cumulative'
      ? ([...pi.lcuSeries]
          .filter((k) => k.build?.ubr != null)
          .sort((a, b) => a.build!.ubr! - b.build!.ubr!)
          .pop() ?? null)
      : (pi.mrSeries[pi.mrSeries.length - 1] ?? null);
  for (const r of items) {
    if (r.status === 'cleared (patched)') continue;
    const v = r.v;
    if (v.fixType === 'none') {
      add('none', v.kb ? GROUP_TEXT.upgrade(name) : GROUP_TEXT.noUpdate(name), 'none', null, r, v.kb);
      continue;
    }
    if (v.fixType === 'esu') {
      const kb = newestAny?.kb ?? v.kb;
      add('esu', GROUP_TEXT.esu(name, kb), 'esu', kb, r, v.kb);
      continue;
    }
    if (!v.kb) continue;
    if (v.fixClass === 'lcu' && lcuTarget) {
      const fixUbr = v.fixedBuild ? Number(v.fixedBuild.split('.')[3]) : null;
      const coveredByTarget =
        fixUbr === null
          ? v.fixMonth !== null && lcuTarget.month !== null && v.fixMonth <= lcuTarget.month
          : fixUbr <= lcuTarget.build!.ubr!;
      if (coveredByTarget) {
        add(
          `kb:${lcuTarget.kb}`,
          GROUP_TEXT.latestLcu(name, lcuTarget.kb, lcuTarget.build!.text),
          'kb',
          lcuTarget.kb,
          r,
          v.kb,
        );
        continue;
      }
    }
    if (
      v.fixClass === 'rollup' &&
      mrTarget &&
      (v.fixMonth === null || mrTarget.month === null || v.fixMonth <= mrTarget.month)
    ) {
      add(`kb:${mrTarget.kb}`, GROUP_TEXT.newestRollup(name, mrTarget.kb, mrTarget.month), 'kb', mrTarget.kb, r, v.kb);
      continue;
    }
    if (ctx.kbs?.has(v.kb)) {
      // Rule 6: a KB already installed is never recommended.
      add(`review:${v.kb}`, GROUP_TEXT.alreadyInstalled(v.kb), 'none', null, r, v.kb);
      continue;
    }
    add(`kb:${v.kb}`, GROUP_TEXT.install(name, v.kb, v.fixClass), 'kb', v.kb, r, null);
  }
  return [...groups.values()];
}

/** Counts and ranks drafted groups. */
export function finishGroups(drafts: GroupDraft[]): FixGroup[] {
  const out: FixGroup[] = drafts.map((g) => ({
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
    highest_score: g.cves.reduce<number | null>(
      (m, c) => (c._k.cvss !== null && (m === null || c._k.cvss > m) ? c._k.cvss : m),
      null,
    ),
    group_rank: 0,
  }));
  return rankGroups(out);
}

const FIX_TYPE_ORDER: Record<FixType, number> = { kb: 0, esu: 1, none: 2 };
function exploitTier(c: FixGroup['counts']): number {
  return exploitClass(c.known_exploited > 0, c.exploit_available > 0);
}

/** Rule 7: ESU groups rank below installable fixes of the same exploit tier. */
export function compareGroups(
  a: Pick<FixGroup, 'counts' | 'fix_type' | 'highest_score' | 'fix'>,
  b: Pick<FixGroup, 'counts' | 'fix_type' | 'highest_score' | 'fix'>,
): number {
  return (
    exploitTier(a.counts) - exploitTier(b.counts) ||
    FIX_TYPE_ORDER[a.fix_type] - FIX_TYPE_ORDER[b.fix_type] ||
    b.counts.confirmed - a.counts.confirmed ||
    desc(a.highest_score, b.highest_score) ||
    b.counts.total - a.counts.total ||
    a.fix.localeCompare(b.fix)
  );
}

function rankGroups(groups: FixGroup[]): FixGroup[] {
  groups.sort(compareGroups);
  groups.forEach((g, i) => {
    g.group_rank = i + 1;
  });
  return groups;
}
