// The one refusal services give (ADR 0099): a typed `code`, a message for the caller (null: the spec's own wording
// for the code), and the structured `detail` of the answer. Services throw it and never name an HTTP status; the
// error handler maps each code to the spec §7 error once (http/refusals.ts), so the same refusal reads the same on
// every route, page and command.

/** A field that failed validation, in the spec's wording (`type_error.dict`, `value_error.extra`, …). */
export interface FieldProblem {
  field: string;
  message: string;
  type: string;
}

/** The accounts service's refusals (services/accounts.ts, services/accounts/). */
export type AccountRefusalCode =
  | 'rate_limited'
  | 'login_link_invalid'
  | 'no_active_organization'
  | 'not_a_member'
  | 'invalid_email'
  | 'email_taken'
  | 'cap_exceeded'
  | 'already_member'
  | 'not_found'
  | 'owner_cannot_be_removed'
  | 'role_required'
  | 'upgrade_required'
  | 'scope_not_allowed'
  | 'trial_unavailable'
  | 'trial_ended'
  | 'confirmation_required'
  | 'not_a_provider'
  | 'invitation_invalid'
  | 'key_revoked'
  | 'too_many_preferences'
  | 'session_required'
  | 'not_key_holder'
  | 'insufficient_scope'
  | 'org_removed';

/** The correlation services' refusals (asset and Windows correlation, the asset-check charge). */
export type CorrelationRefusalCode =
  /** detail: `fields` (FieldProblem[]) and `data` (the answer's data: the refused records). */
  | 'invalid_input'
  /** detail: environment_id. */
  | 'environment_not_found'
  /** A Free account without a trial key; detail: trial_url, contact_url. */
  | 'trial_required'
  /** The trial's asset checks are used up or fewer remain; detail: reason, used, limit, remaining, requested, contact_url. */
  | 'trial_checks_used'
  /** A partner key's monthly asset checks would be passed; detail: used, limit, remaining, requested, resets_at. */
  | 'partner_limit';

/** The identity service's refusals to the operator commands (services/identity.ts; the key policy's are account codes). */
export type IdentityRefusalCode =
  | 'org_not_found'
  | 'key_not_found'
  | 'ambiguous_key'
  | 'role_mismatch'
  | 'owner_exists'
  | 'viewer_partner_key'
  | 'trial_not_started';

/** The triage service's refusals (services/triage.ts; statement_not_found: triage-statements.ts); detail: cve_id (and statement_id). */
export type TriageRefusalCode = 'cve_not_found' | 'decision_not_found' | 'statement_not_found';

/** The watchlist's refusals (services/watchlists.ts): already_watching (detail entry_id), limit_reached (detail max). */
export type WatchlistRefusalCode = 'already_watching' | 'limit_reached';

/** An environment of this name exists (services/environments.ts); detail: name. */
export type EnvironmentRefusalCode = 'environment_exists';

/**
 * A presented API key that is not accepted (services/identity.ts authenticateKey): unknown or malformed, revoked,
 * expired; a trial key whose trial is over (detail.reason: `ended` or `expired`).
 */
export type KeyRefusalCode = 'invalid_api_key' | 'api_key_revoked' | 'api_key_expired' | 'trial_over';

/** The webhooks service's own refusal (services/webhooks.ts); its others are account codes (upgrade_required, not_found). */
export type WebhookRefusalCode = 'rotation_conflict';

/** The training service's refusals (services/training.ts); detail: resource and identifier, or module_id. */
export type TrainingRefusalCode = 'module_not_found' | 'module_not_started';

export type RefusalCode =
  | AccountRefusalCode
  | CorrelationRefusalCode
  | IdentityRefusalCode
  | TriageRefusalCode
  | WatchlistRefusalCode
  | EnvironmentRefusalCode
  | KeyRefusalCode
  | WebhookRefusalCode
  | TrainingRefusalCode;

export class Refusal extends Error {
  /** False when the message is the spec's own wording for the code (the constructor was given null). */
  readonly explained: boolean;
  constructor(
    readonly code: RefusalCode,
    message: string | null,
    readonly detail: Readonly<Record<string, unknown>> = {},
  ) {
    super(message ?? code);
    this.name = 'Refusal';
    this.explained = message !== null;
  }
}

/** Every record of a call refused (or none sent): the per-record refusals ride in `data`. */
export function invalidInput(message: string | null, fields: FieldProblem[], data?: Record<string, unknown>): Refusal {
  return new Refusal('invalid_input', message, data ? { fields, data } : { fields });
}

/** The 422 of a file refused whole (the correlation services' wholeFile): the rejected records in data.rejected, as a call of every record refused. */
export function refusedFile(refused: number, of: number, rejected: unknown[]): Refusal {
  const message = `${refused} of ${of} rows refused; nothing was stored`;
  return invalidInput(message, [{ field: 'body.file', message, type: 'value_error.rows' }], { rejected });
}

/** The environment named is not one of the organization's (or was deleted meanwhile). */
export function environmentNotFound(environmentId: number | string): Refusal {
  return new Refusal('environment_not_found', null, { environment_id: environmentId });
}

/** `e` when it is a refusal of one of `codes` (a caller that answers those itself); anything else is thrown on. */
export function caught(e: unknown, codes: readonly RefusalCode[]): Refusal {
  if (e instanceof Refusal && codes.includes(e.code)) return e;
  throw e;
}
