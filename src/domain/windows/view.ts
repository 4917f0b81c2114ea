// Options, the four sorts, filters and paging of spec §4.2, applied to stored or fresh host evaluations.
// Filters and sorts apply before paging; counts always cover every CVE.
import {
  compareCveId,
  comparePriority,
  compareGroups,
  rankOf,
  renderCve,
  type CveItem,
  type CveResult,
  type FixGroup,
  type HostEvaluation,
  type Sortable,
} from './evaluate.ts';
import { memoWeak } from '../memo.ts';
import { isOneOf } from '../one-of.ts';

export const SORTS = ['priority', 'score', 'exploit', 'newest'] as const;
export type SortName = (typeof SORTS)[number];

export interface ViewOptions {
  include_cleared: boolean;
  sort: SortName;
  confirmed_only: boolean;
  known_exploited_only: boolean;
  fix_available_only: boolean;
  cve_page: number | null;
  cve_page_size: number | null;
}

/** The largest cve_page (a host has a few thousand CVEs at most; a later page is empty). */
export const MAX_CVE_PAGE = 100_000;

export const OPTION_NAMES = [
  'include_cleared',
  'sort',
  'confirmed_only',
  'known_exploited_only',
  'fix_available_only',
  'cve_page',
  'cve_page_size',
] as const;
export const DEFAULT_PAGE_SIZE = 100;

export interface OptionError {
  field: string;
  message: string;
  type: string;
}

function bool(v: unknown, fromText: boolean): boolean | undefined | null {
  if (v === undefined) return undefined;
  if (typeof v === 'boolean') return v;
  if (fromText && typeof v === 'string') {
    const t = v.trim().toLowerCase();
    if (t === '') return undefined;
    if (t === 'true' || t === '1' || t === 'yes') return true;
    if (t === 'false' || t === '0' || t === 'no') return false;
  }
  return null;
}

function int(v: unknown, fromText: boolean): number | undefined | null {
  if (v === undefined) return undefined;
  if (typeof v === 'number') return Number.isInteger(v) ? v : null;
  if (fromText && typeof v === 'string') {
    const t = v.trim();
    if (t === '') return undefined;
    return /^\d+$/.test(t) ? Number(t) : null;
  }
  return null;
}

/**
 * Parse options. `fromText` accepts strings (CSV form fields, query strings); JSON takes typed values.
 * include_cleared defaults to false for JSON and true for the CSV upload (spec §4.2).
 */
export function parseViewOptions(
  input: Record<string, unknown>,
  opts: { fromText: boolean; includeClearedDefault: boolean; prefix?: string },
): { ok: true; options: ViewOptions } | { ok: false; errors: OptionError[] } {
  const errors: OptionError[] = [];
  const p = opts.prefix ?? '';
  const o: ViewOptions = {
    include_cleared: opts.includeClearedDefault,
    sort: 'priority',
    confirmed_only: false,
    known_exploited_only: false,
    fix_available_only: false,
    cve_page: null,
    cve_page_size: null,
  };
  for (const key of Object.keys(input)) {
    if (!isOneOf(OPTION_NAMES, key))
      errors.push({ field: `${p}${key}`, message: 'unknown option', type: 'unknown_option' });
  }
  for (const k of ['include_cleared', 'confirmed_only', 'known_exploited_only', 'fix_available_only'] as const) {
    const b = bool(input[k], opts.fromText);
    if (b === null) errors.push({ field: `${p}${k}`, message: 'must be a boolean', type: 'type_error.boolean' });
    else if (b !== undefined) o[k] = b;
  }
  if (input.sort !== undefined && !(opts.fromText && input.sort === '')) {
    // Stryker disable next-line ConditionalExpression: an unknown sort was refused before; the check is kept for the type narrowing
    if (typeof input.sort === 'string' && isOneOf(SORTS, input.sort)) o.sort = input.sort;
    else
      errors.push({
        field: `${p}sort`,
        message: 'sort must be one of priority, score, exploit, newest',
        type: 'type_error.enum',
      });
  }
  const page = int(input.cve_page, opts.fromText);
  // Stryker disable next-line ConditionalExpression: page and size are integers or null by here: the null and undefined checks overlap
  if (page === null || (page !== undefined && (page < 1 || page > MAX_CVE_PAGE)))
    errors.push({
      field: `${p}cve_page`,
      message: `cve_page must be an integer from 1 to ${MAX_CVE_PAGE}`,
      type: 'value_error',
    });
  else if (page !== undefined) o.cve_page = page;
  const size = int(input.cve_page_size, opts.fromText);
  // Stryker disable next-line ConditionalExpression: page and size are integers or null by here: the null and undefined checks overlap
  if (size === null || (size !== undefined && (size < 1 || size > 1000)))
    errors.push({
      field: `${p}cve_page_size`,
      message: 'cve_page_size must be an integer from 1 to 1000',
      type: 'value_error',
    });
  else if (size !== undefined) o.cve_page_size = size;
  return errors.length ? { ok: false, errors } : { ok: true, options: o };
}

const OPEN_FIRST = (a: Sortable, b: Sortable) =>
  Number(b.status === 'confirmed open') - Number(a.status === 'confirmed open');
const num = (a: number | null, b: number | null) => (b ?? -1) - (a ?? -1);

export const COMPARATORS: Record<SortName, (a: Sortable, b: Sortable) => number> = {
  priority: comparePriority,
  score: (a, b) => OPEN_FIRST(a, b) || compareCveId(a.cve_id, b.cve_id),
  exploit: (a, b) =>
    Number(b._k.kev) - Number(a._k.kev) ||
    Number(b._k.exploit) - Number(a._k.exploit) ||
    num(a._k.epss, b._k.epss) ||
    num(a._k.cvss, b._k.cvss) ||
    compareCveId(a.cve_id, b.cve_id),
  newest: (a, b) => (b._k.published ?? '').localeCompare(a._k.published ?? '') || compareCveId(b.cve_id, a.cve_id),
};

export function filterCves<T extends Sortable>(cves: T[], o: ViewOptions): T[] {
  return cves.filter(
    (c) =>
      (o.include_cleared || c.status !== 'cleared (patched)') &&
      (!o.confirmed_only || c.status === 'confirmed open') &&
      (!o.known_exploited_only || c.known_exploited) &&
      (!o.fix_available_only || c._k.fixAvailable),
  );
}

export type PublicCve = Omit<CveResult, '_k'>;
export interface HostView extends Omit<HostEvaluation, 'items' | 'data_as_of' | 'os_build'> {
  cves: PublicCve[];
  cves_page?: { page: number; page_size: number; total: number; total_unfiltered: number; has_more: boolean };
}

const PUBLIC = memoWeak<CveResult, PublicCve>();

export function publicCve(c: CveResult): PublicCve {
  let out = PUBLIC.get(c);
  if (!out) {
    const { _k, ...rest } = c;
    void _k;
    out = rest;
    PUBLIC.set(c, out);
  }
  return out;
}

/**
 * Hosts with the same facts share their evaluation's items (EvaluationRun memo): a call passes one memo map so
 * such hosts also share one CVE list (and the response writer serialises it once).
 */
export type ViewMemo = Map<CveItem[], Pick<HostView, 'cves' | 'cves_page'>>;

/** The §2.7 per-host object: filter, sort, then page; only the CVEs returned are rendered. */
export function viewHost(e: HostEvaluation, o: ViewOptions, memo?: ViewMemo): HostView {
  const hit = memo?.get(e.items);
  if (hit) {
    const { data_as_of: _asOf, items: _all, os_build: _build, ...rest } = e;
    void _asOf;
    void _all;
    void _build;
    return { ...rest, cves: hit.cves, ...(hit.cves_page ? { cves_page: hit.cves_page } : {}) };
  }
  const v = viewFresh(e, o);
  memo?.set(e.items, { cves: v.cves, cves_page: v.cves_page });
  return v;
}

function viewFresh(e: HostEvaluation, o: ViewOptions): HostView {
  const filtered = filterCves(e.items, o);
  // Stryker disable next-line ConditionalExpression,StringLiteral: the list is already in priority order, so sorting it by priority again changes nothing
  if (o.sort !== 'priority') filtered.sort(COMPARATORS[o.sort]);
  const { data_as_of: _asOf, items: _all, os_build: build, ...rest } = e;
  void _asOf;
  void _all;
  const render = (list: typeof filtered) => list.map((it) => publicCve(renderCve(it, build, rankOf(e.items, it))));
  if (o.cve_page === null && o.cve_page_size === null) return { ...rest, cves: render(filtered) };
  const page = o.cve_page ?? 1;
  const size = o.cve_page_size ?? DEFAULT_PAGE_SIZE;
  return {
    ...rest,
    cves: render(filtered.slice((page - 1) * size, page * size)),
    cves_page: {
      page,
      page_size: size,
      total: filtered.length,
      total_unfiltered: e.items.length,
      has_more: page * size < filtered.length,
    },
  };
}

export interface FixSummaryItem {
  rank: number;
  fix: string;
  product: string | null;
  asset_ids: string[];
  counts: FixGroup['counts'];
  highest_score: number | null;
}

/** data.fix_summary: the top fix actions across every host of the call (same fix for the same product merged). */
export function fixSummary(evals: HostEvaluation[], top = 10): FixSummaryItem[] {
  const acc = new Map<string, FixSummaryItem & { fix_type: FixGroup['fix_type'] }>();
  for (const e of evals) {
    const product = e.microsoft_product ?? (e.candidate_products ? e.candidate_products.join(' | ') : null);
    for (const g of e.fix_groups) {
      const key = `${product}\u0000${g.fix}`;
      let s = acc.get(key);
      if (!s) {
        s = {
          rank: 0,
          fix: g.fix,
          product,
          asset_ids: [],
          counts: { total: 0, confirmed: 0, known_exploited: 0, exploit_available: 0 },
          highest_score: null,
          fix_type: g.fix_type,
        };
        acc.set(key, s);
      }
      if (!s.asset_ids.includes(e.asset_id)) s.asset_ids.push(e.asset_id);
      s.counts.total += g.counts.total;
      s.counts.confirmed += g.counts.confirmed;
      s.counts.known_exploited += g.counts.known_exploited;
      s.counts.exploit_available += g.counts.exploit_available;
      // Stryker disable next-line ConditionalExpression,EqualityOperator: a null score never wins, and equal scores write the same value
      if (g.highest_score !== null && (s.highest_score === null || g.highest_score > s.highest_score))
        s.highest_score = g.highest_score;
    }
  }
  const list = [...acc.values()]
    .sort((a, b) => compareGroups(a, b) || b.asset_ids.length - a.asset_ids.length)
    .slice(0, top);
  return list.map(({ fix_type: _t, ...s }, i) => {
    void _t;
    return { ...s, rank: i + 1 };
  });
}
