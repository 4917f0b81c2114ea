// GET /api/v1/assets/results (docs/correlation.md §7): the assets correlate-cves stored in an environment, a page at
// a time, each decided again against the corpus of now; streamed as correlate-cves answers.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ApiError } from '../../errors.ts';
import { pagination } from '../../envelope.ts';
import { MAX_ASSETS } from '../../../services/asset-correlation.ts';
import { DEFAULT_OPTIONS, SORTS, type CorrelateOptions } from '../../../services/correlation-answer.ts';
import { StoredResultsResponse } from './asset-schemas.ts';
import { NUMERIC_TEXT } from '../../query-numbers.ts';
import { perKeyRateLimit } from '../../openapi-errors.ts';
import { sendAnswers } from './correlate-answers.ts';

/** The options a query gives as true or false. */
const FLAGS = ['include_not_affected', 'affected_only', 'known_exploited_only', 'fix_available_only'] as const;

const assetResults: FastifyPluginAsyncTypebox = async (app) => {
  const svc = app.services.assets;

  app.get(
    '/api/v1/assets/results',
    {
      schema: {
        tags: ['assets'],
        summary:
          'The assets stored in an environment (correlate-cves with environment_id), a page at a time by asset_id, each decided again against the corpus of now: the correlate-cves answer per asset, a CVE imported since included',
        security: [{ apiKey: [] }, { session: [] }],
        querystring: Type.Object({
          // Read as text and checked by the handler (correlate's option messages): what each accepts is described here.
          environment_id: Type.String({
            maxLength: 20,
            description:
              'A positive integer: an environment of your organization (404 environment_not_found otherwise)',
          }),
          asset_id: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 64,
              description: 'Only this stored asset (an empty page when none is stored under it)',
            }),
          ),
          page: Type.Optional(
            Type.String({
              maxLength: 10,
              description: 'An integer in decimal, 1 or more (default 1): the page of assets',
            }),
          ),
          per_page: Type.Optional(
            Type.String({
              maxLength: 10,
              description: 'An integer in decimal, 1 to 200 (default 50): assets per page',
            }),
          ),
          sort: Type.Optional(
            Type.String({
              maxLength: 20,
              description: `${SORTS.join(', ')} (default priority), as correlate-cves options.sort`,
            }),
          ),
          include_not_affected: Type.Optional(
            Type.String({ maxLength: 5, description: 'true or false (default false)' }),
          ),
          affected_only: Type.Optional(Type.String({ maxLength: 5, description: 'true or false (default false)' })),
          known_exploited_only: Type.Optional(
            Type.String({ maxLength: 5, description: 'true or false (default false)' }),
          ),
          fix_available_only: Type.Optional(
            Type.String({ maxLength: 5, description: 'true or false (default false)' }),
          ),
          cve_page: Type.Optional(
            Type.String({
              maxLength: 10,
              description: "An integer in decimal, 1 or more: the page of each asset's CVE list",
            }),
          ),
          cve_page_size: Type.Optional(Type.String({ maxLength: 10, description: 'An integer in decimal, 1 to 1000' })),
        }),
        response: { 200: StoredResultsResponse },
        errors: [perKeyRateLimit('correlation')],
      },
      config: {
        auth: {
          mode: 'key_or_session',
          role: 'viewer',
          scope: 'read',
          tenant: {
            resource: 'asset_correlations',
            ids: [{ in: 'query', name: 'environment_id', foreign: 'environment_not_found' }],
          },
        },
      },
    },
    async (req, reply) => {
      // One request of the per-key correlation budget (as GET /api/v2/assets/results), no asset checks.
      await app.limits.correlation.check(req.caller, 0);
      const { environment_id: envText, asset_id: assetId, page: pageText, per_page: perText, ...opts } = req.query;
      const errors: { field: string; message: string; type: string }[] = [];
      const decimalInt = (name: string, text: string | undefined, dflt: number | null, max: number): number | null => {
        if (text === undefined) return dflt;
        const n = NUMERIC_TEXT.test(text) ? Number(text) : NaN;
        if (!Number.isSafeInteger(n) || n < 1 || n > max) {
          errors.push({
            field: `query.${name}`,
            message: `must be an integer written in decimal, 1 to ${max}`,
            type: 'type_error.integer',
          });
          return dflt;
        }
        return n;
      };
      const environmentId =
        envText !== undefined && /^\d{1,15}$/.test(envText) && Number(envText) >= 1 ? Number(envText) : null;
      if (environmentId === null)
        errors.push({
          field: 'query.environment_id',
          message: 'must be a positive integer',
          type: 'type_error.integer',
        });
      const page = decimalInt('page', pageText, 1, 1_000_000)!;
      const perPage = decimalInt('per_page', perText, 50, MAX_ASSETS)!;
      const options: CorrelateOptions = { ...DEFAULT_OPTIONS };
      for (const [k, v] of Object.entries(opts)) {
        if (v === undefined) continue;
        if (k === 'sort') {
          const sort = SORTS.find((s) => s === v);
          if (sort) options.sort = sort;
          else
            errors.push({
              field: 'query.sort',
              message: `sort must be one of ${SORTS.join(', ')}`,
              type: 'value_error.enum',
            });
        } else if (k === 'cve_page' || k === 'cve_page_size') {
          options[k] = decimalInt(k, v, null, k === 'cve_page_size' ? 1000 : Number.MAX_SAFE_INTEGER);
        } else {
          const flag = FLAGS.find((f) => f === k);
          if (flag !== undefined && (v === 'true' || v === 'false')) options[flag] = v === 'true';
          else errors.push({ field: `query.${k}`, message: `${k} must be true or false`, type: 'type_error.bool' });
        }
      }
      if (errors.length) throw new ApiError('VALIDATION_ERROR', { fields: errors });
      const r = await svc.results({
        principal: req.caller,
        environmentId: environmentId!,
        assetId: assetId ?? null,
        page,
        perPage,
        options,
      });
      return sendAnswers(
        req,
        reply,
        r,
        options,
        { environment_id: environmentId },
        pagination(r.total, page, perPage, r.count + r.rejected.length),
      );
    },
  );
};

export default assetResults;
