// The two submissions of Windows hosts (spec §4.2, §2.6, §2.7, §7, §8):
//   POST /api/v2/assets/correlate       JSON   (scope write)
//   POST /api/v2/assets/correlate-csv   multipart: hosts, optional software, options as form fields (scope write)
// Both run one code path (`correlate`), so their results are identical (spec §9.5).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../errors.ts';
import type { TenantDecl } from '../../auth.ts';
import { apiBlock } from '../../envelope.ts';
import { csvRowToHostRecord } from '../../../domain/windows/validate.ts';
import { OPTION_NAMES, parseViewOptions, type ViewOptions } from '../../../domain/windows/view.ts';
import { MAX_HOSTS, MAX_SOFTWARE, type Correlation } from '../../../services/windows-correlation.ts';
import { correlationBody } from './stream.ts';
import { capExceeded, capRefusalDescription } from '../../schemas/accounts.ts';
import { batchLimit, perKeyRateLimit, type RouteError } from '../../openapi-errors.ts';
import { V2CorrelateBody, V2CorrelateResponse } from './schemas.ts';
import { fieldError, readCsv, readMultipart } from './csv-upload.ts';
import { CORRELATE_CONFIG, laterFields, type CorrelateInput } from './correlate-input.ts';
import { filtersEcho, sendStream, tookMs } from './answers.ts';

interface CorrelateParams {
  environmentId: number | null;
  hosts: unknown[];
  software: unknown[];
  options: ViewOptions;
}

/** Route policy of the two submissions: tenant data, with an environment id in the body (docs/routes.md). */
const ENV_IN_BODY: TenantDecl = {
  resource: 'windows_results',
  ids: [{ in: 'body', name: 'environment_id', foreign: 'environment_not_found' }],
};
/** OpenAPI: the refusals of the two submissions before and after `correlate`. */
const SUBMIT_ERRORS: RouteError[] = [
  perKeyRateLimit('correlation'),
  batchLimit(MAX_HOSTS, 'hosts'),
  batchLimit(MAX_SOFTWARE, 'software records'),
  capExceeded('assets'),
];

const hostSubmissions: FastifyPluginAsync = async (app) => {
  const windows = app.services.windows;

  /** Runs the call (everything stored before the first byte), then streams the response (stream.ts). */
  async function correlate(req: FastifyRequest, reply: FastifyReply, input: CorrelateParams) {
    const c: Correlation = await windows.correlate({ orgId: req.caller.orgId, requestId: req.id, ...input });
    const meta = () => ({
      api_version: '2',
      microsoft_data_as_of: c.microsoft_data_as_of,
      took_ms: tookMs(req),
      sort: input.options.sort,
      filters: filtersEcho(input.options),
    });
    return sendStream(req, reply, correlationBody(apiBlock(req), c, meta));
  }

  app.post<{ Body: CorrelateInput }>(
    '/api/v2/assets/correlate',
    {
      schema: {
        tags: ['windows'],
        summary:
          'Submit up to 200 Windows hosts (JSON) and get per-CVE status, fix groups and a fix summary (spec §4.2); the hosts are stored (403 cap_exceeded past the asset cap, nothing stored)',
        description: capRefusalDescription('assets'),
        security: [{ apiKey: [] }, { session: [] }],
        querystring: Type.Object({}),
        body: V2CorrelateBody,
        response: { 200: V2CorrelateResponse },
        errors: SUBMIT_ERRORS,
      },
      // NUL or a lone surrogate in a host or software record refuses that record only (validateHost, validateSoftware);
      // elsewhere in the body, the request.
      config: {
        auth: { mode: 'key_or_session', role: 'admin', scope: 'write', tenant: ENV_IN_BODY },
        ...CORRELATE_CONFIG,
      },
    },
    async (req, reply) => {
      const hosts = req.body.windows_hosts;
      req.v2Hosts = hosts.length;
      // Spec §8: one budget per key shared by v1 correlate and v2 (a refused batch is charged its request only).
      await app.limits.correlation.check(req.caller, hosts.length > MAX_HOSTS ? 0 : hosts.length);
      if (hosts.length > MAX_HOSTS) {
        throw new ApiError('BATCH_TOO_LARGE', {
          message: `At most ${MAX_HOSTS} hosts per call`,
          max: MAX_HOSTS,
          detail: { received: hosts.length },
        });
      }
      const later = laterFields(req, req.body);
      const environmentId = later.environmentId();
      const software = later.software();
      if (software.length > MAX_SOFTWARE)
        throw new ApiError('BATCH_TOO_LARGE', {
          message: `At most ${MAX_SOFTWARE} software records per call`,
          max: MAX_SOFTWARE,
          detail: { received: software.length },
        });
      return correlate(req, reply, { environmentId, hosts, software, options: later.options() });
    },
  );

  app.post(
    '/api/v2/assets/correlate-csv',
    {
      schema: {
        tags: ['windows'],
        summary:
          'Same as correlate, as a multipart CSV upload: hosts (CSV with the §2.6 field names), optional software (asset_id,name,publisher,version), options as form fields; the hosts are stored (403 cap_exceeded past the asset cap, nothing stored)',
        description: capRefusalDescription('assets'),
        security: [{ apiKey: [] }, { session: [] }],
        consumes: ['multipart/form-data'],
        querystring: Type.Object({}),
        response: { 200: V2CorrelateResponse },
        errors: SUBMIT_ERRORS,
      },
      config: { auth: { mode: 'key_or_session', role: 'admin', scope: 'write', tenant: ENV_IN_BODY } },
    },
    async (req, reply) => {
      const { fields, hostsCsv, softwareCsv } = await readMultipart(req, reply);
      const unknown = Object.keys(fields).filter((k) => k !== 'environment_id' && !OPTION_NAMES.some((n) => n === k));
      if (unknown.length) {
        throw new ApiError('VALIDATION_ERROR', {
          message: `Form field${unknown.length > 1 ? 's' : ''} not allowed: ${unknown.join(', ')}`,
          fields: unknown.map((k) => ({
            field: `body.${k}`,
            message: 'accepted parts: environment_id, hosts, software and the options',
            type: 'value_error.extra',
          })),
        });
      }
      const hostRows = readCsv(hostsCsv, 'hosts');
      req.v2Hosts = hostRows.length;
      await app.limits.correlation.check(req.caller, hostRows.length > MAX_HOSTS ? 0 : hostRows.length);
      if (hostRows.length > MAX_HOSTS)
        throw new ApiError('BATCH_TOO_LARGE', {
          message: `At most ${MAX_HOSTS} hosts per call`,
          max: MAX_HOSTS,
          detail: { received: hostRows.length },
        });
      const software = softwareCsv === null ? [] : readCsv(softwareCsv, 'software');
      if (software.length > MAX_SOFTWARE)
        throw new ApiError('BATCH_TOO_LARGE', {
          message: `At most ${MAX_SOFTWARE} software records per call`,
          max: MAX_SOFTWARE,
          detail: { received: software.length },
        });
      let environmentId: number | null = null;
      const env = fields.environment_id?.trim();
      if (env) {
        if (!/^\d{1,15}$/.test(env) || Number(env) < 1)
          throw fieldError('body.environment_id', 'environment_id must be a positive integer', 'type_error.integer');
        environmentId = Number(env);
      }
      const optionFields = Object.fromEntries(Object.entries(fields).filter(([k]) => k !== 'environment_id'));
      const parsed = parseViewOptions(optionFields, { fromText: true, includeClearedDefault: true, prefix: 'body.' });
      if (!parsed.ok) throw new ApiError('VALIDATION_ERROR', { message: 'Invalid options', fields: parsed.errors });
      return correlate(req, reply, {
        environmentId,
        hosts: hostRows.map(csvRowToHostRecord),
        software,
        options: parsed.options,
      });
    },
  );
};

export default hostSubmissions;
