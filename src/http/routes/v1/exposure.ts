// Exposure history and plant reports (docs/reports.md): GET /api/v1/environments/{environment_id}/exposure-history
// (the daily snapshots, the web app's chart), GET /api/v1/environments/{environment_id}/report (the plant report as
// HTML or PDF, on demand) and GET/PUT /api/v1/account/report-schedule (each member's weekly or monthly email).
// Reads: any member (viewers included), keys with the read scope; the schedule is each member's own.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Envelope, ok } from '../../envelope.ts';
import { ApiError } from '../../errors.ts';
import { NoQuery, StringEnum } from '../../schemas/common.ts';
import {
  addDays,
  CADENCES,
  CHART_MIN_DAYS,
  HISTORY_DAYS,
  isCalendarDay,
  oldestKept,
  utcDay,
} from '../../../domain/exposure.ts';
import { SAGE_PRIORITIES } from '../../../domain/alerts.ts';
import { DECISION_STATUSES } from '../../../domain/triage.ts';
import type { TenantDecl } from '../../auth.ts';
import { pageHeaders } from '../../web/layout.tsx';
import { renderReportPage } from '../../web/report.tsx';
import { renderReportPdf } from '../../../services/plant-report-pdf.ts';

const Day = (description: string) =>
  Type.Optional(Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description }));
const EnvParams = Type.Object({
  environment_id: Type.String({
    pattern: '^[0-9]{1,19}$',
    description: 'Environment id (from POST or GET /api/v1/environments)',
  }),
});

const Count = Type.Integer({ minimum: 0 });
const Snapshot = Type.Object({
  day: Type.String({ description: 'The UTC day of the snapshot (YYYY-MM-DD)' }),
  taken_at: Type.String({ format: 'date-time' }),
  open_cves: Type.Integer({
    minimum: 0,
    description: 'Distinct CVEs affecting an asset that no decision takes out (not_affected, fixed)',
  }),
  by_priority: Type.Object(
    { 'PATCH NOW': Count, 'PATCH NEXT': Count, MONITOR: Count, IGNORE: Count } satisfies Record<
      (typeof SAGE_PRIORITIES)[number],
      typeof Count
    >,
    { description: 'Open CVEs by sage priority' },
  ),
  by_severity: Type.Object(
    { critical: Count, high: Count, medium: Count, low: Count, none: Count },
    { description: 'Open CVEs by CVSS severity' },
  ),
  known_exploited: Type.Integer({ minimum: 0, description: 'Open CVEs in CISA KEV' }),
  assets_exposed: Type.Integer({ minimum: 0, description: 'Assets with at least one open CVE' }),
  windows_eol_hosts: Type.Integer({ minimum: 0, description: 'Stored Windows hosts past end of life' }),
  decisions: Type.Object(
    {
      ...({ under_investigation: Count, affected: Count, not_affected: Count, fixed: Count } satisfies Record<
        (typeof DECISION_STATUSES)[number],
        typeof Count
      >),
      review_again: Count,
    },
    { description: "The environment's decisions by status" },
  ),
  kev_mean_age_days: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
    description: 'Mean days since publication of the open KEV CVEs; null when none',
  }),
});
const History = Type.Object({
  environment_id: Type.Integer(),
  from: Type.String(),
  to: Type.String(),
  days_kept: Type.Integer({ description: `Snapshots older than ${HISTORY_DAYS} days are pruned` }),
  chart_ready: Type.Boolean({
    description: `true once the range holds ${CHART_MIN_DAYS} snapshots: the web app draws the line from then on`,
  }),
  snapshots: Type.Array(Snapshot, { description: 'One per day the job ran, oldest first' }),
});

const HistoryQuery = Type.Object(
  {
    from: Day(`First day (UTC, included); default: ${HISTORY_DAYS - 1} days before to`),
    to: Day('Last day (UTC, included); default: today'),
  },
  { additionalProperties: false },
);

const ReportQuery = Type.Object(
  {
    from: Day('First day of the period (UTC, included); default: 30 days before to'),
    to: Day('Last day of the period (UTC, included); default: yesterday'),
    format: Type.Optional(StringEnum(['html', 'pdf'] as const, { description: 'html (default) or pdf' })),
  },
  { additionalProperties: false },
);

const Schedule = Type.Object({
  cadence: StringEnum(CADENCES, {
    description: 'none (default), weekly (Monday, the week before) or monthly (the 1st, the month before)',
  }),
  updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
const PutSchedule = Type.Object(
  { cadence: StringEnum(CADENCES) },
  { additionalProperties: false, examples: [{ cadence: 'weekly' }] },
);

/** As environments.ts reads it: 1 to 15 digits can name an environment; longer ones none (404). */
function environmentIdOf(text: string): number {
  const digits = text.replace(/^0+(?=\d)/, '');
  if (digits.length > 15 || digits === '0')
    throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: text } });
  return Number(digits);
}

/** The range of a query: each day a real calendar day, `from` not after `to`; 422 with the field otherwise. */
function rangeOf(
  q: { from?: string; to?: string },
  defaults: { from: (to: string) => string; to: string },
): { from: string; to: string } {
  const fields = [];
  for (const k of ['from', 'to'] as const) {
    const v = q[k];
    if (v !== undefined && !isCalendarDay(v))
      fields.push({
        field: `query.${k}`,
        message: `${v} is not a calendar day (YYYY-MM-DD)`,
        type: 'value_error.date',
      });
  }
  if (fields.length) throw new ApiError('VALIDATION_ERROR', { fields });
  const to = q.to ?? defaults.to;
  const from = q.from ?? defaults.from(to);
  if (from > to)
    throw new ApiError('VALIDATION_ERROR', {
      fields: [{ field: 'query.from', message: `from (${from}) is after to (${to})`, type: 'value_error.range' }],
    });
  return { from, to };
}

const ENV_ID = { in: 'params', name: 'environment_id', foreign: 'environment_not_found' } as const;
const read = (resource: string) => ({
  auth: {
    mode: 'key_or_session' as const,
    role: 'viewer' as const,
    scope: 'read' as const,
    tenant: { resource, ids: [ENV_ID] } satisfies TenantDecl,
  },
});
const SECURITY: { [k: string]: string[] }[] = [{ apiKey: [] }, { session: [] }];

const exposure: FastifyPluginAsyncTypebox = async (app) => {
  const today = () => utcDay(app.deps.clock.now());

  app.get(
    '/api/v1/environments/:environment_id/exposure-history',
    {
      schema: {
        tags: ['reports'],
        summary: "The environment's daily exposure snapshots between two days (any member; viewers too)",
        description: `Taken by the daily exposure-snapshot job; kept ${HISTORY_DAYS} days. docs/reports.md.`,
        security: SECURITY,
        params: EnvParams,
        querystring: HistoryQuery,
        response: { 200: Envelope(History, Type.Object({})) },
      },
      config: read('exposure_history'),
    },
    async (req) => {
      const env = environmentIdOf(req.params.environment_id);
      const { from, to } = rangeOf(req.query, { to: today(), from: (t) => oldestKept(t) });
      const rows = await app.services.exposure.history(req.caller.orgId, env, from, to);
      if (!rows) throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: env } });
      return ok(
        req,
        {
          environment_id: env,
          from,
          to,
          days_kept: HISTORY_DAYS,
          chart_ready: rows.length >= CHART_MIN_DAYS,
          snapshots: rows.map((r) => ({ day: r.day, taken_at: new Date(r.taken_at).toISOString(), ...r.figures })),
        },
        {},
      );
    },
  );

  app.get(
    '/api/v1/environments/:environment_id/report',
    {
      schema: {
        tags: ['reports'],
        summary: 'The plant report of the environment over a period, as HTML or PDF (any member; viewers too)',
        description:
          'Exposure summary and trend, what to patch first with the fix, the KEV CVEs, the decisions taken in the period with their justifications, the Windows hosts past end of life, and what changed since the last report sent. docs/reports.md.',
        security: SECURITY,
        params: EnvParams,
        querystring: ReportQuery,
        produces: ['text/html', 'application/pdf'],
        response: {
          200: {
            description: 'The report',
            content: {
              'text/html': { schema: Type.Unsafe<string>({ type: 'string' }) },
              'application/pdf': { schema: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }) },
            },
          },
        },
      },
      config: read('plant_reports'),
    },
    async (req, reply) => {
      const env = environmentIdOf(req.params.environment_id);
      const { from, to } = rangeOf(req.query, { to: addDays(today(), -1), from: (t) => addDays(t, -29) });
      const p = req.caller;
      const r = await app.services.reports.build(
        { orgId: p.orgId, orgName: p.orgName },
        env,
        { start: from, end: addDays(to, 1) },
        null,
      );
      if (!r) throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: env } });
      const name = `plant-report-${env}-${from}-${to}`;
      if (req.query.format === 'pdf') {
        return reply
          .type('application/pdf')
          .header('Content-Disposition', `inline; filename="${name}.pdf"`)
          .header('Cache-Control', 'no-store')
          .send(await renderReportPdf(r));
      }
      return pageHeaders(reply)
        .header('Content-Disposition', `inline; filename="${name}.html"`)
        .send(renderReportPage(r));
    },
  );

  const self = (scope: 'read' | 'write') => ({
    auth: {
      mode: 'key_or_session' as const,
      role: 'viewer' as const,
      scope,
      ...(scope === 'write' ? { self: true } : {}),
      tenant: { resource: 'report_preferences', ids: [] },
    },
  });

  app.get(
    '/api/v1/account/report-schedule',
    {
      schema: {
        tags: ['account'],
        summary: "The caller's plant report schedule: none, weekly or monthly by email",
        security: SECURITY,
        querystring: NoQuery,
        response: { 200: Envelope(Schedule, Type.Object({})) },
      },
      config: self('read'),
    },
    async (req) => ok(req, await app.services.reports.cadence(req.caller.orgId, req.caller.memberId), {}),
  );

  app.put(
    '/api/v1/account/report-schedule',
    {
      schema: {
        tags: ['account'],
        summary:
          "Set the caller's plant report schedule (any member, for themself): each environment's report by email",
        security: SECURITY,
        querystring: NoQuery,
        body: PutSchedule,
        response: { 200: Envelope(Schedule, Type.Object({})) },
      },
      config: self('write'),
    },
    async (req) =>
      ok(req, await app.services.reports.setCadence(req.caller.orgId, req.caller.memberId, req.body.cadence), {}),
  );
};
export default exposure;
