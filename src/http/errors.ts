// One error catalogue (spec §7). Every row of the spec's classification table is one entry; code throws
// `new ApiError(key, {...})` and one handler renders the envelope and the Retry-After header from the same value.

export type ErrorAction =
  'retry_later' | 'wait_until_reset' | 'reduce_batch' | 'fix_input' | 'use_different_key' | 'contact_us';

export interface CatalogueEntry {
  status: number;
  code: string; // SCREAMING_SNAKE general code
  error: string; // default detail.error (specific lower-case code)
  retryable: boolean;
  /** Fixed seconds, or 'dynamic' when the value is computed per response (per-key window end). */
  retryAfter: number | null | 'dynamic';
  action: ErrorAction;
  message: string;
}

export const ERRORS = {
  // 429
  RATE_LIMITED: {
    status: 429,
    code: 'RATE_LIMITED',
    error: 'rate_limited',
    retryable: true,
    retryAfter: 'dynamic',
    action: 'retry_later',
    message: 'Rate limit exceeded for this API key',
  },
  EDGE_RATE_LIMITED: {
    status: 429,
    code: 'RATE_LIMITED',
    error: 'rate_limited',
    retryable: true,
    retryAfter: 10,
    action: 'retry_later',
    message: 'Too many requests from this address',
  },
  PARTNER_LIMIT: {
    status: 429,
    code: 'PARTNER_LIMIT',
    error: 'partner_limit',
    retryable: false,
    retryAfter: null,
    action: 'wait_until_reset',
    message: 'Monthly asset-check limit of this partner key would be exceeded; nothing was processed',
  },
  TRIAL_LIMIT: {
    status: 429,
    code: 'TRIAL_ENDED',
    error: 'trial_ended',
    retryable: false,
    retryAfter: null,
    action: 'contact_us',
    message: 'The trial asset checks are used up or the request needs more than remain; nothing was processed',
  },
  QUERY_LIMIT: {
    status: 429,
    code: 'RATE_LIMITED',
    error: 'query_limit',
    retryable: false,
    retryAfter: null,
    action: 'wait_until_reset',
    message: 'AI assistant query limit reached',
  },
  FREE_QUERY_LIMIT: {
    status: 429,
    code: 'RATE_LIMITED',
    error: 'free_query_limit',
    retryable: false,
    retryAfter: null,
    action: 'use_different_key',
    message: 'AI assistant limit for callers without an account reached',
  },
  // 403 / 409 trial
  TRIAL_ENDED: {
    status: 403,
    code: 'TRIAL_ENDED',
    error: 'trial_ended',
    retryable: false,
    retryAfter: null,
    action: 'contact_us',
    message: 'The trial is over; this key is no longer accepted',
  },
  TRIAL_CONFLICT: {
    status: 409,
    code: 'TRIAL_ENDED',
    error: 'trial_ended',
    retryable: false,
    retryAfter: null,
    action: 'contact_us',
    message: 'A trial has already been used by this organization',
  },
  TRIAL_UNAVAILABLE: {
    status: 409,
    code: 'TRIAL_UNAVAILABLE',
    error: 'trial_unavailable',
    retryable: false,
    retryAfter: null,
    action: 'contact_us',
    message: 'A trial cannot be started for this organization',
  },
  // 413
  BATCH_TOO_LARGE: {
    status: 413,
    code: 'BATCH_TOO_LARGE',
    error: 'batch_too_large',
    retryable: false,
    retryAfter: null,
    action: 'reduce_batch',
    message: 'Too many items in one call',
  },
  BODY_TOO_LARGE: {
    status: 413,
    code: 'BATCH_TOO_LARGE',
    error: 'body_too_large',
    retryable: false,
    retryAfter: null,
    action: 'reduce_batch',
    message: 'Request body is larger than the service accepts',
  },
  TRIAL_BATCH_LIMIT: {
    status: 413,
    code: 'TRIAL_BATCH_LIMIT',
    error: 'trial_batch_limit',
    retryable: false,
    retryAfter: null,
    action: 'reduce_batch',
    message: 'Trial keys may send at most 25 assets per request',
  },
  // 400 / 422
  UNKNOWN_PARAMETER: {
    status: 400,
    code: 'UNKNOWN_PARAMETER',
    error: 'unknown_parameter',
    retryable: false,
    retryAfter: null,
    action: 'fix_input',
    message: 'Query parameter not accepted by this endpoint',
  },
  BAD_REQUEST: {
    status: 400,
    code: 'BAD_REQUEST',
    error: 'bad_request',
    retryable: false,
    retryAfter: null,
    action: 'fix_input',
    message: 'The request could not be read',
  },
  VALIDATION_ERROR: {
    status: 422,
    code: 'VALIDATION_ERROR',
    error: 'validation_error',
    retryable: false,
    retryAfter: null,
    action: 'fix_input',
    message: 'Parameters failed validation',
  },
  // 404 / 405 / 410 / 409
  NOT_FOUND: {
    status: 404,
    code: 'NOT_FOUND',
    error: 'not_found',
    retryable: false,
    retryAfter: null,
    action: 'fix_input',
    message: 'Resource does not exist',
  },
  ASSET_NOT_FOUND: {
    status: 404,
    code: 'NOT_FOUND',
    error: 'asset_not_found',
    retryable: false,
    retryAfter: null,
    action: 'fix_input',
    message: 'No asset of this id is stored there in your organization',
  },
  ENVIRONMENT_NOT_FOUND: {
    status: 404,
    code: 'NOT_FOUND',
    error: 'environment_not_found',
    retryable: false,
    retryAfter: null,
    action: 'fix_input',
    message: 'No such environment in your organization',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    code: 'METHOD_NOT_ALLOWED',
    error: 'method_not_allowed',
    retryable: false,
    retryAfter: null,
    action: 'fix_input',
    message: 'Method not supported on this path',
  },
  GONE: {
    status: 410,
    code: 'GONE',
    error: 'gone',
    retryable: false,
    retryAfter: null,
    action: 'fix_input',
    message: 'Resource is gone',
  },
  CONFLICT: {
    status: 409,
    code: 'CONFLICT',
    error: 'conflict',
    retryable: false,
    retryAfter: null,
    action: 'fix_input',
    message: 'The request conflicts with the current state',
  },
  CONFIRMATION_REQUIRED: {
    status: 403,
    code: 'FORBIDDEN',
    error: 'confirmation_required',
    retryable: false,
    retryAfter: null,
    action: 'fix_input',
    message: 'Confirmation text required',
  },
  // 401
  AUTH_REQUIRED: {
    status: 401,
    code: 'AUTH_REQUIRED',
    error: 'auth_required',
    retryable: false,
    retryAfter: null,
    action: 'use_different_key',
    message: 'Valid session or API key required',
  },
  // 403 scope families
  PARTNER_SCOPE: {
    status: 403,
    code: 'PARTNER_SCOPE',
    error: 'partner_scope',
    retryable: false,
    retryAfter: null,
    action: 'contact_us',
    message: 'Partner keys may call only the CVE endpoints, correlate-cves and check-windows',
  },
  TRIAL_SCOPE: {
    status: 403,
    code: 'TRIAL_SCOPE',
    error: 'trial_scope',
    retryable: false,
    retryAfter: null,
    action: 'contact_us',
    message: 'Trial keys may call only POST /api/v1/assets/correlate-cves, its /check, and GET /api/v1/cves/{cve_id}',
  },
  TRIAL_REQUIRED: {
    status: 403,
    code: 'TRIAL_REQUIRED',
    error: 'trial_required',
    retryable: false,
    retryAfter: null,
    action: 'use_different_key',
    message: 'A free account needs a trial key for this call',
  },
  API_ONLY_ACCOUNT: {
    status: 403,
    code: 'API_ONLY_ACCOUNT',
    error: 'api_only_account',
    retryable: false,
    retryAfter: null,
    action: 'use_different_key',
    message: 'This account may use the API only',
  },
  API_KEY_REQUIRED: {
    status: 403,
    code: 'API_KEY_REQUIRED',
    error: 'api_key_required',
    retryable: false,
    retryAfter: null,
    action: 'use_different_key',
    message: 'This call needs an API key',
  },
  DEMO_EXAMPLES_ONLY: {
    status: 403,
    code: 'DEMO_EXAMPLES_ONLY',
    error: 'demo_examples_only',
    retryable: false,
    retryAfter: null,
    action: 'use_different_key',
    message: 'The demo account may query the examples only',
  },
  INSUFFICIENT_SCOPE: {
    status: 403,
    code: 'FORBIDDEN',
    error: 'insufficient_scope',
    retryable: false,
    retryAfter: null,
    action: 'use_different_key',
    message: 'This API key lacks the scope this call needs',
  },
  VIEWER_ROLE: {
    status: 403,
    code: 'FORBIDDEN',
    error: 'viewer_role',
    retryable: false,
    retryAfter: null,
    action: 'use_different_key',
    message: 'Read-only members (viewer role) cannot perform write operations',
  },
  DEMO_READ_ONLY: {
    status: 403,
    code: 'FORBIDDEN',
    error: 'demo_read_only',
    retryable: false,
    retryAfter: null,
    action: 'use_different_key',
    message: 'The demo account is read-only',
  },
  ORIGIN_REFUSED: {
    status: 403,
    code: 'FORBIDDEN',
    error: 'origin_refused',
    retryable: false,
    retryAfter: null,
    action: 'use_different_key',
    message: "A write by browser session must come from this service's own origin",
  },
  CSRF_REFUSED: {
    status: 403,
    code: 'FORBIDDEN',
    error: 'csrf_token_invalid',
    retryable: false,
    retryAfter: null,
    action: 'use_different_key',
    message: "A write by browser session needs the session's CSRF token",
  },
  SESSION_REQUIRED: {
    status: 403,
    code: 'FORBIDDEN',
    error: 'session_required',
    retryable: false,
    retryAfter: null,
    action: 'use_different_key',
    message: 'This call accepts a browser session only; API keys are rejected',
  },
  FORBIDDEN: {
    status: 403,
    code: 'FORBIDDEN',
    error: 'forbidden',
    retryable: false,
    retryAfter: null,
    action: 'use_different_key',
    message: 'Not authorized',
  },
  // 402 / 403 upgrade family
  TIER_GATE: {
    status: 402,
    code: 'TIER_GATE',
    error: 'upgrade_required',
    retryable: false,
    retryAfter: null,
    action: 'contact_us',
    message: 'This feature needs a higher plan',
  },
  UPGRADE_REQUIRED: {
    status: 403,
    code: 'FORBIDDEN',
    error: 'upgrade_required',
    retryable: false,
    retryAfter: null,
    action: 'contact_us',
    message: 'This feature needs a higher plan',
  },
  TIER_REQUIRED: {
    status: 403,
    code: 'FORBIDDEN',
    error: 'tier_required',
    retryable: false,
    retryAfter: null,
    action: 'contact_us',
    message: 'This feature needs a higher plan',
  },
  CAP_EXCEEDED: {
    status: 403,
    code: 'FORBIDDEN',
    error: 'cap_exceeded',
    retryable: false,
    retryAfter: null,
    action: 'contact_us',
    message: 'Plan cap reached',
  },
  LIMIT_REACHED: {
    status: 403,
    code: 'FORBIDDEN',
    error: 'limit_reached',
    retryable: false,
    retryAfter: null,
    action: 'contact_us',
    message: 'Plan limit reached',
  },
  // 5xx
  INTERNAL_ERROR: {
    status: 500,
    code: 'INTERNAL_ERROR',
    error: 'internal_error',
    retryable: true,
    retryAfter: 5,
    action: 'retry_later',
    message: 'Internal server error',
  },
  DB_TIMEOUT: {
    status: 500,
    code: 'INTERNAL_ERROR',
    error: 'database_timeout',
    retryable: true,
    retryAfter: 5,
    action: 'retry_later',
    message: 'The database did not answer in time',
  },
  UPSTREAM_ERROR: {
    status: 502,
    code: 'ERROR',
    error: 'upstream_error',
    retryable: true,
    retryAfter: 10,
    action: 'retry_later',
    message: 'An upstream service failed',
  },
  EDGE_UNAVAILABLE: {
    status: 502,
    code: 'SERVICE_UNAVAILABLE',
    error: 'service_unavailable',
    retryable: true,
    retryAfter: 10,
    action: 'retry_later',
    message: 'Service unavailable',
  },
  DB_UNAVAILABLE: {
    status: 503,
    code: 'ERROR',
    error: 'database_unavailable',
    retryable: true,
    retryAfter: 30,
    action: 'retry_later',
    message: 'The database is unavailable',
  },
  EDGE_OVERLOADED: {
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    error: 'service_unavailable',
    retryable: true,
    retryAfter: 30,
    action: 'retry_later',
    message: 'Service unavailable',
  },
  DEMO_UNAVAILABLE: {
    status: 503,
    code: 'ERROR',
    error: 'demo_unavailable',
    retryable: false,
    retryAfter: null,
    action: 'contact_us',
    message: 'The public demo account is switched off',
  },
  GATEWAY_TIMEOUT: {
    status: 504,
    code: 'GATEWAY_TIMEOUT',
    error: 'gateway_timeout',
    retryable: true,
    retryAfter: 30,
    action: 'retry_later',
    message: 'Gateway timeout',
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorKey = keyof typeof ERRORS;

export interface ApiErrorOptions {
  message?: string;
  /** Merged into detail (object form); detail.error defaults to the catalogue's. */
  detail?: Record<string, unknown>;
  /** Array detail (VALIDATION_ERROR): [{field, message, type}]. */
  fields?: { field: string; message: string; type: string }[];
  retryAfterSeconds?: number;
  resetAt?: string;
  max?: number;
  /** Extra data placed under `data` of the error response (e.g. data.rejected for v2). */
  data?: unknown;
}

export class ApiError extends Error {
  readonly entry: CatalogueEntry;
  constructor(
    readonly key: ErrorKey,
    readonly opts: ApiErrorOptions = {},
  ) {
    super(opts.message ?? ERRORS[key].message);
    this.entry = ERRORS[key];
  }
}

export interface ErrorBody {
  code: string;
  message: string;
  retryable: boolean;
  retry_after_seconds: number | null;
  action: ErrorAction;
  reset_at?: string;
  max?: number;
  detail: Record<string, unknown> | { field: string; message: string; type: string }[];
}

/** Renders the `error` object; also returns the Retry-After value (or null). */
export function renderError(err: ApiError): { status: number; body: ErrorBody; retryAfter: number | null } {
  const e = err.entry;
  let retryAfter: number | null = null;
  if (e.retryAfter === 'dynamic') retryAfter = Math.max(1, Math.ceil(err.opts.retryAfterSeconds ?? 1));
  else if (typeof e.retryAfter === 'number') retryAfter = e.retryAfter;
  let detail: ErrorBody['detail'];
  if (err.opts.fields) {
    detail = err.opts.fields;
  } else {
    detail = { error: e.error, ...(err.opts.detail ?? {}) };
    if (e.retryAfter === 'dynamic') detail.retry_after = retryAfter;
    if (err.opts.max !== undefined) detail.max = err.opts.max;
  }
  const body: ErrorBody = {
    code: e.code,
    message: err.message,
    retryable: e.retryable,
    retry_after_seconds: retryAfter,
    action: e.action,
    detail,
  };
  if (err.opts.resetAt) body.reset_at = err.opts.resetAt;
  if (err.opts.max !== undefined) body.max = err.opts.max;
  return { status: e.status, body, retryAfter };
}
