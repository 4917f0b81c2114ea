// The refusals of the accounts service (services/accounts.ts, services/accounts/): the one refusal model
// (services/refusal.ts) with the accounts' codes; and the one timestamp form of their answers.
import { Refusal, type AccountRefusalCode } from './refusal.ts';

export type AccountErrorCode = AccountRefusalCode;

/** A refused account operation; `detail` carries the structured part of the answer (cap_exceeded: resource, limit, used). */
export class AccountError extends Refusal {
  declare readonly code: AccountErrorCode;
  constructor(code: AccountErrorCode, message: string, detail: Record<string, unknown> = {}) {
    super(code, message, detail);
  }
}

/** A stored time as the answers give it (ISO 8601, UTC), or null. */
export const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);
