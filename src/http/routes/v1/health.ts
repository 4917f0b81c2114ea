// spec §4.3 Health, §2.9 payload. Ping answers without touching the database. The full health JSON needs
// X-Internal-Key (constant-time compare) or a signed-in session; browsers get the status page instead (public
// banner and badges, details for members). A database outage makes the payload degraded, never an error.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Envelope, ok } from '../../envelope.ts';
import { NoQuery, StringEnum } from '../../schemas/common.ts';
import { prefersHtml } from '../../status-page.ts';
import { renderStatusPage } from '../../web/status.tsx';
import { pageHeaders } from '../../web/layout.tsx';
import { viewerOf } from '../../web/viewer.ts';
import { diskFreeBytes } from '../../../lib/disk.ts';
import { PACKAGE_VERSION } from '../../../lib/version.ts';
import { deploymentWarnings } from '../../../domain/deployment.ts';
import { isConnectionError, isStatementTimeout } from '../../../lib/db-errors.ts';
import { buildHealth, FEED_NAMES, type HealthData, type HealthInput } from '../../../domain/health.ts';
import { errorMessage } from '../../../lib/errors.ts';

const NullableInt = Type.Union([Type.Integer(), Type.Null()]);
const NullableNum = Type.Union([Type.Number(), Type.Null()]);
const Stage = Type.Object({
  status: StringEnum(['success', 'failed', 'running', 'never_run']),
  last_run: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  rows: NullableInt,
  hours_since: NullableNum,
  duration_sec: NullableNum,
});
const Feed = Type.Object({
  status: StringEnum(['fresh', 'stale', 'never_synced']),
  last_success: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  age_hours: NullableNum,
  last_attempt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  last_attempt_status: Type.Union([StringEnum(['running', 'succeeded', 'failed']), Type.Null()]),
});
export const HealthSchema = Type.Object({
  status: Type.Union([Type.Literal('healthy'), Type.Literal('degraded')]),
  database: Type.String(),
  pipeline: Type.Object({ ingest: Stage, enricher: Stage }),
  feeds: Type.Union([Type.Object(Object.fromEntries(FEED_NAMES.map((f) => [f, Feed]))), Type.Null()]),
  services: Type.Object({
    api: Type.String(),
    enricher: Type.String(),
    renderer: Type.String(),
    alerts: Type.String(),
  }),
  counts: Type.Object({
    total_cves: NullableInt,
    alert_ready: NullableInt,
    pending_enrichment: NullableInt,
    rendered: NullableInt,
  }),
  db_size_mb: NullableNum,
  disk_free_gb: NullableNum,
  // Beyond spec §2.9, present only with DATABASE_REPLICA_URL (docs/deploy.md "Read replicas").
  replicas: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String(),
        state: StringEnum(['streaming', 'behind', 'down', 'starting']),
        lag_ms: NullableNum,
        corpus_version: NullableInt,
      }),
    ),
  ),
});
const HealthMeta = Type.Object({ uptime_url: Type.String(), version: Type.String(), environment: Type.String() });

const health: FastifyPluginAsyncTypebox = async (app) => {
  const { config, clock } = app.deps;

  async function gather(): Promise<HealthData> {
    const replicas = app.services.replicas?.status();
    const input: HealthInput = {
      now: clock.now(),
      db: null,
      diskFreeBytes: await diskFreeBytes(config.dataDir),
      ...(replicas ? { replicas } : {}),
    };
    try {
      const f = await app.services.health.facts();
      input.db = {
        sizeBytes: f.dbSizeBytes,
        runs: f.runs,
        totalCves: f.totalCves,
        pendingEnrichment: f.pendingEnrichment,
        lastAlertRun: f.lastAlertRun,
        feeds: f.feeds,
      };
    } catch (e) {
      // Unreachable or too slow: the database is reported unavailable (degraded); anything else is a bug.
      if (!isConnectionError(e) && !isStatementTimeout(e)) throw e;
      app.log.warn({ err: errorMessage(e) }, 'health: database unavailable');
    }
    return buildHealth(input);
  }

  app.get(
    '/api/v1/health',
    {
      schema: {
        tags: ['health'],
        summary:
          'Service health (spec §2.9). JSON needs X-Internal-Key or a session; Accept: text/html renders the status page',
        security: [{ internalKey: [] }, { session: [] }],
        querystring: Type.Object(
          {
            refresh: Type.Optional(
              Type.Literal('30', {
                description:
                  'The status page (text/html) refreshes itself every 30 seconds: chosen by the reader (a timed refresh the reader did not ask for fails WCAG 2.2.1)',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: {
            description:
              'The health payload (JSON), or the status page (text/html: public banner and badges, details for members)',
            content: {
              'application/json': { schema: Envelope(HealthSchema, HealthMeta) },
              'text/html': { schema: Type.String() },
            },
          },
        },
      },
      // The auth hook decides who passed (req.access): the status page is public, the JSON is not.
      config: { auth: { mode: 'internal_or_session', publicHtml: true, tenant: false } },
    },
    async (req, reply) => {
      const data = await gather();
      reply.header('Cache-Control', 'no-store');
      if (prefersHtml(req.headers.accept)) {
        const page = renderStatusPage(data, {
          details: req.access !== null,
          refresh: req.query.refresh === '30',
          version: PACKAGE_VERSION,
          environment: config.environment,
          generatedAt: clock.now(),
          viewer: viewerOf(req),
          warnings: deploymentWarnings(config),
        });
        return pageHeaders(reply)
          .serializer((s: unknown) => String(s))
          .send(page);
      }
      return ok(req, data, { uptime_url: config.uptimeUrl, version: PACKAGE_VERSION, environment: config.environment });
    },
  );

  app.get(
    '/api/v1/health/ping',
    {
      schema: {
        tags: ['health'],
        summary: 'Liveness check (no database query)',
        querystring: NoQuery,
        response: { 200: Type.Object({ ping: Type.Literal('pong') }) },
        noDatabase: true,
      },
      // A load balancer calls this every few seconds: successful pings write no access-log line (failures do).
      config: { auth: { mode: 'none', tenant: false }, accessLog: 'errors' },
    },
    async () => ({ ping: 'pong' as const }),
  );
};
export default health;
