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
import { fieldError as validationError, readCsv, readMultipart } from './csv-upload.ts';
import { filtersEcho, sendStream, tookMs } from './answers.ts';

const TOP_LEVEL = ['environment_id', 'windows_hosts', 'installed_software', 'options'] as const;

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

  app.post(
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
      // The body schema documents the request; the handler below refuses with the spec's wording, field by field.
      attachValidation: true,
      // NUL or a lone surrogate in a host or software record refuses that record only (validateHost, validateSoftware);
      // elsewhere in the body, the request.
      config: {
        auth: { mode: 'key_or_session', role: 'admin', scope: 'write', tenant: ENV_IN_BODY },
        recordArrays: ['windows_hosts', 'installed_software'],
      },
    },
    async (req, reply) => {
      if (req.validationError && (req.validationError as { validationContext?: string }).validationContext !== 'body')
        throw req.validationError;
      const body = req.body;
      if (!body || typeof body !== 'object' || Array.isArray(body))
        throw validationError('body', 'the body must be a JSON object', 'type_error.dict');
      const b = body as Record<string, unknown>;
      const extra = Object.keys(b).filter((k) => !(TOP_LEVEL as readonly string[]).includes(k));
      if (extra.length) {
        throw new ApiError('VALIDATION_ERROR', {
          message: `Top-level field${extra.length > 1 ? 's' : ''} not allowed: ${extra.join(', ')}`,
          fields: extra.map((k) => ({
            field: `body.${k}`,
            message: 'only environment_id, windows_hosts, installed_software and options are accepted',
            type: 'value_error.extra',
          })),
        });
      }
      if (!Array.isArray(b.windows_hosts))
        throw validationError(
          'body.windows_hosts',
          'windows_hosts must be an array of host records',
          'type_error.list',
        );
      req.v2Hosts = b.windows_hosts.length;
      // Spec §8: one budget per key shared by v1 correlate and v2 (a refused batch is charged its request only).
      await app.limits.correlation.check(req.caller, b.windows_hosts.length > MAX_HOSTS ? 0 : b.windows_hosts.length);
      if (b.windows_hosts.length > MAX_HOSTS) {
        throw new ApiError('BATCH_TOO_LARGE', {
          message: `At most ${MAX_HOSTS} hosts per call`,
          max: MAX_HOSTS,
          detail: { received: b.windows_hosts.length },
        });
      }
      let environmentId: number | null = null;
      if (b.environment_id !== undefined && b.environment_id !== null) {
        if (typeof b.environment_id !== 'number' || !Number.isSafeInteger(b.environment_id) || b.environment_id < 1)
          throw validationError(
            'body.environment_id',
            'environment_id must be a positive integer',
            'type_error.integer',
          );
        environmentId = b.environment_id;
      }
      if (b.installed_software !== undefined && !Array.isArray(b.installed_software))
        throw validationError('body.installed_software', 'installed_software must be an array', 'type_error.list');
      const software = (b.installed_software as unknown[] | undefined) ?? [];
      if (software.length > MAX_SOFTWARE)
        throw new ApiError('BATCH_TOO_LARGE', {
          message: `At most ${MAX_SOFTWARE} software records per call`,
          max: MAX_SOFTWARE,
          detail: { received: software.length },
        });
      if (b.options !== undefined && (typeof b.options !== 'object' || b.options === null || Array.isArray(b.options)))
        throw validationError('body.options', 'options must be an object', 'type_error.dict');
      const parsed = parseViewOptions((b.options as Record<string, unknown>) ?? {}, {
        fromText: false,
        includeClearedDefault: false,
        prefix: 'body.options.',
      });
      if (!parsed.ok) throw new ApiError('VALIDATION_ERROR', { message: 'Invalid options', fields: parsed.errors });
      return correlate(req, reply, { environmentId, hosts: b.windows_hosts, software, options: parsed.options });
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
      const unknown = Object.keys(fields).filter(
        (k) => k !== 'environment_id' && !(OPTION_NAMES as readonly string[]).includes(k),
      );
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
          throw validationError(
            'body.environment_id',
            'environment_id must be a positive integer',
            'type_error.integer',
          );
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
