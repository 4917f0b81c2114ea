// The alert run's matching (spec §6; docs/alerts.md): one chunk of the run's window, matched against every
// organization's watch entries, environment assets and triage decisions, becomes the rows the run stores.
import type { Db } from '../store/db.ts';
import { describeChange } from '../domain/changes.ts';
import { bestMatch, sagePriority, type MatchCandidate } from '../domain/alerts.ts';
import { protocolName } from '../domain/watchlist.ts';
import { apiTimestamp, cveHtmlUrl } from '../domain/cve-view.ts';
import type { AlertMatch } from '../domain/webhooks.ts';
import { assetHits, type AssetHit, type AssetIndex, type HostEvaluator } from '../domain/asset-alerts.ts';
import { decisionsForCves, type RunDecision } from '../store/triage-decisions.ts';
import { coversAsset, reviewReason } from '../domain/triage.ts';
import { alertCves, cveProducts, watchHits, type AlertCve } from '../store/alert-matching.ts';
import { windowChanges, type RunRow } from '../store/alert-runs.ts';
import { type AlertCveInsert, type AlertInsert } from '../store/alert-rows.ts';

/** Environment assets named per alert payload (`data.matches`); `data.asset_matches` counts them all. */
const ASSET_MATCHES_LISTED = 20;

/** Code-unit order: stable across locales and much cheaper than localeCompare in the run's inner loop. */
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A decision the run flags "review again", with the facts that call for it. */
export type ReviewFlag = { org_id: number; environment_id: number; cve_id: string; reasons: string[] };

/** What one chunk stores: one row per (organization, CVE), one row per alerted CVE, the decisions to flag. */
export interface ChunkMatch {
  cves: AlertCveInsert[];
  rows: AlertInsert[];
  flags: ReviewFlag[];
}

/** What a chunk is matched with: the run's asset index, its host evaluator, the URL and clock of the payloads. */
export interface MatchContext {
  assetIndex: Promise<AssetIndex>;
  evaluator: { load(): Promise<HostEvaluator> };
  publicUrl: string;
  now: () => Date;
}

const NO_PRODUCTS: Awaited<ReturnType<typeof cveProducts>> = { ranges: [], msrc: [] };

/**
 * Matches one chunk of the window's CVEs (reads on the run's connection) and returns what to store: one row per
 * (organization, CVE) and one row per alerted CVE with the fields every organization shares.
 */
export async function matchChunk(conn: Db, run: RunRow, ids: string[], ctx: MatchContext): Promise<ChunkMatch> {
  const [changes, facts, hits, [assets, products], decisions] = await Promise.all([
    windowChanges(conn, run, ids),
    alertCves(conn, ids),
    watchHits(conn, ids),
    // The ranges and Microsoft CVEs are read only when some organization has environment assets.
    ctx.assetIndex.then(async (a) => [a, a.assets + a.hosts ? await cveProducts(conn, ids) : NO_PRODUCTS] as const),
    decisionsForCves(conn, ids),
  ]);
  const byCve = new Map<string, typeof changes>();
  for (const c of changes) {
    const l = byCve.get(c.cve_id);
    if (l) l.push(c);
    else byCve.set(c.cve_id, [c]);
  }
  const groups = new Map<string, { org: number; cve: string; candidates: MatchCandidate[]; assets: AssetHit[] }>();
  const group = (org: number, cve: string) => {
    const k = `${org} ${cve}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { org, cve, candidates: [], assets: [] }));
    return g;
  };
  for (const h of hits) {
    const name = h.entity_type === 'protocol' ? protocolName(h.entity_key) : (h.entity_name ?? h.entity_key);
    group(h.org_id, h.cve_id).candidates.push({ entity_type: h.entity_type, entity_name: name });
  }
  const evaluate = assets.hosts && products.msrc.length ? await ctx.evaluator.load() : undefined;
  for (const h of assetHits(assets, products.ranges, products.msrc, evaluate)) group(h.org_id, h.cve_id).assets.push(h);
  // Triage decisions (docs/triage.md "Alerts"): a fact that reviewReason names (domain/triage.ts), recorded after a
  // decision, flags it "review again" and alerts its organization with that reason; an asset covered by a
  // not_affected decision that needs no review is not a match.
  const decisionsOf = new Map<string, RunDecision[]>();
  const reviewOf = new Map<RunDecision, string[]>();
  const flags: ReviewFlag[] = [];
  for (const d of decisions) {
    const k = `${d.org_id} ${d.cve_id}`;
    decisionsOf.set(k, [...(decisionsOf.get(k) ?? []), d]);
    const reasons = [
      ...new Set(
        (byCve.get(d.cve_id) ?? [])
          .filter((c) => new Date(c.changed_at).getTime() > new Date(d.updated_at).getTime())
          .map((c) => reviewReason(c.kind))
          .filter((r): r is string => r !== null),
      ),
    ];
    if (!reasons.length) continue;
    reviewOf.set(d, reasons);
    flags.push({ org_id: d.org_id, environment_id: d.environment_id, cve_id: d.cve_id, reasons });
    group(d.org_id, d.cve_id);
  }
  const stamp = ctx.now().toISOString();
  // Per CVE, once: the payload fields every organization shares (alert_cves).
  const shared = new Map<string, { cve: AlertCve; row: AlertCveInsert }>();
  const sharedOf = (id: string) => {
    let x = shared.get(id);
    if (x) return x;
    const cve = facts.get(id);
    const cs = byCve.get(id);
    if (!cve || !cs?.length) return null;
    const reasons = cs.map(describeChange);
    x = {
      cve,
      row: {
        cve_id: id,
        reasons,
        change_kinds: cs.map((c) => c.kind),
        stamp,
        data: {
          cve_id: cve.cve_id,
          title: cve.title,
          cvss_score: cve.cvss_score,
          cvss_vector: cve.cvss_vector,
          patch_status: cve.patch_status,
          kev_flagged: cve.kev_flagged,
          epss_score: cve.epss_score,
          published_at: apiTimestamp(cve.published_at),
          url: cveHtmlUrl(ctx.publicUrl, cve.cve_id),
          executive_summary: cve.executive_summary,
          mitigation: cve.mitigation,
          causal_boundary: null,
          virtual_patch: null,
          reasons,
        },
      },
    };
    shared.set(id, x);
    return x;
  };
  const rows: AlertInsert[] = [];
  for (const g of groups.values()) {
    const s = sharedOf(g.cve);
    if (!s) continue;
    const { cve } = s;
    const ds = decisionsOf.get(`${g.org} ${g.cve}`) ?? [];
    if (ds.length) {
      g.assets = g.assets.filter(
        (h) =>
          !ds.some(
            (d) =>
              d.environment === h.environment &&
              d.status === 'not_affected' &&
              !reviewOf.has(d) &&
              coversAsset(d, h.asset_id),
          ),
      );
    }
    const review: AlertMatch[] = ds
      .filter((d) => reviewOf.has(d))
      .map((d) => ({ entity_type: 'environment', entity_name: d.environment, reason: reviewOf.get(d)!.join('; ') }));
    if (!g.candidates.length && !g.assets.length && !review.length) continue;
    if (!g.candidates.length && !g.assets.length)
      g.candidates.push({ entity_type: 'environment', entity_name: review[0].entity_name });
    // Asset matches (docs/alerts.md "Asset matches"): affected first; only a certain match raises the priority.
    const hitsOf = g.assets.sort(
      (x, y) =>
        (x.status === y.status ? 0 : x.status === 'affected' ? -1 : 1) ||
        cmp(x.environment, y.environment) ||
        cmp(x.asset_id, y.asset_id),
    );
    let affected = 0;
    for (const h of hitsOf) if (h.status === 'affected') affected++;
    if (hitsOf.length) g.candidates.push({ entity_type: 'environment', entity_name: hitsOf[0].environment });
    const matches: AlertMatch[] = [
      ...review,
      ...g.candidates.filter((c) => c.entity_type !== 'environment'),
      ...hitsOf
        .slice(0, ASSET_MATCHES_LISTED)
        .map((h): AlertMatch => ({
          entity_type: 'environment',
          entity_name: h.environment,
          asset_id: h.asset_id,
          asset_kind: h.kind,
          status: h.status,
          product: h.product,
          reason: h.reason,
        })),
    ];
    const priority = sagePriority({
      kev: cve.kev_flagged,
      exploit_maturity: cve.exploit_maturity,
      bcs: cve.bcs_score,
      cvss: cve.cvss_score,
      epss_percentile: cve.epss_percentile,
      patch_available: cve.patch_available,
      asset_match: affected > 0,
    });
    const match = bestMatch(g.candidates)!;
    rows.push({
      org_id: g.org,
      cve_id: g.cve,
      sage_priority: priority,
      match_type: match.entity_type,
      match_name: match.entity_name,
      // The common case, one watch entry and no asset: the matches list is the best match alone, which the view
      // rebuilds from match_type and match_name (NULL stored).
      matches: matches.length === 1 && !hitsOf.length && !review.length ? null : matches,
      assets_affected: affected,
      assets_review: hitsOf.length - affected,
    });
  }
  return { cves: [...shared.values()].map((x) => x.row), rows, flags };
}
