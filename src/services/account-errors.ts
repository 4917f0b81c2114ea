// The refusals of the accounts service (services/accounts.ts, services/account-keys.ts), which routes map to their
// spec §7 answer (http/schemas/accounts.ts accountError), and the one timestamp form of their answers.

export type AccountErrorCode =
  | 'rate_limited' | 'login_link_invalid' | 'no_active_organization' | 'not_a_member' | 'invalid_email' | 'email_taken'
  | 'cap_exceeded' | 'already_member' | 'not_found' | 'owner_cannot_be_removed' | 'role_required'
  | 'upgrade_required' | 'scope_not_allowed' | 'trial_unavailable' | 'trial_ended' | 'confirmation_required'
  | 'not_a_provider' | 'invitation_invalid' | 'key_revoked' | 'too_many_preferences' | 'session_required' | 'not_key_holder' | 'insufficient_scope'
  | 'org_removed';

/** A refused account operation; `detail` carries the structured part of the answer (cap_exceeded: resource, limit, used). */
export class AccountError extends Error {
  constructor(readonly code: AccountErrorCode, message: string, readonly detail: Record<string, unknown> = {}) {
    super(message);
  }
}

/** A stored time as the answers give it (ISO 8601, UTC), or null. */
export const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);
