// The priority order of spec §4.2 (sort "priority") and the keys it reads. Pure.
import type { CveStatus } from './verdict-facts.ts';

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

export const STATUS_ORDER: Record<CveStatus, number> = {
  'confirmed open': 0,
  'needs review': 1,
  'cleared (patched)': 2,
};

export function desc(a: number | null, b: number | null): number {
  return (b ?? -1) - (a ?? -1);
}

/** Exploit class of the priority order and of fix groups: 0 known exploited, 1 exploit available, 2 neither. */
export function exploitClass(knownExploited: boolean, exploitAvailable: boolean): 0 | 1 | 2 {
  return knownExploited ? 0 : exploitAvailable ? 1 : 2;
}

/** What the sorts and filters need: a rendered CVE or a not-yet-rendered item. */
export interface Sortable {
  cve_id: string;
  status: CveStatus;
  known_exploited: boolean;
  _k: SortKeys;
}

/** Spec §4.2 sort "priority". */
export function comparePriority(a: Sortable, b: Sortable): number {
  return (
    STATUS_ORDER[a.status] - STATUS_ORDER[b.status] ||
    Number(b._k.kev) - Number(a._k.kev) ||
    Number(b._k.exploit) - Number(a._k.exploit) ||
    a._k.fixTier - b._k.fixTier ||
    staticOrder(a._k, b._k) ||
    compareCveId(a.cve_id, b.cve_id)
  );
}

export function staticOrder(a: SortKeys, b: SortKeys): number {
  return desc(a.bcs, b.bcs) || desc(a.cvss, b.cvss) || desc(a.epss, b.epss);
}

export function compareCveId(a: string, b: string): number {
  const pa = a.split('-');
  const pb = b.split('-');
  return Number(pa[1]) - Number(pb[1]) || Number(pa[2]) - Number(pb[2]) || a.localeCompare(b);
}
