// One error catalogue (spec §7). Every row of the spec's classification table is one entry; code throws
// `new ApiError(key, {...})` and one handler renders the envelope and the Retry-After header from the same value.
// The entries live by area in error-catalogue-*.ts; ERRORS holds them in the spec's order.
import { LIMIT_ERRORS } from './error-catalogue-limits.ts';
import { REQUEST_ERRORS } from './error-catalogue-request.ts';
import { ACCESS_ERRORS } from './error-catalogue-access.ts';
import { SERVER_ERRORS } from './error-catalogue-server.ts';

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

export const ERRORS = { ...LIMIT_ERRORS, ...REQUEST_ERRORS, ...ACCESS_ERRORS, ...SERVER_ERRORS };

// No key in two areas (the spread would keep the later entry without a word): a compile-time check, pair by pair.
type Apart<A, B> = [keyof A & keyof B] extends [never] ? true : false;
type L = typeof LIMIT_ERRORS;
type R = typeof REQUEST_ERRORS;
type A = typeof ACCESS_ERRORS;
type S = typeof SERVER_ERRORS;
const noKeyTwice: [Apart<L, R>, Apart<L, A>, Apart<L, S>, Apart<R, A>, Apart<R, S>, Apart<A, S>] = [
  true,
  true,
  true,
  true,
  true,
  true,
];
void noKeyTwice;

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
