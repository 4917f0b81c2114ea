// The cheap checks of assets, nothing stored (spec §4.7, §5.8; docs/correlation.md §6):
//   POST /api/v1/assets/correlate-cves/check    correlate-cves' input, per asset only counts
//   POST /api/v1/assets/check-windows           v2 host records → per host counts, end of life, top fix actions
// Both compute rather than write (auth `query`: the read scope suffices, so read-only partner keys may call them).
// Their order of refusals: correlate-input.ts.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../errors.ts';
import { ok } from '../../envelope.ts';
import { parseViewOptions } from '../../../domain/windows/view.ts';
import { MAX_ASSETS } from '../../../services/asset-correlation.ts';
import { DEFAULT_OPTIONS } from '../../../services/correlation-answer.ts';
import { CheckBody, CheckResponse, CheckWindowsResponse } from './asset-schemas.ts';
import { batchLimit, perKeyRateLimit } from '../../openapi-errors.ts';
import { V2CorrelateBody } from '../v2/schemas.ts';
import {
  CORRELATE_CONFIG,
  ENV_IN_BODY,
  FOR_TRIAL_KEYS,
  PARTNER_LIMIT,
  batchWords,
  correlationLimits,
  laterFields,
  type CorrelateInput,
} from './correlate-input.ts';
import { tookMs } from './correlate-answers.ts';

const assetChecks: FastifyPluginAsync = async (app) => {
  const svc = app.services.assets;
  const limits = correlationLimits(app);

  app.post<{ Body: CorrelateInput }>(
    '/api/v1/assets/correlate-cves/check',
    {
      schema: {
        tags: ['assets'],
        summary:
          'The same input as correlate-cves; per asset only whether anything matched, counts by status and severity, and KEV presence (for inventory sweeps)',
        security: [{ apiKey: [] }, { session: [] }],
        querystring: Type.Object({}),
        body: CheckBody,
        response: { 200: CheckResponse },
        errors: [
          ...FOR_TRIAL_KEYS,
          {
            key: 'ENVIRONMENT_NOT_FOUND',
            when: 'environment_id names no environment of the organization (nothing is stored, but a wrong id is not passed over)',
          },
        ],
      },
      config: {
        auth: {
          mode: 'key_or_session',
          role: 'admin',
          scope: 'read',
          query: true,
          partner: true,
          trial: true,
          tenant: ENV_IN_BODY,
        },
        ...CORRELATE_CONFIG,
      },
    },
    async (req) => {
      const body = req.body;
      await limits(req, body.assets.length, true);
      // The check stores nothing: environment_id and options are accepted (same input) and validated, not used; an
      // environment_id must name an environment of the organization (404 otherwise, as on correlate-cves), so a
      // sweep sent with a wrong or deleted id is not answered as if it were right. No write scope: nothing is written.
      const later = laterFields(req, body);
      const environmentId = later.environmentId();
      later.options();
      const r = await svc.check({
        principal: req.caller,
        requestId: req.id,
        assets: body.assets,
        environmentId,
        options: DEFAULT_OPTIONS,
      });
      return ok(req, r, { took_ms: tookMs(req) });
    },
  );

  app.post<{ Body: { windows_hosts: unknown[] } }>(
    '/api/v1/assets/check-windows',
    {
      schema: {
        tags: ['assets'],
        summary:
          'Windows hosts (v2 host records, spec §2.6) → per host the counts, end of life and the top fix actions; nothing stored',
        security: [{ apiKey: [] }, { session: [] }],
        querystring: Type.Object({}),
        body: Type.Object(
          { windows_hosts: V2CorrelateBody.properties.windows_hosts },
          {
            additionalProperties: false,
            examples: [
              {
                windows_hosts: [
                  {
                    asset_id: 'srv-17',
                    os_product: 'Windows Server 2019 Standard',
                    edition_id: 'ServerStandard',
                    os_build: '10.0.17763.6189',
                    architecture: 'x64',
                    installation_type: 'Server',
                    collected_at: '2026-11-20T08:00:00Z',
                  },
                ],
              },
            ],
          },
        ),
        response: { 200: CheckWindowsResponse },
        errors: [perKeyRateLimit('correlation'), batchLimit(MAX_ASSETS, 'hosts'), PARTNER_LIMIT],
      },
      // NUL or a lone surrogate in a host refuses that host only (validateHost), as on POST /api/v2/assets/correlate.
      // The schema validates the body but the hosts (each refused alone, in data.rejected): refused before the limits.
      config: {
        auth: { mode: 'key_or_session', role: 'admin', scope: 'read', query: true, partner: true, tenant: false },
        recordArrays: ['windows_hosts'],
        fieldWords: batchWords('windows_hosts', []),
      },
    },
    async (req) => {
      const items = req.body.windows_hosts;
      await limits(req, items.length, false, 'hosts');
      const parsed = parseViewOptions({}, { fromText: false, includeClearedDefault: false });
      if (!parsed.ok) throw new ApiError('VALIDATION_ERROR', { fields: parsed.errors });
      // Partner keys spend one check per accepted host, counted once the hosts are validated (refused ones are free).
      const r = await svc.charged(req.caller, (spend) => app.services.windows.evaluate(items, parsed.options, spend));
      const hosts = r.assets.map((h) => ({
        asset_id: h.asset_id,
        microsoft_product: h.microsoft_product,
        patch_resolved: h.patch_resolved,
        end_of_life: h.end_of_life,
        labels: h.labels,
        counts: h.counts,
        top_fix_actions: h.fix_groups
          .slice(0, 3)
          .map((g) => ({
            fix: g.fix,
            fix_type: g.fix_type,
            kb: g.kb,
            cve_count: g.counts.total,
            known_exploited: g.counts.known_exploited,
            highest_score: g.highest_score,
            group_rank: g.group_rank,
          })),
      }));
      return ok(
        req,
        { hosts, rejected: r.rejected },
        { took_ms: tookMs(req), microsoft_data_as_of: r.microsoft_data_as_of },
      );
    },
  );
};

export default assetChecks;
