// The one table from a service refusal (services/refusal.ts) to its spec §7 error (ADR 0099), applied once, in the
// error handler (conventions.ts toApiError): a route never maps a refusal itself. Each row names the catalogue
// entry (errors.ts) and how the refusal's detail becomes the envelope's.
import { ApiError, type ErrorKey } from './errors.ts';
import { isRecord } from '../domain/is-record.ts';
import { TRIAL_CONTACT_URL as CONTACT_URL } from '../domain/tiers.ts';
import { Refusal, type FieldProblem, type RefusalCode } from '../services/refusal.ts';

type Row = (r: Refusal) => ApiError;

const said = (r: Refusal) => (r.explained ? r.message : undefined);
// A refusal's detail members are unchecked values: each is read as the type the row needs, or left out.
const num = (x: unknown) => (typeof x === 'number' ? x : undefined);
const text = (x: unknown) => (typeof x === 'string' ? x : undefined);
const isFieldProblem = (x: unknown): x is FieldProblem =>
  isRecord(x) && typeof x.field === 'string' && typeof x.message === 'string' && typeof x.type === 'string';
const fieldProblems = (x: unknown) => (Array.isArray(x) ? x.filter(isFieldProblem) : undefined);

/** The catalogue entry, with the refusal's detail as the envelope's detail (detail.error: the entry's). */
const plain =
  (key: ErrorKey): Row =>
  (r) =>
    new ApiError(key, { message: said(r), detail: { ...r.detail } });
/** The catalogue entry, detail.error the refusal's own code (the spec's specific lower-case code). */
const tagged =
  (key: ErrorKey): Row =>
  (r) =>
    new ApiError(key, { message: said(r), detail: { error: r.code, ...r.detail } });
/** The catalogue entry with a fixed detail. */
const fixed =
  (key: ErrorKey, detail?: Record<string, unknown>): Row =>
  (r) =>
    new ApiError(key, { message: said(r), detail });
/** 422 on one body field, in the validator's form. */
const onField =
  (field: string, type: string): Row =>
  (r) =>
    new ApiError('VALIDATION_ERROR', { message: r.message, fields: [{ field, message: r.message, type }] });

export const REFUSALS: { readonly [C in RefusalCode]: Row } = {
  // accounts (docs/accounts.md)
  rate_limited: (r) => new ApiError('RATE_LIMITED', { message: said(r), retryAfterSeconds: num(r.detail.retry_after) }),
  login_link_invalid: tagged('AUTH_REQUIRED'),
  invitation_invalid: tagged('AUTH_REQUIRED'),
  org_removed: tagged('AUTH_REQUIRED'),
  invalid_email: onField('body.email', 'format'),
  too_many_preferences: onField('body.preferences', 'maxProperties'),
  scope_not_allowed: onField('body.scopes', 'enum'),
  email_taken: tagged('CONFLICT'),
  already_member: tagged('CONFLICT'),
  key_revoked: tagged('CONFLICT'),
  cap_exceeded: tagged('CAP_EXCEEDED'),
  not_found: fixed('NOT_FOUND', { error: 'not_found' }),
  not_a_member: fixed('NOT_FOUND', { error: 'not_found' }),
  upgrade_required: fixed('UPGRADE_REQUIRED'),
  insufficient_scope: plain('INSUFFICIENT_SCOPE'),
  trial_unavailable: fixed('TRIAL_UNAVAILABLE', { contact_url: CONTACT_URL }),
  trial_ended: fixed('TRIAL_CONFLICT', { contact_url: CONTACT_URL }),
  confirmation_required: tagged('CONFIRMATION_REQUIRED'),
  no_active_organization: tagged('FORBIDDEN'),
  owner_cannot_be_removed: tagged('FORBIDDEN'),
  role_required: tagged('FORBIDDEN'),
  not_a_provider: tagged('FORBIDDEN'),
  session_required: tagged('FORBIDDEN'),
  not_key_holder: tagged('FORBIDDEN'),
  // identity (the operator commands; docs/accounts.md)
  org_not_found: tagged('NOT_FOUND'),
  key_not_found: tagged('NOT_FOUND'),
  trial_not_started: tagged('NOT_FOUND'),
  ambiguous_key: tagged('CONFLICT'),
  role_mismatch: tagged('CONFLICT'),
  owner_exists: tagged('CONFLICT'),
  viewer_partner_key: tagged('FORBIDDEN'),
  // API keys (the auth hook; spec §5, §7)
  invalid_api_key: tagged('AUTH_REQUIRED'),
  api_key_revoked: tagged('AUTH_REQUIRED'),
  api_key_expired: tagged('AUTH_REQUIRED'),
  trial_over: (r) =>
    new ApiError('TRIAL_ENDED', { message: said(r), detail: { ...r.detail, contact_url: CONTACT_URL } }),
  // webhooks (docs/webhooks.md)
  rotation_conflict: tagged('CONFLICT'),
  // training (docs/training.md)
  module_not_found: plain('NOT_FOUND'),
  module_not_started: tagged('CONFLICT'),
  // triage (docs/triage.md)
  cve_not_found: tagged('NOT_FOUND'),
  decision_not_found: tagged('NOT_FOUND'),
  statement_not_found: tagged('NOT_FOUND'),
  // watchlist (docs/watchlists.md)
  already_watching: tagged('CONFLICT'),
  limit_reached: (r) => new ApiError('LIMIT_REACHED', { message: said(r), max: num(r.detail.max) }),
  // environments (docs/windows-engine.md)
  environment_exists: tagged('CONFLICT'),
  // correlation (docs/correlation.md §7)
  invalid_input: (r) =>
    new ApiError('VALIDATION_ERROR', { message: said(r), fields: fieldProblems(r.detail.fields), data: r.detail.data }),
  environment_not_found: plain('ENVIRONMENT_NOT_FOUND'),
  trial_required: plain('TRIAL_REQUIRED'),
  trial_checks_used: plain('TRIAL_LIMIT'),
  partner_limit: (r) =>
    new ApiError('PARTNER_LIMIT', { message: said(r), resetAt: text(r.detail.resets_at), detail: { ...r.detail } }),
};

/** A refusal as its spec §7 error. */
export function refusalError(r: Refusal): ApiError {
  return REFUSALS[r.code](r);
}
