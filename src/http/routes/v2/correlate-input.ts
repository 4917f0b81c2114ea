// The body of POST /api/v2/assets/correlate, validated by its schema in two stages around the limits (ADR 0106): the
// shape first (an object, no unknown top-level field, windows_hosts an array), then, after the per-key rate and the
// host count (spec §8), environment_id, installed_software and the options, each refused alone in that order, in the
// spec's wording (route config `fieldWords`, http/validation-errors.ts). Each host and software record is refused
// alone by the service (data.rejected, data.software_rejected).
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../errors.ts';
import { MAX_CVE_PAGE, SORTS, parseViewOptions, type ViewOptions } from '../../../domain/windows/view.ts';
import { V2CorrelateBody } from './schemas.ts';
import { validationError, type FieldWords } from '../../validation-errors.ts';
import type { AjvErr } from '../../union-errors.ts';

const BOOLEAN_OPTIONS = ['include_cleared', 'confirmed_only', 'known_exploited_only', 'fix_available_only'] as const;
/** The order the options' problems are listed in, after the unknown names (in the body's order). */
const OPTION_ORDER = [...BOOLEAN_OPTIONS, 'sort', 'cve_page', 'cve_page_size'];

const WORDS: FieldWords = {
  body: { message: 'the body must be a JSON object', type: 'type_error.dict' },
  'body.*': {
    message: 'only environment_id, windows_hosts, installed_software and options are accepted',
    type: 'value_error.extra',
  },
  'body.windows_hosts': { message: 'windows_hosts must be an array of host records', type: 'type_error.list' },
  'body.environment_id': { message: 'environment_id must be a positive integer', type: 'type_error.integer' },
  'body.installed_software': { message: 'installed_software must be an array', type: 'type_error.list' },
  'body.options': { message: 'options must be an object', type: 'type_error.dict' },
  'body.options.*': { message: 'unknown option', type: 'unknown_option' },
  ...Object.fromEntries(
    BOOLEAN_OPTIONS.map((k) => [`body.options.${k}`, { message: 'must be a boolean', type: 'type_error.boolean' }]),
  ),
  'body.options.sort': { message: `sort must be one of ${SORTS.join(', ')}`, type: 'type_error.enum' },
  'body.options.cve_page': { message: `cve_page must be an integer from 1 to ${MAX_CVE_PAGE}`, type: 'value_error' },
  'body.options.cve_page_size': { message: 'cve_page_size must be an integer from 1 to 1000', type: 'value_error' },
};

/**
 * The fields validated after the limits, each by its own schema (so that each is judged alone: a number beyond 2^53,
 * refused after the schema's rules, is not passed over for another field's error): the body schema's, the options
 * refusing a name they do not know.
 */
const LATER = {
  environment_id: Type.Object({ environment_id: V2CorrelateBody.properties.environment_id }),
  installed_software: Type.Object({ installed_software: Type.Optional(Type.Array(Type.Unknown())) }),
  options: Type.Object({
    options: Type.Optional(Type.Object(V2CorrelateBody.properties.options.properties, { additionalProperties: false })),
  }),
};

/**
 * The route's config: installed_software is a record array (its records judged one by one) checked after the limits
 * (an oversized batch of hosts is refused before a malformed software list).
 */
export const CORRELATE_CONFIG = {
  recordArrays: ['windows_hosts', 'installed_software'],
  laterFields: ['environment_id', 'installed_software', 'options'],
  fieldWords: WORDS,
};

/** The body as its validator leaves it before the limits: an object with an array of hosts. */
export interface CorrelateInput {
  windows_hosts: unknown[];
  environment_id?: unknown;
  installed_software?: unknown;
  options?: unknown;
}

/** The later fields of a body, each read (or refused) when the route reaches it. */
export function laterFields(req: FastifyRequest, body: CorrelateInput) {
  /** The validator's errors on one later field (none when it is absent). */
  const on = (name: keyof typeof LATER): AjvErr[] => {
    const value = body[name];
    if (value === undefined) return [];
    const validate = req.compileValidationSchema(LATER[name], 'body');
    return validate({ [name]: value }) ? [] : (validate.errors ?? []);
  };
  const refuse = (name: keyof typeof LATER) => {
    const errors = on(name);
    if (errors.length) throw validationError(errors, 'body', WORDS);
  };
  return {
    environmentId(): number | null {
      refuse('environment_id');
      return typeof body.environment_id === 'number' ? body.environment_id : null;
    },
    software(): unknown[] {
      refuse('installed_software');
      return Array.isArray(body.installed_software) ? body.installed_software : [];
    },
    /** All of the options' problems at once ("Invalid options"): unknown names first, in the body's order. */
    options(): ViewOptions {
      const o = body.options;
      const given = typeof o === 'object' && o !== null && !Array.isArray(o) ? Object.entries(o) : null;
      const bad = on('options');
      if (bad.length) {
        if (given === null) throw validationError(bad, 'body', WORDS);
        const unknown = given.map(([k]) => k).filter((k) => !OPTION_ORDER.includes(k));
        throw validationError(bad, 'body', WORDS, { message: 'Invalid options', order: [...unknown, ...OPTION_ORDER] });
      }
      const parsed = parseViewOptions(Object.fromEntries(given ?? []), {
        fromText: false,
        includeClearedDefault: false,
      });
      if (!parsed.ok) throw new ApiError('VALIDATION_ERROR', { message: 'Invalid options', fields: parsed.errors });
      return parsed.options;
    },
  };
}
