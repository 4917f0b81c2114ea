// GET /api/v2/assets/results (spec §4.2, §2.7): the stored results by environment_id or asset_id (scope read), with
// the ordering, filter and paging options of correlate; streamed as a correlate answer.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ApiError } from '../../errors.ts';
import { apiBlock } from '../../envelope.ts';
import { parseViewOptions } from '../../../domain/windows/view.ts';
import { MAX_HOSTS } from '../../../services/windows-correlation.ts';
import { hostsJson } from './stream.ts';
import { NUMERIC_TEXT } from '../../query-numbers.ts';
import { V2ResultsResponse } from './schemas.ts';
import { filtersEcho, sendStream, tookMs } from './answers.ts';

const storedHosts: FastifyPluginAsyncTypebox = async (app) => {
  const windows = app.services.windows;

  app.get(
    '/api/v2/assets/results',
    {
      schema: {
        tags: ['windows'],
        summary:
          'Stored results by environment_id or asset_id, with the ordering, filter and paging options of correlate; hosts paged by page/per_page',
        security: [{ apiKey: [] }, { session: [] }],
        querystring: Type.Object({
          // Read as text and checked by the handler (its own messages, as correlate's options): what each accepts is
          // described here, as the handler enforces it (422 on the field otherwise).
          environment_id: Type.Optional(
            Type.String({
              maxLength: 20,
              description:
                'A positive integer: an environment of your organization (404 otherwise). One of environment_id or asset_id is required',
            }),
          ),
          asset_id: Type.Optional(
            Type.String({
              maxLength: 64,
              description:
                'One stored host, by its asset_id (no environment: the results stored without one). One of environment_id or asset_id is required',
            }),
          ),
          include_cleared: Type.Optional(
            Type.String({
              maxLength: 5,
              description: 'true or false (default false): also list the CVEs the host has cleared',
            }),
          ),
          sort: Type.Optional(
            Type.String({ maxLength: 20, description: 'priority (default), score, exploit or newest' }),
          ),
          confirmed_only: Type.Optional(Type.String({ maxLength: 5, description: 'true or false (default false)' })),
          known_exploited_only: Type.Optional(
            Type.String({ maxLength: 5, description: 'true or false (default false)' }),
          ),
          fix_available_only: Type.Optional(
            Type.String({ maxLength: 5, description: 'true or false (default false)' }),
          ),
          cve_page: Type.Optional(
            Type.String({
              maxLength: 10,
              description: "An integer, 1 to 100000 (default 1): the page of each host's CVE list",
            }),
          ),
          cve_page_size: Type.Optional(
            Type.String({ maxLength: 10, description: 'An integer, 1 to 1000 (spec §8; default as correlate)' }),
          ),
          page: Type.Optional(
            Type.String({
              maxLength: 10,
              description: 'An integer in decimal, 1 or more (default 1): the page of hosts',
            }),
          ),
          per_page: Type.Optional(
            Type.String({ maxLength: 10, description: 'An integer in decimal, 1 to 200 (default 50): hosts per page' }),
          ),
        }),
        response: { 200: V2ResultsResponse },
      },
      config: {
        auth: {
          mode: 'key_or_session',
          role: 'viewer',
          scope: 'read',
          tenant: {
            resource: 'windows_results',
            ids: [
              { in: 'query', name: 'environment_id', foreign: 'environment_not_found' },
              { in: 'query', name: 'asset_id', foreign: 'empty' },
            ],
          },
        },
      },
    },
    async (req, reply) => {
      const p = req.caller;
      await app.limits.correlation.check(p, 0);
      const q = req.query;
      const { environment_id: envText, asset_id: assetId, page: pageText, per_page: perText, ...opts } = q;
      const errors: { field: string; message: string; type: string }[] = [];
      let environmentId: number | undefined;
      if (envText !== undefined) {
        if (!/^\d{1,15}$/.test(envText) || Number(envText) < 1)
          errors.push({
            field: 'query.environment_id',
            message: 'must be a positive integer',
            type: 'type_error.integer',
          });
        else environmentId = Number(envText);
      }
      if (assetId !== undefined && assetId.trim() === '')
        errors.push({ field: 'query.asset_id', message: 'must not be empty', type: 'value_error' });
      if (environmentId === undefined && assetId === undefined && !errors.length)
        errors.push({ field: 'query', message: 'give environment_id or asset_id', type: 'value_error.missing' });
      // Decimal text only, as every number of a query string (docs/api-conventions.md; src/http/query-numbers.ts):
      // Number() alone read "0x2" as 2 and "0b1" as 1.
      const decimal = (text: string | undefined, dflt: number) =>
        text === undefined ? dflt : NUMERIC_TEXT.test(text) ? Number(text) : null;
      const page = decimal(pageText, 1);
      const perPage = decimal(perText, 50);
      if (page === null)
        errors.push({
          field: 'query.page',
          message: 'must be an integer written in decimal',
          type: 'type_error.integer',
        });
      else if (!Number.isInteger(page) || page < 1)
        errors.push({ field: 'query.page', message: 'must be an integer of at least 1', type: 'value_error' });
      if (perPage === null)
        errors.push({
          field: 'query.per_page',
          message: 'must be an integer written in decimal',
          type: 'type_error.integer',
        });
      else if (!Number.isInteger(perPage) || perPage < 1 || perPage > MAX_HOSTS)
        errors.push({
          field: 'query.per_page',
          message: `must be an integer from 1 to ${MAX_HOSTS}`,
          type: 'value_error',
        });
      const parsed = parseViewOptions(opts, { fromText: true, includeClearedDefault: false, prefix: 'query.' });
      if (!parsed.ok) errors.push(...parsed.errors);
      if (errors.length || !parsed.ok || page === null || perPage === null)
        throw new ApiError('VALIDATION_ERROR', { fields: errors });
      const o = parsed.options;
      const r = await windows.results({
        orgId: p.orgId,
        environmentId,
        assetId: assetId?.trim(),
        page,
        perPage,
        options: o,
      });
      req.v2Hosts = r.assets.length;
      const meta = () => ({
        api_version: '2',
        microsoft_data_as_of: r.microsoft_data_as_of,
        took_ms: tookMs(req),
        sort: o.sort,
        filters: { ...filtersEcho(o), environment_id: environmentId ?? null, asset_id: assetId ?? null },
      });
      const paging = {
        total: r.total,
        page,
        per_page: perPage,
        pages: Math.ceil(r.total / perPage),
        has_next: page * perPage < r.total,
        has_prev: page > 1,
        count: r.assets.length,
      };
      // A page of 200 stored hosts is as large as a correlate answer: streamed the same way (V2ResultsResponse).
      return sendStream(
        req,
        reply,
        hostsJson(
          `{"api":${JSON.stringify(apiBlock(req))},"data":{"assets":[`,
          r.assets,
          () =>
            `],"fix_summary":${JSON.stringify(r.fix_summary)}},"pagination":${JSON.stringify(paging)},"meta":${JSON.stringify(meta())}}`,
        ),
      );
    },
  );
};

export default storedHosts;
