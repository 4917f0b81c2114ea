// The alert run (issue 13, spec §6; docs/alerts.md): the changes recorded since the last completed run, matched
// against every active organization's watchlist, stored as alerts pending delivery; and the alert list.
// Single-flight: the pg-boss singleton policy plus an advisory lock (a `vulnintel alerts run` from the shell).
import type { Db } from '../store/db.ts';
import { withTx } from '../store/db.ts';
import { describeChange } from '../domain/changes.ts';
import { alertEmail, bestMatch, deliveryStatusOf, sagePriority, type EmailAlertLine, type MatchCandidate } from '../domain/alerts.ts';
import type { Mailer } from './mailer.ts';
import { protocolName } from '../domain/watchlist.ts';
import { cveHtmlUrl } from '../domain/cve-view.ts';
import type { AlertMatch, AlertPayload } from '../domain/webhooks.ts';
import { assetHits, buildAssetIndex, type AssetHit, type AssetIndex } from '../domain/asset-alerts.ts';
import {
  alertCves, claimAlertEmails, completeRun, cveProducts, environmentAssets, insertAlerts, listAlerts, openRun, pendingAlerts, settleAlert, unfinishedRun, watchHits, windowChanges, windowCves, withAlertLock,
  type AlertFilter, type AlertInsert, type RunRow,
} from '../store/alerts.ts';

/**
 * CVEs matched per transaction: a resumed run redoes at most the chunk that was in flight. 100, not more: a chunk's
 * alerts are held in memory until stored, and with asset matches a widely deployed product (Windows) can alert
 * every organization for each of its CVEs.
 */
const CHUNK = 100;
/** Environment assets named per alert payload (`data.matches`); `data.asset_matches` counts them all. */
const ASSET_MATCHES_LISTED = 20;

export interface AlertRunReport { run_id: number; resumed: boolean; from_seq: number; to_seq: number; cves: number; alerts_stored: number; alerts_total: number }

/** Sends one stored cve.alert to an organization's webhooks (services/webhooks.ts deliverAlert): one outcome per active webhook. */
export type DeliverAlert = (orgId: number, payload: AlertPayload) => Promise<readonly { outcome: 'delivered' | 'failed' | 'skipped' }[]>;

export interface DeliveryReport { alerts: number; delivered: number; failed: number; no_webhooks: number; skipped: number }

export interface AlertRunOptions {
  publicUrl: string;
  /** When the run stamps payloads (injected clock). */
  now: () => Date;
  /** CVEs matched per transaction (default CHUNK). */
  chunkSize?: number;
  /** Test hook: called after each committed chunk (a run that dies midway is simulated by throwing here). */
  afterChunk?: (n: number) => Promise<void> | void;
}

export function createAlertService(db: Db, opts: AlertRunOptions) {
  async function runChunk(conn: Db, run: RunRow, ids: string[], assets: AssetIndex): Promise<number> {
    const [changes, facts, hits, products] = await Promise.all([
      windowChanges(conn, run, ids), alertCves(conn, ids), watchHits(conn, ids),
      assets.assets + assets.hosts ? cveProducts(conn, ids) : { ranges: [], msrc: [] },
    ]);
    const byCve = new Map<string, typeof changes>();
    for (const c of changes) byCve.set(c.cve_id, [...(byCve.get(c.cve_id) ?? []), c]);
    const groups = new Map<string, { org: number; cve: string; candidates: MatchCandidate[]; assets: AssetHit[] }>();
    const group = (org: number, cve: string) => {
      const k = `${org} ${cve}`;
      let g = groups.get(k);
      if (!g) groups.set(k, (g = { org, cve, candidates: [], assets: [] }));
      return g;
    };
    for (const h of hits) {
      const name = h.entity_type === 'protocol' ? protocolName(h.entity_key) : h.entity_name ?? h.entity_key;
      group(h.org_id, h.cve_id).candidates.push({ entity_type: h.entity_type, entity_name: name });
    }
    for (const h of assetHits(assets, products.ranges, products.msrc)) group(h.org_id, h.cve_id).assets.push(h);
    const timestamp = opts.now().toISOString();
    const rows: AlertInsert[] = [];
    for (const g of groups.values()) {
      const cve = facts.get(g.cve);
      const cs = byCve.get(g.cve);
      if (!cve || !cs?.length) continue;
      // Asset matches (docs/alerts.md "Asset matches"): affected first; only a certain match raises the priority.
      const hitsOf = g.assets.sort((x, y) => (x.status === y.status ? 0 : x.status === 'affected' ? -1 : 1)
        || x.environment.localeCompare(y.environment) || x.asset_id.localeCompare(y.asset_id));
      const assetMatch = hitsOf.some((h) => h.status === 'affected');
      if (hitsOf.length) g.candidates.push({ entity_type: 'environment', entity_name: hitsOf[0].environment });
      const matches: AlertMatch[] = [
        ...g.candidates.filter((c) => c.entity_type !== 'environment'),
        ...hitsOf.slice(0, ASSET_MATCHES_LISTED).map((h): AlertMatch => ({
          entity_type: 'environment', entity_name: h.environment, asset_id: h.asset_id, asset_kind: h.kind, status: h.status, product: h.product, reason: h.reason,
        })),
      ];
      const counts = { affected: hitsOf.filter((h) => h.status === 'affected').length, needs_review: hitsOf.filter((h) => h.status === 'needs_review').length };
      const priority = sagePriority({
        kev: cve.kev_flagged, exploit_maturity: cve.exploit_maturity, bcs: cve.bcs_score, cvss: cve.cvss_score,
        epss_percentile: cve.epss_percentile, patch_available: cve.patch_available, asset_match: assetMatch,
      });
      const match = bestMatch(g.candidates)!;
      const reasons = cs.map(describeChange);
      rows.push({
        org_id: g.org, cve_id: g.cve, sage_priority: priority, reasons, change_kinds: cs.map((c) => c.kind),
        match_type: match.entity_type, match_name: match.entity_name,
        payload: {
          event: 'cve.alert', version: '1.0', timestamp,
          data: {
            cve_id: cve.cve_id, title: cve.title, cvss_score: cve.cvss_score, cvss_vector: cve.cvss_vector,
            patch_status: cve.patch_status, kev_flagged: cve.kev_flagged, epss_score: cve.epss_score, sage_priority: priority,
            published_at: cve.published_at, url: cveHtmlUrl(opts.publicUrl, cve.cve_id),
            executive_summary: cve.executive_summary, mitigation: cve.mitigation, causal_boundary: null, virtual_patch: null,
            watchlist_match: { entity_type: match.entity_type, entity_name: match.entity_name },
            reasons, matches, asset_matches: counts,
          },
        },
      });
    }
    return withTx(conn, (tx) => insertAlerts(tx, run.id, rows));
  }

  return {
    /** One run now; 'busy' when another holds the lock. A run left unfinished is resumed over its own window. */
    async run(trigger: 'schedule' | 'cli'): Promise<AlertRunReport | 'busy'> {
      const r = await withAlertLock(db, async (conn) => {
        const open = await unfinishedRun(conn);
        const run = open ?? (await openRun(conn, trigger));
        const ids = await windowCves(conn, run);
        // Every active organization's environment assets, indexed once per run (not per organization or chunk).
        const env = ids.length ? await environmentAssets(conn) : { assets: [], hosts: [] };
        const assets = buildAssetIndex(env.assets, env.hosts);
        let stored = 0;
        const size = opts.chunkSize ?? CHUNK;
        for (let i = 0, n = 1; i < ids.length; i += size, n++) {
          stored += await runChunk(conn, run, ids.slice(i, i + size), assets);
          await opts.afterChunk?.(n);
        }
        const total = await completeRun(conn, run.id, ids.length);
        return { run_id: run.id, resumed: open !== null, from_seq: run.from_seq, to_seq: run.to_seq, cves: ids.length, alerts_stored: stored, alerts_total: total };
      });
      return r.ran ? r.value : 'busy';
    },

    /**
     * Delivers every pending alert, oldest first, and records each outcome (docs/alerts.md "Delivery"). Safe to
     * repeat or to run after a crash: the webhook claim per (webhook, CVE) forbids a second send, and an alert is
     * moved only from 'pending'. An error (database down) leaves the alert pending for the next run.
     */
    async deliverPending(deliver: DeliverAlert, batch = 200): Promise<DeliveryReport> {
      const rep: DeliveryReport = { alerts: 0, delivered: 0, failed: 0, no_webhooks: 0, skipped: 0 };
      for (;;) {
        const rows = await pendingAlerts(db, batch);
        if (!rows.length) return rep;
        for (const a of rows) {
          const status = deliveryStatusOf((await deliver(a.org_id, a.payload as unknown as AlertPayload)).map((r) => r.outcome));
          if (await settleAlert(db, a.id, status)) {
            rep.alerts++;
            rep[status]++;
          }
        }
      }
    },

    /**
     * Alert email per member preferences (docs/alerts.md "Email"): `instant`, one message per alert for the members
     * who chose instant delivery (alerts of the last 24 hours); `daily_digest`, one message per member with every
     * alert of the last 48 hours not yet emailed to them. Each (alert, member) is claimed before sending: at most
     * once, across runs, retries and replicas (a send that fails after its claim is not retried; it is logged).
     */
    async emailAlerts(kind: 'instant' | 'daily_digest', mailer: Mailer, onError: (err: Error) => void = () => {}): Promise<{ messages: number; alerts: number; failed: number }> {
      const now = opts.now();
      const since = new Date(now.getTime() - (kind === 'instant' ? 24 : 48) * 3600_000);
      const claims = await claimAlertEmails(db, kind, since, now);
      const byMember = new Map<number, typeof claims>();
      for (const c of claims) byMember.set(c.member_id, [...(byMember.get(c.member_id) ?? []), c]);
      const messages: { to: string; lines: EmailAlertLine[] }[] = [];
      for (const cs of byMember.values()) {
        const lines = cs.map((c) => (c.payload as { data: EmailAlertLine }).data);
        if (kind === 'instant') for (const l of lines) messages.push({ to: cs[0].email, lines: [l] });
        else messages.push({ to: cs[0].email, lines });
      }
      let failed = 0;
      for (const m of messages) {
        try {
          await mailer.send({ to: m.to, kind: kind === 'instant' ? 'alert' : 'alert_digest', ...alertEmail(kind, m.lines) });
        } catch (e) {
          failed++;
          onError(e instanceof Error ? e : new Error(String(e)));
        }
      }
      return { messages: messages.length - failed, alerts: claims.length, failed };
    },

    async list(orgId: number, q: { page?: number; per_page?: number; sage_priority?: string; cve_id?: string; since?: string; delivery_status?: string; match_type?: string }) {
      const page = q.page ?? 1;
      const perPage = q.per_page ?? 20;
      const f: AlertFilter = {
        sage_priority: q.sage_priority?.split(','), cve_id: q.cve_id?.toUpperCase(), since: q.since ? new Date(q.since) : undefined,
        delivery_status: q.delivery_status, match_type: q.match_type,
      };
      const { total, rows } = await listAlerts(db, orgId, f, perPage, (page - 1) * perPage);
      const items = rows.map((r) => ({
        id: r.id, cve_id: r.cve_id, sage_priority: r.sage_priority, reasons: r.reasons, change_kinds: r.change_kinds,
        watchlist_match: { entity_type: r.match_type, entity_name: r.match_name }, delivery_status: r.delivery_status,
        created_at: r.created_at, payload: r.payload,
      }));
      return { items, total, page, perPage };
    },
  };
}

export type AlertService = ReturnType<typeof createAlertService>;
