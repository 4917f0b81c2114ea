// The correlate-cves answer (docs/correlation.md §5): its shapes, and how one asset's decided CVEs become it: the
// priority order (the same idea as v2's), the options' filters and paging, the deciding range and the card fields
// as the answer shows them, the products matched. Pure; the service (asset-correlation.ts) decides the CVEs, the
// route's byte writer (http/views/correlate-json.ts) and the stored copy (assetResult) read what this makes.
import type { AssetRecord } from '../domain/assets.ts';
import { sourceLabel, type CorrelationStatus, type CveVerdict, type RangeRow } from '../domain/correlate.ts';
import { strongerMatch, type MatchConfidence, type ProductMatch } from '../domain/product-match.ts';
import type { AffectedRange } from '../domain/ranges.ts';
import { cvePath, apiTimestamp } from '../domain/cve-view.ts';
import { SORTS, type SortName } from '../domain/windows/view.ts';
import type { CveCard, CveFlags, StoredRange } from '../store/ranges.ts';
import { isOpen, type DecisionStatus } from '../domain/triage.ts';
import type { StatementLookup, VendorMark } from '../domain/vendor-statements.ts';

/** A CVE's triage decision for one asset, as answers in an environment show it (docs/triage.md). */
export interface DecisionMark {
  status: DecisionStatus;
  open: boolean;
  review_again: boolean;
}
/** The decision covering (CVE, asset) in the answer's environment, or null when undecided there. */
export type DecisionLookup = (cveId: string, assetId: string) => DecisionMark | null;
/**
 * The asset's CVEs that the correlation finds affected or to review, by decision: `open` leaves out not_affected and
 * fixed (shown here, never hidden); `undecided` are open too.
 */
export interface DecisionCounts {
  open: number;
  undecided: number;
  under_investigation: number;
  affected: number;
  not_affected: number;
  fixed: number;
  review_again: number;
}
export const noDecisionCounts = (): DecisionCounts => ({
  open: 0,
  undecided: 0,
  under_investigation: 0,
  affected: 0,
  not_affected: 0,
  fixed: 0,
  review_again: 0,
});

/** A lookup over an environment's decisions (store/triage-decisions.ts decisionStatuses). */
export function decisionLookup(
  map: ReadonlyMap<string, { status: DecisionStatus; asset_ids: string[]; review: boolean }>,
): DecisionLookup {
  return (cve, asset) => {
    const d = map.get(cve);
    if (!d || (d.asset_ids.length > 0 && !d.asset_ids.includes(asset))) return null;
    return { status: d.status, open: isOpen(d.status), review_again: d.review };
  };
}

/** The v2 sort values (spec §4.2), with the same meaning. */
export { SORTS };
export type Sort = SortName;

export interface CorrelateOptions {
  include_not_affected: boolean;
  sort: Sort;
  affected_only: boolean;
  known_exploited_only: boolean;
  fix_available_only: boolean;
  cve_page: number | null;
  cve_page_size: number | null;
}

export const DEFAULT_OPTIONS: CorrelateOptions = {
  include_not_affected: false,
  sort: 'priority',
  affected_only: false,
  known_exploited_only: false,
  fix_available_only: false,
  cve_page: null,
  cve_page_size: null,
};

export interface DecidingRange {
  source: 'nvd' | 'cve5' | 'csaf';
  source_name: string;
  source_key: string | null;
  vendor: string;
  product: string;
  cpe: string | null;
  status: AffectedRange['status'];
  version: string | null;
  start: AffectedRange['start'];
  end: AffectedRange['end'];
  text: string | null;
  running_on: string[] | null;
}

export interface AssetCve {
  cve_id: string;
  title: string;
  status: CorrelationStatus;
  reason: string;
  match: ProductMatch;
  range: DecidingRange;
  fixed_version: string | null;
  severity: string | null;
  cvss: { score: number | null; version: string | null; vector: string | null };
  bcs_score: number;
  epss: { score: number | null; percentile: number | null };
  known_exploited: boolean;
  exploit_maturity: string;
  published_at: string | null;
  priority_rank: number;
  decision?: DecisionMark | null;
  /** In an environment, when a CSAF advisory's vendor states the CVE fixed or not affected for this asset's product. */
  vendor_statements?: VendorMark[];
  _links: { self: string };
}

export interface MatchedProduct {
  vendor: string;
  product: string;
  confidence: MatchConfidence;
  basis: string;
}

export interface StatusCounts {
  affected: number;
  not_affected: number;
  needs_review: number;
}
export interface SeverityCounts {
  critical: number;
  high: number;
  medium: number;
  low: number;
  none: number;
}

export interface AssetResult {
  asset_id: string;
  vendor: string;
  product: string;
  version: string | null;
  matched_products: MatchedProduct[];
  counts: StatusCounts;
  cves: AssetCve[];
  cves_page?: { page: number; page_size: number; total: number; total_unfiltered: number; has_more: boolean };
  decision_counts?: DecisionCounts;
}

export interface AssetCheck {
  asset_id: string;
  matched: boolean;
  counts: StatusCounts;
  /** Severity of the affected and needs-review CVEs. */
  severity: SeverityCounts;
  known_exploited: boolean;
}

const STATUS_RANK: Record<CorrelationStatus, number> = { affected: 0, needs_review: 1, not_affected: 2 };
const num = (x: number | null) => x ?? -1;

/** One CVE of an asset, decided: what an answer's CVE entry is made of (assetResult, http/views/correlate-json.ts). */
export interface Decided {
  cve_id: string;
  v: CveVerdict;
  card: CveCard;
  /** The integer part of the priority order (status, known-exploited, exploit, a stated fix), smaller first. */
  pk: number;
  /** The card's BCS, CVSS and EPSS (-1 when none), copied here for the sorts (no card read per comparison). */
  bcs: number;
  cvss: number;
  epss: number;
  /** Its place in the asset's priority order, 1 first (set by select()). */
  rank: number;
}

/**
 * One asset's answer before it becomes JSON: the CVEs listed (filtered, sorted, paged, each with its rank) and the
 * rest of AssetResult. assetResult() makes the plain object; the route writes the bytes from this directly.
 */
/** One CVE of an asset as decided (its rank is set when the asset's answer is selected). */
export function decidedCve(cve_id: string, v: CveVerdict, card: CveCard): Decided {
  return {
    cve_id,
    v,
    card,
    pk: priorityKey(v, card),
    bcs: card.bcs_score,
    cvss: num(card.cvss_score),
    epss: num(card.epss_score),
    rank: 0,
  };
}

export interface AssetAnswer {
  asset: AssetRecord;
  matched_products: MatchedProduct[];
  counts: StatusCounts;
  listed: Decided[];
  cves_page?: AssetResult['cves_page'];
  /**
   * In an environment: each listed CVE's decision for this asset, and the counts by decision; beside them, the vendor
   * statements naming the asset, by CVE (only CVEs with one).
   */
  decisions?: { marks: Map<string, DecisionMark | null>; counts: DecisionCounts; stated: Map<string, VendorMark[]> };
}

/** Decided.pk: status rank, then not known-exploited, no exploit or PoC, no stated fix (each one bit). */
function priorityKey(v: CveVerdict, card: CveCard): number {
  return (
    STATUS_RANK[v.status] * 8 +
    (card.kev_flagged ? 0 : 4) +
    (card.has_public_exploit || card.poc_available ? 0 : 2) +
    (v.fixed_version !== null ? 0 : 1)
  );
}

/** Rows of one bucket with the same names and keys (what matchRow reads): one match decides them all. */
export interface NameGroup {
  key: string;
  rows: StoredRange[];
}

/** A group of rows that matched an asset, with the match. */
export interface MatchedGroup {
  group: NameGroup;
  match: ProductMatch;
}

/** Same idea as v2's priority (spec §4.2): status, then known-exploited, exploit/PoC, a stated fix, BCS, CVSS, EPSS. */
function comparator(sort: Sort): (a: Decided, b: Decided) => number {
  const exploit = (d: Decided) => (d.card.has_public_exploit || d.card.poc_available ? 1 : 0);
  const tie = (a: Decided, b: Decided) => (a.cve_id < b.cve_id ? -1 : a.cve_id > b.cve_id ? 1 : 0);
  switch (sort) {
    case 'score':
      return (a, b) => STATUS_RANK[a.v.status] - STATUS_RANK[b.v.status] || b.cvss - a.cvss || tie(a, b);
    case 'exploit':
      return (a, b) =>
        Number(b.card.kev_flagged) - Number(a.card.kev_flagged) ||
        exploit(b) - exploit(a) ||
        b.epss - a.epss ||
        b.cvss - a.cvss ||
        tie(a, b);
    case 'newest':
      return (a, b) => (b.card.published_at?.getTime() ?? 0) - (a.card.published_at?.getTime() ?? 0) || tie(a, b);
    default:
      // pk packs status, known-exploited, exploit and a stated fix (priorityKey), in that order.
      return (a, b) => a.pk - b.pk || b.bcs - a.bcs || b.cvss - a.cvss || b.epss - a.epss || tie(a, b);
  }
}

/** The deciding range as answers show it; one object per (cached) row, shared by every answer that cites it. */
const DECIDING = new WeakMap<RangeRow, DecidingRange>();
export function deciding(row: RangeRow): DecidingRange {
  let d = DECIDING.get(row);
  if (d) return d;
  const r = row.range;
  d = {
    source: r.source,
    source_name: sourceLabel(r.source),
    source_key: row.source_key || null,
    vendor: r.vendor,
    product: r.product,
    cpe: r.cpe,
    status: r.status,
    version: r.version,
    start: r.start,
    end: r.end,
    text: r.text,
    running_on: r.runningOn,
  };
  DECIDING.set(row, d);
  return d;
}

export function severityCounts(list: CveFlags[]): SeverityCounts {
  const c: SeverityCounts = { critical: 0, high: 0, medium: 0, low: 0, none: 0 };
  for (const f of list) {
    const s = (f.severity ?? 'none').toLowerCase();
    if (s in c) c[s as keyof SeverityCounts]++;
    else c.none++;
  }
  return c;
}

/**
 * The fields of a CVE entry that come from its card, in the entry's order around the asset's own fields:
 * head (cve_id, title), then status … fixed_version, then mid (severity … published_at), then priority_rank, then
 * tail (_links). One mapping for cveEntry and the byte writer's cached fragments (http/views/correlate-json.ts).
 */
export function cardFields(c: CveCard) {
  return {
    head: { cve_id: c.cve_id, title: c.title },
    mid: {
      severity: c.severity,
      cvss: { score: c.cvss_score, version: c.cvss_version, vector: c.cvss_vector },
      bcs_score: c.bcs_score,
      epss: { score: c.epss_score, percentile: c.epss_percentile },
      known_exploited: c.kev_flagged,
      exploit_maturity: c.exploit_maturity,
      // As the CVE endpoints write it (spec §2.2): second precision, explicit offset.
      published_at: apiTimestamp(c.published_at),
    },
    tail: { _links: { self: cvePath(c.cve_id) } },
  };
}

/** A listed CVE as the answer shows it (AssetCve). */
export function cveEntry(d: Decided, decisions?: AssetAnswer['decisions']): AssetCve {
  const f = cardFields(d.card);
  const stated = decisions?.stated.get(d.cve_id);
  return {
    ...f.head,
    status: d.v.status,
    reason: d.v.reason,
    match: d.v.match,
    range: deciding(d.v.deciding.row),
    fixed_version: d.v.fixed_version,
    ...f.mid,
    priority_rank: d.rank,
    ...(decisions ? { decision: decisions.marks.get(d.cve_id) ?? null } : {}),
    ...(stated ? { vendor_statements: stated } : {}),
    ...f.tail,
  };
}

/** One asset's answer as a plain object (what an environment stores). */
export function assetResult(a: AssetAnswer): AssetResult {
  return {
    asset_id: a.asset.asset_id,
    vendor: a.asset.vendor,
    product: a.asset.product,
    version: a.asset.version,
    matched_products: a.matched_products,
    counts: a.counts,
    ...(a.decisions ? { decision_counts: a.decisions.counts } : {}),
    cves: a.listed.map((d) => cveEntry(d, a.decisions)),
    ...(a.cves_page ? { cves_page: a.cves_page } : {}),
  };
}

/**
 * The products an asset matched: one per (vendor slug, product key), with its strongest match; of the groups with
 * that match, the one with the first names (vendor, product) names it. Only products with a CVE in the corpus.
 */
export function matchedProducts(
  groups: readonly MatchedGroup[],
  cards: ReadonlyMap<string, unknown>,
): MatchedProduct[] {
  const best = new Map<string, { vendor: string; product: string; match: ProductMatch }>();
  for (const { group, match } of groups) {
    if (!group.rows.some((r) => cards.has(r.cve_id))) continue;
    const row = group.rows[0];
    const key = `${row.vendor_slug}\u0000${row.product_key}`;
    const cand = { vendor: row.range.vendor, product: row.range.product, match };
    const prev = best.get(key);
    // strongerMatch keeps its first argument on a tie.
    const stronger = !prev || strongerMatch(prev.match, match) !== prev.match;
    const tie = prev && prev.match.confidence === match.confidence;
    if (
      stronger ||
      (tie && (cand.vendor < prev.vendor || (cand.vendor === prev.vendor && cand.product < prev.product)))
    )
      best.set(key, cand);
  }
  return [...best.values()]
    .map((p) => ({ vendor: p.vendor, product: p.product, confidence: p.match.confidence, basis: p.match.basis }))
    .sort((a, b) => (a.vendor + a.product < b.vendor + b.product ? -1 : 1));
}

/**
 * An asset's decided CVEs in priority order, each with its rank; made once per decided list (with an environment,
 * the stored copy and the answer select from the same list).
 */
const RANKED = new WeakMap<Decided[], Decided[]>();
function ranked(decided: Decided[]): Decided[] {
  let ordered = RANKED.get(decided);
  if (ordered) return ordered;
  ordered = [...decided].sort(comparator('priority'));
  for (let i = 0; i < ordered.length; i++) ordered[i].rank = i + 1;
  RANKED.set(decided, ordered);
  return ordered;
}

/**
 * The asset's CVEs as the options list them, each ranked in the priority order of all of them. In an environment
 * (`lookup`), each listed CVE's decision, and the vendor statements naming the asset (`stated`) beside it.
 */
export function select(
  asset: AssetRecord,
  decided: Decided[],
  products: MatchedProduct[],
  o: CorrelateOptions,
  lookup?: DecisionLookup,
  stated?: StatementLookup,
): AssetAnswer {
  const a = selectListed(asset, decided, products, o);
  if (!lookup) return a;
  const counts = noDecisionCounts();
  for (const d of decided) {
    if (d.v.status === 'not_affected') continue;
    const m = lookup(d.cve_id, asset.asset_id);
    if (!m) counts.undecided++;
    else counts[m.status]++;
    if (!m || m.open) counts.open++;
    if (m?.review_again) counts.review_again++;
  }
  const marks = new Map<string, DecisionMark | null>();
  const vendor = new Map<string, VendorMark[]>();
  for (const d of a.listed) {
    marks.set(d.cve_id, lookup(d.cve_id, asset.asset_id));
    const said = stated?.(d.cve_id, asset) ?? [];
    if (said.length) vendor.set(d.cve_id, said);
  }
  return { ...a, decisions: { marks, counts, stated: vendor } };
}

function selectListed(
  asset: AssetRecord,
  decided: Decided[],
  products: MatchedProduct[],
  o: CorrelateOptions,
): AssetAnswer {
  const counts: StatusCounts = { affected: 0, not_affected: 0, needs_review: 0 };
  for (const d of decided) counts[d.v.status]++;
  const ordered = ranked(decided);
  const sorted = o.sort === 'priority' ? ordered : [...decided].sort(comparator(o.sort));
  const list =
    o.include_not_affected && !o.affected_only && !o.known_exploited_only && !o.fix_available_only
      ? sorted
      : sorted.filter(
          (d) =>
            (o.include_not_affected || d.v.status !== 'not_affected') &&
            (!o.affected_only || d.v.status === 'affected') &&
            (!o.known_exploited_only || d.card.kev_flagged) &&
            (!o.fix_available_only || d.v.fixed_version !== null),
        );
  const total = list.length;
  if (o.cve_page === null && o.cve_page_size === null)
    return { asset, matched_products: products, counts, listed: list };
  const p = o.cve_page ?? 1;
  const size = o.cve_page_size ?? 100;
  return {
    asset,
    matched_products: products,
    counts,
    listed: list.slice((p - 1) * size, p * size),
    cves_page: { page: p, page_size: size, total, total_unfiltered: decided.length, has_more: p * size < total },
  };
}
