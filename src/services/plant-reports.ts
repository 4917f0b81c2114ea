// Plant reports (docs/reports.md): one environment's exposure summary and trend, what to patch first with the fix,
// the known-exploited CVEs, the decisions taken in the period with their justifications, the Windows hosts past end
// of life and what changed since the last report. Built here from the exposure service (the same figures as the
// history and the overview); rendered as HTML by the routes (http/web/report.tsx) and as PDF by services/plant-report-pdf.ts
// and as the plain text of the scheduled email here. Scheduled reports go out from the job queue
// (jobs/reports.ts): each (member, environment, period) is claimed before it is sent and marked sent after, so a
// failed send is retried on the next run and none is sent twice.
import type { Db } from '../store/db.ts';
import type { Clock } from '../lib/clock.ts';
import type { Mailer } from './mailer.ts';
import { environmentExists } from '../store/windows.ts';
import {
  claimDelivery,
  decisionsTaken,
  getCadence,
  lastSentReport,
  markSent,
  putCadence,
  releaseClaim,
  snapshotsBetween,
  subscribers,
  type DeliveryKey,
} from '../store/exposure.ts';
import {
  addDays,
  changesSince,
  lastCompletePeriod,
  patchFirstOrder,
  utcDay,
  type Cadence,
  type ExposureFigures,
  type Period,
  type ReportChanges,
} from '../domain/exposure.ts';
import type { SagePriority } from '../domain/alerts.ts';
import type { EolHost, ExposureHistory } from './exposure-history.ts';
import type { EnvironmentService } from './environments.ts';
import type { OpenCve } from './overview.ts';

/** CVEs listed under "what to patch first" (the total is given beside them). */
export const PATCH_FIRST_MAX = 25;
/** Assets listed under one CVE (the total is given beside them). */
export const ASSETS_PER_CVE = 20;
/** Decisions listed per report (the total is given beside them). */
export const DECISIONS_MAX = 200;

export interface ReportCve {
  cve_id: string;
  title: string;
  priority: SagePriority;
  severity: string | null;
  known_exploited: boolean;
  published_at: string | null;
  assets: { asset_id: string; product: string; version: string | null; fixed_version: string | null }[];
  assets_total: number;
}

export interface PlantReport {
  organization: string;
  environment: { id: number; name: string; assets: number; windows_hosts: number };
  /** From `from` to `to`, both included (UTC days). */
  period: { from: string; to: string };
  generated_at: string;
  summary: ExposureFigures;
  /** The period's daily snapshots, oldest first. */
  trend: {
    day: string;
    open_cves: number;
    known_exploited: number;
    assets_exposed: number;
    windows_eol_hosts: number;
  }[];
  patch_first: ReportCve[];
  patch_first_total: number;
  known_exploited: ReportCve[];
  decisions_taken: {
    cve_id: string;
    action: string;
    at: string;
    by: string;
    status: string | null;
    justification: string | null;
    impact_statement: string | null;
    action_statement: string | null;
    comment: string | null;
  }[];
  decisions_total: number;
  eol_hosts: EolHost[];
  /** Against the newest report sent for the environment that ended by the period's start; null when none was. */
  changes: (ReportChanges & { since: { from: string; to: string } }) | null;
  /** What the next report compares with. */
  shown: { figures: ExposureFigures; open_cve_ids: string[] };
}

export interface PlantReportDeps {
  db: Db;
  clock: Clock;
  environments: EnvironmentService;
  exposure: ExposureHistory;
}

const reportCve = (c: OpenCve): ReportCve => ({
  cve_id: c.cve_id,
  title: c.title,
  priority: c.priority,
  severity: c.severity,
  known_exploited: c.known_exploited,
  published_at: c.published_at,
  assets: c.assets.slice(0, ASSETS_PER_CVE),
  assets_total: c.assets.length,
});

export function createPlantReports(deps: PlantReportDeps) {
  /**
   * The report of one environment over `period` (end excluded); null when the environment is not the organization's.
   * "What changed" compares with the last report sent of the same cadence (a weekly reader reads week against week),
   * or of any cadence for a report on demand (`cadence` null).
   */
  async function build(
    org: { orgId: number; orgName: string },
    environmentId: number,
    period: Period,
    cadence: Cadence | null,
  ): Promise<PlantReport | null> {
    if (!(await environmentExists(deps.db, org.orgId, environmentId))) return null;
    const env = (await deps.environments.list(org.orgId)).find((e) => e.id === environmentId);
    if (!env) return null;
    const to = addDays(period.end, -1);
    const [now, trend, taken, last] = await Promise.all([
      deps.exposure.exposure(org.orgId, env),
      snapshotsBetween(deps.db, org.orgId, environmentId, period.start, to),
      decisionsTaken(deps.db, org.orgId, environmentId, period.start, period.end, DECISIONS_MAX),
      lastSentReport(deps.db, org.orgId, environmentId, period.start, cadence),
    ]);
    const ordered = [...now.overview.open_cves].sort(patchFirstOrder);
    const shown = { figures: now.figures, open_cve_ids: now.open_cve_ids };
    return {
      organization: org.orgName,
      environment: { id: env.id, name: env.name, assets: now.overview.assets, windows_hosts: env.host_count },
      period: { from: period.start, to },
      generated_at: deps.clock.now().toISOString(),
      summary: now.figures,
      trend: trend.map((s) => ({
        day: s.day,
        open_cves: s.figures.open_cves,
        known_exploited: s.figures.known_exploited,
        assets_exposed: s.figures.assets_exposed,
        windows_eol_hosts: s.figures.windows_eol_hosts,
      })),
      patch_first: ordered
        .filter((c) => c.priority === 'PATCH NOW' || c.priority === 'PATCH NEXT')
        .slice(0, PATCH_FIRST_MAX)
        .map(reportCve),
      patch_first_total: ordered.filter((c) => c.priority === 'PATCH NOW' || c.priority === 'PATCH NEXT').length,
      known_exploited: ordered.filter((c) => c.known_exploited).map(reportCve),
      decisions_taken: taken.rows.map((d) => ({
        cve_id: d.cve_id,
        action: d.action,
        at: new Date(d.at).toISOString(),
        by: d.actor_label,
        status: d.after?.status ?? null,
        justification: d.after?.justification ?? null,
        impact_statement: d.after?.impact_statement ?? null,
        action_statement: d.after?.action_statement ?? null,
        comment: d.comment,
      })),
      decisions_total: taken.total,
      eol_hosts: now.eol_hosts,
      changes: last
        ? { since: { from: last.period_start, to: addDays(last.period_end, -1) }, ...changesSince(last, shown) }
        : null,
      shown,
    };
  }

  return {
    build,

    /** A member's report schedule (none until saved). */
    async cadence(orgId: number, memberId: number): Promise<{ cadence: Cadence | 'none'; updated_at: string | null }> {
      const r = await getCadence(deps.db, orgId, memberId);
      return r ? { cadence: r.cadence, updated_at: r.updated_at.toISOString() } : { cadence: 'none', updated_at: null };
    },
    async setCadence(
      orgId: number,
      memberId: number,
      cadence: Cadence | 'none',
    ): Promise<{ cadence: Cadence | 'none'; updated_at: string }> {
      const now = deps.clock.now();
      await putCadence(deps.db, orgId, memberId, cadence, now);
      return { cadence, updated_at: now.toISOString() };
    },

    /**
     * Emails every due report: for each member on weekly or monthly, the last complete period's report of each
     * environment of the organization, unless it was sent (or claimed) already, its PDF (`renderPdf`: the renderer of
     * services/plant-report-pdf.ts) attached. A failed send, or a PDF that cannot be made, frees its claim.
     */
    async sendScheduled(
      mailer: Mailer,
      publicUrl: string,
      renderPdf: (r: PlantReport) => Promise<Buffer>,
      onError: (err: Error) => void = () => {},
    ): Promise<{ sent: number; failed: number; already: number }> {
      const today = utcDay(deps.clock.now());
      const built = new Map<string, PlantReport | null>();
      let sent = 0;
      let failed = 0;
      let already = 0;
      for (const s of await subscribers(deps.db)) {
        const period = lastCompletePeriod(s.cadence, today);
        for (const env of await deps.environments.list(s.org_id)) {
          const key: DeliveryKey = {
            orgId: s.org_id,
            memberId: s.member_id,
            environmentId: env.id,
            cadence: s.cadence,
            start: period.start,
            end: period.end,
          };
          if (!(await claimDelivery(deps.db, key, deps.clock.now()))) {
            already++;
            continue;
          }
          try {
            const cacheKey = `${s.org_id}/${env.id}/${s.cadence}/${period.start}/${period.end}`;
            if (!built.has(cacheKey))
              built.set(cacheKey, await build({ orgId: s.org_id, orgName: s.org_name }, env.id, period, s.cadence));
            const r = built.get(cacheKey);
            if (!r) throw new Error(`environment ${env.id} is gone`);
            await mailer.send({
              to: s.email,
              kind: 'plant_report',
              subject: reportSubject(r, s.cadence),
              text: reportText(r, publicUrl),
              link: reportLink(publicUrl, r, 'pdf'),
              attachments: [
                { filename: reportFilename(r), contentType: 'application/pdf', content: await renderPdf(r) },
              ],
            });
            await markSent(deps.db, key, deps.clock.now(), r.shown);
            sent++;
          } catch (e) {
            await releaseClaim(deps.db, key);
            failed++;
            onError(e instanceof Error ? e : new Error(String(e)));
          }
        }
      }
      return { sent, failed, already };
    },
  };
}
export type PlantReports = ReturnType<typeof createPlantReports>;

export function reportLink(publicUrl: string, r: PlantReport, format: 'pdf' | 'html'): string {
  return `${publicUrl}/api/v1/environments/${r.environment.id}/report?from=${r.period.from}&to=${r.period.to}&format=${format}`;
}

/** The attached PDF's file name: the environment's name (letters and digits, lowered) and the period. */
export function reportFilename(r: PlantReport): string {
  const name =
    r.environment.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || `environment-${r.environment.id}`;
  return `plant-report-${name.slice(0, 60)}-${r.period.from}-to-${r.period.to}.pdf`;
}

export function reportSubject(r: PlantReport, cadence: Cadence): string {
  return `[Vulnintel] ${cadence === 'weekly' ? 'Weekly' : 'Monthly'} plant report: ${r.environment.name}, ${r.period.from} to ${r.period.to}`;
}

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));
/** Each listed asset of a CVE with its fix, and how many more there are. */
export function fixesOf(c: ReportCve): string[] {
  const lines = c.assets.map(
    (a) =>
      `${a.asset_id} (${a.product} ${a.version ?? 'version unknown'}): ${a.fixed_version ? `fixed in ${a.fixed_version}` : 'no fix stated'}`,
  );
  if (c.assets_total > c.assets.length) lines.push(`and ${c.assets_total - c.assets.length} more assets`);
  return lines;
}

/** The report as the plain text of its email (the same sections as the HTML and the PDF). */
export function reportText(r: PlantReport, publicUrl: string): string {
  const f = r.summary;
  const out: string[] = [
    `Plant report: ${r.environment.name} (${r.organization})`,
    `Period ${r.period.from} to ${r.period.to}, generated ${r.generated_at}`,
    '',
    'EXPOSURE SUMMARY',
    `Open CVEs: ${f.open_cves} (PATCH NOW ${f.by_priority['PATCH NOW']}, PATCH NEXT ${f.by_priority['PATCH NEXT']}, MONITOR ${f.by_priority.MONITOR}, IGNORE ${f.by_priority.IGNORE})`,
    `By severity: critical ${f.by_severity.critical}, high ${f.by_severity.high}, medium ${f.by_severity.medium}, low ${f.by_severity.low}, none ${f.by_severity.none}`,
    `Known exploited (KEV) open: ${f.known_exploited}${f.kev_mean_age_days === null ? '' : `, mean age ${f.kev_mean_age_days} days`}`,
    `Assets with an open CVE: ${f.assets_exposed} of ${r.environment.assets}`,
    `Windows hosts past end of life: ${f.windows_eol_hosts}`,
    `Decisions: under investigation ${f.decisions.under_investigation}, affected ${f.decisions.affected}, not affected ${f.decisions.not_affected}, fixed ${f.decisions.fixed}, to review again ${f.decisions.review_again}`,
  ];
  if (r.trend.length >= 2) {
    const a = r.trend[0];
    const b = r.trend[r.trend.length - 1];
    out.push(
      `Trend ${a.day} to ${b.day}: open CVEs ${a.open_cves} -> ${b.open_cves}, KEV ${a.known_exploited} -> ${b.known_exploited}, exposed assets ${a.assets_exposed} -> ${b.assets_exposed}`,
    );
  } else out.push('Trend: fewer than two daily snapshots in the period.');
  out.push('', `WHAT TO PATCH FIRST (${r.patch_first.length} of ${r.patch_first_total})`);
  if (!r.patch_first.length) out.push('Nothing at PATCH NOW or PATCH NEXT.');
  for (const c of r.patch_first)
    out.push(
      `${c.priority}  ${c.cve_id}${c.known_exploited ? ' [KEV]' : ''}  ${c.title}`,
      ...fixesOf(c).map((x) => `    ${x}`),
    );
  out.push('', `KNOWN-EXPLOITED CVES (${r.known_exploited.length})`);
  if (!r.known_exploited.length) out.push('None open.');
  for (const c of r.known_exploited) out.push(`${c.cve_id}  ${c.priority}  ${c.title}`);
  out.push('', `DECISIONS TAKEN IN THE PERIOD (${r.decisions_taken.length} of ${r.decisions_total})`);
  if (!r.decisions_taken.length) out.push('None.');
  for (const d of r.decisions_taken) {
    out.push(
      `${d.at.slice(0, 10)}  ${d.cve_id}  ${d.action === 'clear' ? 'cleared' : d.status}${d.justification ? ` (${d.justification})` : ''}  by ${d.by}`,
    );
    if (d.impact_statement) out.push(`    Impact: ${d.impact_statement}`);
    if (d.action_statement) out.push(`    Action: ${d.action_statement}`);
  }
  out.push('', `WINDOWS HOSTS PAST END OF LIFE (${r.eol_hosts.length})`);
  if (!r.eol_hosts.length) out.push('None.');
  for (const h of r.eol_hosts) out.push(`${h.asset_id}  ${h.microsoft_product ?? 'product not identified'}`);
  out.push('', 'WHAT CHANGED SINCE THE LAST REPORT');
  if (!r.changes) out.push('No earlier report of this environment.');
  else {
    const c = r.changes;
    out.push(
      `Since the report of ${c.since.from} to ${c.since.to}: open CVEs ${signed(c.open_cves)}, KEV ${signed(c.known_exploited)}, exposed assets ${signed(c.assets_exposed)}, Windows hosts past end of life ${signed(c.windows_eol_hosts)}`,
    );
    out.push(`Newly open: ${c.new_open.length ? c.new_open.join(', ') : 'none'}`);
    out.push(`No longer open: ${c.no_longer_open.length ? c.no_longer_open.join(', ') : 'none'}`);
  }
  out.push('', `PDF: ${reportLink(publicUrl, r, 'pdf')}`, `HTML: ${reportLink(publicUrl, r, 'html')}`);
  return out.join('\n');
}
