// The in-memory evaluation index: built once from every MSRC document (streamed one at a time), keeping
// only Windows OS products. Per CVE and product: KB, fixed build, subtype, supersedence, severity,
// exploited status, release month. Per product: the release order of its cumulative updates (LCUs) and
// monthly rollups (KB → build, month), used instead of free-text Supercedence chains (trap 14).
import type { MsrcDocument } from './msrc-types.ts';
import { WINDOWS_PRODUCTS, type WindowsProduct } from './products.ts';
import {
  classifySubType,
  docMonth,
  normaliseKb,
  parseSupercedence,
  validFixedBuild,
  type FixKind,
  type OsBuild,
} from './build.ts';
import { applyOverrides, type OverrideRecord } from './overrides.ts';
import { markCrossProduct, type ForeignEvidence } from './cross-product.ts';

export interface CveMeta {
  cve: string;
  title: string;
  description: string | null;
  /** Date of the CVE's first revision (ISO UTC). */
  publishedAt: string | null;
  docId: string;
  /** CurrentReleaseDate (ISO UTC) of the newest document listing the CVE. */
  docRevisionDate: string | null;
  /** The CVRF document address from the /updates index, when known. */
  cvrfUrl: string | null;
  /** Advisory page as linked by the document itself. */
  advisoryUrl: string | null;
  /** MSRC "Exploited:Yes" in the Exploit Status threat. */
  exploited: boolean;
  publiclyDisclosed: boolean;
  cwes: { id: string; name: string }[];
  cvssScore: number | null;
  cvssVector: string | null;
}

export interface Fix {
  kb: string | null;
  kind: FixKind;
  subType: string | null;
  /** FixedBuild as served (after override), null when absent. */
  rawBuild: string | null;
  /** Validated FixedBuild: four parts, product's major.minor and servicing group; null otherwise. */
  build: OsBuild | null;
  supersedes: string[];
  url: string | null;
  docId: string;
  /** Set when a reviewed override changed this row (overrides.ts id). */
  overrideId: string | null;
  /** Set (at finish) when the row names another product's KB or fixed build (cross-product.ts). */
  foreign?: ForeignEvidence | null;
}

export interface ProductCve {
  meta: CveMeta;
  severity: string | null;
  cvssScore: number | null;
  /** Vendor Fix rows for this product (deduplicated). */
  fixes: Fix[];
}

export interface KbInfo {
  kb: string;
  kind: FixKind;
  /** Month (YYYY-MM) of the document citing the KB most often for this product (ties → earliest). */
  month: string | null;
  /** Most frequent valid FixedBuild for the product. */
  build: OsBuild | null;
  rows: number;
  supersedes: string[];
  /** True for KBs in the product's own cumulative-update (or monthly-rollup) series. */
  inSeries: boolean;
}

export interface ProductIndex {
  product: WindowsProduct;
  cves: Map<string, ProductCve>;
  kbs: Map<string, KbInfo>;
  /** Cumulative products: LCUs in release order (month, then UBR). */
  lcuSeries: KbInfo[];
  /** Legacy products: Monthly Rollups in release order. */
  mrSeries: KbInfo[];
  /** Newest CurrentReleaseDate of the documents that contributed rows. */
  dataAsOf: string | null;
}

export interface EvaluationIndex {
  products: Map<string, ProductIndex>;
  cves: Map<string, CveMeta>;
  dataAsOf: string | null;
  documents: Map<string, { revisionDate: string | null; cvrfUrl: string | null }>;
  overridesApplied: string[];
  stats: { documents: number; cves: number; productCveRows: number; fixRows: number };
}

function isoNoZone(s: string): string | null {
  const t = s.trim();
  if (!t) return null;
  const d = new Date(/(Z|[+-]\d\d:?\d\d)$/.test(t) ? t : `${t}Z`);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

interface KbAcc {
  kind: Map<FixKind, number>;
  months: Map<string, number>;
  builds: Map<string, { b: OsBuild; n: number }>;
  sup: Map<string, number>;
  rows: number;
}

/**
 * A private copy of a string. Strings cut out of a parsed document are V8 "sliced strings" that keep the
 * whole multi-megabyte document text alive; the index must own its strings or it retains every document.
 */
const POOL = new Map<string, string>();
function own(s: string): string;
function own(s: string | null): string | null;
function own(s: string | null): string | null {
  if (s === null) return null;
  const hit = POOL.get(s);
  if (hit !== undefined) return hit;
  const copy = s.length < 13 ? s : Buffer.from(s, 'utf8').toString('utf8');
  if (s.length <= 200) POOL.set(copy, copy);
  return copy;
}

function bump<K>(m: Map<K, number>, k: K, by = 1): void {
  m.set(k, (m.get(k) ?? 0) + by);
}

function top<K>(m: Map<K, number>, tie: (a: K, b: K) => number): K | null {
  let best: K | null = null;
  let bestN = -1;
  for (const [k, n] of m) {
    if (n > bestN || (n === bestN && best !== null && tie(k, best) < 0)) {
      best = k;
      bestN = n;
    }
  }
  return best;
}

export class IndexBuilder {
  private products = new Map<string, ProductIndex>();
  private kbAcc = new Map<string, Map<string, KbAcc>>();
  private cves = new Map<string, CveMeta>();
  private documents = new Map<string, { revisionDate: string | null; cvrfUrl: string | null }>();
  private docCount = 0;

  constructor(private cvrfUrls: Map<string, string> = new Map()) {}

  add(doc: MsrcDocument): void {
    this.docCount++;
    const month = docMonth(doc.id);
    const cvrfUrl = this.cvrfUrls.get(doc.id) ?? null;
    this.documents.set(own(doc.id), { revisionDate: own(doc.currentReleaseDate), cvrfUrl: own(cvrfUrl) });
    for (const v of doc.vulnerabilities) {
      if (!v.cve) continue;
      // Which Windows OS products does this CVE concern? Known Affected or named by a Vendor Fix (trap 19).
      const pids = new Set<string>();
      for (const p of v.knownAffected) if (WINDOWS_PRODUCTS.has(p)) pids.add(p);
      for (const r of v.remediations)
        if (r.type === 'Vendor Fix') for (const p of r.productIds) if (WINDOWS_PRODUCTS.has(p)) pids.add(p);
      if (pids.size === 0) continue;

      const meta = this.cveMeta(doc, v, cvrfUrl);
      const severity = new Map<string, string>();
      for (const t of v.threats)
        if (t.type === 'Severity') for (const p of t.productIds) if (t.description) severity.set(p, t.description);
      const cvss = new Map<string, number>();
      for (const s of v.scoreSets) for (const p of s.productIds) if (s.baseScore !== null) cvss.set(p, s.baseScore);

      for (const pid of pids) {
        const product = WINDOWS_PRODUCTS.get(pid)!;
        const pi = this.productIndex(product);
        if (!pi.dataAsOf || (doc.currentReleaseDate && doc.currentReleaseDate > pi.dataAsOf))
          pi.dataAsOf = own(doc.currentReleaseDate);
        let pc = pi.cves.get(v.cve);
        if (!pc) {
          pc = { meta, severity: null, cvssScore: null, fixes: [] };
          pi.cves.set(meta.cve, pc);
        }
        pc.meta = meta;
        pc.severity = own(severity.get(pid) ?? pc.severity);
        pc.cvssScore = cvss.get(pid) ?? pc.cvssScore;
        for (const r of v.remediations) {
          if (r.type !== 'Vendor Fix' || !r.productIds.includes(pid)) continue;
          const kb = own(normaliseKb(r.description));
          const kind = classifySubType(r.subType);
          const build = validFixedBuild(r.fixedBuild, product);
          const rawBuild = own(
            r.fixedBuild ? r.fixedBuild.replace(/[\u200b\u200c\u200d\ufeff]/g, '').trim() || null : null,
          );
          const supersedes = parseSupercedence(r.supercedence).map((x) => own(x));
          if (!pc.fixes.some((f) => f.kb === kb && f.rawBuild === rawBuild && f.kind === kind)) {
            pc.fixes.push({
              kb,
              kind,
              subType: own(r.subType),
              rawBuild,
              build: build && { ...build, text: own(build.text) },
              supersedes,
              url: own(r.url),
              docId: own(doc.id),
              overrideId: null,
            });
          }
          if (kb) this.accumulateKb(pid, kb, kind, month, build, supersedes);
        }
      }
    }
  }

  private cveMeta(doc: MsrcDocument, v: MsrcDocument['vulnerabilities'][number], cvrfUrl: string | null): CveMeta {
    const prev = this.cves.get(v.cve);
    // The newest document listing a CVE wins for its metadata; the first revision date is kept.
    if (prev && prev.docRevisionDate && doc.currentReleaseDate && prev.docRevisionDate > doc.currentReleaseDate)
      return prev;
    const exploit = v.threats.find((t) => t.type === 'Exploit Status')?.description ?? '';
    const dates = v.revisions
      .map((r) => isoNoZone(r.date))
      .filter((d): d is string => d !== null)
      .sort();
    const first = v.revisions.find((r) => r.number === '1.0');
    const publishedAt = (first ? isoNoZone(first.date) : null) ?? dates[0] ?? doc.initialReleaseDate;
    let score: number | null = null;
    const vectors = new Map<string, number>();
    for (const s of v.scoreSets) {
      if (s.baseScore !== null && (score === null || s.baseScore > score)) score = s.baseScore;
      if (s.vector) bump(vectors, s.vector);
    }
    const description = v.notes.find((n) => n.type === 'Description' && n.text.trim())?.text.trim() ?? null;
    const meta: CveMeta = {
      cve: own(v.cve),
      title: own(v.title),
      description: own(description),
      publishedAt: prev?.publishedAt && publishedAt && prev.publishedAt < publishedAt ? prev.publishedAt : publishedAt,
      docId: own(doc.id),
      docRevisionDate: own(doc.currentReleaseDate),
      cvrfUrl: own(cvrfUrl),
      advisoryUrl: own(doc.advisoryUrls.get(v.cve) ?? prev?.advisoryUrl ?? null),
      exploited: /Exploited:\s*Yes/i.test(exploit),
      publiclyDisclosed: /Publicly Disclosed:\s*Yes/i.test(exploit),
      cwes: v.cwes.map((c) => ({ id: own(c.id), name: own(c.name) })),
      cvssScore: score,
      cvssVector: own(top(vectors, (a, b) => a.localeCompare(b))),
    };
    this.cves.set(meta.cve, meta);
    // Older ProductCve rows point at the previous meta object; finish() re-links them.
    return meta;
  }

  private productIndex(product: WindowsProduct): ProductIndex {
    let pi = this.products.get(product.id);
    if (!pi) {
      pi = { product, cves: new Map(), kbs: new Map(), lcuSeries: [], mrSeries: [], dataAsOf: null };
      this.products.set(product.id, pi);
    }
    return pi;
  }

  private accumulateKb(
    pid: string,
    kb: string,
    kind: FixKind,
    month: string | null,
    build: OsBuild | null,
    sup: string[],
  ): void {
    let per = this.kbAcc.get(pid);
    if (!per) {
      per = new Map();
      this.kbAcc.set(pid, per);
    }
    let a = per.get(kb);
    if (!a) {
      a = { kind: new Map(), months: new Map(), builds: new Map(), sup: new Map(), rows: 0 };
      per.set(kb, a);
    }
    a.rows++;
    bump(a.kind, kind);
    if (month) bump(a.months, month);
    if (build) {
      const e = a.builds.get(build.text);
      if (e) e.n++;
      else {
        const text = own(build.text);
        a.builds.set(text, { b: { ...build, text }, n: 1 });
      }
    }
    if (sup.length) bump(a.sup, sup.join(','));
  }

  finish(overrides?: readonly OverrideRecord[]): EvaluationIndex {
    let productCveRows = 0;
    let fixRows = 0;
    for (const pi of this.products.values()) {
      const acc = this.kbAcc.get(pi.product.id) ?? new Map<string, KbAcc>();
      for (const [kb, a] of acc) {
        const kind = top(a.kind, (x, y) => x.localeCompare(y)) ?? 'other';
        let build: OsBuild | null = null;
        let bn = 0;
        for (const { b, n } of a.builds.values())
          if (n > bn) {
            build = b;
            bn = n;
          }
        const sup = top(a.sup, (x, y) => x.localeCompare(y));
        pi.kbs.set(kb, {
          kb,
          kind,
          month: top(a.months, (x, y) => x.localeCompare(y)),
          build,
          rows: a.rows,
          supersedes: sup ? sup.split(',') : [],
          inSeries: false,
        });
      }
      for (const pc of pi.cves.values()) {
        pc.meta = this.cves.get(pc.meta.cve) ?? pc.meta;
        productCveRows++;
        fixRows += pc.fixes.length;
      }
    }
    const applied = applyOverrides(this.products, overrides);
    for (const pi of this.products.values()) {
      pi.lcuSeries = pi.product.servicing === 'cumulative' ? lcuSeries(pi) : [];
      pi.mrSeries = [...pi.kbs.values()]
        .filter((k) => k.kind === 'monthly_rollup' && k.month !== null)
        .sort((a, b) =>
          a.month! < b.month! ? -1 : a.month! > b.month! ? 1 : (a.build?.ubr ?? 0) - (b.build?.ubr ?? 0),
        );
      for (const k of pi.mrSeries) k.inSeries = true;
    }
    // Every series is known only now: a row is another product's when that product's series holds its KB (trap 10).
    markCrossProduct(this.products);
    let asOf: string | null = null;
    for (const d of this.documents.values())
      if (d.revisionDate && (!asOf || d.revisionDate > asOf)) asOf = d.revisionDate;
    return {
      products: this.products,
      cves: this.cves,
      dataAsOf: asOf,
      documents: this.documents,
      overridesApplied: applied,
      stats: { documents: this.docCount, cves: this.cves.size, productCveRows, fixRows },
    };
  }
}

/**
 * The product's own LCU series (windows-engine.md §6.3): Security Update KBs with a valid in-group build,
 * kept only when their UBR fits the release order. The heaviest non-decreasing chain of UBRs in month
 * order (weighted by how often each KB is cited) is the series; a KB that breaks it (a client KB given to
 * a server product, trap 10) or that sits below the month's main LCU while cited only once or twice (a
 * WinRE/Safe OS dynamic update, trap 9) is left out.
 */
function lcuSeries(pi: ProductIndex): KbInfo[] {
  const cands = [...pi.kbs.values()]
    .filter((k) => k.kind === 'security_update' && k.month !== null)
    .sort((a, b) => (a.month! < b.month! ? -1 : a.month! > b.month! ? 1 : (a.build?.ubr ?? 0) - (b.build?.ubr ?? 0)));
  // Main LCU per month: the most cited candidate.
  const mainByMonth = new Map<string, KbInfo>();
  for (const k of cands) {
    const m = mainByMonth.get(k.month!);
    if (!m || k.rows > m.rows) mainByMonth.set(k.month!, k);
  }
  const withBuild = cands.filter((k) => {
    if (!k.build) return false;
    const main = mainByMonth.get(k.month!)!;
    return !(main !== k && k.rows <= 2 && main.build && main.build.ubr !== null && k.build.ubr! < main.build.ubr);
  });
  // Weighted longest non-decreasing subsequence on UBR (month order).
  const n = withBuild.length;
  const best = new Array<number>(n).fill(0);
  const prev = new Array<number>(n).fill(-1);
  for (let i = 0; i < n; i++) {
    best[i] = withBuild[i].rows;
    for (let j = 0; j < i; j++) {
      if (withBuild[j].build!.ubr! <= withBuild[i].build!.ubr! && best[j] + withBuild[i].rows > best[i]) {
        best[i] = best[j] + withBuild[i].rows;
        prev[i] = j;
      }
    }
  }
  let end = -1;
  for (let i = 0; i < n; i++) if (end < 0 || best[i] > best[end]) end = i;
  const chosen = new Set<KbInfo>();
  for (let i = end; i >= 0; i = prev[i]) chosen.add(withBuild[i]);
  // Pre-2021 LCUs carry no FixedBuild: they join the series by month when they are their month's main update.
  const series = cands.filter((k) => chosen.has(k) || (!k.build && mainByMonth.get(k.month!) === k));
  for (const k of series) k.inSeries = true;
  return series;
}
