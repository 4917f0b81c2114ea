// spec §4.2 Windows patch-level endpoints (API v2), §2.6 host record, §2.7 results, §7 errors, §8 limits.
//   POST /api/v2/assets/correlate       JSON   (scope write)
//   POST /api/v2/assets/correlate-csv   multipart: hosts, optional software, options as fields (scope write)
//   GET  /api/v2/assets/results         stored results by environment_id or asset_id (scope read)
// Both POST forms run one code path (`correlate`), so their results are identical (spec §9.5).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { parse as parseCsv } from 'csv-parse/sync';
import { Type } from 'typebox';
import { ApiError } from '../../errors.ts';
import { refuseHostileText } from '../../text-guard.ts';
import type { TenantDecl } from '../../auth.ts';
import { apiBlock } from '../../envelope.ts';
import { csvRowToHostRecord } from '../../../domain/windows/validate.ts';
import { SOFTWARE_FIELDS } from '../../../domain/windows/validate-software.ts';
import { OPTION_NAMES, parseViewOptions, type ViewOptions } from '../../../domain/windows/view.ts';
import { MAX_HOSTS, MAX_SOFTWARE, type Correlation } from '../../../services/windows-correlation.ts';
import { bodyStream, correlationBody, hostsJson, negotiateEncoding } from './stream.ts';
import { NUMERIC_TEXT } from '../../query-numbers.ts';
import { capExceeded, capRefusalDescription } from '../../schemas/accounts.ts';
import { batchLimit, perKeyRateLimit, type RouteError } from '../../openapi-errors.ts';
import { V2CorrelateBody, V2CorrelateResponse, V2ResultsResponse } from './schemas.ts';
import { asError } from '../../../lib/errors.ts';

export { MAX_HOSTS };
const TOP_LEVEL = ['environment_id', 'windows_hosts', 'installed_software', 'options'] as const;
/** CSV parts: 16 MiB each (ADR 0088). */
const CSV_PART_LIMIT = 16 * 1024 * 1024;
/** File parts the multipart parser lets through, so that an unexpected one is named in a 422 instead of a 413. */
const MAX_FILE_PARTS = 8;

declare module 'fastify' {
  interface FastifyRequest {
    /** Hosts submitted or returned by a v2 call, for the call log. */
    v2Hosts?: number;
  }
}

interface CorrelateParams {
  environmentId: number | null;
  hosts: unknown[];
  software: unknown[];
  options: ViewOptions;
}

function validationError(field: string, message: string, type = 'value_error') {
  return new ApiError('VALIDATION_ERROR', { message, fields: [{ field, message, type }] });
}

function filtersEcho(o: ViewOptions) {
  return {
    include_cleared: o.include_cleared,
    confirmed_only: o.confirmed_only,
    known_exploited_only: o.known_exploited_only,
    fix_available_only: o.fix_available_only,
    cve_page: o.cve_page,
    cve_page_size: o.cve_page_size,
  };
}

const tookMs = (req: FastifyRequest) => Math.max(0, Math.round(performance.now() - req.startedAt));

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

const assets: FastifyPluginAsync = async (app) => {
  const windows = app.services.windows;
  // Once the server listens, the evaluation index is built in the background (never on app.inject in tests).
  let closing = false;
  app.addHook('onClose', async () => {
    closing = true;
  });
  app.addHook('onListen', async () => {
    windows.warm().then(
      (w) => app.log.info({ windows_index: w }, 'Windows evaluation index ready'),
      (err: Error) => {
        if (!closing)
          app.log.warn({ err: err.message }, 'Windows evaluation index not built ahead; the first v2 call builds it');
      },
    );
  });
  await app.register(multipart, {
    limits: { files: MAX_FILE_PARTS, fileSize: CSV_PART_LIMIT, fields: 20, fieldSize: CSV_PART_LIMIT, parts: 30 },
  });

  // Spec §5.9: each v2 call logs time, key, path, status, host count and duration; never a body.
  app.addHook('onResponse', async (req, reply) => {
    if (!req.url.startsWith('/api/v2/')) return;
    req.log.info(
      {
        v2: true,
        key_id: req.principal?.keyId ?? null,
        path: req.routeOptions.url ?? req.url.split('?')[0],
        status: reply.statusCode,
        hosts: req.v2Hosts ?? 0,
        duration_ms: Math.round(reply.elapsedTime),
      },
      'v2 call',
    );
  });

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
      const q = req.query as Record<string, string | undefined>;
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

/** Sends a streamed JSON body, compressed when the client accepts br or gzip. */
function sendStream(req: FastifyRequest, reply: FastifyReply, body: AsyncGenerator<Buffer>) {
  const enc = negotiateEncoding(req.headers['accept-encoding']);
  reply.code(200).type('application/json; charset=utf-8').header('vary', 'Accept-Encoding');
  if (enc) reply.header('content-encoding', enc);
  return reply.send(bodyStream(body, enc));
}

// ---- multipart (every malformed upload is a 422 that says what is wrong) -------------------------------------

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Errors while reading the parts. Nothing but the request body is read there, so every failure is the client's:
 * limits keep their meaning (a part over 16 MiB stays 413), anything else (no boundary, a truncated or malformed
 * body, a premature close) is a 422 that says so.
 */
function multipartError(err: Error & { code?: string }): Error {
  if (err instanceof ApiError || err.code === 'FST_REQ_FILE_TOO_LARGE') return err;
  if (err.code === 'FST_FILES_LIMIT')
    return validationError(
      'body',
      'too many file parts: send one hosts part and at most one software part',
      'value_error.multipart',
    );
  if (err.code === 'FST_PARTS_LIMIT' || err.code === 'FST_FIELDS_LIMIT')
    return validationError(
      'body',
      'too many form parts: send environment_id, hosts, software and the options only',
      'value_error.multipart',
    );
  return validationError(
    'body',
    'the multipart body could not be read (missing boundary, truncated or malformed): send multipart/form-data with a boundary and a hosts part',
    'value_error.multipart',
  );
}

/**
 * After a refusal decided before the whole body was read, the rest of the body still sits on the connection: the
 * parser is detached and the rest discarded, and the answer says `Connection: close`, so a keep-alive client (or a
 * reverse proxy reusing its upstream connection) never sends its next request behind an unread body.
 */
function releaseUnreadBody(req: FastifyRequest, reply: FastifyReply) {
  const raw = req.raw;
  if (raw.complete) return;
  reply.header('connection', 'close');
  raw.unpipe();
  raw.resume();
}

async function readMultipart(
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<{ fields: Record<string, string>; hostsCsv: string; softwareCsv: string | null }> {
  if (!req.isMultipart())
    throw validationError('body', 'send multipart/form-data with a hosts part', 'type_error.multipart');
  if (!/;\s*boundary=/i.test(req.headers['content-type'] ?? '')) {
    throw validationError(
      'body',
      'the Content-Type has no boundary: send multipart/form-data with a boundary and a hosts part',
      'value_error.multipart',
    );
  }
  const fields: Record<string, string> = {};
  const files: Record<string, string> = {};
  try {
    for await (const part of req.parts()) {
      const name = part.fieldname;
      if (part.type === 'file') {
        if (name !== 'hosts' && name !== 'software')
          throw validationError(
            `body.${name.slice(0, 64)}`,
            'only the hosts and software parts may be files',
            'value_error.extra',
          );
        if (name in files)
          throw validationError(
            `body.${name}`,
            `send one ${name} part (this request has several)`,
            'value_error.duplicate',
          );
        const bytes = await part.toBuffer();
        try {
          files[name] = UTF8.decode(bytes);
        } catch {
          throw validationError(
            `body.${name}`,
            `the ${name} CSV is not valid UTF-8 (the spec requires UTF-8)`,
            'value_error.encoding',
          );
        }
      } else {
        if (name === 'hosts' || name === 'software') {
          if (name in files)
            throw validationError(
              `body.${name}`,
              `send one ${name} part (this request has several)`,
              'value_error.duplicate',
            );
          files[name] = typeof part.value === 'string' ? part.value : '';
        } else {
          if (name in fields)
            throw validationError(
              `body.${name.slice(0, 64)}`,
              'form field sent more than once',
              'value_error.duplicate',
            );
          fields[name] = typeof part.value === 'string' ? part.value : '';
        }
      }
    }
  } catch (e) {
    releaseUnreadBody(req, reply);
    throw multipartError(asError(e));
  }
  if (files.hosts === undefined)
    throw validationError('body.hosts', 'the hosts part is required', 'value_error.missing');
  return { fields, hostsCsv: files.hosts, softwareCsv: files.software ?? null };
}

export function readCsv(text: string, part: string): Record<string, string>[] {
  let rows: string[][];
  try {
    rows = parseCsv(text, {
      bom: true,
      skip_empty_lines: true,
      relax_column_count: false,
      max_record_size: 1024 * 1024,
    });
  } catch (e) {
    // The parser's own message may quote cell text (a refused value is never echoed): its code and line only.
    const { code, lines } = e as { code?: string; lines?: number };
    throw validationError(
      `body.${part}`,
      `the ${part} CSV could not be read (${code ?? 'CSV_INVALID'}${lines ? ` at line ${lines}` : ''})`,
      'value_error.csv',
    );
  }
  if (rows.length === 0) throw validationError(`body.${part}`, `the ${part} CSV has no header row`, 'value_error.csv');
  const header = rows[0].map((h) => h.trim());
  const dup = header.find((h, i) => header.indexOf(h) !== i);
  if (dup !== undefined)
    throw validationError(`body.${part}`, `duplicate column ${dup.slice(0, 64)}`, 'value_error.csv');
  if (header.some((h) => h === ''))
    throw validationError(`body.${part}`, 'empty column name in the header row', 'value_error.csv');
  if (part === 'software' && header.some((h) => !(SOFTWARE_FIELDS as readonly string[]).includes(h))) {
    throw validationError(
      'body.software',
      'software columns are asset_id, name, publisher, version',
      'value_error.csv',
    );
  }
  // A multipart part is no parsed body, so the edge text check (http/text-guard.ts) runs here, on the header only
  // (its column names are every row's): each host and software row is validated alone, and a bad cell refuses that
  // row only, as in a JSON body.
  refuseHostileText(Object.fromEntries(header.map((h) => [h, ''])), `body.${part}`);
  return rows.slice(1).map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ''])));
}

export default assets;
