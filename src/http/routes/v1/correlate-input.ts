// What the asset correlation routes share (correlate-cves, /check, check-windows; docs/correlation.md §5–7): the
// wording of their body's refusals, the fields checked after the limits (ADR 0106), the limits themselves in the
// documented order, and their OpenAPI refusals.
// Order of refusals: free account (403 TRIAL_REQUIRED) → per-key rate (429, one budget with v2) → batch size
// (413 BATCH_TOO_LARGE, max 200) → trial batch (413 TRIAL_BATCH_LIMIT, max 25) → body fields (422) → the
// service (trial and partner asset checks: 429, nothing processed).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { Value } from 'typebox/value';
import { ApiError } from '../../errors.ts';
import type { TenantDecl } from '../../auth.ts';
import { TRIAL, TRIAL_CONTACT_URL } from '../../../domain/tiers.ts';
import { MAX_ASSETS } from '../../../services/asset-correlation.ts';
import { DEFAULT_OPTIONS, SORTS, type CorrelateOptions } from '../../../services/correlation-answer.ts';
import { CorrelateBody, CorrelateOptionsSchema } from './asset-schemas.ts';
import { batchLimit, perKeyRateLimit, type RouteError } from '../../openapi-errors.ts';
import { validationError, type FieldWords } from '../../validation-errors.ts';
import type { AjvErr } from '../../union-errors.ts';

export const ENV_IN_BODY: TenantDecl = {
  resource: 'asset_correlations',
  ids: [{ in: 'body', name: 'environment_id', foreign: 'environment_not_found' }],
};
const OPTION_KEYS = Object.keys(DEFAULT_OPTIONS);

/** OpenAPI: the refusals of `limits` below and of the service's asset-check charge, per route. */
export const PARTNER_LIMIT: RouteError = {
  key: 'PARTNER_LIMIT',
  when: "the partner key's monthly asset checks would be passed (detail used, limit, remaining, requested, resets_at; reset_at); nothing processed",
};
export const FOR_TRIAL_KEYS: RouteError[] = [
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
export function batchWords(key: string, allowed: string[]): FieldWords {
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
export type Later = { environmentId: () => number | null; options: () => CorrelateOptions };

/**
 * The later fields of a correlate body, each refused alone in turn: environment_id first, then the options (all of
 * their problems at once, "Invalid options", in the body's order). `options: null` reads as no options.
 */
export function laterFields(req: FastifyRequest, body: CorrelateInput): Later {
  const data = Object.fromEntries(
    Object.entries({ environment_id: body.environment_id, options: body.options ?? undefined }).filter(
      ([, v]) => v !== undefined,
    ),
  );
  const validate = req.compileValidationSchema(LaterFields, 'body');
  const errors: AjvErr[] = validate(data) ? [] : (validate.errors ?? []);
  const on = (name: string) =>
    errors.filter((e) => e.instancePath === `/${name}` || e.instancePath?.startsWith(`/${name}/`));
  return {
    environmentId() {
      if (on('environment_id').length) throw validationError(on('environment_id'), 'body', CORRELATE_WORDS);
      return typeof body.environment_id === 'number' ? body.environment_id : null;
    },
    options() {
      const o = data.options;
      const bad = on('options');
      if (bad.length) {
        const given = typeof o === 'object' && o !== null && !Array.isArray(o) ? Object.keys(o) : null;
        const notObject = given === null || bad.some((e) => e.instancePath === '/options' && e.keyword === 'type');
        throw validationError(
          bad,
          'body',
          CORRELATE_WORDS,
          notObject ? undefined : { message: 'Invalid options', order: given },
        );
      }
      // Valid by here (or absent): the check only gives the options their type.
      return Value.Check(CorrelateOptionsSchema, o) ? { ...DEFAULT_OPTIONS, ...o } : { ...DEFAULT_OPTIONS };
    },
  };
}

/**
 * correlate-cves and /check: the schema checks the body's shape (an object, no unknown field, an array of assets)
 * before the limits, environment_id and options after them (laterFields); each asset is refused alone by the service.
 */
export const CORRELATE_CONFIG = {
  recordArrays: ['assets'],
  laterFields: ['environment_id', 'options'],
  fieldWords: CORRELATE_WORDS,
};
/** A correlate body as its validator leaves it before the limits: an object with an array of assets. */
export interface CorrelateInput {
  assets: unknown[];
  environment_id?: unknown;
  options?: unknown;
}

/** Size, rate and trial limits, in the documented order. */
export function correlationLimits(app: FastifyInstance) {
  return async (req: FastifyRequest, n: number, trialAllowed: boolean, noun: 'assets' | 'hosts' = 'assets') => {
    const p = req.caller;
    if (trialAllowed) app.services.assets.assertAllowed(p);
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
  };
}
