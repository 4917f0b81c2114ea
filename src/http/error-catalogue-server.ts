// The catalogue's failures on the service's side (spec §7): internal errors, the database, upstream services and the
// edge (5xx), each retryable or not as the client should act.
import type { CatalogueEntry } from './errors.ts';

export const SERVER_ERRORS = {
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
