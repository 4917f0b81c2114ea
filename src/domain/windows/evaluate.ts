// Evaluation of Windows hosts against the index (spec §4.2): one run per call, the candidate products of a
// host, the merge of their verdicts and the priority order. Pure: the date and the CVE corpus signals (KEV,
// EPSS, BCS, exploit availability, references) are passed in. The parts live by concern next to this file:
// verdict.ts (the rules), fix-groups.ts, priority.ts, wording.ts (English text), render.ts, caches.ts.
import type { EvaluationIndex, ProductIndex } from './evaluation-index.ts';
import { matchHost } from './match.ts';
import type { HostWarning, WindowsHost } from './host-record.ts';
import { hostCtx, verdictFor } from './verdict.ts';
import type { HostCtx, Verdict } from './verdict-facts.ts';
import type { Prepared } from './prepared.ts';
import type { WindowsProduct } from './products.ts';
import { comparePriority, exploitClass, staticOrder, STATUS_ORDER, type Sortable, type SortKeys } from './priority.ts';
import { draftGroups, finishGroups, fixGroups, type FixGroup, type GroupDraft } from './fix-groups.ts';
import { LABEL } from './wording.ts';
import type { ReferencesOut } from './render.ts';
import { prepared, STATIC_ORDER } from './caches.ts';

// The module's public face, kept stable for the route, the view and the data loader.
export { comparePriority, compareCveId, type Sortable } from './priority.ts';
export { compareGroups, type FixGroup } from './fix-groups.ts';
export { renderCve, type CveResult, type ReferencesOut } from './render.ts';
export { rankOf } from './caches.ts';

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

/**
 * What an evaluation reads of a host (product name, edition, build, architecture, installation type, KB list,
 * ESU): hosts with the same key get the same result.
 */
export function hostFactsKey(host: WindowsHost): string {
  return [
    host.os_product,
    host.edition_id,
    host.os_build,
    host.architecture,
    host.installation_type,
    host.installed_kbs === null ? '-' : [...host.installed_kbs].sort().join(';'),
    host.esu_enrolled,
  ].join('|');
}

/** One CVE on one host, not yet rendered: rendering (texts, references) happens only for CVEs returned. */
export interface CveItem extends Sortable {
  /**
   * Set when candidate products disagree (mergeCandidates): on the status (the item's status then differs from its
   * verdict's), on whether Microsoft lists the CVE, or on the update that fixes it.
   */
  note?: string;
  /** The host's KB list holds the verdict's update although the CVE is not cleared (the fix action says so). */
  installed?: boolean;
  p: Prepared;
  v: Verdict;
  sig: CveSignals | undefined;
  productName: string;
}

/** A CVE of a product in the host-independent part of the priority order (cached per run in caches.ts). */
export interface StaticEntry {
  p: Prepared;
  k: SortKeys;
  sig: CveSignals | undefined;
  kt: SortKeys[];
  /** Items for the shared build-only verdicts, reused by every host of the run (no allocation per host). */
  iClear?: CveItem;
  iOpen?: CveItem;
}

/**
 * One evaluation run (a call): the index, the corpus signals, the date, and per-product caches of the
 * host-independent sort order, so 200 hosts of the same product share the work.
 */
export class EvaluationRun {
  private order: WeakMap<ProductIndex, StaticEntry[]>;
  constructor(
    readonly ix: EvaluationIndex,
    readonly signals: SignalLookup,
    readonly today: string,
  ) {
    let o = STATIC_ORDER.get(signals);
    if (!o) {
      o = new WeakMap();
      STATIC_ORDER.set(signals, o);
    }
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
        kev,
        exploit: (sig?.hasExploit ?? false) || kev,
        fixTier: 0,
        bcs: sig?.bcs ?? null,
        cvss: sig?.cvss ?? p.pc.cvssScore ?? p.pc.meta.cvssScore,
        epss: sig?.epss ?? null,
        published: sig?.publishedAt ?? p.pc.meta.publishedAt,
        fixAvailable: false,
      };
      // One frozen key object per fix tier, shared by every host of the run.
      const kt = [0, 1, 2].map((t) => ({ ...k, fixTier: t as 0 | 1 | 2, fixAvailable: t !== 2 }));
      return { p, k, sig, kt };
    });
    list.sort(
      (a, b) =>
        Number(b.k.kev) - Number(a.k.kev) ||
        Number(b.k.exploit) - Number(a.k.exploit) ||
        staticOrder(a.k, b.k) ||
        a.p.idKey - b.p.idKey,
    );
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
    const key = hostFactsKey(host);
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
  if (match.level === 'bare_name') labels.push(LABEL.bareName);
  if (match.level === 'revision' || (match.level === 'bare_name' && match.build?.ubr === null))
    labels.push(LABEL.needsRevision);
  const products = match.products.filter((p) => ix.products.has(p.id));
  if (match.products.length > 0 && products.length === 0)
    notes.push(`no Microsoft security data for ${match.products.map((p) => p.name).join('; ')}`);
  if (products.length === 0) {
    labels.push(LABEL.notMapped);
    return {
      asset_id: host.asset_id,
      microsoft_product: null,
      candidate_products: null,
      patch_resolved: false,
      end_of_life: false,
      map_note: notes.join('; ') || 'not mapped to a Microsoft product',
      labels,
      counts: { confirmed_open: 0, cleared: 0, needs_review: 0 },
      items: [],
      fix_groups: [],
      warnings,
      data_as_of: null,
      os_build: host.os_build,
    };
  }
  // Legacy Windows is resolved by its KB list: without one the host is not patch-resolved (spec §2.6).
  const patchResolved =
    match.level === 'build' && (products[0].servicing === 'cumulative' || host.installed_kbs !== null);
  if (patchResolved && products.length > 1) labels.push(LABEL.editionMissing);

  // Evaluate on every candidate; with several, a CVE whose status differs between them needs review.
  const perProduct = products.map((prod) => {
    const pi = ix.products.get(prod.id)!;
    const { ctx, life } = hostCtx(host, match, prod, pi, today);
    const items: CveItem[] = [];
    for (const entry of run.staticOrder(pi)) {
      const { p, k, sig, kt } = entry;
      const v = verdictFor(pi, p, ctx);
      // An item that depends on the host's KB list is its own, never one shared by the hosts of a build.
      const installed = v.kb !== null && v.status !== 'cleared (patched)' && ctx.kbs?.has(v.kb) === true;
      if (!installed && v === p.vClear && v !== null) {
        items.push(
          (entry.iClear ??= {
            cve_id: p.pc.meta.cve,
            status: v.status,
            known_exploited: k.kev,
            p,
            v,
            sig,
            productName: prod.name,
            _k: kt[v.kb === null ? 2 : 0],
          }),
        );
        continue;
      }
      if (!installed && v === p.vOpen && v !== null) {
        items.push(
          (entry.iOpen ??= {
            cve_id: p.pc.meta.cve,
            status: v.status,
            known_exploited: k.kev,
            p,
            v,
            sig,
            productName: prod.name,
            _k: kt[v.kb === null ? 2 : 0],
          }),
        );
        continue;
      }
      const tier = v.kb === null || v.fixType === 'none' ? 2 : v.fixType === 'esu' ? 1 : 0;
      items.push({
        cve_id: p.pc.meta.cve,
        status: v.status,
        known_exploited: k.kev,
        p,
        v,
        sig,
        productName: prod.name,
        ...(installed ? { installed } : {}),
        _k: kt[tier],
      });
    }
    return { pi, ctx, life, items };
  });
  const first = perProduct[0];
  const items = perProduct.length > 1 ? mergeCandidates(perProduct, products) : first.items;
  // Bucket by (status, exploit class, fix tier): the static order inside each bucket completes the
  // priority order in linear time.
  const buckets: CveItem[][] = Array.from({ length: 27 }, () => []);
  for (const it of items) {
    const ex = exploitClass(it._k.kev, it._k.exploit);
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
    fix_groups:
      perProduct.length > 1 ? candidateFixGroups(perProduct, ordered) : fixGroups(first.pi, ordered, first.ctx),
    warnings,
    data_as_of: asOf,
    os_build: host.os_build,
  };
}

type Candidate = { pi: ProductIndex; ctx: HostCtx; items: CveItem[] };

const SUPPLY_EDITION = 'supply edition_id and installation_type';

/**
 * The verdicts of a host's candidate products (edition not supplied) merged into one list, in the first candidate's
 * order. A CVE keeps its status when every candidate lists it with that status. It needs review when the statuses
 * differ, or when it is open or in review on the candidates that list it and not listed for the others (it may not
 * apply to this host at all: a Server 2025-only CVE on what may be Windows 11). A CVE cleared wherever it is listed
 * stays cleared: the host needs nothing for it either way. When the statuses agree but the fixes differ, the note
 * says which update fixes it on which candidate.
 */
function mergeCandidates(perProduct: Candidate[], products: WindowsProduct[]): CveItem[] {
  const n = perProduct.length;
  const byCve = new Map<string, (CveItem | undefined)[]>();
  for (let i = 0; i < n; i++) {
    for (const it of perProduct[i].items) {
      let row = byCve.get(it.cve_id);
      if (!row) {
        row = new Array<CveItem | undefined>(n);
        byCve.set(it.cve_id, row);
      }
      row[i] = it;
    }
  }
  const names = products.map((p) => p.name);
  const merged: CveItem[] = [];
  for (const row of byCve.values()) {
    const listed = row.filter((it): it is CveItem => it !== undefined);
    const lead = listed[0];
    const missing = names.filter((_, i) => row[i] === undefined);
    let status = lead.status;
    let note: string | null = null;
    if (listed.some((it) => it.status !== lead.status)) {
      status = 'needs review';
      note = `status differs between the candidate products (${names.join('; ')}); ${SUPPLY_EDITION}`;
    } else if (missing.length > 0 && lead.status !== 'cleared (patched)') {
      status = 'needs review';
      note = `listed by Microsoft for ${listed.map((it) => it.productName).join('; ')} but not for ${missing.join('; ')}, and the edition decides which this host is; ${SUPPLY_EDITION}`;
    } else if (lead.status !== 'cleared (patched)' && listed.some((it) => it.v.kb !== lead.v.kb)) {
      const byKb = new Map<string, string[]>();
      for (const it of listed)
        byKb.set(it.v.kb ?? 'no update', [...(byKb.get(it.v.kb ?? 'no update') ?? []), it.productName]);
      note = `the update differs between the candidate products (${[...byKb].map(([kb, on]) => `${kb} for ${on.join(' and ')}`).join('; ')}); ${SUPPLY_EDITION}`;
    }
    // Items may be shared with other hosts: replace, never mutate.
    merged.push(note === null ? lead : { ...lead, status, note });
  }
  return merged;
}

/**
 * Fix groups of a host with several candidate products: each candidate groups the CVEs that are not cleared on the
 * host and that it leaves open or in review, with its own updates, and names itself in the group's title. Candidates
 * that give the same title and update (Server 2025 and its Server Core installation) make one group naming both.
 */
function candidateFixGroups(perProduct: Candidate[], merged: CveItem[]): FixGroup[] {
  const status = new Map(merged.map((it) => [it.cve_id, it.status]));
  const token = '\u0000product\u0000';
  const acc = new Map<string, { names: string[]; group: GroupDraft; ids: Set<string> }>();
  for (const { pi, ctx, items } of perProduct) {
    const own: CveItem[] = [];
    for (const it of items) {
      const s = status.get(it.cve_id)!;
      if (it.status === 'cleared (patched)' || s === 'cleared (patched)') continue;
      own.push(s === it.status ? it : { ...it, status: s });
    }
    for (const g of draftGroups(pi, own, ctx, token)) {
      const key = `${g.fix}|${g.kb ?? ''}`;
      const hit = acc.get(key);
      if (!hit) {
        acc.set(key, { names: [pi.product.name], group: g, ids: new Set(g.cves.map((c) => c.cve_id)) });
        continue;
      }
      if (!hit.names.includes(pi.product.name)) hit.names.push(pi.product.name);
      for (const c of g.cves)
        if (!hit.ids.has(c.cve_id)) {
          hit.ids.add(c.cve_id);
          hit.group.cves.push(c);
        }
    }
  }
  return finishGroups(
    [...acc.values()].map(({ names, group }) => ({ ...group, fix: group.fix.split(token).join(names.join(' or ')) })),
  );
}
