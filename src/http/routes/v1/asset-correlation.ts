// v1 asset correlation (spec §4.7, §5.8, §7, §8; docs/correlation.md §5–7):
//   POST /api/v1/assets/correlate-cves          nameplate assets → CVEs per asset (partner and trial keys too)
//   POST /api/v1/assets/correlate-cves/check    same input, per asset only counts (cheap)
//   POST /api/v1/assets/check-windows           v2 host records → per host counts, end of life, top fix actions
// They compute rather than write (auth `query`: the read scope suffices, so read-only partner keys may call them);
// correlate-cves with environment_id stores results and then needs the write scope (checked here).
// Order of refusals: free account (403 TRIAL_REQUIRED) → per-key rate (429, one budget with v2) → batch size
// (413 BATCH_TOO_LARGE, max 200) → trial batch (413 TRIAL_BATCH_LIMIT, max 25) → body fields (422) → the
// service (trial and partner asset checks: 429, nothing processed).
import { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../errors.ts';
import { apiBlock, ok, pagination } from '../../envelope.ts';
import { AnswerWriter, CHUNK_BYTES, correlateBody, refundOnError } from '../../views/correlate-json.ts';
import type { TenantDecl } from '../../auth.ts';
import { TRIAL, TRIAL_CONTACT_URL } from '../../../domain/tiers.ts';
import { parseViewOptions } from '../../../domain/windows/view.ts';
import { MAX_ASSETS, type CorrelateAnswers } from '../../../services/asset-correlation.ts';
import { DEFAULT_OPTIONS, SORTS, type CorrelateOptions } from '../../../services/correlation-answer.ts';
import { noDecisionCounts } from '../../../services/correlation-decisions.ts';
import {
  CheckBody,
  CheckResponse,
  CheckWindowsResponse,
  CorrelateBody,
  CorrelateResponse,
  StoredResultsResponse,
} from './asset-schemas.ts';
import { NUMERIC_TEXT } from '../../query-numbers.ts';
import { capExceeded, capRefusalDescription } from '../../schemas/accounts.ts';
import { batchLimit, perKeyRateLimit, type RouteError } from '../../openapi-errors.ts';
import { V2CorrelateBody } from '../v2/schemas.ts';
import { validationError, type FieldWords } from '../../validation-errors.ts';
import type { AjvErr } from '../../union-errors.ts';

const ENV_IN_BODY: TenantDecl = {
  resource: 'asset_correlations',
  ids: [{ in: 'body', name: 'environment_id', foreign: 'environment_not_found' }],
};
const OPTION_KEYS = Object.keys(DEFAULT_OPTIONS) as (keyof CorrelateOptions)[];

/** OpenAPI: the refusals of `limits` below and of the service's asset-check charge, per route. */
const PARTNER_LIMIT: RouteError = {
  key: 'PARTNER_LIMIT',
  when: "the partner key's monthly asset checks would be passed (detail used, limit, remaining, requested, resets_at; reset_at); nothing processed",
};
const FOR_TRIAL_KEYS: RouteError[] = [
  { key: 'TRIAL_REQUIRED', when: 'a Free account without a trial key (detail.trial_url, contact_url)' },
  perKeyRateLimit('correlation'),
  batchLimit(MAX_ASSETS, 'assets'),
  batchLimit(TRIAL.perRequest, 'assets from a trial key', 'TRIAL_BATCH_LIMIT'),
  {
    key: 'TRIAL_LIMIT',
    when: `the trial's ${TRIAL.totalChecks} asset checks are used up or fewer remain than sent (detail reason "limit", used, limit, remaining, requested); nothing processed`,
  },
  PARTNER_LIMIT,
];

/** The wording of a batch body's refusals (http/validation-errors.ts): not an object, an unknown top-level field, no record array. */
function batchWords(key: string, allowed: string[]): FieldWords {
  return {
    body: { message: 'the body must be a JSON object', type: 'type_error.dict' },
    'body.*': { message: `only ${[key, ...allowed].join(', ')} are accepted`, type: 'value_error.extra' },
    [`body.${key}`]: { message: `${key} must be an array`, type: 'type_error.list' },
  };
}

/** The wording of correlate-cves' and /check's refusals: the body's, environment_id's and the options'. */
const CORRELATE_WORDS: FieldWords = {
  ...batchWords('assets', ['environment_id', 'options']),
  'body.environment_id': { message: 'environment_id must be a positive integer', type: 'type_error.integer' },
  'body.options': { message: 'options must be an object', type: 'type_error.dict' },
  'body.options.*': { message: `unknown option; accepted: ${OPTION_KEYS.join(', ')}`, type: 'value_error.extra' },
  'body.options.sort': { message: `sort must be one of ${SORTS.join(', ')}`, type: 'value_error.enum' },
  'body.options.cve_page': { message: 'cve_page must be an integer from 1', type: 'type_error.integer' },
  'body.options.cve_page_size': {
    message: 'cve_page_size must be an integer from 1 to 1000',
    type: 'type_error.integer',
  },
  ...Object.fromEntries(
    OPTION_KEYS.filter((k) => k !== 'sort' && k !== 'cve_page' && k !== 'cve_page_size').map((k) => [
      `body.options.${k}`,
      { message: `${k} must be true or false`, type: 'type_error.bool' },
    ]),
  ),
};

/** environment_id and options, validated after the limits (route config laterFields) by their schema. */
const LaterFields = Type.Object({
  environment_id: CorrelateBody.properties.environment_id,
  options: CorrelateBody.properties.options,
});
type Later = { environmentId: () => number | null; options: () => CorrelateOptions };

/**
 * The later fields of a correlate body, each refused alone in turn: environment_id first, then the options (all of
 * their problems at once, "Invalid options", in the body's order). `options: null` reads as no options.
 */
function laterFields(req: FastifyRequest, body: { environment_id?: unknown; options?: unknown }): Later {
  const data = Object.fromEntries(
    Object.entries({ environment_id: body.environment_id, options: body.options ?? undefined }).filter(
      ([, v]) => v !== undefined,
    ),
  );
  const validate = req.compileValidationSchema(LaterFields, 'body');
  const errors = (validate(data) ? [] : (validate.errors ?? [])) as AjvErr[];
  const on = (name: string) =>
    errors.filter((e) => e.instancePath === `/${name}` || e.instancePath?.startsWith(`/${name}/`));
  return {
    environmentId() {
      if (on('environment_id').length) throw validationError(on('environment_id'), 'body', CORRELATE_WORDS);
      return (data.environment_id as number | null | undefined) ?? null;
    },
    options() {
      const bad = on('options');
      const notObject = bad.some((e) => e.instancePath === '/options' && e.keyword === 'type');
      if (bad.length)
        throw validationError(
          bad,
          'body',
          CORRELATE_WORDS,
          notObject ? undefined : { message: 'Invalid options', order: Object.keys(data.options as object) },
        );
      return { ...DEFAULT_OPTIONS, ...(data.options as Partial<CorrelateOptions> | undefined) };
    },
  };
}

/**
 * correlate-cves and /check: the schema checks the body's shape (an object, no unknown field, an array of assets)
 * before the limits, environment_id and options after them (laterFields); each asset is refused alone by the service.
 */
const CORRELATE_CONFIG = {
  recordArrays: ['assets'],
  laterFields: ['environment_id', 'options'],
  fieldWords: CORRELATE_WORDS,
};
interface CorrelateInput {
  assets: unknown[];
  environment_id?: unknown;
  options?: unknown;
}

const tookMs = (req: FastifyRequest) => Math.max(0, Math.round(performance.now() - req.startedAt));

/**
 * Streams a correlation answer (correlate-cves, the stored assets' results). Bytes written by views/correlate-json.ts,
 * not the schema's compiled serializer: a 200-asset answer can list tens of thousands of CVEs (23 MB in
 * bench/correlate.ts; gigabytes when every asset names a large product family), and the parts of each entry that do
 * not depend on the asset are encoded once per cached card and range (ADRs 0038, 0049). The answer is streamed asset
 * by asset, each decided as it is taken (ADR 0051): data.counts and meta.took_ms, written last, cover them all.
 * Tests validate the bytes against the route's schema with Ajv, and OpenAPI documents the route from the same schema.
 */
function sendAnswers(
  req: FastifyRequest,
  reply: FastifyReply,
  r: CorrelateAnswers,
  options: CorrelateOptions,
  data: Record<string, unknown>,
  paging?: unknown,
) {
  const counts = { affected: 0, not_affected: 0, needs_review: 0 };
  const decisionCounts = r.decided ? noDecisionCounts() : null;
  const { sort, ...filters } = options;
  const w = new AnswerWriter();
  const answer = (i: number) => {
    const a = r.answer(i);
    for (const k of Object.keys(counts) as (keyof typeof counts)[]) counts[k] += a.counts[k];
    if (decisionCounts && a.decisions)
      for (const k of Object.keys(decisionCounts) as (keyof typeof decisionCounts)[])
        decisionCounts[k] += a.decisions.counts[k];
    return a;
  };
  const body = correlateBody(
    w,
    apiBlock(req),
    r.count,
    answer,
    () => ({ rejected: r.rejected, counts, ...(decisionCounts ? { decision_counts: decisionCounts } : {}), ...data }),
    () => ({ took_ms: tookMs(req), sort, filters }),
    paging,
  );
  // The pooled chunks are reused once the response is written ('finish': every byte handed to the socket); a
  // response closed before that keeps them (the garbage collector takes them).
  reply.raw.once('finish', () => w.release());
  reply.code(200).type('application/json; charset=utf-8');
  return reply.send(Readable.from(refundOnError(body, r.fail), { objectMode: false, highWaterMark: CHUNK_BYTES }));
}

const assets: FastifyPluginAsync = async (app) => {
  const svc = app.services.assets;

  /** Size, rate and trial limits, in the documented order. */
  async function limits(req: FastifyRequest, n: number, trialAllowed: boolean, noun: 'assets' | 'hosts' = 'assets') {
    const p = req.caller;
    if (trialAllowed) svc.assertAllowed(p);
    await app.limits.correlation.check(p, n > MAX_ASSETS ? 0 : n);
    if (n > MAX_ASSETS)
      throw new ApiError('BATCH_TOO_LARGE', {
        message: `At most ${MAX_ASSETS} ${noun} per call`,
        max: MAX_ASSETS,
        detail: { received: n },
      });
    if (p.kind === 'trial' && n > TRIAL.perRequest) {
      throw new ApiError('TRIAL_BATCH_LIMIT', {
        max: TRIAL.perRequest,
        detail: { received: n, contact_url: TRIAL_CONTACT_URL },
      });
    }
  }

  /** environment_id of correlate-cves, where it stores the results: the key needs the write scope too. */
  function environmentOf(req: FastifyRequest, later: Later): number | null {
    const id = later.environmentId();
    if (id === null) return null;
    // Storing results is a write: the key needs the write scope (a read-only partner key may correlate without it).
    if (!req.caller.scopes.includes('write')) {
      throw new ApiError('INSUFFICIENT_SCOPE', {
        message: 'Storing results in an environment needs the write scope; omit environment_id to correlate only',
        detail: { required_scope: 'write' },
      });
    }
    return id;
  }

  app.post(
    '/api/v1/assets/correlate-cves',
    {
      schema: {
        tags: ['assets'],
        summary:
          'Which CVEs hit these assets: up to 200 nameplate assets (vendor, product, version, optional CPE) → per asset the matched products and CVEs (affected, needs_review, optionally not_affected) with the deciding range. With environment_id the assets are stored there (403 cap_exceeded past the asset cap, nothing stored)',
        description: capRefusalDescription('assets'),
        security: [{ apiKey: [] }, { session: [] }],
        querystring: Type.Object({}),
        body: CorrelateBody,
        response: { 200: CorrelateResponse },
        errors: [
          ...FOR_TRIAL_KEYS,
          capExceeded('assets'),
          {
            key: 'INSUFFICIENT_SCOPE',
            when: 'environment_id sent with a key without the write scope (storing is a write)',
          },
        ],
      },
      // NUL or a lone surrogate in an asset refuses that asset only (validateAsset); elsewhere in the body, the request.
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
    async (req, reply) => {
      const body = req.body as CorrelateInput;
      await limits(req, body.assets.length, true);
      const later = laterFields(req, body);
      const environmentId = environmentOf(req, later);
      const options = later.options();
      const r = await svc.correlate({
        principal: req.caller,
        requestId: req.id,
        assets: body.assets,
        environmentId,
        options,
      });
      return sendAnswers(req, reply, r, options, { environment_id: environmentId, stored: r.stored });
    },
  );

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
      const {
        environment_id: envText,
        asset_id: assetId,
        page: pageText,
        per_page: perText,
        ...opts
      } = req.query as Record<string, string | undefined>;
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
          if ((SORTS as readonly string[]).includes(v)) options.sort = v as CorrelateOptions['sort'];
          else
            errors.push({
              field: 'query.sort',
              message: `sort must be one of ${SORTS.join(', ')}`,
              type: 'value_error.enum',
            });
        } else if (k === 'cve_page' || k === 'cve_page_size') {
          options[k] = decimalInt(k, v, null, k === 'cve_page_size' ? 1000 : Number.MAX_SAFE_INTEGER);
        } else if (v === 'true' || v === 'false') (options as unknown as Record<string, boolean>)[k] = v === 'true';
        else errors.push({ field: `query.${k}`, message: `${k} must be true or false`, type: 'type_error.bool' });
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

  app.post(
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
      const body = req.body as CorrelateInput;
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

  app.post(
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
      const items = (req.body as { windows_hosts: unknown[] }).windows_hosts;
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

export default assets;
