// The alert run (spec §6; docs/alerts.md): the changes recorded since the last completed run, matched
// against every active organization's watchlist, stored as alerts pending delivery; and the alert list.
// Single-flight: the pg-boss singleton policy plus an advisory lock (a `vulnintel alerts run` from the shell).
import type { Db } from '../store/db.ts';
import { describeChange } from '../domain/changes.ts';
import {
  alertEmail,
  alertPayloadFor,
  bestMatch,
  deliveryStatusOf,
  sagePriority,
  type EmailAlertLine,
  type MatchCandidate,
} from '../domain/alerts.ts';
import type { Mailer } from './mailer.ts';
import { pageArgs, type PageRequest, type Reader } from './cve-reader.ts';
import { protocolName } from '../domain/watchlist.ts';
import { apiTimestamp, cveHtmlUrl } from '../domain/cve-view.ts';
import type { AlertMatch, AlertPayload } from '../domain/webhooks.ts';
import {
  assetHits,
  buildAssetIndex,
  familyNames,
  type AssetHit,
  type AssetIndex,
  type HostEvaluator,
} from '../domain/asset-alerts.ts';
import { EvaluationRun, type SignalLookup } from '../domain/windows/evaluate.ts';
import { windowsDataFor, type WindowsData } from '../windows-data.ts';
import { namedProducts } from '../store/ranges.ts';
import { decisionsForCves, flagForReview, type RunDecision } from '../store/triage-decisions.ts';
import { coversAsset, reviewReason } from '../domain/triage.ts';
import {
  completeRun,
  openRun,
  unfinishedRun,
  windowChanges,
  windowCves,
  withAlertLock,
  type RunRow,
} from '../store/alert-runs.ts';
import {
  alertCves,
  cveProducts,
  environmentAssets,
  hasEnvironmentHosts,
  watchHits,
  type AlertCve,
} from '../store/alert-matching.ts';
import { insertAlertCves, insertAlerts, type AlertCveInsert, type AlertInsert } from '../store/alert-rows.ts';
import { setAlertsRead, listAlerts, type AlertFilter } from '../store/alert-reads.ts';
import { claimAlertEmails, pendingAlertOrgs, pendingAlerts, deliverHeld } from '../store/alert-deliveries.ts';

/**
 * CVEs matched per chunk: a chunk's alerts are held in memory until stored (two chunks at most: one matched, one
 * being stored). 250 since alerts are stored lean (migration 1060): fewer round trips, and a chunk of a widely
 * deployed product's CVEs still stays within a few tens of MB.
 */
const CHUNK = 250;
/** Environment assets named per alert payload (`data.matches`); `data.asset_matches` counts them all. */
const ASSET_MATCHES_LISTED = 20;

export interface AlertRunReport {
  run_id: number;
  resumed: boolean;
  from_seq: number;
  to_seq: number;
  cves: number;
  alerts_stored: number;
  alerts_total: number;
}

/** Sends one stored cve.alert to an organization's webhooks (services/webhooks.ts deliverAlert): one outcome per active webhook. */
export type DeliverAlert = (
  orgId: number,
  payload: AlertPayload,
) => Promise<readonly { outcome: 'delivered' | 'failed' | 'skipped' }[]>;

/**
 * Organizations whose alerts are delivered at once (deliverPending). Each lane holds one database connection for the
 * alert it is sending (deliverHeld), far below the pool's 20, and at most this many slow receivers are waited on together.
 */
export const DELIVERY_LANES = 4;

export interface DeliveryReport {
  alerts: number;
  delivered: number;
  failed: number;
  no_webhooks: number;
  skipped: number;
}

export interface AlertRunOptions {
  publicUrl: string;
  /** When the run stamps payloads (injected clock). */
  now: () => Date;
  /** CVEs matched per transaction (default CHUNK). */
  chunkSize?: number;
  /** Test hook: called after each committed chunk (a run that dies midway is simulated by throwing here). */
  afterChunk?: (n: number) => Promise<void> | void;
}

/** Code-unit order: stable across locales and much cheaper than localeCompare in the run's inner loop. */
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

type ReviewFlag = { org_id: number; environment_id: number; cve_id: string; reasons: string[] };
/** Who flags a decision "review again" in its history. */
const REVIEW_ACTOR = { member: null, key: null, label: 'alert run' };

const NO_PRODUCTS: Awaited<ReturnType<typeof cveProducts>> = { ranges: [], msrc: [] };

/** Host verdicts need no corpus signals (they order results, they do not decide them). */
const NO_SIGNALS: SignalLookup = () => undefined;

export function createAlertService(db: Db, opts: AlertRunOptions) {
  // The Windows engine's data: the process's one for this database (windows-data.ts windowsDataFor, shared with the
  // v2 routes and every alert service of the process), taken when first needed.
  let windows: WindowsData | null = null;

  /**
   * The run's Windows evaluator: the engine's index is loaded on the first chunk that holds a Microsoft CVE (a
   * window without one never builds it), and evaluations are memoised per host profile by the index.
   */
  function hostEvaluator(): { load(): Promise<HostEvaluator> } {
    let run: Promise<EvaluationRun> | null = null;
    const today = opts.now().toISOString().slice(0, 10);
    const start = async () => {
      windows ??= windowsDataFor(db);
      return new EvaluationRun((await windows.index()).index, NO_SIGNALS, today);
    };
    return {
      async load() {
        const r = await (run ??= start());
        return (host) => r.evaluate(host, []);
      },
    };
  }

  /**
   * Matches one chunk of the window's CVEs (reads on the run's connection) and returns what to store: one row per
   * (organization, CVE) and one row per alerted CVE with the fields every organization shares.
   */
  async function matchChunk(
    conn: Db,
    run: RunRow,
    ids: string[],
    assetIndex: Promise<AssetIndex>,
    evaluator: ReturnType<typeof hostEvaluator>,
  ): Promise<{ cves: AlertCveInsert[]; rows: AlertInsert[]; flags: ReviewFlag[] }> {
    const [changes, facts, hits, [assets, products], decisions] = await Promise.all([
      windowChanges(conn, run, ids),
      alertCves(conn, ids),
      watchHits(conn, ids),
      // The ranges and Microsoft CVEs are read only when some organization has environment assets.
      assetIndex.then(async (a) => [a, a.assets + a.hosts ? await cveProducts(conn, ids) : NO_PRODUCTS] as const),
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
    const evaluate = assets.hosts && products.msrc.length ? await evaluator.load() : undefined;
    for (const h of assetHits(assets, products.ranges, products.msrc, evaluate))
      group(h.org_id, h.cve_id).assets.push(h);
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
    const stamp = opts.now().toISOString();
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
            url: cveHtmlUrl(opts.publicUrl, cve.cve_id),
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

  return {
    /**
     * Loads the Windows engine's index ahead of the first run when environment hosts are stored (a worker calls
     * this at start), so the first scheduled run does not pay the build. True when it loaded it.
     */
    async warm(): Promise<boolean> {
      if (!(await hasEnvironmentHosts(db))) return false;
      windows ??= windowsDataFor(db);
      await windows.index();
      return true;
    },

    /** The Windows data the run evaluates hosts with (tests). */
    get windowsData(): WindowsData | null {
      return windows;
    },

    /** One run now; 'busy' when another holds the lock. A run left unfinished is resumed over its own window. */
    async run(trigger: 'schedule' | 'cli'): Promise<AlertRunReport | 'busy'> {
      const r = await withAlertLock(db, async (conn) => {
        const open = await unfinishedRun(conn);
        const run = open ?? (await openRun(conn, trigger));
        const ids = await windowCves(conn, run);
        // Every active organization's environment assets, indexed once per run (not per organization or chunk).
        // Loaded on a pool connection while the first chunk is read on the run's.
        const assets = ids.length
          ? environmentAssets(db).then(async (env) =>
              buildAssetIndex(env.assets, env.hosts, await namedProducts(db, familyNames(env.assets))),
            )
          : Promise.resolve(buildAssetIndex([], []));
        assets.catch(() => {});
        const evaluator = hostEvaluator();
        let stored = 0;
        const size = opts.chunkSize ?? CHUNK;
        // A chunk is stored while the next one is matched on the run's connection, so PostgreSQL writes while Node
        // matches; its alerts go in two halves on two pool connections at once (the insert is PostgreSQL's work,
        // and one backend uses one core). At most one chunk is being stored, and a chunk is stored only after the
        // previous one committed and afterChunk returned: a run that dies midway has stored a prefix of its alerts,
        // which the resumed run completes (ON CONFLICT DO NOTHING).
        let storing: Promise<number> | null = null;
        let n = 0;
        const settle = async () => {
          if (!storing) return;
          stored += await storing;
          storing = null;
          await opts.afterChunk?.(++n);
        };
        const store = async (chunk: { cves: AlertCveInsert[]; rows: AlertInsert[]; flags: ReviewFlag[] }) => {
          // The decisions flagged "review again" first: a resumed run flags nothing twice (flagForReview keeps a reason once).
          if (chunk.flags.length)
            await db.transaction().execute((trx) => flagForReview(trx, chunk.flags, REVIEW_ACTOR));
          await insertAlertCves(db, run.id, chunk.cves);
          const half = Math.ceil(chunk.rows.length / 2);
          const done = await Promise.all([
            insertAlerts(db, run.id, chunk.rows.slice(0, half)),
            insertAlerts(db, run.id, chunk.rows.slice(half)),
          ]);
          return done[0] + done[1];
        };
        for (let i = 0; i < ids.length; i += size) {
          const chunk = await matchChunk(conn, run, ids.slice(i, i + size), assets, evaluator);
          await settle();
          storing = store(chunk);
          // Never left unobserved: a failing store is rethrown by settle().
          storing.catch(() => {});
        }
        await settle();
        const total = await completeRun(conn, run.id, ids.length);
        return {
          run_id: run.id,
          resumed: open !== null,
          from_seq: run.from_seq,
          to_seq: run.to_seq,
          cves: ids.length,
          alerts_stored: stored,
          alerts_total: total,
        };
      });
      return r.ran ? r.value : 'busy';
    },

    /**
     * Delivers every pending alert, oldest first, and records each outcome (docs/alerts.md "Delivery"). Safe to
     * repeat, to run after a crash, and to run twice at once: each alert is delivered holding its row lock (an alert
     * another delivery holds is passed over, and the one that sends records the outcome), the webhook claim per
     * (webhook, CVE) forbids a second send, and an alert is moved only from 'pending'. An error (database down)
     * leaves the alert pending for the next run.
     */
    async deliverPending(deliver: DeliverAlert, batch = 200, lanes = DELIVERY_LANES): Promise<DeliveryReport> {
      const rep: DeliveryReport = { alerts: 0, delivered: 0, failed: 0, no_webhooks: 0, skipped: 0 };
      const passed: number[] = [];
      // The first error (the database down) stops every lane after the alert it is on, and is thrown once all stopped.
      const stop: { failed: boolean; error?: unknown } = { failed: false };
      // One organization's alerts in order, until it has none pending.
      const deliverOrg = async (orgId: number) => {
        for (;;) {
          const rows = await pendingAlerts(db, batch, passed, orgId);
          if (!rows.length) return;
          for (const a of rows) {
            if (stop.failed) return;
            const status = await deliverHeld(db, a.id, async () =>
              deliveryStatusOf((await deliver(a.org_id, a.payload as unknown as AlertPayload)).map((r) => r.outcome)),
            );
            if (status === null) {
              passed.push(a.id);
              continue;
            }
            rep.alerts++;
            rep[status]++;
          }
        }
      };
      // Organizations side by side, up to `lanes` at once (the one waiting longest first): a receiver that takes its
      // full timeout on every alert holds up only its own organization's alerts. Then again, for the organizations
      // whose alerts arrived meanwhile, until a round finds none.
      for (;;) {
        const orgs = await pendingAlertOrgs(db, passed);
        if (!orgs.length) return rep;
        let next = 0;
        await Promise.all(
          Array.from({ length: Math.min(lanes, orgs.length) }, async () => {
            while (!stop.failed && next < orgs.length) {
              try {
                await deliverOrg(orgs[next++]);
              } catch (error) {
                if (!stop.failed) Object.assign(stop, { failed: true, error });
              }
            }
          }),
        );
        if (stop.failed) throw stop.error;
      }
    },

    /**
     * Alert email per member preferences (docs/alerts.md "Email"): `instant`, one message per alert for the members
     * who chose instant delivery (alerts of the last 24 hours); `daily_digest`, one message per member with every
     * alert of the last 48 hours not yet emailed to them. Each (alert, member) is claimed before sending: at most
     * once, across runs, retries and replicas (a send that fails after its claim is not retried; it is logged).
     */
    async emailAlerts(
      kind: 'instant' | 'daily_digest',
      mailer: Mailer,
      onError: (err: Error) => void = () => {},
    ): Promise<{ messages: number; alerts: number; failed: number }> {
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
          await mailer.send({
            to: m.to,
            kind: kind === 'instant' ? 'alert' : 'alert_digest',
            ...alertEmail(kind, m.lines),
          });
        } catch (e) {
          failed++;
          onError(e instanceof Error ? e : new Error(String(e)));
        }
      }
      return { messages: messages.length - failed, alerts: claims.length, failed };
    },

    /** A page of the organization's alerts; `per_page` is clamped to the reader's tier cap, as every collection's. */
    async list(
      who: Reader & { orgId: number },
      q: PageRequest & {
        sage_priority?: string;
        cve_id?: string;
        since?: string;
        delivery_status?: string;
        match_type?: string;
      } & Pick<AlertFilter, 'until' | 'environment' | 'change_kind' | 'member_id' | 'unread' | 'ids'> = {},
    ) {
      const orgId = who.orgId;
      const { page, perPage, offset } = pageArgs(who, q);
      const f: AlertFilter = {
        sage_priority: q.sage_priority?.split(','),
        cve_id: q.cve_id?.toUpperCase(),
        since: q.since ? new Date(q.since) : undefined,
        delivery_status: q.delivery_status,
        match_type: q.match_type,
        until: q.until,
        environment: q.environment,
        change_kind: q.change_kind,
        member_id: q.member_id,
        unread: q.unread,
        ids: q.ids,
      };
      const { total, rows } = await listAlerts(db, orgId, f, perPage, offset);
      const items = rows.map((r) => ({
        id: r.id,
        cve_id: r.cve_id,
        sage_priority: r.sage_priority,
        reasons: r.reasons,
        change_kinds: r.change_kinds,
        watchlist_match: { entity_type: r.match_type, entity_name: r.match_name },
        delivery_status: r.delivery_status,
        created_at: r.created_at,
        payload: alertPayloadFor(r.payload as { data: object }, who.tier),
        ...(q.member_id !== undefined ? { read: r.read === true } : {}),
      }));
      return { items, total, page, perPage };
    },

    /** Marks alerts read or unread for one member of the organization (`all`: every alert of the organization). */
    markRead(orgId: number, memberId: number, ids: number[] | 'all', read: boolean): Promise<number> {
      return setAlertsRead(db, orgId, memberId, ids, read);
    },
  };
}

export type AlertService = ReturnType<typeof createAlertService>;
