// The one formatter from the validator's errors (Ajv, on each route's TypeBox schemas) to the spec's 422
// VALIDATION_ERROR (§7: detail is a list of {field, message, type}, types in the spec's wording: type_error.dict,
// value_error.extra, value_error.missing, …). A route may word its own fields (route config `fieldWords`), as the
// correlation routes do: then the envelope's message is the refusal's own (one field: its message; unknown top-level
// fields: "Top-level fields not allowed: …"), and unknown fields are reported before anything else, as they are
// the first thing wrong with such a body.
import type { FieldProblem } from '../services/refusal.ts';
import { ApiError } from './errors.ts';
import { DISPLAY_NAME_PATTERN, NAME_TEXT_PATTERN } from './schemas/common.ts';
import { SEVERITY_PATTERN } from './schemas/cves.ts';
import { NAME_TEXT_MESSAGE } from '../domain/text.ts';
import { collapseUnionErrors, type AjvErr } from './union-errors.ts';

/**
 * A route's wording of its fields, by field name as the answer names it (`body`, `body.windows_hosts`, …): any
 * validator error on the field answers this message and type. `<parent>.*` words the fields its object does not
 * accept (additionalProperties; the message is the same for each).
 */
export type FieldWords = Readonly<Record<string, { message: string; type: string }>>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's own wording of its validator's errors (http/validation-errors.ts). */
    fieldWords?: FieldWords;
    /**
     * Top-level body fields the route checks after its limits (a batch route: config recordArrays): the body's
     * validator accepts any value there; the route validates them with their schema and this formatter.
     */
    laterFields?: readonly string[];
  }
}

function fieldName(context: string, e: AjvErr): string {
  const base = context === 'querystring' ? 'query' : context;
  let p = (e.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const prop =
    e.keyword === 'required'
      ? e.params?.missingProperty
      : e.keyword === 'additionalProperties'
        ? e.params?.additionalProperty
        : undefined;
  if (typeof prop === 'string' && prop) p = p ? `${p}.${prop}` : prop;
  return p ? `${base}.${p}` : base;
}

function typeName(e: AjvErr): string {
  switch (e.keyword) {
    case 'required':
      return 'value_error.missing';
    case 'additionalProperties':
      return 'value_error.extra';
    case 'enum':
    case 'const':
      return 'type_error.enum';
    case 'pattern':
    case 'format':
      return 'value_error.str.regex';
    case 'minimum':
    case 'exclusiveMinimum':
      return 'value_error.number.not_ge';
    case 'maximum':
    case 'exclusiveMaximum':
      return 'value_error.number.not_le';
    case 'minLength':
      return 'value_error.any_str.min_length';
    case 'maxLength':
      return 'value_error.any_str.max_length';
    case 'maxItems':
      return 'value_error.list.max_items';
    case 'minItems':
      return 'value_error.list.min_items';
    case 'type':
      return `type_error.${typeof e.params?.type === 'string' ? e.params.type : 'invalid'}`;
    default:
      return `value_error.${e.keyword ?? 'invalid'}`;
  }
}

/** Messages for schema patterns whose regular expression would not tell a client what is wrong. */
const PATTERN_MESSAGES: Record<string, string> = {
  '^(?!0000)': 'year 0000 does not exist; dates start at 0001-01-01',
  '\\S': 'must not be empty or only spaces',
  [DISPLAY_NAME_PATTERN]: `must not be empty or only spaces, nor ${NAME_TEXT_MESSAGE.replace(/^must not /, '')}`,
  [NAME_TEXT_PATTERN]: NAME_TEXT_MESSAGE,
  [SEVERITY_PATTERN]: 'must be CRITICAL, HIGH, MEDIUM or LOW (upper case), or several of them separated by commas',
};

function humanMessage(e: AjvErr): string {
  if (e.text) return e.text;
  const allowed: unknown = e.params?.allowedValues;
  if (e.keyword === 'enum' && Array.isArray(allowed)) return `must be one of: ${allowed.join(', ')}`;
  if (e.keyword === 'additionalProperties') return 'field is not accepted';
  if (e.keyword === 'required') return 'field is required';
  if (e.keyword === 'pattern' && typeof e.params?.pattern === 'string' && PATTERN_MESSAGES[e.params.pattern])
    return PATTERN_MESSAGES[e.params.pattern];
  if (e.keyword === 'format' && e.params?.format === 'date') return 'must be a date as YYYY-MM-DD';
  if (e.keyword === 'format' && e.params?.format === 'date-time')
    return 'must be a date and time as ISO 8601 / RFC 3339 with an offset (2026-06-30T23:59:59Z), seconds 00 to 59';
  return e.message ?? 'invalid value';
}

/** The parent's field name of an unknown field (`body.options.x` → `body.options`). */
const parentOf = (field: string) => field.slice(0, field.lastIndexOf('.'));

/**
 * One refusal for a group of fields (correlate's options): the envelope's message is the group's, and every field's
 * problem is listed (unknown ones included) in `order`, the order of the fields' names in the body.
 */
export interface FieldGroup {
  message: string;
  order: readonly string[];
}

/** The 422 of the validator's errors on one part of the request (`body`, `querystring`, `params`). */
export function validationError(errors: AjvErr[], context: string, words?: FieldWords, group?: FieldGroup): ApiError {
  const problems = collapseUnionErrors(errors).map((e) => {
    const field = fieldName(context, e);
    const extra = e.keyword === 'additionalProperties';
    // The object holding the field, and the field's own name (either may contain dots: taken from the error).
    const parent = extra ? fieldName(context, { ...e, keyword: 'type' }) : parentOf(field);
    const worded = words?.[extra ? `${parent}.*` : field];
    const key = extra
      ? String(e.params?.additionalProperty)
      : (e.instancePath ?? '').split('/').pop()!.replace(/~1/g, '/').replace(/~0/g, '~');
    return {
      extra,
      key,
      parent,
      problem: worded ? { field, ...worded } : { field, message: humanMessage(e), type: typeName(e) },
    };
  });
  // One item per field (docs/api-conventions.md): a repeated enum parameter (sort_by=a&sort_by=b) failed both
  // `type` and `enum`; the first error, the type's, says what is wrong.
  const once = (list: FieldProblem[]) => list.filter((f, i) => list.findIndex((g) => g.field === f.field) === i);
  if (!words) return new ApiError('VALIDATION_ERROR', { fields: once(problems.map((p) => p.problem)) });
  if (group) {
    const ranked = [...problems].sort((a, b) => group.order.indexOf(a.key) - group.order.indexOf(b.key));
    return new ApiError('VALIDATION_ERROR', { message: group.message, fields: once(ranked.map((p) => p.problem)) });
  }
  const extras = problems.filter((p) => p.extra);
  if (extras.length) {
    const names = extras.map((p) => p.key);
    const topLevel = extras.every((p) => p.parent === 'body');
    const message = topLevel
      ? `Top-level field${names.length > 1 ? 's' : ''} not allowed: ${names.join(', ')}`
      : undefined;
    return new ApiError('VALIDATION_ERROR', { message, fields: once(extras.map((p) => p.problem)) });
  }
  const fields = once(problems.map((p) => p.problem));
  return new ApiError('VALIDATION_ERROR', { message: fields.length === 1 ? fields[0].message : undefined, fields });
}
