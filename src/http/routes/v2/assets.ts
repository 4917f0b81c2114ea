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
import { WindowsData } from '../../../windows-data.ts';
import { EvaluationRun, type HostEvaluation } from '../../../domain/windows/evaluate.ts';
import { HOST_FIELDS, SOFTWARE_FIELDS, csvRowToHostRecord, isPlaceholder, looksIdentifying, validateHost, type HostError, type WindowsHost } from '../../../domain/windows/validate.ts';
import { OPTION_NAMES, fixSummary, parseViewOptions, viewHost, type HostView, type ViewOptions } from '../../../domain/windows/view.ts';
import { environmentExists, listResults, storeResults, type SoftwareInput } from '../../../store/windows.ts';

/** Spec §4.2 / §7: at most 200 hosts per call, counted before any per-host validation. */
export const MAX_HOSTS = 200;
const TOP_LEVEL = ['environment_id', 'windows_hosts', 'installed_software', 'options'] as const;
/** CSV parts: 16 MiB each (docs/reliability.md decision 4). */
const CSV_PART_LIMIT = 16 * 1024 * 1024;
const MAX_SOFTWARE = 200 * 1000;

declare module 'fastify' {
  interface FastifyRequest {
    /** Hosts submitted or returned by a v2 call, for the call log. */
    v2Hosts?: number;
  }
}

interface CorrelateInput {
  environmentId: number | null;
  hosts: unknown[];
  software: unknown[];
  options: ViewOptions;
}

/** Software records have the host codes plus unknown_host (software of a host not accepted in this call). */
interface SoftwareError { code: HostError['code'] | 'unknown_host'; field: string; message: string }

interface Rejected {
  asset_id: string | null;
  index: number;
  errors: HostError[];
  retryable: false;
  retry_after_seconds: null;
  action: 'fix_input';
}

function validationError(field: string, message: string, type = 'value_error') {
  return new ApiError('VALIDATION_ERROR', { message, fields: [{ field, message, type }] });
}

function today(req: FastifyRequest): string {
  return req.server.deps.clock.now().toISOString().slice(0, 10);
}

function filtersEcho(o: ViewOptions) {
  return {
    include_cleared: o.include_cleared, confirmed_only: o.confirmed_only, known_exploited_only: o.known_exploited_only,
    fix_available_only: o.fix_available_only, cve_page: o.cve_page, cve_page_size: o.cve_page_size,
  };
}

function newest(dates: (string | null)[]): string | null {
  let m: string | null = null;
  for (const d of dates) if (d && (!m || d > m)) m = d;
  return m;
}

function validateSoftware(items: unknown[], accepted: Set<string>): { stored: SoftwareInput[]; rejected: { asset_id: string | null; index: number; errors: SoftwareError[] }[] } {
  const stored: SoftwareInput[] = [];
  const rejected: { asset_id: string | null; index: number; errors: SoftwareError[] }[] = [];
  items.forEach((raw, index) => {
    const errors: SoftwareError[] = [];
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
      rejected.push({ asset_id: null, index, errors: [{ code: 'missing_field', field: 'asset_id', message: 'a software record must be an object' }] });
      return;
    }
    const r = raw as Record<string, unknown>;
    for (const k of Object.keys(r)) {
      if (!(SOFTWARE_FIELDS as readonly string[]).includes(k)) errors.push({ code: 'unknown_field', field: k, message: 'field is not part of the software record (asset_id, name, publisher, version)' });
    }
    const str = (k: string) => (typeof r[k] === 'string' ? r[k].trim() : r[k] === undefined || r[k] === null ? '' : null);
    const assetId = str('asset_id');
    const name = str('name');
    let echo: string | null = null;
    if (!assetId) errors.push({ code: 'missing_field', field: 'asset_id', message: 'required field is missing' });
    else if (assetId.length > 64 || looksIdentifying(assetId)) errors.push({ code: 'forbidden_value', field: 'asset_id', message: 'asset_id must be a scrubbed identifier' });
    else if (!accepted.has(assetId)) errors.push({ code: 'unknown_host', field: 'asset_id', message: 'software is stored only for hosts listed (and accepted) in windows_hosts' });
    else echo = assetId;
    if (!name) errors.push({ code: 'missing_field', field: 'name', message: 'required field is missing' });
    for (const k of ['name', 'publisher', 'version']) {
      const v = str(k);
      if (v === null) errors.push({ code: 'missing_field', field: k, message: 'must be a string' });
      else if (v.length > 500) errors.push({ code: 'forbidden_value', field: k, message: 'at most 500 characters' });
      else if (v && isPlaceholder(v)) errors.push({ code: 'placeholder_value', field: k, message: 'placeholder value; send an empty value for unknown' });
      else if (v && /[a-z]:\\|\\\\/i.test(v)) errors.push({ code: 'forbidden_value', field: k, message: 'install paths must not be sent' });
    }
    if (errors.length) rejected.push({ asset_id: echo, index, errors });
    else stored.push({ asset_id: assetId!, name: name!, publisher: str('publisher') || null, version: str('version') || null });
  });
  return { stored, rejected };
}

/** Route policy of the two submissions: tenant data, with an environment id in the body (docs/routes.md). */
const ENV_IN_BODY: TenantDecl = { resource: 'windows_results', ids: [{ in: 'body', name: 'environment_id', foreign: 'environment_not_found' }] };

const assets: FastifyPluginAsync = async (app) => {
  const data = new WindowsData(app.deps.store.db);
  // Once the server listens, the evaluation index is built in the background (never on app.inject in tests).
  let closing = false;
  app.addHook('onClose', async () => { closing = true; });
  app.addHook('onListen', async () => {
    data.warm().then(
      (w) => app.log.info({ windows_index: w }, 'Windows evaluation index ready'),
      (err: Error) => { if (!closing) app.log.warn({ err: err.message }, 'Windows evaluation index not built ahead; the first v2 call builds it'); },
    );
  });
  await app.register(multipart, { limits: { files: 2, fileSize: CSV_PART_LIMIT, fields: 20, fieldSize: CSV_PART_LIMIT, parts: 24 } });

  // Spec §5.9: each v2 call logs time, key, path, status, host count and duration; never a body.
  app.addHook('onResponse', async (req, reply) => {
    if (!req.url.startsWith('/api/v2/')) return;
    req.log.info({
      v2: true, key_id: req.principal?.keyId ?? null, path: req.routeOptions.url ?? req.url.split('?')[0], status: reply.statusCode,
      hosts: req.v2Hosts ?? 0, duration_ms: Math.round(reply.elapsedTime),
    }, 'v2 call');
  });

  async function correlate(req: FastifyRequest, reply: FastifyReply, input: CorrelateInput) {
    const p = req.principal!;
    if (input.environmentId !== null && !(await environmentExists(app.deps.store.db, p.orgId, input.environmentId))) {
      throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: input.environmentId } });
    }
    const rejected: Rejected[] = [];
    const accepted: { host: WindowsHost; warnings: ReturnType<typeof validateHost> extends infer V ? V extends { ok: true; warnings: infer W } ? W : never : never }[] = [];
    input.hosts.forEach((raw, index) => {
      const v = validateHost(raw);
      if (v.ok) accepted.push({ host: v.host, warnings: v.warnings });
      else rejected.push({ asset_id: v.asset_id, index, errors: v.errors, retryable: false, retry_after_seconds: null, action: 'fix_input' });
    });
    if (accepted.length === 0) {
      // Spec §4.2: every host refused → 422 with all of them in data.rejected. Nothing is stored.
      throw new ApiError('VALIDATION_ERROR', {
        message: input.hosts.length ? 'Every host was refused; see data.rejected' : 'windows_hosts is empty',
        fields: [{ field: 'windows_hosts', message: input.hosts.length ? 'every host was refused' : 'at least one host is required', type: 'value_error.hosts' }],
        data: { rejected, software_stored: 0, software_rejected: [] },
      });
    }
    const sw = validateSoftware(input.software, new Set(accepted.map((a) => a.host.asset_id)));
    const info = await data.index();
    const run = new EvaluationRun(info.index, await data.signals(info), today(req));
    const evals: HostEvaluation[] = accepted.map((a) => run.evaluate(a.host, a.warnings));
    const views: HostView[] = evals.map((e) => viewHost(e, input.options));
    // Stored: the validated host record, the evaluation date and the host-level result (product, labels,
    // counts, fix groups). The per-CVE list is recomputed from these when read (GET results).
    await storeResults(app.deps.store.db, p.orgId, input.environmentId, today(req), req.id,
      evals.map((e, i) => ({ asset_id: e.asset_id, host: accepted[i].host, warnings: e.warnings, data_as_of: e.data_as_of, result: header(e) })),
      sw.stored);
    const meta = {
      api_version: '2',
      microsoft_data_as_of: newest(evals.map((e) => e.data_as_of)) ?? info.index.dataAsOf,
      took_ms: Math.max(0, Math.round(performance.now() - req.startedAt)),
      sort: input.options.sort,
      filters: filtersEcho(input.options),
    };
    const rest = { rejected, software_stored: sw.stored.length, software_rejected: sw.rejected, fix_summary: fixSummary(evals) };
    return sendJson(reply.code(200),
      `{"api":${JSON.stringify(apiBlock(req))},"data":{"assets":[${views.map(hostJson).join(',')}],${JSON.stringify(rest).slice(1, -1)}},"meta":${JSON.stringify(meta)}}`);
  }

  app.post('/api/v2/assets/correlate', {
    schema: {
      tags: ['windows'],
      summary: 'Submit up to 200 Windows hosts (JSON) and get per-CVE status, fix groups and a fix summary (spec §4.2)',
      security: [{ apiKey: [] }, { session: [] }],
      querystring: Type.Object({}),
    },
    config: { auth: { mode: 'key_or_session', role: 'admin', scope: 'write', tenant: ENV_IN_BODY } },
  }, async (req, reply) => {
    const body = req.body;
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw validationError('body', 'the body must be a JSON object', 'type_error.dict');
    const b = body as Record<string, unknown>;
    const extra = Object.keys(b).filter((k) => !(TOP_LEVEL as readonly string[]).includes(k));
    if (extra.length) {
      throw new ApiError('VALIDATION_ERROR', {
        message: `Top-level field${extra.length > 1 ? 's' : ''} not allowed: ${extra.join(', ')}`,
        fields: extra.map((k) => ({ field: `body.${k}`, message: 'only environment_id, windows_hosts, installed_software and options are accepted', type: 'value_error.extra' })),
      });
    }
    if (!Array.isArray(b.windows_hosts)) throw validationError('body.windows_hosts', 'windows_hosts must be an array of host records', 'type_error.list');
    req.v2Hosts = b.windows_hosts.length;
    // Spec §8: one budget per key shared by v1 correlate and v2 (a refused batch is charged its request only).
    await app.limits.correlation.check(req.principal!, b.windows_hosts.length > MAX_HOSTS ? 0 : b.windows_hosts.length);
    if (b.windows_hosts.length > MAX_HOSTS) {
      throw new ApiError('BATCH_TOO_LARGE', { message: `At most ${MAX_HOSTS} hosts per call`, max: MAX_HOSTS, detail: { received: b.windows_hosts.length } });
    }
    let environmentId: number | null = null;
    if (b.environment_id !== undefined && b.environment_id !== null) {
      if (typeof b.environment_id !== 'number' || !Number.isSafeInteger(b.environment_id) || b.environment_id < 1) throw validationError('body.environment_id', 'environment_id must be a positive integer', 'type_error.integer');
      environmentId = b.environment_id;
    }
    if (b.installed_software !== undefined && !Array.isArray(b.installed_software)) throw validationError('body.installed_software', 'installed_software must be an array', 'type_error.list');
    const software = (b.installed_software as unknown[] | undefined) ?? [];
    if (software.length > MAX_SOFTWARE) throw new ApiError('BATCH_TOO_LARGE', { message: `At most ${MAX_SOFTWARE} software records per call`, max: MAX_SOFTWARE, detail: { received: software.length } });
    if (b.options !== undefined && (typeof b.options !== 'object' || b.options === null || Array.isArray(b.options))) throw validationError('body.options', 'options must be an object', 'type_error.dict');
    const parsed = parseViewOptions((b.options as Record<string, unknown>) ?? {}, { fromText: false, includeClearedDefault: false, prefix: 'body.options.' });
    if (!parsed.ok) throw new ApiError('VALIDATION_ERROR', { message: 'Invalid options', fields: parsed.errors });
    return correlate(req, reply, { environmentId, hosts: b.windows_hosts, software, options: parsed.options });
  });

  app.post('/api/v2/assets/correlate-csv', {
    schema: {
      tags: ['windows'],
      summary: 'Same as correlate, as a multipart CSV upload: hosts (CSV with the §2.6 field names), optional software (asset_id,name,publisher,version), options as form fields',
      security: [{ apiKey: [] }, { session: [] }],
      querystring: Type.Object({}),
    },
    config: { auth: { mode: 'key_or_session', role: 'admin', scope: 'write', tenant: ENV_IN_BODY } },
  }, async (req, reply) => {
    if (!req.isMultipart()) throw validationError('body', 'send multipart/form-data with a hosts part', 'type_error.multipart');
    const fields: Record<string, string> = {};
    let hostsCsv: string | null = null;
    let softwareCsv: string | null = null;
    for await (const part of req.parts()) {
      const text = part.type === 'file' ? (await part.toBuffer()).toString('utf8') : typeof part.value === 'string' ? part.value : '';
      if (part.fieldname === 'hosts') hostsCsv = text;
      else if (part.fieldname === 'software') softwareCsv = text;
      else if (part.type === 'file') throw validationError(`body.${part.fieldname}`, 'only the hosts and software parts may be files', 'value_error.extra');
      else fields[part.fieldname] = text;
    }
    const unknown = Object.keys(fields).filter((k) => k !== 'environment_id' && !(OPTION_NAMES as readonly string[]).includes(k));
    if (unknown.length) {
      throw new ApiError('VALIDATION_ERROR', {
        message: `Form field${unknown.length > 1 ? 's' : ''} not allowed: ${unknown.join(', ')}`,
        fields: unknown.map((k) => ({ field: `body.${k}`, message: 'accepted parts: environment_id, hosts, software and the options', type: 'value_error.extra' })),
      });
    }
    if (hostsCsv === null) throw validationError('body.hosts', 'the hosts part is required', 'value_error.missing');
    const hostRows = readCsv(hostsCsv, 'hosts');
    req.v2Hosts = hostRows.length;
    await app.limits.correlation.check(req.principal!, hostRows.length > MAX_HOSTS ? 0 : hostRows.length);
    if (hostRows.length > MAX_HOSTS) throw new ApiError('BATCH_TOO_LARGE', { message: `At most ${MAX_HOSTS} hosts per call`, max: MAX_HOSTS, detail: { received: hostRows.length } });
    const software = softwareCsv === null ? [] : readCsv(softwareCsv, 'software');
    if (software.length > MAX_SOFTWARE) throw new ApiError('BATCH_TOO_LARGE', { message: `At most ${MAX_SOFTWARE} software records per call`, max: MAX_SOFTWARE, detail: { received: software.length } });
    let environmentId: number | null = null;
    const env = fields.environment_id?.trim();
    if (env) {
      if (!/^\d{1,15}$/.test(env) || Number(env) < 1) throw validationError('body.environment_id', 'environment_id must be a positive integer', 'type_error.integer');
      environmentId = Number(env);
    }
    const optionFields = Object.fromEntries(Object.entries(fields).filter(([k]) => k !== 'environment_id'));
    const parsed = parseViewOptions(optionFields, { fromText: true, includeClearedDefault: true, prefix: 'body.' });
    if (!parsed.ok) throw new ApiError('VALIDATION_ERROR', { message: 'Invalid options', fields: parsed.errors });
    return correlate(req, reply, { environmentId, hosts: hostRows.map(csvRowToHostRecord), software, options: parsed.options });
  });

  app.get('/api/v2/assets/results', {
    schema: {
      tags: ['windows'],
      summary: 'Stored results by environment_id or asset_id, with the ordering, filter and paging options of correlate; hosts paged by page/per_page',
      security: [{ apiKey: [] }, { session: [] }],
      querystring: Type.Object({
        environment_id: Type.Optional(Type.String({ maxLength: 20 })),
        asset_id: Type.Optional(Type.String({ maxLength: 64 })),
        include_cleared: Type.Optional(Type.String({ maxLength: 5 })),
        sort: Type.Optional(Type.String({ maxLength: 20 })),
        confirmed_only: Type.Optional(Type.String({ maxLength: 5 })),
        known_exploited_only: Type.Optional(Type.String({ maxLength: 5 })),
        fix_available_only: Type.Optional(Type.String({ maxLength: 5 })),
        cve_page: Type.Optional(Type.String({ maxLength: 10 })),
        cve_page_size: Type.Optional(Type.String({ maxLength: 10 })),
        page: Type.Optional(Type.String({ maxLength: 10 })),
        per_page: Type.Optional(Type.String({ maxLength: 10 })),
      }),
    },
    config: {
      auth: {
        mode: 'key_or_session', role: 'viewer', scope: 'read',
        tenant: {
          resource: 'windows_results',
          ids: [{ in: 'query', name: 'environment_id', foreign: 'environment_not_found' }, { in: 'query', name: 'asset_id', foreign: 'empty' }],
        },
      },
    },
  }, async (req) => {
    const p = req.principal!;
    await app.limits.correlation.check(p, 0);
    const q = req.query as Record<string, string | undefined>;
    const { environment_id: envText, asset_id: assetId, page: pageText, per_page: perText, ...opts } = q;
    const errors: { field: string; message: string; type: string }[] = [];
    let environmentId: number | undefined;
    if (envText !== undefined) {
      if (!/^\d{1,15}$/.test(envText) || Number(envText) < 1) errors.push({ field: 'query.environment_id', message: 'must be a positive integer', type: 'type_error.integer' });
      else environmentId = Number(envText);
    }
    if (assetId !== undefined && assetId.trim() === '') errors.push({ field: 'query.asset_id', message: 'must not be empty', type: 'value_error' });
    if (environmentId === undefined && assetId === undefined && !errors.length) errors.push({ field: 'query', message: 'give environment_id or asset_id', type: 'value_error.missing' });
    const page = pageText === undefined ? 1 : Number(pageText);
    const perPage = perText === undefined ? 50 : Number(perText);
    if (!Number.isInteger(page) || page < 1) errors.push({ field: 'query.page', message: 'must be an integer of at least 1', type: 'value_error' });
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > MAX_HOSTS) errors.push({ field: 'query.per_page', message: `must be an integer from 1 to ${MAX_HOSTS}`, type: 'value_error' });
    const parsed = parseViewOptions(opts, { fromText: true, includeClearedDefault: false, prefix: 'query.' });
    if (!parsed.ok) errors.push(...parsed.errors);
    if (errors.length || !parsed.ok) throw new ApiError('VALIDATION_ERROR', { fields: errors });
    if (environmentId !== undefined && !(await environmentExists(app.deps.store.db, p.orgId, environmentId))) {
      throw new ApiError('ENVIRONMENT_NOT_FOUND', { detail: { environment_id: environmentId } });
    }
    const o = parsed.options;
    const { total, rows } = await listResults(app.deps.store.db, p.orgId, { environmentId, assetId: assetId?.trim() }, perPage, (page - 1) * perPage);
    req.v2Hosts = rows.length;
    // Each stored host is re-evaluated at its stored evaluation date (the same date-dependent labels and ESU
    // decisions as when it was submitted) against the Microsoft data current now.
    const info = await data.index();
    const signals = await data.signals(info);
    const runs = new Map<string, EvaluationRun>();
    const views: (HostView & { environment_id: number | null; evaluated_on: string })[] = [];
    const evals: HostEvaluation[] = [];
    for (const r of rows) {
      let run = runs.get(r.evaluated_on);
      if (!run) { run = new EvaluationRun(info.index, signals, r.evaluated_on); runs.set(r.evaluated_on, run); }
      const e = run.evaluate(r.host as WindowsHost, r.warnings as HostEvaluation['warnings']);
      evals.push(e);
      views.push({ ...viewHost(e, o), environment_id: r.environment_id, evaluated_on: r.evaluated_on });
    }
    return {
      api: apiBlock(req),
      data: { assets: views, fix_summary: fixSummary(evals) },
      pagination: { total, page, per_page: perPage, pages: Math.ceil(total / perPage), has_next: page * perPage < total, has_prev: page > 1, count: rows.length },
      meta: {
        api_version: '2',
        microsoft_data_as_of: newest(evals.map((e) => e.data_as_of)) ?? info.index.dataAsOf,
        took_ms: Math.max(0, Math.round(performance.now() - req.startedAt)),
        sort: o.sort,
        filters: { ...filtersEcho(o), environment_id: environmentId ?? null, asset_id: assetId ?? null },
      },
    };
  });
};

// ---- serialisation ------------------------------------------------------------------------------------------
// Responses can hold tens of thousands of CVE objects; hosts with the same facts share rendered CVEs, so each
// CVE object is serialised once and the body is assembled from the pieces (same JSON as JSON.stringify).

const CVE_JSON = new WeakMap<object, string>();

function cveJson(c: HostView['cves'][number]): string {
  let j = CVE_JSON.get(c);
  if (j === undefined) {
    j = JSON.stringify(c);
    CVE_JSON.set(c, j);
  }
  return j;
}

function hostJson(v: HostView): string {
  const { cves, ...rest } = v;
  return `${JSON.stringify(rest).slice(0, -1)},"cves":[${cves.map(cveJson).join(',')}]}`;
}

function sendJson(reply: FastifyReply, body: string) {
  return reply.type('application/json; charset=utf-8').serializer((x: unknown) => x as string).send(body);
}

// ---- stored form ----------------------------------------------------------------------------------------

/** The host-level part of a result, kept with the host record (the CVE list is recomputed when read). */
function header(e: HostEvaluation) {
  const { items: _i, os_build: _b, ...h } = e;
  void _i; void _b;
  return h;
}

function readCsv(text: string, part: string): Record<string, string>[] {
  let rows: string[][];
  try {
    rows = parseCsv(text, { bom: true, skip_empty_lines: true, relax_column_count: false, max_record_size: 1024 * 1024 });
  } catch (e) {
    throw validationError(`body.${part}`, `the ${part} CSV could not be read: ${(e as Error).message.split('\n')[0].slice(0, 200)}`, 'value_error.csv');
  }
  if (rows.length === 0) throw validationError(`body.${part}`, `the ${part} CSV has no header row`, 'value_error.csv');
  const header = rows[0].map((h) => h.trim());
  const dup = header.find((h, i) => header.indexOf(h) !== i);
  if (dup !== undefined) throw validationError(`body.${part}`, `duplicate column ${dup.slice(0, 64)}`, 'value_error.csv');
  if (header.some((h) => h === '')) throw validationError(`body.${part}`, 'empty column name in the header row', 'value_error.csv');
  if (part === 'software' && header.some((h) => !(SOFTWARE_FIELDS as readonly string[]).includes(h))) {
    throw validationError('body.software', 'software columns are asset_id, name, publisher, version', 'value_error.csv');
  }
  void HOST_FIELDS;
  // A multipart part is no parsed body, so the edge text check (http/text-guard.ts) runs here, per row and column.
  return refuseHostileText(rows.slice(1).map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? '']))), `body.${part}`);
}

export default assets;
